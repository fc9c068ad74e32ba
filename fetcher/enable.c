/*
 * crlcache enable / disable: wire the provider into the system openssl.cnf.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * enable appends one marked block to the file (an .include of the snippet
 * and the init sections, see osslconf.c); disable removes exactly that
 * block, so the file is byte for byte what it was.  The file is replaced
 * atomically (temporary file in the same directory, fsync, rename) and
 * only after the candidate passed enable_selftest (selftest.c): crlcache
 * active, and a revoked certificate refused through it.  A module that
 * fails to load is skipped silently, and a loaded one may never be asked
 * (a system default_properties it cannot meet): nothing less proves
 * revocation checking is on.
 */
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

#include "fetcher.h"

#define BEGIN_MARK	"# BEGIN crlcache: added by `crlcache enable`, removed by `crlcache disable`\n"
#define BEGIN_MARK_NL	"# BEGIN crlcache (newline added): added by `crlcache enable`, removed by `crlcache disable`\n"
#define END_MARK	"# END crlcache\n"
#define BACKUP_SUFFIX	".crlcache-backup"

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

/* base (the file without our block) with our block appended. */
static char *
build_enabled(const char *base, size_t blen, const struct enable_opts *o,
    const char *index, size_t *outlen)
{
	char *mem = NULL;
	size_t memlen = 0;
	FILE *f;
	int nl = blen > 0 && base[blen - 1] != '\n', rc;

	if ((f = open_memstream(&mem, &memlen)) == NULL)
		return NULL;
	fwrite(base, 1, blen, f);
	if (nl)
		fputc('\n', f);
	fputs(nl ? BEGIN_MARK_NL : BEGIN_MARK, f);
	rc = osslconf_write(f, NULL, base, blen, o->snippet, o->module, index,
	    NULL);
	fputs(END_MARK, f);
	if (fclose(f) != 0 || rc == -1) {
		free(mem);
		return NULL;
	}
	*outlen = memlen;
	return mem;
}

static int
enable_or_disable(const char *state_dir, int argc, char **argv, int enable)
{
	struct enable_opts o;
	struct stat sb;
	char err[ERRLEN], tmp[PATH_MAX], backup[PATH_MAX], index[PATH_MAX];
	uint8_t *buf = NULL;
	char *base = NULL, *next = NULL;
	size_t len, blen, start = 0, end = 0, nlen;
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
		if (!found) {
			logx(1, "%s: crlcache is not enabled there", o.cnf);
			ret = 0;
			goto done;
		}
		if (replace_with(o.cnf, base, blen, &sb) == -1)
			goto done;
		logx(1, "%s: crlcache disabled", o.cnf);
		ret = 0;
		goto done;
	}
	if (access(o.module, R_OK) == -1 || access(o.snippet, R_OK) == -1) {
		logx(0, "%s: not installed (%s); run `make install` first",
		    access(o.module, R_OK) == -1 ? o.module : o.snippet,
		    strerror(errno));
		goto done;
	}
	warn_network_fs(state_dir);
	if (realpath(state_dir, index) == NULL)
		snprintf(index, sizeof(index), "%s", state_dir);
	if (strlen(index) + sizeof("/" INDEX_NAME) > sizeof(index))
		goto done;
	strcat(index, "/" INDEX_NAME);
	if ((next = build_enabled(base, blen, &o, index, &nlen)) == NULL)
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

int
cmd_enable(const struct cmd_ctx *c, int argc, char **argv)
{
	return enable_or_disable(c->state_dir, argc, argv, 1);
}

int
cmd_disable(const struct cmd_ctx *c, int argc, char **argv)
{
	return enable_or_disable(c->state_dir, argc, argv, 0);
}
