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
 * Fairness: the writer of a hint is the file's owner (fstat of the open
 * file, which no name can fake).  Each writer gets at most
 * HINT_WRITER_MAX hints kept per run (repeats of the same issuer, key
 * identifier and distribution points count once) out of at most
 * HINT_WRITER_READS files read, the rest removed unread, and the hints
 * proven are taken in turn from each writer: one user's flood costs that
 * user's own hints, never another's.
 *
 * Draining: each run renames the spool into the private working
 * directory and creates an empty one, so the live spool holds at most
 * what one interval of writers left, however many arrived.  The drained
 * entries are looked at and removed (at most HINT_SCAN_MAX per run; a
 * larger flood is finished by the next runs before the spool is swapped
 * again).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
/* A drained spool that could not be emptied, parked: nobody else's. */
#define JUNK_MODE	0700
#define HINT_MAX_SIZE	CRLC_HINT_MAX
/* Hints proven per run: each costs a signature check and a chain build. */
#define HINT_TAKE_MAX	512
/*
 * Hints kept per writer and run: a user's programs meet a few new CAs
 * between two runs (one hint per issuer and process).  More is a flood,
 * and costs only that writer's own hints.
 */
#define HINT_WRITER_MAX	32
/*
 * Files read per writer and run: its kept hints and as many repeats or
 * malformed ones.  The rest is removed unread: a writer's flood costs at
 * most this many reads of HINT_MAX_SIZE.
 */
#define HINT_WRITER_READS	(2 * HINT_WRITER_MAX)
/*
 * Writers told apart per run: the accounts of one host that verify
 * certificates.  With HINT_WRITER_MAX, it bounds the certificates held
 * at once (2,048, of at most HINT_MAX_SIZE each).
 */
#define HINT_WRITERS_MAX	64
/*
 * Entries looked at and removed per run.  Removing one costs a few
 * microseconds; this bounds a flooded run to well under a second.
 */
#define HINT_SCAN_MAX	50000

/* The hints of one writer (a file owner) this run. */
struct writer {
	uid_t		uid;
	size_t		n;		/* kept */
	size_t		reads;		/* files read */
	X509		*x[HINT_WRITER_MAX];
	uint8_t		key[HINT_WRITER_MAX][CRLC_HASH_LEN];
};

struct writers {
	struct writer	v[HINT_WRITERS_MAX];
	size_t		n;
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

/* The writer uid, added if new; NULL when too many writers are known. */
static struct writer *
writer_of(struct writers *ws, uid_t uid)
{
	size_t i;

	for (i = 0; i < ws->n; i++)
		if (ws->v[i].uid == uid)
			return &ws->v[i];
	if (ws->n == HINT_WRITERS_MAX)
		return NULL;
	ws->v[ws->n].uid = uid;
	return &ws->v[ws->n++];
}

/* Keep x for w (which has room); 0, or -1 when w already has its like. */
static int
writer_keep(struct writer *w, X509 *x)
{
	uint8_t key[CRLC_HASH_LEN];
	size_t i;

	if (hint_key(x, key) == -1)
		return -1;
	for (i = 0; i < w->n; i++)
		if (memcmp(w->key[i], key, sizeof(key)) == 0)
			return -1;
	memcpy(w->key[w->n], key, sizeof(key));
	w->x[w->n++] = x;
	return 0;
}

/*
 * Take one entry: a hint of a writer with room is kept, everything else
 * is counted; the entry itself is removed by the caller.
 */
static void
take(struct writers *ws, int dfd, const char *name, struct hint_tally *tl)
{
	const char *why;
	struct writer *w;
	struct stat sb;
	X509 *x;
	int fd;

	if ((fd = hint_open(dfd, name, &sb, &why)) == -1) {
		tl->malformed++;
		logx(2, "hint: refused: %s", why);
		return;
	}
	if ((w = writer_of(ws, sb.st_uid)) == NULL ||
	    w->n == HINT_WRITER_MAX || w->reads == HINT_WRITER_READS) {
		tl->dropped++;		/* removed unread */
		goto done;
	}
	w->reads++;
	if ((x = hint_parse(fd, &sb, &why)) == NULL) {
		tl->malformed++;
		logx(2, "hint of uid %lu: refused: %s",
		    (unsigned long)sb.st_uid, why);
	} else if (writer_keep(w, x) == -1) {
		tl->repeated++;
		X509_free(x);
	}
done:
	close(fd);
}

/*
 * The kept hints into out, in turns: every writer's first, then every
 * writer's second, and so on, HINT_TAKE_MAX in all; the rest dropped.
 */
static void
take_in_turns(struct writers *ws, STACK_OF(X509) *out, struct hint_tally *tl)
{
	size_t turn, i;
	X509 *x;

	for (turn = 0; turn < HINT_WRITER_MAX; turn++)
		for (i = 0; i < ws->n; i++) {
			if (turn >= ws->v[i].n)
				continue;
			x = ws->v[i].x[turn];
			if (tl->taken < HINT_TAKE_MAX && sk_X509_push(out, x))
				tl->taken++;
			else {
				X509_free(x);
				tl->dropped++;
			}
		}
	ws->n = 0;
}

/*
 * The spool at path, made if missing, as the contract wants it: this
 * account's, its group this account's (the setgid bit hands it to every
 * hint, so that the hint is readable here and nowhere else), mode
 * SPOOL_MODE.  A spool of another owner is refused, never repaired.
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
	/* chown clears the setgid bit: the group first, then the mode. */
	if (sb.st_gid != getegid() && fchown(fd, (uid_t)-1, getegid()) == -1) {
		logx(0, "%s: chown: %s", path, strerror(errno));
		goto done;
	}
	/* mkdir's mode passes through the umask; sticky and setgid must not. */
	if (fchmod(fd, SPOOL_MODE) == -1) {
		logx(0, "%s: chmod: %s", path, strerror(errno));
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

/* Move the live spool aside (nothing to do when there is none). */
static int
spool_swap(const char *state_dir, const char *drain)
{
	char spool[PATH_MAX];
	struct stat sb;

	if (lstat(drain, &sb) == 0)
		return 0;	/* the last run's flood is not finished */
	snprintf(spool, sizeof(spool), "%s/%s", state_dir, HINTS_NAME);
	if (rename(spool, drain) == -1 && errno != ENOENT) {
		logx(0, "%s: %s", spool, strerror(errno));
		return -1;
	}
	return spool_create(spool);
}

/*
 * What a user made undeletable (a directory of theirs with content):
 * closed to everybody else and parked in the private working directory,
 * never left to block the spool.
 */
static void
park(const char *state_dir, const char *drain, int dfd, size_t stuck)
{
	char junk[PATH_MAX];

	if (fchmod(dfd, JUNK_MODE) == -1) {
		logx(0, "%s: chmod: %s", drain, strerror(errno));
		return;
	}
	snprintf(junk, sizeof(junk), "%s/%s/hints.junk.%lld", state_dir,
	    WORK_NAME, (long long)time(NULL));
	if (rename(drain, junk) == -1) {
		logx(0, "%s: %s", drain, strerror(errno));
		return;
	}
	logx(1, "hints: %zu entries could not be removed; closed and moved "
	    "to %s", stuck, junk);
}

int
hints_drain(const char *state_dir, STACK_OF(X509) *out, struct hint_tally *tl)
{
	char drain[PATH_MAX];
	struct writers *ws;
	struct dirent *de;
	struct stat sb;
	DIR *d = NULL;
	int dfd, more = 0, ret = -1;

	memset(tl, 0, sizeof(*tl));
	snprintf(drain, sizeof(drain), "%s/%s", state_dir, DRAIN_NAME);
	if (spool_swap(state_dir, drain) == -1)
		return -1;
	if ((dfd = open(drain, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return errno == ENOENT ? 0 : -1;
	if (fstat(dfd, &sb) == -1 || sb.st_uid != geteuid()) {
		logx(0, "%s: not this account's; not read", drain);
		close(dfd);
		return -1;
	}
	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return -1;
	}
	ws = xcalloc(1, sizeof(*ws));
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (tl->scanned == HINT_SCAN_MAX) {
			more = 1;
			break;
		}
		tl->scanned++;
		take(ws, dfd, de->d_name, tl);
		/* The sticky bit lets the spool's owner remove anything. */
		if (unlinkat(dfd, de->d_name, 0) == -1 &&
		    unlinkat(dfd, de->d_name, AT_REMOVEDIR) == -1)
			tl->stuck++;
	}
	take_in_turns(ws, out, tl);
	free(ws);
	if (more)
		logx(1, "hints: more than %d waiting; the rest is removed by "
		    "the next runs", HINT_SCAN_MAX);
	else if (rmdir(drain) == -1)
		park(state_dir, drain, dfd, tl->stuck);
	ret = 0;
	closedir(d);
	return ret;
}

int
hints_waiting(const char *state_dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat sb;
	DIR *d;
	int fd, any = 0;

	snprintf(path, sizeof(path), "%s/%s", state_dir, DRAIN_NAME);
	if (lstat(path, &sb) == 0)
		return 1;
	snprintf(path, sizeof(path), "%s/%s", state_dir, HINTS_NAME);
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return errno != ENOENT;	/* unreadable: let learning say why */
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return 1;
	}
	while (!any && (de = readdir(d)) != NULL)
		any = strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return any;
}
