/*
 * The refusal spool (<crlcache/refusal.h>): made and pruned after each
 * command that writes the state, shown by `crlcache status --refusals`.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Everything in the spool is hostile input: any local user may create a
 * file there and write what it likes in it.  So only the owner and the
 * time of a file, which the kernel sets, are believed; each line is
 * shown with the account that wrote it, escaped, and no more than
 * CRLC_REFUSAL_MAX bytes of it; no link is followed, no entry but a
 * regular file is opened, and a listing stops at CRLC_REFUSALS_SCAN
 * entries.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <crlcache/refusal.h>

#include "fetcher.h"

/* One file of the spool, as listed. */
struct refusal {
	int64_t	 mtime;
	uid_t	 uid;
	char	 name[NAME_MAX + 1];
};

/* The spool, listed without following a link; NULL when there is none. */
static DIR *
spool_opendir(const char *state_dir)
{
	char path[PATH_MAX];
	DIR *d;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", state_dir, CRLC_REFUSALS_DIR);
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return NULL;
	if ((d = fdopendir(fd)) == NULL)
		close(fd);
	return d;
}

/* A regular file with the spool's suffix: its owner and time in r. */
static int
spool_entry(DIR *d, const struct dirent *de, struct refusal *r)
{
	size_t len = strlen(de->d_name), slen = strlen(CRLC_REFUSAL_SUFFIX);
	struct stat sb;

	if (len <= slen || strcmp(de->d_name + len - slen,
	    CRLC_REFUSAL_SUFFIX) != 0 || fstatat(dirfd(d), de->d_name, &sb,
	    AT_SYMLINK_NOFOLLOW) == -1 || !S_ISREG(sb.st_mode))
		return -1;
	r->mtime = (int64_t)sb.st_mtime;
	r->uid = sb.st_uid;
	memcpy(r->name, de->d_name, len + 1);
	return 0;
}

void
refusals_tend(const char *state_dir)
{
	char path[PATH_MAX];
	struct refusal r;
	struct dirent *de;
	int64_t now = (int64_t)time(NULL);
	size_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", state_dir, CRLC_REFUSALS_DIR);
	/* mkdir's mode passes the umask: the bits are set after. */
	if (mkdir(path, 0700) == 0 && chmod(path, CRLC_REFUSALS_MODE) == -1)
		logx(0, "%s: cannot set mode %o", path, CRLC_REFUSALS_MODE);
	if ((d = spool_opendir(state_dir)) == NULL)
		return;
	while (n++ < CRLC_REFUSALS_SCAN && (de = readdir(d)) != NULL)
		if (spool_entry(d, de, &r) == 0 &&
		    r.mtime < now - CRLC_REFUSALS_KEEP)
			(void)unlinkat(dirfd(d), r.name, 0);
	closedir(d);
}

static int
cmp_mtime(const void *a, const void *b)
{
	const struct refusal *x = a, *y = b;

	return (x->mtime > y->mtime) - (x->mtime < y->mtime);
}

/* The first line of one file, at most CRLC_REFUSAL_MAX bytes, escaped. */
static char *
refusal_line(DIR *d, const char *name)
{
	char buf[CRLC_REFUSAL_MAX + 1];
	struct stat sb;
	ssize_t n;
	int fd;

	fd = openat(dirfd(d), name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (fd == -1)
		return NULL;
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    (n = read(fd, buf, CRLC_REFUSAL_MAX)) <= 0) {
		close(fd);
		return NULL;
	}
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return safe_text(buf);
}

int
refusals_print(const char *state_dir, FILE *out)
{
	struct refusal *v = xcalloc(CRLC_REFUSALS_SCAN, sizeof(*v));
	struct dirent *de;
	struct passwd *pw;
	char when[32], *line;
	size_t n = 0, seen = 0, i;
	int missing;
	DIR *d;

	if ((d = spool_opendir(state_dir)) == NULL) {
		missing = errno == ENOENT;
		fprintf(out, "no refusals noted: %s/%s %s\n", state_dir,
		    CRLC_REFUSALS_DIR, missing ? "is made by the next update" :
		    strerror(errno));
		free(v);
		return missing ? 0 : -1;
	}
	while (seen++ < CRLC_REFUSALS_SCAN && (de = readdir(d)) != NULL)
		if (spool_entry(d, de, &v[n]) == 0)
			n++;
	qsort(v, n, sizeof(*v), cmp_mtime);
	if (n > CRLC_REFUSALS_SHOWN)
		fprintf(out, "refusals: the newest %d of %zu shown\n",
		    CRLC_REFUSALS_SHOWN, n);
	/* Oldest first, as a log reads; the writer is the file's owner. */
	for (i = n > CRLC_REFUSALS_SHOWN ? n - CRLC_REFUSALS_SHOWN : 0; i < n;
	    i++) {
		if ((line = refusal_line(d, v[i].name)) == NULL)
			continue;
		format_time(v[i].mtime, when, sizeof(when));
		pw = getpwuid(v[i].uid);
		fprintf(out, "refusal %s uid=%lu(%s) %s\n", when,
		    (unsigned long)v[i].uid, pw != NULL ? pw->pw_name : "?",
		    line);
		free(line);
	}
	if (n == 0)
		fputs("no refusals noted\n", out);
	closedir(d);
	free(v);
	return ferror(out) ? -1 : 0;
}
