/*
 * Waiting for the fetcher to learn an issuer: a verification that met an
 * issuer no CRL in the index covers, and that just left a hint for it,
 * may wait, bounded, for the fast run to publish what covers it, then be
 * answered from the new index (policy.c polls it).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * WHEN
 *	Only where a fetcher answers hints within seconds: the learning
 *	marker beside the index (<crlcache/hint.h>) is the index owner's and
 *	its mtime lies ahead.  Cron alone, hints = off, learn_wait = 0 or a
 *	spool nobody watches any more: no wait.  The marker is looked at
 *	once per issuer and process, after a hint was left: a covered
 *	certificate never gets here, so its path has no new system call.
 *
 * HOW OFTEN
 *	One wait per issuer and process: the first verification of an
 *	issuer sets the issuer's deadline; every verification of it that
 *	arrives before the deadline waits with it, up to the same deadline
 *	(eight threads meeting a new CA at once wait once together, not
 *	eight times in turn); after it nothing waits again.  The table is a
 *	lock-free ring, like policy.c's: an issuer forgotten after
 *	LEARN_SLOTS others, or two threads racing for a slot, merely wait
 *	a second time.  No lock is held while waiting.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <crlcache/clock.h>

#include "prov.h"

/* Issuers remembered: more than a process meets new within learn_wait. */
#define LEARN_SLOTS	64
/*
 * How often a waiting verification looks at the index again: each look
 * is one stat(); the fast run's publish is seen within this.
 */
#define LEARN_POLL_MS	10

struct learn_slot {
	_Atomic uint64_t	fp;		/* issuer fingerprint, 0: empty */
	atomic_llong		deadline;	/* CLOCK_MONOTONIC ms; 0: none */
};

static struct learn_slot learn_slots[LEARN_SLOTS];
static atomic_uint learn_next;

/* A fetcher watches the spool: the marker is the index owner's, ahead. */
static int
learning(const struct crlc_conf *conf)
{
	struct stat mb, ib;
	int saved = errno, ret;

	ret = lstat(conf->learning, &mb) == 0 && S_ISREG(mb.st_mode) &&
	    mb.st_mtime > time(NULL) && stat(conf->index, &ib) == 0 &&
	    mb.st_uid == ib.st_uid;
	errno = saved;
	return ret;
}

long long
crlc_learn_deadline(const struct crlc_conf *conf, uint64_t fp, int hinted,
    int *first)
{
	struct learn_slot *sl;
	long long now = crlc_mono_ms(), d;
	size_t i;

	*first = 0;
	if (conf->learn_wait == 0 || conf->spool[0] == '\0')
		return 0;
	for (i = 0; i < LEARN_SLOTS; i++)
		if (atomic_load(&learn_slots[i].fp) == fp) {
			d = atomic_load(&learn_slots[i].deadline);
			return d > now ? d : 0;
		}
	d = hinted && learning(conf) ? now + conf->learn_wait : 0;
	sl = &learn_slots[atomic_fetch_add(&learn_next, 1) % LEARN_SLOTS];
	/* The deadline before the name: who finds the name finds it set. */
	atomic_store(&sl->deadline, d);
	atomic_store(&sl->fp, fp);
	*first = d != 0;
	return d;
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
