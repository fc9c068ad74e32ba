/*
 * The hint spool, STATE_DIR/hints: made and kept as the contract of
 * <crlcache/hint.h> wants it, and taken in by each run into its writers'
 * queues (read by hint.c).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Intake: each run renames the spool into the private working directory
 * (work/hints.drain) and puts an empty one, made inside it beforehand, in
 * its place (spool_successor says why there), so the live spool holds at
 * most what one interval of writers left; the drain's files are moved to
 * their writers' queues, anything else is removed (HINT_MOVE_MAX per run;
 * a larger flood is finished by the next runs, meanwhile the live spool
 * is taken in place).  A directory of a user's with content cannot be
 * removed: its drain is closed (JUNK_MODE) and parked in work/hints.junk/,
 * at most HINT_JUNK_MAX of them; past that the drain stays where it is
 * and the live spool is taken in place, its undeletable entries left to
 * their owners.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fetcher.h"
#include "spool.h"

#define SPOOL_MODE	CRLC_HINTS_MODE
#define DRAIN_NAME	WORK_NAME "/hints.drain"
#define JUNK_NAME	WORK_NAME "/hints.junk"
#define JUNK_MODE	0700
/*
 * The successor of the live spool is made inside it, under a name no
 * writer can guess (128 bits, as a hint's) and that no hint has (the
 * provider's names are hex only).
 */
#define SPOOL_NEXT_PREFIX	"next."
#define SPOOL_NEXT_RAND		16
#define SPOOL_NEXT_LEN		(sizeof(SPOOL_NEXT_PREFIX) + 2 * SPOOL_NEXT_RAND)
/*
 * Entries moved to a queue or removed per run, from the drain and again
 * from the live spool: each costs a few microseconds, so a flooded run
 * stays well under a second.
 */
#define HINT_MOVE_MAX	50000
/*
 * Entries listed per directory and run: an undeletable entry costs a
 * listing and one failed rmdir, far less than a move, so its owner must
 * make this many to hide the entries behind them for a run.
 */
#define HINT_LIST_MAX	(20 * HINT_MOVE_MAX)
/*
 * Drains parked because a user left a directory with content in them
 * (each one directory of this account).  Past it the drain is kept and
 * the live spool is taken in place.
 */
#define HINT_JUNK_MAX	16
/*
 * How often hints_follow() looks at the spool: the provider's own pace
 * while it waits (provider/learn.c), one listing of a near empty spool.
 */
#define HINTS_FOLLOW_POLL_MS	10

/* Remove an entry of dfd: a file, or an empty directory. */
int
remove_entry(int dfd, const char *name)
{
	return unlinkat(dfd, name, 0) == 0 ||
	    unlinkat(dfd, name, AT_REMOVEDIR) == 0 ? 0 : -1;
}

/* A directory stream of dfd's directory from its start (dfd stays open). */
DIR *
list_dir(int dfd)
{
	DIR *d;
	int fd;

	if ((fd = dup(dfd)) == -1)
		return NULL;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return NULL;
	}
	rewinddir(d);	/* the duplicate shares the offset */
	return d;
}

int
dot(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/*
 * One entry of the drain or the spool: a regular file of one link moves
 * to its owner's queue under its modification time (1), anything else is
 * removed (1) or left, when it cannot be (0).  A file that cannot be moved
 * (a full disk) stays where it is for the next run.
 */
static int
intake_one(int sfd, int qfd, const char *name, int64_t run, size_t *seq,
    struct hint_tally *tl)
{
	char uid[16], dst[sizeof(uid) + QNAME_SIZE];
	struct stat sb;

	if (fstatat(sfd, name, &sb, AT_SYMLINK_NOFOLLOW) == -1)
		return 0;
	tl->scanned++;
	if (S_ISREG(sb.st_mode) && sb.st_nlink == 1) {
		snprintf(uid, sizeof(uid), "%lu", (unsigned long)sb.st_uid);
		if (mkdirat(qfd, uid, QUEUE_MODE) == -1 && errno != EEXIST)
			return 0;
		snprintf(dst, sizeof(dst), "%s/%016llx%08lx.%016llx.%08zx", uid,
		    (unsigned long long)sb.st_mtim.tv_sec,
		    (unsigned long)sb.st_mtim.tv_nsec, (unsigned long long)run,
		    (*seq)++);
		return renameat2(sfd, name, qfd, dst, RENAME_NOREPLACE) == 0;
	}
	tl->malformed++;
	/* The sticky bit lets the spool's owner remove anything. */
	if (remove_entry(sfd, name) == 0)
		return 1;
	tl->stuck++;
	return 0;
}

/*
 * Every entry of sfd through intake_one, within HINT_MOVE_MAX moves and
 * HINT_LIST_MAX entries listed: 1 when all were looked at, else 0.
 */
static int
intake(int sfd, int qfd, int64_t run, size_t *seq, struct hint_tally *tl)
{
	struct dirent *de;
	size_t listed = 0, moved = 0;
	int all = 1;
	DIR *d;

	if ((d = list_dir(sfd)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (dot(de->d_name))
			continue;
		if (listed == HINT_LIST_MAX || moved == HINT_MOVE_MAX) {
			all = 0;
			break;
		}
		listed++;
		moved += (size_t)intake_one(sfd, qfd, de->d_name, run, seq, tl);
	}
	closedir(d);
	return all;
}

/* Entries of dfd, counted up to max. */
static size_t
count_entries(int dfd, size_t max)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	if ((d = list_dir(dfd)) == NULL)
		return max;
	while (n < max && (de = readdir(d)) != NULL)
		n += !dot(de->d_name);
	closedir(d);
	return n;
}

/* lstat() of name in the state: 0, or -1 with errno. */
static int
entry_stat(struct state *st, const char *name, struct stat *sb)
{
	const char *base;
	int dfd;

	if ((dfd = state_dirfd(st, name, &base)) == -1)
		return -1;
	return fstatat(dfd, base, sb, AT_SYMLINK_NOFOLLOW);
}

/* A private directory of this account, name, made if missing; its fd. */
int
private_dir(struct state *st, const char *name, mode_t mode)
{
	struct stat sb;
	int fd;

	if (state_mkdir(st, name, mode) == -1) {
		logx(0, "%s/%s: %s", state_path(st), name, strerror(errno));
		return -1;
	}
	if ((fd = state_openat(st, name, O_RDONLY | O_DIRECTORY, 0)) == -1 ||
	    fstat(fd, &sb) == -1 || sb.st_uid != geteuid()) {
		logx(0, "%s/%s: not a directory of this account; not used",
		    state_path(st), name);
		if (fd != -1)
			close(fd);
		return -1;
	}
	return fd;
}

/*
 * The spool, made if missing, as the contract wants it: this account's,
 * its group this account's (the setgid bit hands it to every hint, so
 * that the hint is readable here and nowhere else), mode SPOOL_MODE.  A
 * spool of another owner is refused, never repaired.  A spool already as
 * it should be is left alone: a sandbox that forbids setting the setgid
 * bit (systemd's RestrictSUIDSGID=) refuses the chmod even when it would
 * change nothing.
 */
static int
spool_create(struct state *st)
{
	const char *dir = state_path(st), *base;
	struct stat sb;
	int dfd, fd = -1, ret = -1;

	if ((dfd = state_dirfd(st, HINTS_NAME, &base)) == -1 ||
	    (mkdirat(dfd, base, 0700) == -1 && errno != EEXIST)) {
		logx(0, "%s/%s: %s", dir, HINTS_NAME, strerror(errno));
		return -1;
	}
	/* Said before opening: another user's 1733 spool cannot be read. */
	if (fstatat(dfd, base, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	    sb.st_uid != geteuid()) {
		logx(0, "%s/%s belongs to uid %lu, not to this account: hints "
		    "are not used until it is removed", dir, HINTS_NAME,
		    (unsigned long)sb.st_uid);
		return -1;
	}
	if ((fd = state_openat(st, HINTS_NAME, O_RDONLY | O_DIRECTORY,
	    0)) == -1 || fstat(fd, &sb) == -1) {
		logx(0, "%s/%s: %s", dir, HINTS_NAME, strerror(errno));
		goto done;
	}
	if (sb.st_uid != geteuid()) {
		logx(0, "%s/%s: replaced while opened; not used", dir,
		    HINTS_NAME);
		goto done;
	}
	if (sb.st_gid == getegid() && (sb.st_mode & 07777) == SPOOL_MODE) {
		ret = 0;
		goto done;
	}
	/* chown clears the setgid bit: the group first, then the mode. */
	if (sb.st_gid != getegid() && fchown(fd, (uid_t)-1, getegid()) == -1) {
		logx(0, "%s/%s: chown: %s", dir, HINTS_NAME, strerror(errno));
		goto done;
	}
	/* mkdir's mode passes through the umask; sticky and setgid must not. */
	if (fchmod(fd, SPOOL_MODE) == -1) {
		logx(0, "%s/%s: chmod %o: %s%s", dir, HINTS_NAME, SPOOL_MODE,
		    strerror(errno), errno == EPERM ? " (a sandbox that forbids "
		    "the setgid bit: run crlcache publish outside it once)" : "");
		goto done;
	}
	ret = 0;
done:
	if (fd != -1)
		close(fd);
	return ret;
}

int
hints_prepare(struct state *st)
{
	struct stat sb;

	if (entry_stat(st, HINTS_NAME, &sb) == 0 && !S_ISDIR(sb.st_mode) &&
	    state_remove(st, HINTS_NAME, 0) == -1) {
		logx(0, "%s/%s: %s", state_path(st), HINTS_NAME,
		    strerror(errno));
		return -1;
	}
	return spool_create(st);
}

/*
 * The live spool's successor, made inside it under a fresh random name
 * (writers may create any name there, but cannot guess this one): a
 * directory made in a setgid directory is setgid and of its group by the
 * kernel's rule, so no chmod needs the bit, which a sandbox may forbid.
 * The umask is cleared for that one mkdir (the fetcher has one thread).
 * name gets the successor's name; 0, or -1 when it is not made exactly
 * as the contract wants it (then nothing is left).
 */
static int
spool_successor(struct state *st, char name[SPOOL_NEXT_LEN])
{
	const char *dir = state_path(st);
	uint8_t rnd[SPOOL_NEXT_RAND];
	struct stat sb;
	mode_t mask;
	int dfd, fd = -1, made = 0, ret = -1;

	if ((dfd = state_openat(st, HINTS_NAME, O_RDONLY | O_DIRECTORY,
	    0)) == -1) {
		logx(0, "%s/%s: %s", dir, HINTS_NAME, strerror(errno));
		return -1;
	}
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		logx(0, "%s/%s: getrandom: %s", dir, HINTS_NAME,
		    strerror(errno));
		goto done;
	}
	memcpy(name, SPOOL_NEXT_PREFIX, sizeof(SPOOL_NEXT_PREFIX) - 1);
	crlc_hex_encode(rnd, sizeof(rnd), name + sizeof(SPOOL_NEXT_PREFIX) - 1,
	    0);
	mask = umask(0);
	made = mkdirat(dfd, name, SPOOL_MODE & ~(mode_t)S_ISGID) == 0;
	(void)umask(mask);
	if (!made) {
		logx(0, "%s/%s/%s: %s", dir, HINTS_NAME, name,
		    strerror(errno));
		goto done;
	}
	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || fstat(fd, &sb) == -1 ||
	    sb.st_uid != geteuid() || sb.st_gid != getegid() ||
	    (sb.st_mode & 07777) != SPOOL_MODE) {
		logx(0, "%s/%s: a new spool made in it is not mode %o of this "
		    "account's group; hints are not used", dir, HINTS_NAME,
		    SPOOL_MODE);
		goto done;
	}
	ret = 0;
done:
	if (fd != -1)
		close(fd);
	if (ret == -1 && made)
		(void)unlinkat(dfd, name, AT_REMOVEDIR);
	close(dfd);
	return ret;
}

/*
 * Move the live spool aside and put its successor in its place (nothing
 * to do when the last run's flood is not finished).  Between the two
 * renames there is no spool: a hint left then is dropped by its writer,
 * as when the provider finds none.  The directories renamed are
 * forgotten by the handle (state.h).
 */
static int
spool_swap(struct state *st)
{
	char next[sizeof(DRAIN_NAME) + SPOOL_NEXT_LEN], name[SPOOL_NEXT_LEN];
	struct stat sb;
	int rc;

	if (entry_stat(st, DRAIN_NAME, &sb) == 0)
		return 0;	/* the last run's drain is not finished */
	if (spool_create(st) == -1 || spool_successor(st, name) == -1)
		return -1;
	rc = state_rename(st, HINTS_NAME, DRAIN_NAME);
	state_forget(st, HINTS_NAME);
	state_forget(st, DRAIN_NAME);
	if (rc == -1) {
		logx(0, "%s/%s: %s", state_path(st), HINTS_NAME,
		    strerror(errno));
		snprintf(next, sizeof(next), "%s/%s", HINTS_NAME, name);
		(void)state_remove(st, next, AT_REMOVEDIR);
		state_forget(st, HINTS_NAME);
		return -1;
	}
	/* On failure the successor is drained (removed) with the rest. */
	snprintf(next, sizeof(next), "%s/%s", DRAIN_NAME, name);
	rc = state_rename(st, next, HINTS_NAME);
	state_forget(st, DRAIN_NAME);
	if (rc == -1) {
		logx(0, "%s/%s: %s", state_path(st), HINTS_NAME,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * What a user made undeletable (a directory of theirs with content): the
 * drain holding it (dfd) is closed to everybody else and parked, never
 * left to block the spool; at most HINT_JUNK_MAX times, after which the
 * drain is kept, closed, and the spool is taken in place.
 */
static void
park(struct state *st, int dfd, size_t stuck)
{
	char dst[sizeof(JUNK_NAME) + 64];
	struct timespec ts;
	int jfd, rc;

	if (fchmod(dfd, JUNK_MODE) == -1) {
		logx(0, "%s/%s: chmod: %s", state_path(st), DRAIN_NAME,
		    strerror(errno));
		return;
	}
	if ((jfd = private_dir(st, JUNK_NAME, JUNK_MODE)) == -1)
		return;
	if (count_entries(jfd, HINT_JUNK_MAX) == HINT_JUNK_MAX) {
		logx(1, "hints: %zu entries could not be removed; %d drains are "
		    "parked already, so this one stays closed and the spool is "
		    "taken in place", stuck, HINT_JUNK_MAX);
		close(jfd);
		return;
	}
	close(jfd);
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(dst, sizeof(dst), "%s/%lld.%09ld", JUNK_NAME,
	    (long long)ts.tv_sec, ts.tv_nsec);
	rc = state_rename(st, DRAIN_NAME, dst);
	state_forget(st, DRAIN_NAME);
	if (rc == -1) {
		logx(0, "%s/%s: %s", state_path(st), DRAIN_NAME,
		    strerror(errno));
		return;
	}
	logx(1, "hints: %zu entries could not be removed; closed and moved "
	    "to %s/%s", stuck, state_path(st), dst);
}

/* The directory name, this account's, through intake(); -1 when not. */
static int
intake_dir(struct state *st, const char *name, int qfd, int64_t run,
    size_t *seq, struct hint_tally *tl, int *all)
{
	struct stat sb;
	int dfd;

	if ((dfd = state_openat(st, name, O_RDONLY | O_DIRECTORY, 0)) == -1)
		return errno == ENOENT ? -1 : -2;
	if (fstat(dfd, &sb) == -1 || sb.st_uid != geteuid()) {
		logx(0, "%s/%s: not this account's; not read", state_path(st),
		    name);
		close(dfd);
		return -2;
	}
	*all = intake(dfd, qfd, run, seq, tl);
	return dfd;
}

/*
 * The spool's files to their writers' queues: the drain (the spool of the
 * last swap) first, then, while a drain remains, the live spool in place.
 */
int
spool_intake(struct state *st, int qfd, struct hint_tally *tl)
{
	struct timespec ts;
	struct stat sb;
	size_t seq = 0;
	int64_t run;
	int dfd, all = 1;

	clock_gettime(CLOCK_REALTIME, &ts);
	run = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if (spool_swap(st) == -1)
		return -1;
	if ((dfd = intake_dir(st, DRAIN_NAME, qfd, run, &seq, tl, &all)) == -2)
		return -1;
	if (dfd >= 0) {
		if (!all)
			logx(1, "hints: more than %d waiting; the rest is taken "
			    "by the next runs", HINT_MOVE_MAX);
		else if (state_remove(st, DRAIN_NAME, AT_REMOVEDIR) == -1)
			park(st, dfd, tl->stuck);
		state_forget(st, DRAIN_NAME);
		close(dfd);
	}
	if (entry_stat(st, DRAIN_NAME, &sb) == 0 &&
	    (dfd = intake_dir(st, HINTS_NAME, qfd, run, &seq, tl, &all)) >= 0)
		close(dfd);
	return 0;
}

DIR *
hints_opendir(struct state *st)
{
	return state_list(st, HINTS_NAME);
}

int
hints_waiting(struct state *st)
{
	struct dirent *de;
	struct stat sb;
	DIR *d;
	int any = 0;

	if (entry_stat(st, DRAIN_NAME, &sb) == 0)
		return 1;
	if ((d = hints_opendir(st)) == NULL)
		return errno != ENOENT;	/* unreadable: let learning say why */
	while (!any && (de = readdir(d)) != NULL)
		any = strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return any;
}

int
hints_follow(struct state *st, long ms)
{
	struct timespec ts = { 0, HINTS_FOLLOW_POLL_MS * 1000000L };
	long waited;

	for (waited = 0;; waited += HINTS_FOLLOW_POLL_MS) {
		if (hints_waiting(st))
			return 1;
		if (waited >= ms)
			return 0;
		(void)nanosleep(&ts, NULL);
	}
}
