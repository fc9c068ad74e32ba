/*
 * Unit test of the state directory handle (fetcher/state.c, built in):
 * a missing directory, a pinned directory moved away, names refused (absolute, "..", too long), no
 * symbolic link followed in the last component or on the way, no FIFO
 * waited on, the owner rule for reads, the size bound, durable replace
 * leaving no temporary file, exact modes under a umask, renames and a
 * forgotten subdirectory, more subdirectories than the handle keeps.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tmpdir.h"
#include "../../fetcher/util.c"
#include "../../fetcher/state.c"

/* Read name through st: its bytes, or NULL; errno is kept. */
static char *
read_text(struct state *st, const char *name, size_t max)
{
	char err[128];
	uint8_t *buf;
	size_t len;

	if (state_read(st, name, max, &buf, &len, err, sizeof(err)) == -1)
		return NULL;
	return (char *)buf;
}

/* Does read_text(name) say text? */
static int
reads(struct state *st, const char *name, const char *text)
{
	char *got = read_text(st, name, 4096);
	int ok = got != NULL && strcmp(got, text) == 0;

	free(got);
	return ok;
}

/* Entries of the directory name through the handle ("." and ".." left out). */
static int
entries(struct state *st, const char *name)
{
	struct dirent *de;
	DIR *d;
	int n = 0;

	if ((d = state_list(st, name)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static void
missing_then_created(const char *top)
{
	struct state st;
	char path[TMPDIR_PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/state", top);
	CHECK(state_open(&st, path) == 0);
	errno = 0;
	CHECK(read_text(&st, "x", 10) == NULL && errno == ENOENT);
	CHECK(state_replace(&st, "x", "1", 1, 0644) == -1);
	CHECK(state_create(&st) == 0);
	CHECK(state_replace(&st, "x", "1", 1, 0644) == 0);
	CHECK(reads(&st, "x", "1"));
	state_close(&st);
	state_close(NULL);
}

/*
 * state_open_pinned(): the directory of the pin, whatever its path names
 * by the time it is opened (privs.c judges whose state it is from the
 * pin, then opens the handle from it).
 */
static void
pinned_not_path(const char *top)
{
	struct state st;
	char path[TMPDIR_PATH_MAX + 16], moved[TMPDIR_PATH_MAX + 16];
	int pin;

	snprintf(path, sizeof(path), "%s/pinned", top);
	snprintf(moved, sizeof(moved), "%s/pinned.moved", top);
	CHECK(mkdir(path, 0755) == 0);
	CHECK((pin = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) != -1);
	CHECK(rename(path, moved) == 0 && mkdir(path, 0755) == 0);
	CHECK(state_open_pinned(&st, pin, path) == 0);
	CHECK(state_replace(&st, "x", "pinned", 6, 0644) == 0);
	state_close(&st);
	CHECK(state_open(&st, moved) == 0 && reads(&st, "x", "pinned"));
	state_close(&st);
	CHECK(state_open(&st, path) == 0);
	errno = 0;
	CHECK(read_text(&st, "x", 10) == NULL && errno == ENOENT);
	state_close(&st);
	close(pin);
	/* No pin (no directory when the command started): the path. */
	CHECK(state_open_pinned(&st, -1, path) == 0 && st.fd != -1);
	state_close(&st);
}

static void
names_refused(struct state *st)
{
	char longname[STATE_NAME_MAX + 8];

	errno = 0;
	CHECK(state_openat(st, "/etc/passwd", O_RDONLY, 0) == -1 &&
	    errno == EINVAL);
	errno = 0;
	CHECK(state_openat(st, "../escape", O_RDONLY, 0) == -1 &&
	    errno == EINVAL);
	errno = 0;
	CHECK(state_openat(st, "a//b", O_RDONLY, 0) == -1 && errno == EINVAL);
	CHECK(state_openat(st, "a/", O_RDONLY, 0) == -1);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	errno = 0;
	CHECK(state_replace(st, longname, "x", 1, 0644) == -1);
}

static void
links_fifos_owners(struct state *st, const char *dir)
{
	char path[TMPDIR_PATH_MAX + 32], target[TMPDIR_PATH_MAX + 32];
	char *got;

	/* A link at the last component, and a directory link on the way. */
	CHECK(state_mkdir(st, "real", 0755) == 0);
	CHECK(state_replace(st, "real/f", "secret", 6, 0644) == 0);
	snprintf(path, sizeof(path), "%s/link", dir);
	snprintf(target, sizeof(target), "%s/real/f", dir);
	CHECK(symlink(target, path) == 0);
	errno = 0;
	CHECK(read_text(st, "link", 100) == NULL && errno == ELOOP);
	CHECK(state_openat(st, "link", O_RDONLY, 0) == -1);
	snprintf(path, sizeof(path), "%s/dirlink", dir);
	snprintf(target, sizeof(target), "%s/real", dir);
	CHECK(symlink(target, path) == 0);
	CHECK(read_text(st, "dirlink/f", 100) == NULL);
	CHECK(state_replace(st, "dirlink/g", "x", 1, 0644) == -1);
	CHECK(access(target, F_OK) == 0);
	snprintf(path, sizeof(path), "%s/real/g", dir);
	CHECK(access(path, F_OK) == -1);
	/* A FIFO is refused at once, not waited on. */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	CHECK(mkfifo(path, 0644) == 0);
	errno = 0;
	CHECK(read_text(st, "fifo", 100) == NULL && errno == EPERM);
	/* Writable by the group: not the owner's alone. */
	CHECK(state_replace(st, "gw", "x", 1, 0664) == 0);
	errno = 0;
	CHECK(read_text(st, "gw", 100) == NULL && errno == EPERM);
	/* Another account's file (root can make one). */
	if (geteuid() == 0) {
		CHECK(state_replace(st, "other", "x", 1, 0644) == 0);
		snprintf(path, sizeof(path), "%s/other", dir);
		CHECK(chown(path, 65534, 65534) == 0);
		CHECK(read_text(st, "other", 100) == NULL);
	}
	/* Over the bound. */
	CHECK(state_replace(st, "big", "0123456789", 10, 0644) == 0);
	CHECK(read_text(st, "big", 9) == NULL);
	got = read_text(st, "big", 10);
	CHECK(got != NULL && strlen(got) == 10);
	free(got);
}

static void
replace_and_rename(struct state *st, const char *dir)
{
	char path[TMPDIR_PATH_MAX + 32];
	struct stat sb;
	int i;

	umask(077);
	CHECK(state_mkdir(st, "sub", 0755) == 0);
	CHECK(state_mkdir(st, "sub", 0755) == 0);	/* EEXIST is success */
	snprintf(path, sizeof(path), "%s/sub", dir);
	CHECK(stat(path, &sb) == 0 && (sb.st_mode & 07777) == 0755);
	CHECK(state_replace(st, "sub/a", "one", 3, 0644) == 0);
	CHECK(state_replace(st, "sub/a", "two", 3, 0644) == 0);
	CHECK(reads(st, "sub/a", "two"));
	snprintf(path, sizeof(path), "%s/sub/a", dir);
	CHECK(stat(path, &sb) == 0 && (sb.st_mode & 07777) == 0644);
	CHECK(entries(st, "sub") == 1);		/* no temporary left */
	/* The subdirectory renamed away: forgotten, a new one is used. */
	CHECK(state_rename(st, "sub", "old") == 0);
	state_forget(st, "sub");
	CHECK(state_mkdir(st, "sub", 0700) == 0);
	CHECK(state_replace(st, "sub/b", "new", 3, 0644) == 0);
	CHECK(reads(st, "old/a", "two"));
	CHECK(reads(st, "sub/b", "new"));
	CHECK(entries(st, "old") == 1 && entries(st, "sub") == 1);
	CHECK(state_rename(st, "old/a", "sub/a") == 0);
	CHECK(entries(st, "old") == 0 && entries(st, "sub") == 2);
	CHECK(state_remove(st, "sub/a", 0) == 0);
	CHECK(state_remove(st, "old", AT_REMOVEDIR) == 0);
	state_forget(st, "old");
	CHECK(read_text(st, "old/a", 10) == NULL);
	/* More subdirectories than the handle keeps open. */
	for (i = 0; i < STATE_SUBDIRS + 4; i++) {
		snprintf(path, sizeof(path), "d%d", i);
		CHECK(state_mkdir(st, path, 0755) == 0);
		snprintf(path, sizeof(path), "d%d/f", i);
		CHECK(state_replace(st, path, "x", 1, 0644) == 0);
		CHECK(reads(st, path, "x"));
	}
	CHECK(st->nsub <= STATE_SUBDIRS);
	CHECK(state_file_path(st, "work", path, sizeof(path)) == 0 &&
	    strcmp(path + strlen(dir), "/work") == 0);
	CHECK(state_file_path(st, "work", path, 4) == -1);
}

int
main(void)
{
	const char *dir = tmpdir_make("t_state");
	struct state st;

	missing_then_created(dir);
	pinned_not_path(dir);
	CHECK(state_open(&st, dir) == 0);
	names_refused(&st);
	links_fifos_owners(&st, dir);
	replace_and_rename(&st, dir);
	state_close(&st);
	return check_result();
}
