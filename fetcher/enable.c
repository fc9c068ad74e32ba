/*
 * crlcache enable / disable: wire the provider into the system openssl.cnf.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * enable appends one marked block to the file (an .include of the snippet
 * and the init sections, see osslconf.c); disable removes exactly that
 * block, so the file is byte for byte what it was.  The file is replaced
 * atomically (temporary file in the same directory, fsync, rename) and
 * only after `openssl list -providers` run on the candidate shows
 * crlcache active: on OpenSSL 3.0 a module that fails to load is skipped
 * silently, so nothing less proves the provider is on.
 */
#include <errno.h>
#include <fcntl.h>
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
/* openssl.cnf is a hand-edited text file; bound what we read. */
#define MAX_CNF_SIZE	((size_t)4 << 20)
/* `openssl list -providers` prints a few hundred bytes. */
#define MAX_LIST_OUTPUT	65536

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

/* Write data to a temporary file beside path; its name goes to tmp. */
static int
write_temp(const char *path, const char *data, size_t len, const struct stat *sb,
    char *tmp, size_t tmplen)
{
	int fd;

	if ((size_t)snprintf(tmp, tmplen, "%s.crlcache-XXXXXX", path) >= tmplen ||
	    (fd = mkostemp(tmp, O_CLOEXEC)) == -1) {
		logx(0, "%s: cannot create a temporary file: %s", path,
		    strerror(errno));
		return -1;
	}
	if (write(fd, data, len) != (ssize_t)len ||
	    fchmod(fd, sb->st_mode & 07777) == -1 ||
	    (geteuid() == 0 && fchown(fd, sb->st_uid, sb->st_gid) == -1) ||
	    fsync(fd) == -1) {
		logx(0, "%s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	close(fd);
	return 0;
}

/* Rename tmp over path and make the directory entry durable. */
static int
commit_temp(const char *tmp, const char *path)
{
	char dir[PATH_MAX], *slash;
	int dfd;

	if (rename(tmp, path) == -1) {
		logx(0, "%s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) != NULL)
		*(slash == dir ? slash + 1 : slash) = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		(void)fsync(dfd);
		close(dfd);
	}
	return 0;
}

/* Run `openssl list -providers` on cnf; 0 when crlcache is active. */
static int
provider_active(const char *cnf)
{
	char out[MAX_LIST_OUTPUT], *p;
	size_t len = 0;
	ssize_t r;
	pid_t pid;
	int pfd[2], status, active = 0;

	if (pipe(pfd) == -1)
		return -1;
	if ((pid = fork()) == -1) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		setenv("OPENSSL_CONF", cnf, 1);
		execlp("openssl", "openssl", "list", "-providers", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while (len < sizeof(out) - 1 &&
	    (r = read(pfd[0], out + len, sizeof(out) - 1 - len)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			break;
		len += (size_t)r;
	}
	out[len] = '\0';
	close(pfd[0]);
	waitpid(pid, &status, 0);
	/* "  crlcache\n    name: ...\n    version: ...\n    status: active" */
	if ((p = strstr(out, "\n  crlcache\n")) != NULL) {
		char *next = strstr(p + 1, "\n  ");

		while (next != NULL && next[3] == ' ')
			next = strstr(next + 1, "\n  ");
		p = strstr(p, "status: active");
		active = p != NULL && (next == NULL || p < next);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !active) {
		logx(0, "openssl list -providers with the new configuration does "
		    "not show crlcache active:\n%s", out);
		return -1;
	}
	return 0;
}

/* The file with our block appended (after stripping an older one). */
static char *
build_enabled(const char *cnf, const char *orig, size_t olen,
    const struct enable_opts *o, const char *index, size_t *outlen)
{
	char *mem = NULL;
	size_t memlen = 0;
	FILE *f;
	int nl = olen > 0 && orig[olen - 1] != '\n';

	if ((f = open_memstream(&mem, &memlen)) == NULL)
		return NULL;
	fwrite(orig, 1, olen, f);
	if (nl)
		fputc('\n', f);
	fputs(nl ? BEGIN_MARK_NL : BEGIN_MARK, f);
	if (osslconf_write(f, cnf, 0, o->snippet, o->module, index, NULL) == -1) {
		fclose(f);
		free(mem);
		return NULL;
	}
	fputs(END_MARK, f);
	if (fclose(f) != 0) {
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
	char *next = NULL;
	size_t len, start = 0, end = 0, nlen;
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
	if (stat(o.cnf, &sb) == -1 || read_file(o.cnf, MAX_CNF_SIZE, &buf, &len,
	    err, sizeof(err)) == -1) {
		logx(0, "%s: %s", o.cnf, errno != 0 ? strerror(errno) : err);
		return 4;
	}
	if ((found = find_block((char *)buf, len, &start, &end, &nl)) == -1) {
		logx(0, "%s: a crlcache block without its end marker; fix by hand",
		    o.cnf);
		goto done;
	}
	if (!enable) {
		if (!found) {
			logx(1, "%s: crlcache is not enabled there", o.cnf);
			ret = 0;
			goto done;
		}
		memmove(buf + start, buf + end, len - end);
		len -= end - start;
		if (write_temp(o.cnf, (char *)buf, len, &sb, tmp, sizeof(tmp)) == -1 ||
		    commit_temp(tmp, o.cnf) == -1)
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
	if (realpath(state_dir, index) == NULL)
		snprintf(index, sizeof(index), "%s", state_dir);
	if (strlen(index) + sizeof("/" INDEX_NAME) > sizeof(index))
		goto done;
	strcat(index, "/" INDEX_NAME);
	/* Merge against the file as it was before any block of ours. */
	if (found) {
		memmove(buf + start, buf + end, len - end);
		len -= end - start;
	}
	if (write_temp(o.cnf, (char *)buf, len, &sb, tmp, sizeof(tmp)) == -1)
		goto done;
	next = build_enabled(tmp, (char *)buf, len, &o, index, &nlen);
	unlink(tmp);
	if (next == NULL)
		goto done;
	if (found && nlen == (size_t)sb.st_size) {
		uint8_t *cur;
		size_t curlen;

		if (read_file(o.cnf, MAX_CNF_SIZE, &cur, &curlen, err,
		    sizeof(err)) == 0 && curlen == nlen &&
		    memcmp(cur, next, nlen) == 0) {
			free(cur);
			logx(1, "%s: crlcache already enabled", o.cnf);
			ret = 0;
			goto done;
		}
		free(cur);
	}
	if (write_temp(o.cnf, next, nlen, &sb, tmp, sizeof(tmp)) == -1)
		goto done;
	if (provider_active(tmp) == -1) {
		unlink(tmp);
		goto done;
	}
	/* The original, once, before the first change. */
	snprintf(backup, sizeof(backup), "%s" BACKUP_SUFFIX, o.cnf);
	if (!found && access(backup, F_OK) == -1) {
		char btmp[PATH_MAX];

		if (write_temp(backup, (char *)buf, len, &sb, btmp,
		    sizeof(btmp)) == -1 || commit_temp(btmp, backup) == -1) {
			unlink(tmp);
			goto done;
		}
	}
	if (commit_temp(tmp, o.cnf) == -1)
		goto done;
	logx(1, "%s: crlcache enabled (module %s, index %s)", o.cnf, o.module,
	    index);
	ret = 0;
done:
	free(next);
	free(buf);
	return ret;
}

int
cmd_enable(const char *state_dir, int argc, char **argv)
{
	return enable_or_disable(state_dir, argc, argv, 1);
}

int
cmd_disable(const char *state_dir, int argc, char **argv)
{
	return enable_or_disable(state_dir, argc, argv, 0);
}
