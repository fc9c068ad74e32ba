/*
 * The state directory handle (state.h): descriptors, never joined paths.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <crlcache/index.h>
#include <crlcache/statefile.h>

#include "fetcher.h"
#include "state.h"

#define DIR_FLAGS	(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
/* Names a temporary file may take before state_mktemp() gives up. */
#define TEMP_TRIES	16

/*
 * Open the directory pin (an O_PATH descriptor: "." from it, its search
 * permission checked as the caller is now), or st->path when pin is -1;
 * -1 with errno.
 */
static int
open_top(struct state *st, int pin)
{
	/* The path itself is the administrator's: it may be a link. */
	st->fd = pin != -1 ?
	    openat(pin, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) :
	    open(st->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (st->fd == -1)
		return -1;
	if (fstat(st->fd, &st->sb) == -1) {
		close(st->fd);
		st->fd = -1;
		return -1;
	}
	return 0;
}

int
state_open(struct state *st, const char *path)
{
	return state_open_pinned(st, -1, path);
}

int
state_create(struct state *st)
{
	if (st->fd != -1)
		return 0;
	if ((mkdir(st->path, 0755) == -1 && errno != EEXIST) ||
	    open_top(st, -1) == -1) {
		logx(0, "%s: %s", st->path, strerror(errno));
		return -1;
	}
	return 0;
}

int
state_open_pinned(struct state *st, int pin, const char *path)
{
	memset(st, 0, sizeof(*st));
	st->path = xstrdup(path);
	/* A path with nothing there yet leaves the handle empty (state.h). */
	if (open_top(st, pin) == -1 && (pin != -1 || errno != ENOENT)) {
		logx(0, "%s: %s", path, strerror(errno));
		state_close(st);
		return -1;
	}
	return 0;
}

void
state_close(struct state *st)
{
	size_t i;

	if (st == NULL)
		return;
	for (i = 0; i < st->nsub; i++)
		close(st->sub[i].fd);
	st->nsub = 0;
	if (st->fd != -1)
		close(st->fd);
	st->fd = -1;
	free(st->path);
	st->path = NULL;
}

const char *
state_path(const struct state *st)
{
	return st->path;
}

/* The open subdirectory dir (a name of len bytes), or NULL. */
static struct state_subdir *
find_subdir(struct state *st, const char *dir, size_t len)
{
	size_t i;

	for (i = 0; i < st->nsub; i++)
		if (strlen(st->sub[i].name) == len &&
		    memcmp(st->sub[i].name, dir, len) == 0)
			return &st->sub[i];
	return NULL;
}

/*
 * The descriptor of directory dir (len bytes of a name, components
 * separated by '/'), each component opened O_NOFOLLOW from the one
 * above; kept while there is room, else opened for the caller, who
 * learns so by *owned.
 */
static int
subdir_fd(struct state *st, const char *dir, size_t len, int *owned)
{
	struct state_subdir *s;
	const char *slash;
	char comp[STATE_NAME_MAX];
	size_t up;
	int pfd, powned = 0, fd;

	*owned = 0;
	/* Empty: the directory may have been made since (state_open). */
	if (st->fd == -1 && (st->path == NULL || open_top(st, -1) == -1)) {
		if (st->path == NULL)
			errno = ENOENT;
		return -1;
	}
	if (len == 0)
		return st->fd;
	if ((s = find_subdir(st, dir, len)) != NULL)
		return s->fd;
	if (len >= sizeof(comp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	slash = memrchr(dir, '/', len);
	up = slash == NULL ? 0 : (size_t)(slash - dir);
	if ((pfd = subdir_fd(st, dir, up, &powned)) == -1)
		return -1;
	memcpy(comp, slash == NULL ? dir : slash + 1, len - (slash == NULL ?
	    0 : up + 1));
	comp[len - (slash == NULL ? 0 : up + 1)] = '\0';
	fd = openat(pfd, comp, DIR_FLAGS);
	if (powned)
		close(pfd);
	if (fd == -1)
		return -1;
	if (st->nsub == STATE_SUBDIRS) {
		*owned = 1;
		return fd;
	}
	s = &st->sub[st->nsub];
	if (fstat(fd, &s->sb) == -1) {
		close(fd);
		return -1;
	}
	memcpy(s->name, dir, len);
	s->name[len] = '\0';
	s->fd = fd;
	st->nsub++;
	return fd;
}

/* A name relative to the state: no empty or ".." component, depth bound. */
static int
name_ok(const char *name)
{
	const char *p = name, *slash;
	size_t len;
	int depth = 0;

	for (;;) {
		slash = strchr(p, '/');
		len = slash == NULL ? strlen(p) : (size_t)(slash - p);
		if (len == 0 || (len == 2 && p[0] == '.' && p[1] == '.') ||
		    ++depth > STATE_DEPTH)
			return 0;
		if (slash == NULL)
			return 1;
		p = slash + 1;
	}
}

/* state_dirfd(), telling the caller whether it must close the fd. */
static int
resolve(struct state *st, const char *name, const char **base, int *owned)
{
	const char *slash = strrchr(name, '/');
	size_t len = slash == NULL ? 0 : (size_t)(slash - name);

	*owned = 0;
	if (strlen(name) >= STATE_NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	*base = slash == NULL ? name : slash + 1;
	if (!name_ok(name)) {
		errno = EINVAL;
		return -1;
	}
	return subdir_fd(st, name, len, owned);
}

int
state_dirfd(struct state *st, const char *name, const char **base)
{
	int owned, fd = resolve(st, name, base, &owned);

	if (owned) {
		/* Never reached with STATE_SUBDIRS above the state's depth. */
		close(fd);
		errno = EMFILE;
		return -1;
	}
	return fd;
}

void
state_forget(struct state *st, const char *name)
{
	size_t i, len = strlen(name);

	for (i = 0; i < st->nsub;) {
		if (strncmp(st->sub[i].name, name, len) == 0 &&
		    (st->sub[i].name[len] == '\0' ||
		    st->sub[i].name[len] == '/')) {
			close(st->sub[i].fd);
			st->sub[i] = st->sub[--st->nsub];
		} else
			i++;
	}
}

/*
 * name opened in its directory: by crlc_state_open() (the owner rule,
 * *sb filled) when sb is given, else by openat() with flags.
 */
static int
open_in(struct state *st, const char *name, int flags, mode_t mode,
    struct stat *sb)
{
	const char *base;
	int owned, dfd, fd, e;

	if ((dfd = resolve(st, name, &base, &owned)) == -1)
		return -1;
	/* The owner rule is the directory's owner: the state's. */
	fd = sb != NULL ? crlc_state_open(dfd, &st->sb, base, sb) :
	    openat(dfd, base, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	e = errno;
	if (owned)
		close(dfd);
	errno = e;
	return fd;
}

int
state_openat(struct state *st, const char *name, int flags, mode_t mode)
{
	return open_in(st, name, flags, mode, NULL);
}

int
state_open_file(struct state *st, const char *name, struct stat *sb)
{
	return open_in(st, name, 0, 0, sb);
}

int
state_read(struct state *st, const char *name, size_t max, uint8_t **buf,
    size_t *len, char *err, size_t errlen)
{
	struct stat sb;
	int fd, e, ret;

	*buf = NULL;
	*len = 0;
	if ((fd = state_open_file(st, name, &sb)) == -1) {
		e = errno;
		snprintf(err, errlen, "%s", crlc_state_open_why(e));
		errno = e;
		return -1;
	}
	ret = read_fd(fd, &sb, max, buf, len, err, errlen);
	e = errno;
	close(fd);
	errno = e;
	return ret;
}

/* A new temporary file beside base in dfd: its name goes to tmp. */
static int
temp_at(int dfd, const char *base, mode_t mode, char *tmp, size_t tmplen)
{
	char prefix[STATE_NAME_MAX + 16];

	if ((size_t)snprintf(prefix, sizeof(prefix), ".%s.crlcache-", base) >=
	    sizeof(prefix)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return state_mktemp(dfd, prefix, mode, tmp, tmplen);
}

/* state_replace(), the file's times set to ts (when not NULL) first. */
static int
replace(struct state *st, const char *name, const void *data, size_t len,
    mode_t mode, const struct timespec ts[2])
{
	char tmp[STATE_NAME_MAX + 32];
	const char *base;
	int owned, dfd, fd = -1, ret = -1;

	if ((dfd = resolve(st, name, &base, &owned)) == -1 ||
	    (fd = temp_at(dfd, base, mode, tmp, sizeof(tmp))) == -1) {
		logx(0, "%s/%s: cannot create a temporary file: %s",
		    st->path, name, strerror(errno));
		goto done;
	}
	if (write(fd, data, len) != (ssize_t)len || fchmod(fd, mode) == -1 ||
	    (ts != NULL && futimens(fd, ts) == -1) || fsync(fd) == -1 ||
	    renameat(dfd, tmp, dfd, base) == -1) {
		logx(0, "%s/%s: %s", st->path, name, strerror(errno));
		(void)unlinkat(dfd, tmp, 0);
		goto done;
	}
	/* The new entry survives a crash once its directory is synced. */
	(void)fsync(dfd);
	ret = 0;
done:
	if (fd != -1)
		close(fd);
	if (owned)
		close(dfd);
	return ret;
}

int
state_replace(struct state *st, const char *name, const void *data,
    size_t len, mode_t mode)
{
	return replace(st, name, data, len, mode, NULL);
}

int
state_remove(struct state *st, const char *name, int flags)
{
	const char *base;
	int owned, dfd, rc, e;

	if ((dfd = resolve(st, name, &base, &owned)) == -1)
		return -1;
	rc = unlinkat(dfd, base, flags);
	e = errno;
	if (owned)
		close(dfd);
	errno = e;
	return rc;
}

int
state_rename(struct state *st, const char *from, const char *to)
{
	const char *fbase, *tbase;
	int fowned, towned, ffd, tfd = -1, rc = -1, e;

	if ((ffd = resolve(st, from, &fbase, &fowned)) == -1)
		return -1;
	if ((tfd = resolve(st, to, &tbase, &towned)) != -1 &&
	    (rc = renameat(ffd, fbase, tfd, tbase)) == 0)
		(void)fsync(tfd);
	e = errno;
	if (fowned)
		close(ffd);
	if (towned)
		close(tfd);
	errno = e;
	return rc;
}

int
state_mkdir(struct state *st, const char *name, mode_t mode)
{
	const char *base;
	int owned, dfd, rc = 0, e = 0, fd;

	if ((dfd = resolve(st, name, &base, &owned)) == -1)
		return -1;
	if (mkdirat(dfd, base, mode) == 0) {
		/* mkdir's mode passes the umask: the bits are set after. */
		if ((fd = openat(dfd, base, DIR_FLAGS)) == -1 ||
		    fchmod(fd, mode) == -1) {
			rc = -1;
			e = errno;
		}
		if (fd != -1)
			close(fd);
	} else if (errno != EEXIST) {
		rc = -1;
		e = errno;
	}
	if (owned)
		close(dfd);
	errno = e;
	return rc;
}

DIR *
state_list(struct state *st, const char *name)
{
	const char *base;
	DIR *d = NULL;
	int owned, dfd, fd, e;

	if ((dfd = resolve(st, name, &base, &owned)) == -1)
		return NULL;
	if ((fd = openat(dfd, base, DIR_FLAGS)) != -1 &&
	    (d = fdopendir(fd)) == NULL)
		close(fd);
	e = errno;
	if (owned)
		close(dfd);
	errno = e;
	return d;
}

int
state_file_path(const struct state *st, const char *name, char *out,
    size_t len)
{
	return (size_t)snprintf(out, len, "%s/%s", st->path, name) < len ?
	    0 : -1;
}

int
state_replace_timed(struct state *st, const char *name, const void *data,
    size_t len, mode_t mode, const struct timespec ts[2])
{
	return replace(st, name, data, len, mode, ts);
}

int
state_exists(struct state *st, const char *name)
{
	struct stat sb;
	const char *base;
	int owned, dfd, rc, e;

	if ((dfd = resolve(st, name, &base, &owned)) == -1)
		return errno == ENOENT ? 0 : -1;
	rc = fstatat(dfd, base, &sb, AT_SYMLINK_NOFOLLOW);
	e = errno;
	if (owned)
		close(dfd);
	return rc == 0 ? 1 : e == ENOENT ? 0 : -1;
}

int
state_mktemp(int dfd, const char *prefix, mode_t mode, char *tmp,
    size_t tmplen)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789";
	uint8_t r[STATE_TEMP_SUFFIX];
	size_t plen = strlen(prefix), i;
	int t, fd;

	if (plen + STATE_TEMP_SUFFIX >= tmplen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(tmp, prefix, plen);
	for (t = 0; t < TEMP_TRIES; t++) {
		if (getrandom(r, sizeof(r), 0) != sizeof(r))
			return -1;
		for (i = 0; i < sizeof(r); i++)
			tmp[plen + i] = chars[r[i] % (sizeof(chars) - 1)];
		tmp[plen + sizeof(r)] = '\0';
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, mode);
		if (fd != -1 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/*
 * Open the published index (INDEX_NAME) through the handle; its path, for
 * messages, goes to path.
 * When it cannot be opened, say why if report, and return -1.
 */
int
index_open(struct state *st, char *path, size_t len,
    struct crlc_index **idx, int report)
{
	const char *base, *detail;
	int dfd, n, rc;

	/* The path names it in messages and reports; it is not opened. */
	n = snprintf(path, len, "%s/" INDEX_NAME, state_path(st));
	if (n < 0 || (size_t)n >= len) {
		if (report)
			logx(0, "%s/%s: path too long", state_path(st),
			    INDEX_NAME);
		return -1;
	}
	if ((dfd = state_dirfd(st, INDEX_NAME, &base)) == -1) {
		rc = errno == ENOENT ? CRLC_E_NOINDEX : CRLC_E_ACCESS;
		detail = crlc_index_strerror(rc);
	} else if ((rc = crlc_index_open_at(dfd, base, idx, &detail)) == CRLC_OK)
		return 0;
	if (!report)
		return -1;
	if (rc == CRLC_E_NOINDEX)
		logx(0, "%s: no index yet: run `crlcache update` (or `crlcache "
		    "import`) to build the first one", path);
	else if (strcmp(detail, crlc_index_strerror(rc)) == 0)
		logx(0, "%s: %s", path, detail);
	else
		logx(0, "%s: %s: %s", path, crlc_index_strerror(rc), detail);
	return -1;
}
