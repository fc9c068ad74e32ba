/*
 * The hint spool: certificates that programs on this host verified and
 * that no CRL in the index covered (provider/hint.c writes them; the
 * contract is in <crlcache/hint.h>).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * STATE_DIR/hints is mode 3733: every local user can create files in it,
 * so every entry is hostile input.  It is used only when this account
 * owns it: a spool another user made first (in a shared, sticky state
 * directory) would let that user read every hint.  A hint is taken only
 * when it is a regular file with one link (opened with O_NOFOLLOW |
 * O_NONBLOCK, checked with fstat: no symlink is followed, no FIFO blocks,
 * no other file is read through a hard link), at most HINT_MAX_SIZE
 * bytes, and exactly one DER Certificate (RFC 5280 4.1) with nothing
 * after it.  Its name means nothing (the provider draws it at random).
 * What a hint claims is proven later (enrolment.c); here it only has to
 * be well-formed.
 *
 * Who pays: the writer of a hint is the file's owner (fstat, which no
 * name can fake), and what a writer's input costs is charged to that
 * writer alone.  Each run moves the spool's files into one queue per
 * writer (work/hints.queue/UID/, private), named by the file's
 * modification time so that a writer's oldest hints come first.  Every
 * writer gets at most HINT_WRITER_MAX hints proven per run (repeats of
 * one issuer, key identifier and distribution points count once) out of
 * at most HINT_WRITER_READS files read; the run's own bounds
 * (HINT_TAKE_MAX proofs, and the caIssuers fetches of enrolment.c) are
 * dealt in turns, one hint of every writer per turn, starting where the
 * last run left off (work/hints.turn).  What does not fit waits in its
 * queue for the next run: no hint is removed before it is read, and no
 * table is sized by the number of writers (uids are not scarce).
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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <crlcache/hash.h>

#include "fetcher.h"

#define SPOOL_MODE	CRLC_HINTS_MODE
#define DRAIN_NAME	WORK_NAME "/hints.drain"
#define QUEUE_NAME	WORK_NAME "/hints.queue"
#define JUNK_NAME	WORK_NAME "/hints.junk"
#define TURN_NAME	WORK_NAME "/hints.turn"
/* Queues, parked drains and what is parked in them: nobody else's. */
#define QUEUE_MODE	0700
#define JUNK_MODE	0700
/*
 * The successor of the live spool is made inside it, under a name no
 * writer can guess (128 bits, as a hint's) and that no hint has (the
 * provider's names are hex only).
 */
#define SPOOL_NEXT_PREFIX	"next."
#define SPOOL_NEXT_RAND		16
#define SPOOL_NEXT_LEN		(sizeof(SPOOL_NEXT_PREFIX) + 2 * SPOOL_NEXT_RAND)
#define HINT_MAX_SIZE	CRLC_HINT_MAX
/* Hints proven per run: each costs a signature check and a chain build. */
#define HINT_TAKE_MAX	512
/*
 * Hints proven per writer and run: a user's programs meet a few new CAs
 * between two runs (one hint per issuer and process).  More waits.
 */
#define HINT_WRITER_MAX	32
/*
 * Files read per writer and run: its proven hints and as many repeats
 * or malformed ones (a read costs up to HINT_MAX_SIZE bytes).  The rest
 * waits for the next run, unread.
 */
#define HINT_WRITER_READS	(2 * HINT_WRITER_MAX)
/*
 * Names of one writer's queue listed per run to find its oldest: a
 * listing of this size takes about a millisecond.  In a larger queue the
 * oldest among them come first, and only that writer's order suffers.
 */
#define HINT_WRITER_LOOK	4096
/*
 * Writers' queues visited per run (each an open and a listing): more
 * writers than a run proves hints (HINT_TAKE_MAX), so that writers whose
 * queues hold only repeats or malformed files are emptied too.
 */
#define HINT_VISIT_MAX	(8 * HINT_TAKE_MAX)
/*
 * Writers known at once: the queue directory's entries, one per uid with
 * hints waiting (4 bytes each).  Past it (a million uids with hints
 * waiting) the further uids wait for the next runs.
 */
#define HINT_WRITERS_MAX	(1 << 20)
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
/* A queue entry's name: mtime seconds and nanoseconds, run, sequence. */
#define QNAME_SIZE	(16 + 8 + 1 + 16 + 1 + 8 + 1)

/* One writer (a file owner) this run: its queue and what it spent. */
struct writer {
	uid_t		uid;
	int		dfd;		/* its queue; -1 until visited */
	int		done;		/* nothing more this run */
	int		listed_all;	/* the listing saw its whole queue */
	char		(*names)[QNAME_SIZE];	/* oldest first */
	size_t		nnames, next;
	size_t		kept, reads;
	size_t		aia;		/* caIssuers fetches left this run */
	uint8_t		(*keys)[CRLC_HASH_LEN];	/* of its kept hints */
};

struct hint_queue {
	int		qfd;		/* work/hints.queue */
	char		turn_path[PATH_MAX];
	struct writer	*w;		/* in turn order */
	size_t		n, at, visits;
	int		progress;	/* a hint taken in this turn */
	size_t		turn;
	struct writer	*cur;		/* of the hint last returned */
	char		curname[QNAME_SIZE];
	int		first_wait_set;
	uid_t		first_wait;	/* the first writer that must wait */
	struct hint_tally *tl;
};

/* Open one entry: a regular file of one link, or -1 (and why). */
static int
hint_open(int dfd, const char *name, struct stat *sb, const char **why)
{
	int fd;

	*why = "not a regular file";
	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, sb) == -1 || !S_ISREG(sb->st_mode) || sb->st_nlink != 1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Read the open hint; NULL (and why) when it is not one certificate. */
static X509 *
hint_parse(int fd, const struct stat *sb, const char **why)
{
	const unsigned char *p;
	uint8_t *buf = NULL;
	X509 *x = NULL;
	ssize_t n;

	*why = "empty or too large";
	if (sb->st_size <= 0 || sb->st_size > HINT_MAX_SIZE ||
	    (buf = malloc((size_t)sb->st_size + 1)) == NULL)
		goto done;
	/* One byte more than fstat said: a file that grew is refused. */
	*why = "changed while read";
	if ((n = read(fd, buf, (size_t)sb->st_size + 1)) != sb->st_size)
		goto done;
	*why = "not one DER certificate";
	p = buf;
	if ((x = d2i_X509(NULL, &p, n)) != NULL && p != buf + n) {
		X509_free(x);
		x = NULL;
	}
done:
	ERR_clear_error();
	free(buf);
	return x;
}

/*
 * What makes two hints of one writer the same request: the issuer name,
 * the authority key identifier and the distribution points (another
 * partition of one issuer is another request).  The pieces are hashed
 * end to end: a collision across their boundaries only merges two of
 * the same writer's hints.
 */
static int
hint_key(X509 *x, uint8_t key[CRLC_HASH_LEN])
{
	static const int nids[] = { NID_authority_key_identifier,
	    NID_crl_distribution_points };
	const ASN1_OCTET_STRING *ext;
	unsigned char *name = NULL;
	struct iovec iov[3];
	size_t i;
	int len, loc;

	if ((len = i2d_X509_NAME(X509_get_issuer_name(x), &name)) <= 0)
		return -1;
	iov[0].iov_base = name;
	iov[0].iov_len = (size_t)len;
	for (i = 0; i < 2; i++) {
		loc = X509_get_ext_by_NID(x, nids[i], -1);
		ext = loc >= 0 ? X509_EXTENSION_get_data(X509_get_ext(x, loc)) :
		    NULL;
		iov[1 + i].iov_base = ext != NULL ? ext->data : NULL;
		iov[1 + i].iov_len = ext != NULL ? (size_t)ext->length : 0;
	}
	crlc_sha256_iov(iov, 3, key);
	OPENSSL_free(name);
	return 0;
}

/* Keep x for w (which has room); 0, or -1 when w already has its like. */
static int
writer_keep(struct writer *w, X509 *x)
{
	uint8_t key[CRLC_HASH_LEN];
	size_t i;

	if (hint_key(x, key) == -1)
		return -1;
	for (i = 0; i < w->kept; i++)
		if (memcmp(w->keys[i], key, sizeof(key)) == 0)
			return -1;
	memcpy(w->keys[w->kept++], key, sizeof(key));
	return 0;
}

/* Remove an entry of dfd: a file, or an empty directory. */
static int
remove_entry(int dfd, const char *name)
{
	return unlinkat(dfd, name, 0) == 0 ||
	    unlinkat(dfd, name, AT_REMOVEDIR) == 0 ? 0 : -1;
}

/* A directory stream of dfd's directory from its start (dfd stays open). */
static DIR *
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

static int
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

/* A private directory of this account at path, made if missing; its fd. */
static int
private_dir(const char *path, mode_t mode)
{
	struct stat sb;
	int fd;

	if (mkdir(path, mode) == -1 && errno != EEXIST) {
		logx(0, "%s: %s", path, strerror(errno));
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || fstat(fd, &sb) == -1 ||
	    sb.st_uid != geteuid()) {
		logx(0, "%s: not a directory of this account; not used", path);
		if (fd != -1)
			close(fd);
		return -1;
	}
	return fd;
}

/*
 * The spool at path, made if missing, as the contract wants it: this
 * account's, its group this account's (the setgid bit hands it to every
 * hint, so that the hint is readable here and nowhere else), mode
 * SPOOL_MODE.  A spool of another owner is refused, never repaired.  A
 * spool already as it should be is left alone: a sandbox that forbids
 * setting the setgid bit (systemd's RestrictSUIDSGID=) refuses the
 * chmod even when it would change nothing.
 */
static int
spool_create(const char *path)
{
	struct stat sb;
	int fd, ret = -1;

	if (mkdir(path, 0700) == -1 && errno != EEXIST) {
		logx(0, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* Said before opening: another user's 1733 spool cannot be read. */
	if (lstat(path, &sb) == 0 && sb.st_uid != geteuid()) {
		logx(0, "%s belongs to uid %lu, not to this account: hints are "
		    "not used until it is removed", path,
		    (unsigned long)sb.st_uid);
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || fstat(fd, &sb) == -1) {
		logx(0, "%s: %s", path, strerror(errno));
		goto done;
	}
	if (sb.st_uid != geteuid()) {
		logx(0, "%s: replaced while opened; not used", path);
		goto done;
	}
	if (sb.st_gid == getegid() && (sb.st_mode & 07777) == SPOOL_MODE) {
		ret = 0;
		goto done;
	}
	/* chown clears the setgid bit: the group first, then the mode. */
	if (sb.st_gid != getegid() && fchown(fd, (uid_t)-1, getegid()) == -1) {
		logx(0, "%s: chown: %s", path, strerror(errno));
		goto done;
	}
	/* mkdir's mode passes through the umask; sticky and setgid must not. */
	if (fchmod(fd, SPOOL_MODE) == -1) {
		logx(0, "%s: chmod %o: %s%s", path, SPOOL_MODE, strerror(errno),
		    errno == EPERM ? " (a sandbox that forbids the setgid bit: "
		    "run crlcache publish outside it once)" : "");
		goto done;
	}
	ret = 0;
done:
	if (fd != -1)
		close(fd);
	return ret;
}

int
hints_prepare(const char *state_dir)
{
	char spool[PATH_MAX];
	struct stat sb;

	snprintf(spool, sizeof(spool), "%s/%s", state_dir, HINTS_NAME);
	if (lstat(spool, &sb) == 0 && !S_ISDIR(sb.st_mode) &&
	    unlink(spool) == -1) {
		logx(0, "%s: %s", spool, strerror(errno));
		return -1;
	}
	return spool_create(spool);
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
spool_successor(const char *spool, char name[SPOOL_NEXT_LEN])
{
	uint8_t rnd[SPOOL_NEXT_RAND];
	struct stat sb;
	mode_t mask;
	int dfd, fd = -1, made = 0, ret = -1;

	if ((dfd = open(spool, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		logx(0, "%s: %s", spool, strerror(errno));
		return -1;
	}
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		logx(0, "%s: getrandom: %s", spool, strerror(errno));
		goto done;
	}
	memcpy(name, SPOOL_NEXT_PREFIX, sizeof(SPOOL_NEXT_PREFIX) - 1);
	hex_encode(rnd, sizeof(rnd), name + sizeof(SPOOL_NEXT_PREFIX) - 1, 0);
	mask = umask(0);
	made = mkdirat(dfd, name, SPOOL_MODE & ~(mode_t)S_ISGID) == 0;
	(void)umask(mask);
	if (!made) {
		logx(0, "%s/%s: %s", spool, name, strerror(errno));
		goto done;
	}
	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || fstat(fd, &sb) == -1 ||
	    sb.st_uid != geteuid() || sb.st_gid != getegid() ||
	    (sb.st_mode & 07777) != SPOOL_MODE) {
		logx(0, "%s: a new spool made in it is not mode %o of this "
		    "account's group; hints are not used", spool, SPOOL_MODE);
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
 * as when the provider finds none.
 */
static int
spool_swap(const char *state_dir, const char *drain)
{
	char spool[PATH_MAX], next[PATH_MAX], name[SPOOL_NEXT_LEN];
	struct stat sb;

	if (lstat(drain, &sb) == 0)
		return 0;	/* the last run's drain is not finished */
	snprintf(spool, sizeof(spool), "%s/%s", state_dir, HINTS_NAME);
	if (spool_create(spool) == -1 || spool_successor(spool, name) == -1)
		return -1;
	if (rename(spool, drain) == -1) {
		logx(0, "%s: %s", spool, strerror(errno));
		if (snprintf(next, sizeof(next), "%s/%s", spool, name) <
		    (int)sizeof(next))
			(void)rmdir(next);
		return -1;
	}
	/* On failure the successor is drained (removed) with the rest. */
	if (snprintf(next, sizeof(next), "%s/%s", drain, name) >=
	    (int)sizeof(next) || rename(next, spool) == -1) {
		logx(0, "%s: %s", spool, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * What a user made undeletable (a directory of theirs with content): the
 * drain holding it is closed to everybody else and parked, never left to
 * block the spool; at most HINT_JUNK_MAX times, after which the drain is
 * kept, closed, and the spool is taken in place.
 */
static void
park(const char *state_dir, const char *drain, int dfd, size_t stuck)
{
	char junk[PATH_MAX], dst[PATH_MAX + 32];
	struct timespec ts;
	int jfd;

	if (fchmod(dfd, JUNK_MODE) == -1) {
		logx(0, "%s: chmod: %s", drain, strerror(errno));
		return;
	}
	snprintf(junk, sizeof(junk), "%s/%s", state_dir, JUNK_NAME);
	if ((jfd = private_dir(junk, JUNK_MODE)) == -1)
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
	snprintf(dst, sizeof(dst), "%s/%lld.%09ld", junk, (long long)ts.tv_sec,
	    ts.tv_nsec);
	if (rename(drain, dst) == -1) {
		logx(0, "%s: %s", drain, strerror(errno));
		return;
	}
	logx(1, "hints: %zu entries could not be removed; closed and moved "
	    "to %s", stuck, dst);
}

/* The directory at path, this account's, through intake(); -1 when not. */
static int
intake_dir(const char *path, int qfd, int64_t run, size_t *seq,
    struct hint_tally *tl, int *all)
{
	struct stat sb;
	int dfd;

	if ((dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return errno == ENOENT ? -1 : -2;
	if (fstat(dfd, &sb) == -1 || sb.st_uid != geteuid()) {
		logx(0, "%s: not this account's; not read", path);
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
static int
spool_intake(const char *state_dir, int qfd, struct hint_tally *tl)
{
	char drain[PATH_MAX], spool[PATH_MAX];
	struct timespec ts;
	struct stat sb;
	size_t seq = 0;
	int64_t run;
	int dfd, all = 1;

	clock_gettime(CLOCK_REALTIME, &ts);
	run = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	snprintf(drain, sizeof(drain), "%s/%s", state_dir, DRAIN_NAME);
	snprintf(spool, sizeof(spool), "%s/%s", state_dir, HINTS_NAME);
	if (spool_swap(state_dir, drain) == -1)
		return -1;
	if ((dfd = intake_dir(drain, qfd, run, &seq, tl, &all)) == -2)
		return -1;
	if (dfd >= 0) {
		if (!all)
			logx(1, "hints: more than %d waiting; the rest is taken "
			    "by the next runs", HINT_MOVE_MAX);
		else if (rmdir(drain) == -1)
			park(state_dir, drain, dfd, tl->stuck);
		close(dfd);
	}
	if (lstat(drain, &sb) == 0 &&
	    (dfd = intake_dir(spool, qfd, run, &seq, tl, &all)) >= 0)
		close(dfd);
	return 0;
}

static int
cmp_uid(const void *a, const void *b)
{
	uid_t x = *(const uid_t *)a, y = *(const uid_t *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_qname(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* A queue's name: the decimal uid its writer has. */
static int
parse_uid(const char *s, uid_t *uid)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9' || strlen(s) > 10)
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v >= (unsigned long)(uid_t)-1)
		return -1;
	*uid = (uid_t)v;
	return 0;
}

/* The writer the last run stopped before (work/hints.turn), or 0. */
static uid_t
turn_load(const char *path)
{
	char err[ERRLEN], text[16];
	uint8_t *buf = NULL;
	size_t len = 0;
	uid_t uid = 0;

	if (read_state_file(path, sizeof(text) - 1, &buf, &len, err,
	    sizeof(err)) == 0) {
		memcpy(text, buf, len);
		text[len] = '\0';
		if (parse_uid(text, &uid) == -1)
			uid = 0;
	}
	free(buf);
	return uid;
}

/* The writers with a queue, in uid order from the first at or after start. */
static void
writers_list(struct hint_queue *q, uid_t start)
{
	uid_t *u = NULL, uid;
	size_t n = 0, cap = 0, i, k;
	struct dirent *de;
	DIR *d;

	if ((d = list_dir(q->qfd)) == NULL)
		return;
	while (n < HINT_WRITERS_MAX && (de = readdir(d)) != NULL) {
		if (parse_uid(de->d_name, &uid) == -1)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			u = xreallocarray(u, cap, sizeof(*u));
		}
		u[n++] = uid;
	}
	closedir(d);
	if (n > 0)
		qsort(u, n, sizeof(*u), cmp_uid);
	for (k = 0; k < n && u[k] < start; k++)
		;
	q->w = xcalloc(n + 1, sizeof(*q->w));
	for (i = 0; i < n; i++) {
		q->w[i].uid = u[(k + i) % n];
		q->w[i].dfd = -1;
		q->w[i].aia = AIA_WRITER_MAX;
	}
	q->n = n;
	free(u);
}

/* Open w's queue and list its oldest HINT_WRITER_READS names. */
static int
writer_visit(struct hint_queue *q, struct writer *w)
{
	char (*v)[QNAME_SIZE] = NULL, name[16];
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	if (q->visits == HINT_VISIT_MAX)
		return -1;
	q->visits++;
	snprintf(name, sizeof(name), "%lu", (unsigned long)w->uid);
	if ((w->dfd = openat(q->qfd, name, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1 || (d = list_dir(w->dfd)) == NULL)
		return -1;
	w->listed_all = 1;
	while ((de = readdir(d)) != NULL) {
		if (dot(de->d_name) || strlen(de->d_name) >= QNAME_SIZE)
			continue;	/* not a name intake_one gives */
		if (n == HINT_WRITER_LOOK) {
			w->listed_all = 0;
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		memcpy(v[n++], de->d_name, strlen(de->d_name) + 1);
	}
	closedir(d);
	if (n > 0)
		qsort(v, n, sizeof(*v), cmp_qname);
	if (n > HINT_WRITER_READS) {
		n = HINT_WRITER_READS;
		w->listed_all = 0;
	}
	w->names = v;
	w->nnames = n;
	w->keys = xcalloc(HINT_WRITER_MAX, sizeof(*w->keys));
	return 0;
}

/*
 * w's next well-formed hint that is not a repeat of one it left this
 * run, its name in q->curname; NULL when w has no more this run.  What
 * is read and refused is removed.
 */
static X509 *
writer_next(struct hint_queue *q, struct writer *w)
{
	const char *name, *why;
	struct stat sb;
	X509 *x;
	int fd;

	while (w->next < w->nnames && w->reads < HINT_WRITER_READS &&
	    w->kept < HINT_WRITER_MAX) {
		name = w->names[w->next++];
		w->reads++;
		x = NULL;
		if ((fd = hint_open(w->dfd, name, &sb, &why)) != -1) {
			why = "not its writer's";
			if (sb.st_uid == w->uid)
				x = hint_parse(fd, &sb, &why);
			close(fd);
		} else if (errno == ENOENT)
			continue;
		if (x == NULL) {
			q->tl->malformed++;
			logx(2, "hint of uid %lu: refused: %s",
			    (unsigned long)w->uid, why);
		} else if (writer_keep(w, x) == -1) {
			q->tl->repeated++;
			X509_free(x);
		} else {
			memcpy(q->curname, name, QNAME_SIZE);
			return x;
		}
		(void)remove_entry(w->dfd, name);
	}
	return NULL;
}

int
hints_open(const char *state_dir, struct hint_queue **qp,
    struct hint_tally *tl)
{
	char path[PATH_MAX];
	struct hint_queue *q;

	memset(tl, 0, sizeof(*tl));
	*qp = NULL;
	snprintf(path, sizeof(path), "%s/%s", state_dir, QUEUE_NAME);
	q = xcalloc(1, sizeof(*q));
	q->tl = tl;
	if ((q->qfd = private_dir(path, QUEUE_MODE)) == -1 ||
	    spool_intake(state_dir, q->qfd, tl) == -1) {
		hints_close(q);
		return -1;
	}
	snprintf(q->turn_path, sizeof(q->turn_path), "%s/%s", state_dir,
	    TURN_NAME);
	writers_list(q, turn_load(q->turn_path));
	*qp = q;
	return 0;
}

X509 *
hints_next(struct hint_queue *q, size_t **aia)
{
	struct writer *w;
	X509 *x;

	while (q != NULL && q->tl->taken < HINT_TAKE_MAX &&
	    q->turn < HINT_WRITER_MAX) {
		if (q->at == q->n) {
			if (!q->progress)
				break;
			q->at = 0;
			q->turn++;
			q->progress = 0;
			continue;
		}
		w = &q->w[q->at++];
		if (w->done)
			continue;
		if (w->dfd == -1 && writer_visit(q, w) == -1) {
			w->done = 1;	/* its turn comes with the next run */
			if (!q->first_wait_set) {
				q->first_wait_set = 1;
				q->first_wait = w->uid;
			}
			continue;
		}
		if ((x = writer_next(q, w)) == NULL) {
			w->done = 1;
			continue;
		}
		q->progress = 1;
		q->cur = w;
		q->tl->taken++;
		*aia = &w->aia;
		return x;
	}
	return NULL;
}

void
hints_settle(struct hint_queue *q, int wait)
{
	struct writer *w = q->cur;

	if (w == NULL)
		return;
	q->cur = NULL;
	if (!wait) {
		(void)remove_entry(w->dfd, q->curname);
		return;
	}
	/* Still the writer's oldest: first in its turn next run. */
	q->tl->waiting++;
	w->listed_all = 0;
	if (!q->first_wait_set) {
		q->first_wait_set = 1;
		q->first_wait = w->uid;
	}
}

void
hints_close(struct hint_queue *q)
{
	char text[16], name[16];
	struct writer *w;
	size_t i;
	int n;

	if (q == NULL)
		return;
	/* Who comes first next run: who had to wait, or who was next. */
	if (!q->first_wait_set && q->at < q->n && q->tl->taken == HINT_TAKE_MAX) {
		q->first_wait_set = 1;
		q->first_wait = q->w[q->at].uid;
	}
	if (q->turn_path[0] != '\0') {
		n = snprintf(text, sizeof(text), "%lu", (unsigned long)
		    (q->first_wait_set ? q->first_wait : 0));
		(void)replace_file(q->turn_path, text, (size_t)n, 0600,
		    (uid_t)-1, (gid_t)-1);
	}
	for (i = 0; i < q->n; i++) {
		w = &q->w[i];
		if (w->dfd == -1)
			continue;
		/* An emptied queue goes; a writer's next hint makes it anew. */
		if (w->listed_all && w->next == w->nnames) {
			snprintf(name, sizeof(name), "%lu", (unsigned long)w->uid);
			(void)unlinkat(q->qfd, name, AT_REMOVEDIR);
		}
		close(w->dfd);
		free(w->names);
		free(w->keys);
	}
	free(q->w);
	if (q->qfd != -1)
		close(q->qfd);
	free(q);
}

DIR *
hints_opendir(const char *state_dir)
{
	char path[PATH_MAX];
	DIR *d;
	int fd, saved;

	snprintf(path, sizeof(path), "%s/%s", state_dir, HINTS_NAME);
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return NULL;
	if ((d = fdopendir(fd)) == NULL) {
		saved = errno;
		close(fd);
		errno = saved;
	}
	return d;
}

int
hints_waiting(const char *state_dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat sb;
	DIR *d;
	int any = 0;

	snprintf(path, sizeof(path), "%s/%s", state_dir, DRAIN_NAME);
	if (lstat(path, &sb) == 0)
		return 1;
	if ((d = hints_opendir(state_dir)) == NULL)
		return errno != ENOENT;	/* unreadable: let learning say why */
	while (!any && (de = readdir(d)) != NULL)
		any = strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return any;
}
