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
 *
 * The marker carries the key ids of the anchors this run trusts
 * (<crlcache/hint.h>): the provider waits only for an issuer the
 * fetcher can prove, never for a name a peer made up.  It also names the
 * issuers met and proven whose CRLs none could be had (no CRL of their
 * key in the index): nobody waits for them until a run covers them.
 * Each run writes it when it starts and again once it published, so a
 * changed trust store reaches the provider within the hour and an
 * issuer a fast run could not cover is named within seconds.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/x509.h>

#include <crlcache/format.h>
#include <crlcache/hint.h>
#include <crlcache/index.h>

#include "enrolled.h"
#include "fetcher.h"
#include "learning.h"
#include "name.h"
#include "spool.h"
#include "trust.h"

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
unanswered(struct state *st, time_t now)
{
	struct dirent *de;
	struct stat sb;
	size_t looked = 0;
	DIR *d;
	int found = 0;

	if ((d = hints_opendir(st)) == NULL)
		return 0;
	while (!found && looked++ < LEARNING_LOOK_MAX &&
	    (de = readdir(d)) != NULL)
		found = fstatat(dirfd(d), de->d_name, &sb,
		    AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(sb.st_mode) && sb.st_ctime < now - LEARNING_UNANSWERED;
	closedir(d);
	return found;
}

static int
record_cmp(const void *a, const void *b)
{
	return memcmp(a, b, CRLC_LEARN_REC_LEN);
}

/* Add x's key as kind to the n records at r (room for one more). */
static void
add_record(uint8_t *r, size_t *n, X509 *x, unsigned kind)
{
	uint8_t *rec = r + *n * CRLC_LEARN_REC_LEN;

	if (x == NULL || cert_key_hash(x, rec) == -1)
		return;
	rec[CRLC_HASH_LEN] = (uint8_t)kind;
	(*n)++;
}

/*
 * The marker's content: the records of t's anchors and of the issuers
 * of en that idx holds no CRL of, sorted, one per key (an anchor's
 * first), into *out (malloc'd); its length, or 0 when out of memory.
 */
static size_t
learn_set(const struct trust *t, const struct enrolment *en,
    const struct crlc_index *idx, uint8_t **out)
{
	STACK_OF(X509_OBJECT) *objs = X509_STORE_get0_objects(t->store);
	uint8_t *buf, *r, key[CRLC_HASH_LEN];
	size_t n = 0, i, k, count;

	count = objs != NULL ? (size_t)sk_X509_OBJECT_num(objs) : 0;
	if (en != NULL && idx != NULL)
		count += en->n;
	if (count > CRLC_LEARN_MAX)
		count = CRLC_LEARN_MAX;
	if ((buf = malloc(CRLC_LEARN_HDR_LEN + count * CRLC_LEARN_REC_LEN +
	    1)) == NULL)
		return 0;
	r = buf + CRLC_LEARN_HDR_LEN;
	for (i = 0; objs != NULL && i < (size_t)sk_X509_OBJECT_num(objs) &&
	    n < count; i++)
		add_record(r, &n, X509_OBJECT_get0_X509(sk_X509_OBJECT_value(objs,
		    (int)i)), CRLC_LEARN_ANCHOR);
	for (i = 0; en != NULL && idx != NULL && i < en->n && n < count; i++)
		if (cert_key_hash(en->v[i].issuer, key) == 0 &&
		    !crlc_index_has_key(idx, key))
			add_record(r, &n, en->v[i].issuer, CRLC_LEARN_REFUSED);
	qsort(r, n, CRLC_LEARN_REC_LEN, record_cmp);
	/* One record per key: an anchor in two files is one anchor. */
	for (i = k = 0; i < n; i++)
		if (k == 0 || memcmp(r + (k - 1) * CRLC_LEARN_REC_LEN,
		    r + i * CRLC_LEARN_REC_LEN, CRLC_HASH_LEN) != 0)
			memmove(r + k++ * CRLC_LEARN_REC_LEN,
			    r + i * CRLC_LEARN_REC_LEN, CRLC_LEARN_REC_LEN);
	memcpy(buf, CRLC_LEARN_MAGIC, CRLC_LEARN_MAGIC_LEN);
	crlc_put_u32(buf + 8, CRLC_LEARN_VERSION);
	crlc_put_u32(buf + 12, (uint32_t)k);
	*out = buf;
	return CRLC_LEARN_HDR_LEN + k * CRLC_LEARN_REC_LEN;
}

/* Does the open marker fd hold exactly set[0..len)? */
static int
holds(int fd, const struct stat *sb, const uint8_t *set, size_t len)
{
	uint8_t *cur;
	int same;

	if ((size_t)sb->st_size != len || (cur = malloc(len + 1)) == NULL)
		return 0;
	same = pread(fd, cur, len, 0) == (ssize_t)len &&
	    memcmp(cur, set, len) == 0;
	free(cur);
	return same;
}

void
learning_mark(struct state *st, enum learning_how how,
    const struct trust *t, const struct enrolment *en,
    const struct crlc_index *idx)
{
	const char *dir = state_path(st);
	struct timespec ts[2];
	struct stat sb;
	time_t now = time(NULL);
	uint8_t *set = NULL;
	size_t len;
	int fd, create = how == LEARNING_FAST;

	if ((fd = state_openat(st, CRLC_LEARNING_NAME, O_RDWR | O_NONBLOCK |
	    (create ? O_CREAT : 0), LEARNING_MODE)) == -1) {
		if (create || errno != ENOENT)
			logx(1, "%s/%s: %s", dir, CRLC_LEARNING_NAME,
			    strerror(errno));
		return;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != geteuid()) {
		logx(1, "%s/%s: not a file of this account; not used", dir,
		    CRLC_LEARNING_NAME);
		goto done;
	}
	/* Expired: no watcher ran for CRLC_LEARNING_TTL, leave it so. */
	if (!create && sb.st_mtime <= now)
		goto done;
	if (how == LEARNING_FULL && unanswered(st, now)) {
		if (state_remove(st, CRLC_LEARNING_NAME, 0) == -1)
			logx(1, "%s/%s: %s", dir, CRLC_LEARNING_NAME,
			    strerror(errno));
		else
			logx(1, "learning: a hint waited over %d minutes: the "
			    "spool's watcher (crlcache-hints.path) does not "
			    "answer; programs no longer wait for it (learn_wait) "
			    "until it runs again", LEARNING_UNANSWERED / 60);
		goto done;
	}
	ts[0].tv_sec = ts[1].tv_sec = how == LEARNING_CONTENT ? sb.st_mtime :
	    now + CRLC_LEARNING_TTL;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	if ((len = learn_set(t, en, idx, &set)) != 0 && !holds(fd, &sb, set, len))
		/* The marker anew: set as its content, its mtime ahead. */
		(void)state_replace_timed(st, CRLC_LEARNING_NAME, set, len,
		    LEARNING_MODE, ts);
	else if (how != LEARNING_CONTENT && (fchmod(fd, LEARNING_MODE) == -1 ||
	    futimens(fd, ts) == -1))
		logx(1, "%s/%s: %s", dir, CRLC_LEARNING_NAME, strerror(errno));
done:
	free(set);
	close(fd);
}
