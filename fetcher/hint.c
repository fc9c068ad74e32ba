/*
 * Hints: certificates that programs on this host verified and that no
 * CRL in the index covered (provider/hint.c writes them; the contract is
 * in <crlcache/hint.h>), read from their writers' queues in turns.  The
 * spool they are left in, and its intake into the queues: spool.c.
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
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <crlcache/hash.h>

#include "aia.h"
#include "fetcher.h"
#include "hintq.h"
#include "spool.h"

#define TURN_NAME	WORK_NAME "/hints.turn"
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
	struct state	*st;		/* set once read: the turn is written */
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
turn_load(struct state *st)
{
	char err[ERRLEN], text[16];
	uint8_t *buf = NULL;
	size_t len = 0;
	uid_t uid = 0;

	if (state_read(st, TURN_NAME, sizeof(text) - 1, &buf, &len, err,
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
hints_open(struct state *st, struct hint_queue **qp,
    struct hint_tally *tl)
{
	struct hint_queue *q;

	memset(tl, 0, sizeof(*tl));
	*qp = NULL;
	q = xcalloc(1, sizeof(*q));
	q->tl = tl;
	if ((q->qfd = private_dir(st, QUEUE_NAME, QUEUE_MODE)) == -1 ||
	    spool_intake(st, q->qfd, tl) == -1) {
		hints_close(q);
		return -1;
	}
	q->st = st;
	writers_list(q, turn_load(st));
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
	if (q->st != NULL) {
		n = snprintf(text, sizeof(text), "%lu", (unsigned long)
		    (q->first_wait_set ? q->first_wait : 0));
		(void)state_replace(q->st, TURN_NAME, text, (size_t)n, 0600);
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
