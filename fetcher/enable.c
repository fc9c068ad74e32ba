/*
 * crlcache enable / disable: wire the provider into the system openssl.cnf.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * enable appends one marked block to the file (an .include of the snippet
 * and the init sections, see osslconf.c); disable removes exactly that
 * block, so the file is byte for byte what it was.  Where the file
 * includes a directory (a drop-in directory, as Fedora's and RHEL's do,
 * and as docs/debian-openssl-dropin.md proposes for Debian), the same
 * wiring goes into a file of its own there, DROPIN_NAME, and the system
 * file, another package's conffile, is never changed.  The file is replaced
 * atomically (temporary file in the same directory, fsync, rename) and
 * only after the candidate passed enable_selftest (selftest.c): crlcache
 * active, and a revoked certificate refused through it.  A module that
 * fails to load is skipped silently, and a loaded one may never be asked
 * (a system default_properties it cannot meet): nothing less proves
 * revocation checking is on.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "cmd.h"
#include "enable.h"
#include "fetcher.h"
#include "localfs.h"
#include "osslconf.h"
#include "privs.h"
#include "selftest.h"

#define BEGIN_MARK	"# BEGIN crlcache: added by `crlcache enable`, removed by `crlcache disable`\n"
#define BEGIN_MARK_NL	"# BEGIN crlcache (newline added): added by `crlcache enable`, removed by `crlcache disable`\n"
#define END_MARK	"# END crlcache\n"
#define BACKUP_SUFFIX	".crlcache-backup"
/* enable's wiring in a drop-in directory; disable removes it. */
#define DROPIN_NAME	"crlcache-enable.cnf"
/* The first line of that file: ours, and safe to remove. */
#define DROPIN_MARK	"# crlcache-enable.cnf: written by `crlcache enable`, removed by `crlcache disable`\n"
/* Files one drop-in directory may hold that we read; more is not a drop-in directory. */
#define DROPIN_MAX_FILES	256

#ifndef SNIPPET_PATH
#define SNIPPET_PATH	"/etc/ssl/openssl.cnf.d/crlcache.cnf"
#endif

struct enable_opts {
	const char	*cnf;
	const char	*module;
	const char	*snippet;
	char		 cnfbuf[PATH_MAX];
	char		 modbuf[PATH_MAX];
	char		 realbuf[PATH_MAX];
};

/* OPENSSLDIR as `openssl version -d` reports it, plus /openssl.cnf. */
static int
default_cnf(char *out, size_t len)
{
	char dir[PATH_MAX];

	if (openssl_dir(OPENSSL_DIR, dir, sizeof(dir)) == -1)
		return -1;
	return (size_t)snprintf(out, len, "%s/openssl.cnf", dir) < len ? 0 : -1;
}

static int
parse_opts(int argc, char **argv, struct enable_opts *o)
{
	static const struct option opts[] = {
		{ "openssl-cnf", required_argument, NULL, 'c' },
		{ "module", required_argument, NULL, 'm' },
		{ "snippet", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(o, 0, sizeof(*o));
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'c': o->cnf = optarg; break;
		case 'm': o->module = optarg; break;
		case 's': o->snippet = optarg; break;
		default: return -1;
		}
	}
	if (optind != argc)
		return -1;
	if (o->cnf == NULL) {
		if (default_cnf(o->cnfbuf, sizeof(o->cnfbuf)) == -1)
			return -1;
		o->cnf = o->cnfbuf;
	}
	if (o->module == NULL) {
		char dir[PATH_MAX];

		if (openssl_dir(OPENSSL_MODULES_DIR, dir, sizeof(dir)) == -1 ||
		    (size_t)snprintf(o->modbuf, sizeof(o->modbuf), "%.*s/crlcache.so",
		    (int)(sizeof(o->modbuf) - sizeof("/crlcache.so")), dir) >=
		    sizeof(o->modbuf))
			return -1;
		o->module = o->modbuf;
	}
	if (o->snippet == NULL)
		o->snippet = SNIPPET_PATH;
	return 0;
}

/* Whether name is a file OpenSSL includes from a directory (*.cnf, *.conf). */
static int
dropin_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && ((n > 4 && strcmp(name + n - 4, ".cnf") == 0) ||
	    (n > 5 && strcmp(name + n - 5, ".conf") == 0));
}

/*
 * The system file's last `.include DIR` (or `.include = DIR`) line whose
 * DIR is an absolute path to a directory: [*start, *end) is that line.
 * 0 with dir set, or -1: there is none.
 */
static int
find_dropin_dir(const char *buf, size_t len, char *dir, size_t dirlen,
    size_t *start, size_t *end)
{
	size_t pos = 0, eol, n;
	const char *p, *q;
	struct stat sb;
	int found = -1;

	for (; pos < len; pos = eol) {
		p = memchr(buf + pos, '\n', len - pos);
		eol = p != NULL ? (size_t)(p - buf) + 1 : len;
		for (p = buf + pos; p < buf + eol && (*p == ' ' || *p == '\t'); p++)
			;
		if ((size_t)(buf + eol - p) < 9 || memcmp(p, ".include", 8) != 0)
			continue;
		for (p += 8; p < buf + eol && strchr(" \t=", *p) != NULL; p++)
			;
		for (q = buf + eol; q > p && strchr(" \t\r\n", q[-1]) != NULL; q--)
			;
		n = (size_t)(q - p);
		if (n == 0 || n >= dirlen || *p != '/')
			continue;
		memcpy(dir, p, n);
		dir[n] = '\0';
		if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			*start = pos;
			*end = eol;
			found = 0;
		}
	}
	return found;
}

/*
 * The system file with its drop-in directory's .include replaced by one
 * .include a file it holds, our own drop-in left out: the configuration
 * enable merges into, as programs read it without crlcache.  *at: where
 * the directory's files end, where ours is read.  NULL: too many files.
 */
static char *
expand_dropins(const char *base, size_t blen, const char *dir, size_t start,
    size_t end, size_t *at, size_t *outlen)
{
	DIR *d;
	struct dirent *de;
	char *mem = NULL;
	size_t memlen = 0, n = 0;
	FILE *f;

	if ((d = opendir(dir)) == NULL) {
		logx(0, "%s: %s", dir, strerror(errno));
		return NULL;
	}
	if ((f = open_memstream(&mem, &memlen)) == NULL) {
		closedir(d);
		return NULL;
	}
	fwrite(base, 1, start, f);
	while ((de = readdir(d)) != NULL && n <= DROPIN_MAX_FILES)
		if (dropin_name(de->d_name) && strcmp(de->d_name, DROPIN_NAME) != 0 &&
		    strpbrk(de->d_name, OSSLCONF_UNSAFE) == NULL && ++n <= DROPIN_MAX_FILES)
			fprintf(f, ".include %s/%s\n", dir, de->d_name);
	closedir(d);
	fflush(f);
	*at = memlen;
	fwrite(base + end, 1, blen - end, f);
	if (fclose(f) != 0 || n > DROPIN_MAX_FILES) {
		if (n > DROPIN_MAX_FILES)
			logx(0, "%s: more than %d files; not a drop-in directory "
			    "crlcache writes into", dir, DROPIN_MAX_FILES);
		free(mem);
		return NULL;
	}
	*outlen = memlen;
	return mem;
}

/* Split the file into what precedes our block; -1 when malformed. */
static int
find_block(const char *buf, size_t len, size_t *start, size_t *end, int *nl)
{
	const char *b, *e;

	*nl = 0;
	b = memmem(buf, len, BEGIN_MARK, strlen(BEGIN_MARK));
	if (b == NULL && (b = memmem(buf, len, BEGIN_MARK_NL,
	    strlen(BEGIN_MARK_NL))) != NULL)
		*nl = 1;
	if (b == NULL)
		return 0;
	e = memmem(b, len - (size_t)(b - buf), END_MARK, strlen(END_MARK));
	if (e == NULL)
		return -1;
	*start = (size_t)(b - buf) - (size_t)*nl;
	*end = (size_t)(e - buf) + strlen(END_MARK);
	return 1;
}

/* Replace path with data, keeping the mode and owner of sb. */
static int
replace_with(const char *path, const void *data, size_t len,
    const struct stat *sb)
{
	return replace_file(path, data, len, sb->st_mode & 07777, sb->st_uid,
	    sb->st_gid);
}

/*
 * head, then the wiring merged with the system configuration sys (slen
 * bytes) between the marks mark and END_MARK (mark alone when END_MARK
 * is NULL), then tail.  NULL when the wiring cannot be made (explained).
 */
static char *
build_wired(const char *head, size_t hlen, const char *mark, const char *end,
    const char *sys, size_t slen, const char *tail, size_t tlen,
    const struct enable_opts *o, const char *index, size_t *outlen)
{
	char *mem = NULL;
	size_t memlen = 0;
	FILE *f;
	int rc;

	if ((f = open_memstream(&mem, &memlen)) == NULL)
		return NULL;
	fwrite(head, 1, hlen, f);
	fputs(mark, f);
	rc = osslconf_write(f, NULL, sys, slen, o->snippet, o->module, index,
	    NULL);
	if (end != NULL)
		fputs(end, f);
	fwrite(tail, 1, tlen, f);
	if (fclose(f) != 0 || rc == -1) {
		free(mem);
		return NULL;
	}
	*outlen = memlen;
	return mem;
}

/* Whether path holds a drop-in of ours (or nothing); -1: another's, said. */
static int
dropin_ours(const char *path, uint8_t **buf, size_t *len)
{
	char err[ERRLEN];

	*buf = NULL;
	*len = 0;
	if (access(path, F_OK) == -1 && errno == ENOENT)
		return 0;
	if (read_file(path, OSSLCONF_MAX_SIZE, buf, len, err, sizeof(err)) == -1) {
		logx(0, "%s: %s", path, err);
		return -1;
	}
	if (*len < strlen(DROPIN_MARK) || memcmp(*buf, DROPIN_MARK,
	    strlen(DROPIN_MARK)) != 0) {
		logx(0, "%s: not written by crlcache enable; leaving it alone", path);
		return -1;
	}
	return 1;
}

/*
 * disable: the block out of the system file, or our file out of its
 * drop-in directory.  The backup goes with the block: its being there
 * says crlcache is enabled in the file (`crlcache status`).
 */
static int
disable_wiring(const struct enable_opts *o, const char *base, size_t blen,
    int found, const struct stat *sb)
{
	char dir[PATH_MAX], path[PATH_MAX], backup[PATH_MAX];
	uint8_t *old = NULL;
	size_t olen, ds, de;
	int ours = 0;

	if (find_dropin_dir(base, blen, dir, sizeof(dir), &ds, &de) == 0) {
		if ((size_t)snprintf(path, sizeof(path), "%s/" DROPIN_NAME, dir) >=
		    sizeof(path) || (ours = dropin_ours(path, &old, &olen)) == -1)
			return 4;
		free(old);
		if (ours && unlink(path) == -1) {
			logx(0, "%s: %s", path, strerror(errno));
			return 4;
		}
		if (ours)
			logx(1, "%s: removed; crlcache disabled", path);
	}
	if (found) {
		if (replace_with(o->cnf, base, blen, sb) == -1)
			return 4;
		snprintf(backup, sizeof(backup), "%s" BACKUP_SUFFIX, o->cnf);
		if (unlink(backup) == -1 && errno != ENOENT)
			logx(0, "%s: %s", backup, strerror(errno));
		logx(1, "%s: crlcache disabled", o->cnf);
	}
	if (!found && !ours)
		logx(1, "%s: crlcache is not enabled there", o->cnf);
	return 0;
}

/*
 * enable into the drop-in directory dir, whose .include is [ds, de) of
 * the system file: the wiring is made from the system configuration
 * without our file, tested in a copy of the system file that reads it
 * where the directory is read, then written as dir/DROPIN_NAME.
 */
static int
enable_dropin(const struct enable_opts *o, const char *base, size_t blen,
    const char *dir, size_t ds, size_t de, const char *index,
    const struct stat *sb)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	uint8_t *old = NULL;
	char *sys = NULL, *cand = NULL, *dropin = NULL;
	size_t olen, slen, at, clen, dlen;
	int ours, ret = 4;

	if ((size_t)snprintf(path, sizeof(path), "%s/" DROPIN_NAME, dir) >=
	    sizeof(path) || (ours = dropin_ours(path, &old, &olen)) == -1)
		return 4;
	if ((sys = expand_dropins(base, blen, dir, ds, de, &at, &slen)) == NULL ||
	    (dropin = build_wired("", 0, DROPIN_MARK, NULL, sys, slen, "", 0, o,
	    index, &dlen)) == NULL ||
	    (cand = build_wired(sys, at, "", NULL, sys, slen, sys + at, slen - at,
	    o, index, &clen)) == NULL)
		goto done;
	if (ours && olen == dlen && memcmp(old, dropin, dlen) == 0) {
		logx(1, "%s: crlcache already enabled", path);
		ret = 0;
		goto done;
	}
	if (write_temp(o->cnf, cand, clen, sb->st_mode & 07777, sb->st_uid,
	    sb->st_gid, tmp, sizeof(tmp)) == -1)
		goto done;
	if (enable_selftest(tmp) == -1) {
		unlink(tmp);
		goto done;
	}
	unlink(tmp);
	if (replace_file(path, dropin, dlen, 0644, sb->st_uid, sb->st_gid) == -1)
		goto done;
	logx(1, "%s: crlcache enabled (drop-in of %s; module %s, index %s)",
	    path, o->cnf, o->module, index);
	ret = 0;
done:
	free(old);
	free(sys);
	free(cand);
	free(dropin);
	return ret;
}

/* Over 60 lines: read, find our block, rewrite: in order, one cleanup. */
static int
enable_or_disable(const struct cmd_ctx *c, int argc, char **argv, int enable)
{
	struct enable_opts o;
	struct stat sb;
	char err[ERRLEN], tmp[PATH_MAX], backup[PATH_MAX], index[PATH_MAX];
	char dir[PATH_MAX];
	uint8_t *buf = NULL;
	char *base = NULL, *next = NULL;
	size_t len, blen, start = 0, end = 0, nlen, ds, de;
	int found, nl, ret = 4;

	if (parse_opts(argc, argv, &o) == -1) {
		logx(0, "usage: crlcache %s [--openssl-cnf FILE] [--module PATH] "
		    "[--snippet PATH]", enable ? "enable" : "disable");
		return 4;
	}
	/*
	 * Debian's /usr/lib/ssl/openssl.cnf is a symlink to /etc/ssl/: write
	 * the file itself, never replace the link with a copy.
	 */
	if (realpath(o.cnf, o.realbuf) != NULL)
		o.cnf = o.realbuf;
	if (stat(o.cnf, &sb) == -1 || read_file(o.cnf, OSSLCONF_MAX_SIZE, &buf, &len,
	    err, sizeof(err)) == -1) {
		logx(0, "%s: %s", o.cnf, errno != 0 ? strerror(errno) : err);
		return 4;
	}
	if ((found = find_block((char *)buf, len, &start, &end, &nl)) == -1) {
		logx(0, "%s: a crlcache block without its end marker; fix by hand",
		    o.cnf);
		goto done;
	}
	/* The file as it was before any block of ours. */
	blen = found ? len - (end - start) : len;
	base = xcalloc(1, blen + 1);
	memcpy(base, buf, found ? start : len);
	if (found)
		memcpy(base + start, buf + end, len - end);
	if (!enable) {
		ret = disable_wiring(&o, base, blen, found, &sb);
		goto done;
	}
	if (access(o.module, R_OK) == -1 || access(o.snippet, R_OK) == -1) {
		logx(0, "%s: not installed (%s); run `make install` first",
		    access(o.module, R_OK) == -1 ? o.module : o.snippet,
		    strerror(errno));
		goto done;
	}
	warn_network_fs(c->path);
	if (state_index_path(c, 0, index, sizeof(index)) == -1)
		goto done;
	/* A block enabled before stays where it is; disable takes it out. */
	if (!found && find_dropin_dir(base, blen, dir, sizeof(dir), &ds, &de) == 0) {
		ret = enable_dropin(&o, base, blen, dir, ds, de, index, &sb);
		goto done;
	}
	nl = blen > 0 && base[blen - 1] != '\n';
	if ((next = build_wired(base, blen, nl ? "\n" BEGIN_MARK_NL : BEGIN_MARK,
	    END_MARK, base, blen, "", 0, &o, index, &nlen)) == NULL)
		goto done;
	if (nlen == len && memcmp(next, buf, len) == 0) {
		logx(1, "%s: crlcache already enabled", o.cnf);
		ret = 0;
		goto done;
	}
	if (write_temp(o.cnf, next, nlen, sb.st_mode & 07777, sb.st_uid,
	    sb.st_gid, tmp, sizeof(tmp)) == -1)
		goto done;
	if (enable_selftest(tmp) == -1) {
		unlink(tmp);
		goto done;
	}
	/* The original, once, before the first change. */
	snprintf(backup, sizeof(backup), "%s" BACKUP_SUFFIX, o.cnf);
	if (!found && access(backup, F_OK) == -1 &&
	    replace_with(backup, base, blen, &sb) == -1) {
		unlink(tmp);
		goto done;
	}
	if (rename_durably(tmp, o.cnf) == -1) {
		logx(0, "%s: %s", o.cnf, strerror(errno));
		goto done;
	}
	logx(1, "%s: crlcache enabled (module %s, index %s)", o.cnf, o.module,
	    index);
	ret = 0;
done:
	free(base);
	free(next);
	free(buf);
	return ret;
}

/*
 * For `crlcache status`: a warning on stderr when the system file lost a
 * block `enable` wrote (its backup is there, the block is not): an
 * upgrade of the openssl package that took the maintainer's version of
 * the file switches revocation checking off without a word.
 */
void
enable_warn_lost(void)
{
	const char *env = getenv("OPENSSL_CONF");
	char cnf[PATH_MAX], real[PATH_MAX], backup[PATH_MAX], err[ERRLEN];
	uint8_t *buf = NULL;
	size_t len, s, e;
	int nl;

	/* The file programs here read: OPENSSL_CONF's, else the system's. */
	if (env != NULL && *env != '\0')
		snprintf(cnf, sizeof(cnf), "%s", env);
	else if (default_cnf(cnf, sizeof(cnf)) == -1)
		return;
	if (realpath(cnf, real) != NULL)
		snprintf(cnf, sizeof(cnf), "%s", real);
	if ((size_t)snprintf(backup, sizeof(backup), "%s" BACKUP_SUFFIX, cnf) >=
	    sizeof(backup) || access(backup, F_OK) == -1 ||
	    read_file(cnf, OSSLCONF_MAX_SIZE, &buf, &len, err, sizeof(err)) == -1)
		return;
	if (find_block((char *)buf, len, &s, &e, &nl) == 0)
		logx(0, "warning: %s has lost the block `crlcache enable` added "
		    "(an upgrade of openssl may have replaced the file): no "
		    "program loads the provider and nothing is checked; run "
		    "`crlcache enable` again", cnf);
	free(buf);
}

int
cmd_enable(const struct cmd_ctx *c, int argc, char **argv)
{
	return enable_or_disable(c, argc, argv, 1);
}

int
cmd_disable(const struct cmd_ctx *c, int argc, char **argv)
{
	return enable_or_disable(c, argc, argv, 0);
}
