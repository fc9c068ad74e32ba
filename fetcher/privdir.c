/*
 * Private directories for files other programs read by name: the
 * configuration `crlcache exec` hands its program, the self-test of
 * `crlcache enable`.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * A program may read such a file by its name long after we removed it
 * (a daemon started under exec reads OPENSSL_CONF when it initialises
 * OpenSSL), so the directory we make it in must be one where nobody but
 * the caller and root can ever create that name again.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fetcher.h"
#include "privdir.h"

/* root's private directories: /run is root's, and emptied at boot. */
#define RUN_DIR		"/run"
#define RUN_NAME	"crlcache"
/* Directories nftw keeps open at once while removing a tree. */
#define REMOVE_FDS	16

/*
 * Whether nobody but us and root can create, rename or remove an entry
 * in sb's directory: owned by one of us, writable by nobody else.  The
 * sticky bit is not enough: /tmp's own cleaners (systemd-tmpfiles ages
 * it) remove what we leave there, and then anyone may recreate the name
 * a long-lived descendant still has in OPENSSL_CONF.
 */
static int
owned_closed(const struct stat *sb)
{
	return S_ISDIR(sb->st_mode) && (sb->st_uid == 0 ||
	    sb->st_uid == geteuid()) && (sb->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/*
 * path resolved into real (len bytes), when it and every directory above
 * it are owned_closed: then no name under it can ever be claimed by
 * another user, even after we remove it.  0 or -1.
 */
static int
private_dir(const char *path, char *real, size_t len)
{
	char buf[PATH_MAX];
	struct stat sb;
	size_t i, n;
	char c;

	if (path == NULL || *path != '/' || realpath(path, buf) == NULL ||
	    (n = strlen(buf)) >= len)
		return -1;
	if (lstat("/", &sb) == -1 || !owned_closed(&sb))
		return -1;
	/* Each component below /: realpath left no link, lstat sees it. */
	for (i = 2; i <= n; i++) {
		if (i < n && buf[i] != '/')
			continue;
		c = buf[i];
		buf[i] = '\0';
		if (lstat(buf, &sb) == -1 || !owned_closed(&sb))
			return -1;
		buf[i] = c;
	}
	memcpy(real, buf, n + 1);
	return 0;
}

/*
 * parent/name, made with mode when missing (exactly mode, whatever the
 * umask), then private_dir into out.  0 or -1.
 */
static int
private_subdir(const char *parent, const char *name, mode_t mode, char *out,
    size_t len)
{
	char path[PATH_MAX];
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", parent, name) >=
	    sizeof(path))
		return -1;
	if (mkdir(path, mode) == 0) {
		if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC)) == -1)
			return -1;
		if (fchmod(fd, mode) == -1) {
			close(fd);
			return -1;
		}
		close(fd);
	} else if (errno != EEXIST)
		return -1;
	return private_dir(path, out, len);
}

/*
 * Where the private directory goes: a directory in which only we (or
 * root) can ever create the name OPENSSL_CONF holds, since a descendant
 * may read that name long after the cleaner removed it.  TMPDIR when it
 * is such a directory; for root, /run/crlcache (0711: a program that
 * switches to another user still reaches its file); for anyone else,
 * XDG_RUNTIME_DIR, then ~/.cache/crlcache.  0 or -1 (explained).
 */
int
privdir_base(char *out, size_t len)
{
	const char *tmpdir = getenv("TMPDIR");
	const struct passwd *pw;
	char home[PATH_MAX];

	if (private_dir(tmpdir, out, len) == 0)
		return 0;
	if (tmpdir != NULL)
		logx(2, "TMPDIR %s: someone else can create entries in it "
		    "or above it; not used", tmpdir);
	if (geteuid() == 0) {
		if (private_dir(RUN_DIR, home, sizeof(home)) == 0 &&
		    private_subdir(home, RUN_NAME, 0711, out, len) == 0)
			return 0;
		logx(0, "%s/%s: not a directory only root can write to (%s); "
		    "set TMPDIR to one", RUN_DIR, RUN_NAME, strerror(errno));
		return -1;
	}
	if (private_dir(getenv("XDG_RUNTIME_DIR"), out, len) == 0)
		return 0;
	if ((pw = getpwuid(geteuid())) != NULL &&
	    private_dir(pw->pw_dir, home, sizeof(home)) == 0 &&
	    private_subdir(home, ".cache", 0700, home, sizeof(home)) == 0 &&
	    private_subdir(home, "crlcache", 0711, out, len) == 0)
		return 0;
	logx(0, "no directory only you can write to (TMPDIR, "
	    "XDG_RUNTIME_DIR, ~/.cache/crlcache: each must be owned by you "
	    "or root, and so must every directory above it, and writable by "
	    "nobody else); set TMPDIR to one");
	return -1;
}

/* A new directory PREFIX.XXXXXX, 0700, under privdir_base.  0 or -1. */
int
privdir_make(const char *prefix, char *out, size_t len)
{
	char base[PATH_MAX];

	if (privdir_base(base, sizeof(base)) == -1)
		return -1;
	if ((size_t)snprintf(out, len, "%s/%s.XXXXXX", base, prefix) >= len) {
		logx(0, "%s: path too long", base);
		return -1;
	}
	if (mkdtemp(out) == NULL) {
		logx(0, "%s: %s", out, strerror(errno));
		return -1;
	}
	return 0;
}

static int
remove_entry(const char *path, const struct stat *sb, int type,
    struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return (type == FTW_DP ? rmdir(path) : unlink(path)) == -1 ? -1 : 0;
}

/*
 * Remove dir, made by privdir_make, and all in it: nobody else can
 * create anything there, and nftw follows no link and stays on the
 * filesystem.
 */
void
privdir_remove(const char *dir)
{
	if (nftw(dir, remove_entry, REMOVE_FDS,
	    FTW_DEPTH | FTW_PHYS | FTW_MOUNT) == -1)
		logx(0, "%s: cannot remove: %s", dir, strerror(errno));
}
