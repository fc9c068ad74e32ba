/*
 * The process-wide CRLite set (<crlcache/crlite.h>), loaded at the first
 * verification that can use it and swapped to a new generation without a
 * restart, and its answer for one certificate.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * LOADING
 *	Nothing is read until a certificate with embedded SCTs is verified
 *	(most programs that load the provider never verify one).  Then
 *	crlc_crliteset_open() reads the set file and the head of its lookup
 *	file (about 100 KB for a full filter and 90 deltas); the filters
 *	themselves are never read here.  The first lookup of an issuer reads
 *	its record of the lookup file (its part of every filter) with one
 *	pread(2), held for later lookups within CRLC_CRLITESET_HELD_MAX: a
 *	process pays for the issuers it meets, not for the set, once per
 *	set generation, shared by its threads.  Not a mapping: the files
 *	belong to the state's owner, who could truncate one under a map and
 *	crash (SIGBUS) every process verifying certificates; a read that
 *	comes short costs that lookup (the CRLs answer), never a fault.
 *	The set file is looked at again at most every CRLC_RECHECK_MS, by
 *	one thread (others go on with the generation they have); a new one
 *	is opened while the old one keeps answering.  A set that cannot be
 *	used is said once (each distinct reason) and CRLs answer alone,
 *	until the set file changes; a set refused after a good one keeps
 *	the good one.
 *
 *	The generations are pinned with pins.c, as snapshot.c pins the
 *	index: a query pins the current one without a lock.
 *
 * FRESHNESS
 *	A set past its stale_at (<crlcache/crlite.h> FRESHNESS) answers
 *	"revoked" still, but its "good" is no answer: the certificate is
 *	the CRLs' as if no filter covered it (hinted, waited for).
 */
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>

#include <crlcache/crlite.h>
#include <crlcache/crliteset.h>
#include <crlcache/crliteshare.h>
#include <crlcache/hash.h>

#include "prov.h"

struct crlc_crlite {
	char			 dir[PATH_MAX];
	char			 share[PATH_MAX];	/* "": not asked */
	enum crlc_log		 log;
	struct crlc_pins	 pins;		/* of struct crlc_crliteset */
	/* The refresher's own: the set file's identity, the last reason. */
	struct crlc_seen	 seen;
	uint64_t		 last_why;
	atomic_llong		 stale_said;	/* stale_at last said */
};

static void
close_set(void *set)
{
	crlc_crliteset_free(set);
}

struct crlc_crlite *
crlc_crlite_new(const char *index, enum crlc_log log, const char *share)
{
	struct crlc_crlite *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->log = log;
	c->pins.close = close_set;
	snprintf(c->share, sizeof(c->share), "%s", share);
	/* STATE_DIR/crlite beside the index, as the hint spool is */
	crlc_state_subdir(index, CRLC_CRLITE_DIR, c->dir, sizeof(c->dir));
	return c;
}

void
crlc_crlite_free(struct crlc_crlite *c)
{
	if (c == NULL)
		return;
	crlc_pins_close_all(&c->pins);
	free(c);
}

void
crlc_crlite_atfork_child(struct crlc_crlite *c)
{
	crlc_pins_atfork_child(&c->pins);
}

/* Runs in one thread at a time (crlc_pins_refresh). */
static void
refresh(void *arg)
{
	struct crlc_crlite *c = arg;
	char why[CRLC_CRLITESET_WHY_LEN], swhy[CRLC_CRLITESET_WHY_LEN];
	struct crlc_crliteset *set = NULL;
	struct crlc_pin *slot;
	size_t filters, bytes;
	uint64_t fp;
	int rc;

	crlc_pins_reclaim(&c->pins);
	/* old generations still pinned: next time */
	if ((slot = crlc_pins_free_slot(&c->pins)) == NULL ||
	    crlc_seen_same(&c->seen, c->dir, CRLC_CRLITE_SET_NAME))
		return;
	/* once per set: the sharer's copy, or the file as before */
	snprintf(swhy, sizeof(swhy), "crlite_share = off");
	rc = crlc_crliteset_open_shared(c->dir, c->share[0] != '\0' ? c->share :
	    NULL, CRLC_SHARE_WAIT_MS, &set, why, sizeof(why), swhy,
	    sizeof(swhy));
	if (rc == 1) {
		/* none installed (any more): CRLs alone, nothing to say */
		crlc_pins_clear(&c->pins);
		return;
	}
	if (rc == -1) {
		/* each reason once; retried when the set file changes */
		fp = crlc_sum64(why, strlen(why));
		if (fp != c->last_why)
			crlc_log(c->log, LOG_WARNING, "CRLite data in %s not "
			    "used: %s; %s", c->dir, why, crlc_pins_current(&c->pins) ?
			    "keeping the set already read" :
			    "revocation is checked with CRLs alone");
		c->last_why = fp;
		return;
	}
	c->last_why = 0;
	crlc_crliteset_size(set, &filters, &bytes);
	if (crlc_crliteset_mapped(set))
		crlc_log(c->log, LOG_INFO, "CRLite data in %s: %zu filters, "
		    "mapped from the sharer's sealed copy", c->dir, filters);
	else
		crlc_log(c->log, LOG_INFO, "CRLite data in %s: %zu filters, %zu "
		    "bytes of it read (not shared: %s)", c->dir, filters, bytes,
		    swhy);
	crlc_pins_publish(&c->pins, slot, set);
}

/* A stale set's "good" is not covered; said once per stale set. */
static enum crlc_clubcard_answer
fresh_only(struct crlc_crlite *c, const struct crlc_crliteset *set,
    enum crlc_clubcard_answer a)
{
	int64_t stale_at = crlc_crliteset_stale_at(set);
	char when[CRLC_TIME_TEXT_MAX];

	/* time(): the vDSO, no system call */
	if (a != CRLC_CLUBCARD_GOOD || (int64_t)time(NULL) < stale_at)
		return a;
	if (atomic_exchange(&c->stale_said, stale_at) != stale_at) {
		crlc_time_text(stale_at, when, sizeof(when));
		crlc_log(c->log, LOG_WARNING, "CRLite data in %s stale since "
		    "%s (no newer set installed): its \"good\" answers are not "
		    "used, revocation is checked with CRLs", c->dir, when);
	}
	return CRLC_CLUBCARD_NOT_COVERED;
}

enum crlc_clubcard_answer
crlc_crlite_check(struct crlc_crlite *c, const struct crlc_tbs *cert,
    struct crlc_key *key, uint64_t *newest)
{
	enum crlc_clubcard_answer a = CRLC_CLUBCARD_NOT_COVERED;
	uint8_t scratch[CRLC_HASH_LEN];
	const uint8_t *spki;
	struct crlc_pin *pin;

	*newest = 0;
	/* Certificates without SCTs (CAs, private PKIs) cost one test. */
	if (c == NULL || c->dir[0] == '\0' || cert->sct_list.len == 0 ||
	    key == NULL || (spki = crlc_key_spki(key, scratch)) == NULL)
		return a;
	crlc_pins_refresh(&c->pins, refresh, c);
	if ((pin = crlc_pins_acquire(&c->pins)) == NULL)
		return a;
	a = fresh_only(c, pin->obj, crlc_crliteset_ask(pin->obj, spki,
	    &cert->serial, &cert->sct_list, newest));
	crlc_pin_release(pin);
	return a;
}
