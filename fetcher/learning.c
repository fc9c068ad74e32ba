/*
 * The learning marker (<crlcache/hint.h>): tells the provider that a
 * fetcher answers hints within seconds, so that a verification meeting
 * a new issuer may wait for the answer (provider/learn.c).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * `update --hints` is what the spool's watcher (crlcache-hints.path)
 * starts, and only it: each such run writes the marker, its mtime
 * CRLC_LEARNING_TTL seconds ahead.  A full `update` pushes an existing
 * marker ahead again while it has not expired, so that a host whose
 * watcher meets no new issuer for hours still has it; it never creates
 * one, so cron alone never makes programs wait.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fetcher.h"

/* World-readable like the index: every program looks at its mtime. */
#define LEARNING_MODE	0644

void
learning_mark(const char *state_dir, int create)
{
	char path[PATH_MAX];
	struct timespec ts[2];
	struct stat sb;
	time_t now = time(NULL);
	int fd;

	snprintf(path, sizeof(path), "%s/%s", state_dir, CRLC_LEARNING_NAME);
	if ((fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
	    (create ? O_CREAT : 0), LEARNING_MODE)) == -1) {
		if (create || errno != ENOENT)
			logx(1, "%s: %s", path, strerror(errno));
		return;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != geteuid()) {
		logx(1, "%s: not a file of this account; not used", path);
		goto done;
	}
	/* Expired: no watcher ran for CRLC_LEARNING_TTL, leave it so. */
	if (!create && sb.st_mtime <= now)
		goto done;
	ts[0].tv_sec = ts[1].tv_sec = now + CRLC_LEARNING_TTL;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	if (fchmod(fd, LEARNING_MODE) == -1 || futimens(fd, ts) == -1)
		logx(1, "%s: %s", path, strerror(errno));
done:
	close(fd);
}
