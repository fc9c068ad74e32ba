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
 *
 * The watcher stopped (the path unit stopped or failed, its runs dying):
 * the full update would push the marker ahead for ever.  So it looks at
 * the spool first: a watcher that answers takes every hint within
 * seconds, so a hint waiting longer than LEARNING_UNANSWERED says nobody
 * answers, and the marker is removed; the next `update --hints` (the
 * watcher back) writes it anew.  A hint's age is its ctime, which its
 * writer can move forward only (utimensat sets it to now): no user can
 * make a hint look old and end the wait for everyone.
 */
#include <dirent.h>
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
/*
 * Seconds a hint waits in the live spool before it counts as unanswered:
 * more than a fast run may take (crlcache-hints.service's TimeoutStartSec,
 * 15 min, while hints arriving meanwhile wait for the next run) plus its
 * two-second hold.  A full update holds the lock while it looks, so no
 * fast run is under way then.
 */
#define LEARNING_UNANSWERED	(20 * 60)
/* Spool entries looked at: a flood does not make the full update slow. */
#define LEARNING_LOOK_MAX	4096

/* A regular file in the live spool older than LEARNING_UNANSWERED. */
static int
unanswered(const char *state_dir, time_t now)
{
	struct dirent *de;
	struct stat sb;
	size_t looked = 0;
	DIR *d;
	int found = 0;

	if ((d = hints_opendir(state_dir)) == NULL)
		return 0;
	while (!found && looked++ < LEARNING_LOOK_MAX &&
	    (de = readdir(d)) != NULL)
		found = fstatat(dirfd(d), de->d_name, &sb,
		    AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(sb.st_mode) && sb.st_ctime < now - LEARNING_UNANSWERED;
	closedir(d);
	return found;
}

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
	if (!create && unanswered(state_dir, now)) {
		if (unlink(path) == -1)
			logx(1, "%s: %s", path, strerror(errno));
		else
			logx(1, "learning: a hint waited over %d minutes: the "
			    "spool's watcher (crlcache-hints.path) does not "
			    "answer; programs no longer wait for it (learn_wait) "
			    "until it runs again", LEARNING_UNANSWERED / 60);
		goto done;
	}
	ts[0].tv_sec = ts[1].tv_sec = now + CRLC_LEARNING_TTL;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	if (fchmod(fd, LEARNING_MODE) == -1 || futimens(fd, ts) == -1)
		logx(1, "%s: %s", path, strerror(errno));
done:
	close(fd);
}
