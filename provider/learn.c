/*
 * Learning a new issuer: whether a hint can help, and whether a
 * verification may wait, bounded, for the fast run to publish what
 * covers its certificate (policy.c polls the index meanwhile).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * WHO CAN BE LEARNED
 *	A peer mints any number of issuer names, and a wait in an nginx
 *	worker or a Node event loop stalls every connection it serves.  So
 *	a verification waits only where the wait can be answered: for an
 *	issuer whose CRLs the index holds already (a partition not held
 *	yet), or for one the fetcher can prove, which the learning marker
 *	(<crlcache/hint.h>) says: its key is an anchor of the fetcher's, or
 *	the same thread verified its certificate just before under such a
 *	key, or under a key so proven in turn (chain.c).  Never for a
 *	self-signed certificate, never for an issuer the marker says the
 *	fetcher proved and could not cover.
 *	Without a live marker (cron alone, hints = off, learn_wait = 0, a
 *	watcher that stopped) nothing waits; a hint is still left, so that
 *	the next full update learns the issuer, unless it is self-signed or
 *	the marker names the anchors and none of them proves it.
 *
 * HOW OFTEN
 *	Once per issuer and process: the first verification of an issuer
 *	claims it (a direct-mapped table, one atomic exchange: of two
 *	threads meeting it at once, one waits and the other answers at
 *	once).  At most learn_wait per chain: a link whose chain above
 *	waited already (chain.c) waits only for what is left of that wait,
 *	so a chain of never-met CAs under an anchor is learned whole, link
 *	by link from the anchor down (the fast run that answers a link
 *	takes the hint of the link below in the same run), within one
 *	learn_wait.  And within a budget per process: waiting may take at
 *	most a LEARN_SHARE-th of the process's time, with a burst of
 *	LEARN_BURST whole waits, so a peer that presents issuers the fetcher
 *	can prove but not cover costs at most that, whatever it sends.  An
 *	issuer forgotten after others took its slot may be waited for again,
 *	within the budget.  No lock is held while waiting.
 *
 * COST
 *	None on a covered certificate's path.  The marker is read (open,
 *	fstat, a binary search by pread, close) once per new issuer and
 *	process, after the index said no CRL covers the certificate.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <crlcache/clock.h>
#include <crlcache/hint.h>

#include "prov.h"

/* Issuers claimed: more than a process meets new within a wait. */
#define LEARN_SLOTS	256
/*
 * How often a waiting verification looks at the index again: each look
 * is one stat(); the fast run's publish is seen within this.
 */
#define LEARN_POLL_MS	10
/*
 * The budget: waiting takes at most 1/30 of a process's time (2 s a
 * minute at the default learn_wait), two whole waits at once.  A wait
 * is charged all it may take when it starts (a link below one that
 * waited: what is left of that wait) and refunded what it did not use:
 * an answered one (about 0.1 s) costs a twentieth of a whole one.
 */
#define LEARN_SHARE	30
#define LEARN_BURST	2

static _Atomic uint64_t learn_slots[LEARN_SLOTS];
/* CLOCK_MONOTONIC ms when the budget is whole again (GCRA's TAT). */
static atomic_llong learn_tat;

/* The marker, when it is live: its descriptor and records. */
struct marker {
	int		fd;
	uint32_t	n;	/* records; 0 also when the layout is not known */
};

/* A live marker: the index owner's regular file, its mtime ahead. */
static int
marker_open(const struct crlc_conf *conf, struct marker *m)
{
	uint8_t hdr[CRLC_LEARN_HDR_LEN];
	struct stat mb, ib;
	uint32_t n;

	m->n = 0;
	if ((m->fd = open(conf->learning, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return -1;
	if (fstat(m->fd, &mb) == -1 || !S_ISREG(mb.st_mode) ||
	    mb.st_mtime <= time(NULL) || stat(conf->index, &ib) == -1 ||
	    mb.st_uid != ib.st_uid) {
		close(m->fd);
		return -1;
	}
	if (mb.st_size >= CRLC_LEARN_HDR_LEN &&
	    pread(m->fd, hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr) &&
	    memcmp(hdr, CRLC_LEARN_MAGIC, CRLC_LEARN_MAGIC_LEN) == 0 &&
	    crlc_get_u32(hdr + 8) == CRLC_LEARN_VERSION &&
	    (n = crlc_get_u32(hdr + 12)) <= CRLC_LEARN_MAX &&
	    (uint64_t)mb.st_size == CRLC_LEARN_HDR_LEN +
	    (uint64_t)n * CRLC_LEARN_REC_LEN)
		m->n = n;
	return 0;
}

/* The kind the marker gives key, 0 when it names it not. */
static unsigned
marker_kind(const struct marker *m, const uint8_t key[CRLC_HASH_LEN])
{
	uint8_t rec[CRLC_LEARN_REC_LEN];
	uint32_t lo = 0, hi = m->n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pread(m->fd, rec, sizeof(rec), CRLC_LEARN_HDR_LEN +
		    (off_t)mid * CRLC_LEARN_REC_LEN) != (ssize_t)sizeof(rec))
			return 0;
		if ((c = memcmp(key, rec, CRLC_HASH_LEN)) == 0)
			return rec[CRLC_HASH_LEN];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

static int
is_anchor(const uint8_t id[CRLC_HASH_LEN], void *arg)
{
	return marker_kind(arg, id) == CRLC_LEARN_ANCHOR;
}

enum crlc_learn
crlc_learnable(const struct crlc_conf *conf, const struct crlc_tbs *cert,
    const uint8_t *key, int held, long long *chain_deadline)
{
	enum crlc_chain walk = CRLC_CHAIN_UNPROVEN;
	enum crlc_learn ret;
	struct marker m;
	int saved = errno;

	*chain_deadline = 0;
	if (crlc_self_signed(cert, key))
		return CRLC_LEARN_NO;
	if (conf->learn_wait == 0 || marker_open(conf, &m) == -1)
		return CRLC_LEARN_HINT;
	if (key != NULL && m.n != 0)
		walk = crlc_chain_walk(key, is_anchor, &m, chain_deadline);
	if (held)
		ret = CRLC_LEARN_WAIT;
	/*
	 * Refused: proven before, not covered: hinted (a run may cover it
	 * yet), not waited for.  No key or a marker that names no issuer:
	 * the fetcher may know more than this thread.
	 */
	else if (key == NULL || m.n == 0 ||
	    marker_kind(&m, key) == CRLC_LEARN_REFUSED)
		ret = CRLC_LEARN_HINT;
	else
		ret = walk == CRLC_CHAIN_PROVABLE ? CRLC_LEARN_WAIT :
		    CRLC_LEARN_NO;
	close(m.fd);
	errno = saved;
	return ret;
}

/*
 * Charge ms of waiting to the budget, whose burst is LEARN_BURST whole
 * waits of whole ms: 0, or -1 when it has no room.
 */
static int
learn_budget_take(long long ms, long long whole, long long now)
{
	long long tat = atomic_load(&learn_tat), next;

	do {
		next = (tat > now ? tat : now) + ms * LEARN_SHARE;
		if (next - now > LEARN_BURST * whole * LEARN_SHARE)
			return -1;
	} while (!atomic_compare_exchange_weak(&learn_tat, &tat, next));
	return 0;
}

long long
crlc_learn_deadline(const struct crlc_conf *conf, uint64_t fp,
    long long chain_end)
{
	long long now = crlc_mono_ms(), end;

	/* Below a link that waited: what is left of its wait, no more. */
	end = now + conf->learn_wait;
	if (chain_end != 0 && chain_end < end)
		end = chain_end;
	if (conf->learn_wait == 0 || end <= now ||
	    atomic_exchange(&learn_slots[fp % LEARN_SLOTS], fp) == fp ||
	    learn_budget_take(end - now, conf->learn_wait, now) == -1)
		return 0;
	return end;
}

void
crlc_learn_done(long long deadline)
{
	long long left = deadline - crlc_mono_ms();

	if (left > 0)
		atomic_fetch_sub(&learn_tat, left * LEARN_SHARE);
}

void
crlc_learn_pause(long long deadline)
{
	long long left = deadline - crlc_mono_ms();
	struct timespec ts;
	int saved = errno;

	if (left <= 0)
		return;
	if (left > LEARN_POLL_MS)
		left = LEARN_POLL_MS;
	ts.tv_sec = 0;
	ts.tv_nsec = left * 1000000L;
	/* A signal cuts a pause short: the caller's loop looks again. */
	(void)nanosleep(&ts, NULL);
	errno = saved;
}
