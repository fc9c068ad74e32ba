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
 *	crlc_crliteset_open() reads every filter of the set whole into
 *	private memory and parses it: about 6 MB for Mozilla's full filter
 *	and its deltas, once per set generation and process, shared by its
 *	threads.  Not a mapping: the files belong to the state's owner, who
 *	could truncate one under a map and crash (SIGBUS) every process
 *	verifying certificates; memory of our own cannot change under us.
 *	The set file is looked at again at most every CRLC_RECHECK_MS, by
 *	one thread (others go on with the generation they have); a new one
 *	is read while the old one keeps answering.  A set that cannot be
 *	used is said once (each distinct reason) and CRLs answer alone; a
 *	set refused after a good one keeps the good one.
 *
 * PINNING
 *	As snapshot.c pins an index: a few slots never freed while the
 *	store lives, each a generation and a count of queries using it;
 *	a query pins with no lock (s = cur; users++; recheck cur), the
 *	refresher frees a slot's set only when no query pins it.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>

#include <crlcache/clock.h>
#include <crlcache/crlite.h>
#include <crlcache/crliteset.h>
#include <crlcache/hash.h>

#include "prov.h"

/*
 * Generations in memory at once: the current one and one or two old ones
 * still pinned by a slow query.  When all are busy the swap waits for the
 * next check.
 */
#define CRLITE_SLOTS		3

struct crlite_gen {
	atomic_uint		 users;
	struct crlc_crliteset	*set;		/* NULL: slot free */
};

struct crlc_crlite {
	char			 dir[PATH_MAX];
	enum crlc_log		 log;
	struct crlite_gen	 slots[CRLITE_SLOTS];
	_Atomic(struct crlite_gen *) cur;	/* NULL: no usable set */
	atomic_llong		 next_check_ms;
	atomic_int		 refreshing;
	/* The refresher's own: the set file's identity, the last reason. */
	struct stat		 seen;
	int			 have_seen;
	uint64_t		 last_why;
};

struct crlc_crlite *
crlc_crlite_new(const char *index, enum crlc_log log)
{
	struct crlc_crlite *c;
	const char *slash = strrchr(index, '/');
	int n;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->log = log;
	/* STATE_DIR/crlite beside the index, as the hint spool is */
	n = slash == NULL ? snprintf(c->dir, sizeof(c->dir), "%s",
	    CRLC_CRLITE_DIR) : snprintf(c->dir, sizeof(c->dir), "%.*s/%s",
	    (int)(slash - index), index, CRLC_CRLITE_DIR);
	if (n < 0 || (size_t)n >= sizeof(c->dir))
		c->dir[0] = '\0';	/* too long: no CRLite */
	return c;
}

void
crlc_crlite_free(struct crlc_crlite *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < CRLITE_SLOTS; i++)
		crlc_crliteset_free(c->slots[i].set);
	free(c);
}

void
crlc_crlite_atfork_child(struct crlc_crlite *c)
{
	size_t i;

	for (i = 0; i < CRLITE_SLOTS; i++)
		atomic_store(&c->slots[i].users, 0);
	atomic_store(&c->refreshing, 0);
	atomic_store(&c->next_check_ms, 0);
}

static void
reclaim(struct crlc_crlite *c)
{
	struct crlite_gen *cur = atomic_load(&c->cur);
	size_t i;

	for (i = 0; i < CRLITE_SLOTS; i++) {
		struct crlite_gen *g = &c->slots[i];

		if (g != cur && g->set != NULL && atomic_load(&g->users) == 0) {
			crlc_crliteset_free(g->set);
			g->set = NULL;
		}
	}
}

/* Runs in one thread at a time (c->refreshing held). */
static void
refresh(struct crlc_crlite *c)
{
	char path[PATH_MAX + sizeof(CRLC_CRLITE_SET_NAME) + 1];
	char why[CRLC_CRLITESET_WHY_LEN];
	struct crlc_crliteset *set = NULL;
	struct crlite_gen *slot = NULL;
	struct stat sb;
	size_t i, filters, bytes;
	uint64_t fp;
	int rc;

	reclaim(c);
	snprintf(path, sizeof(path), "%s/%s", c->dir, CRLC_CRLITE_SET_NAME);
	memset(&sb, 0, sizeof(sb));
	if (lstat(path, &sb) == 0 && c->have_seen &&
	    sb.st_dev == c->seen.st_dev && sb.st_ino == c->seen.st_ino &&
	    sb.st_size == c->seen.st_size &&
	    sb.st_mtim.tv_sec == c->seen.st_mtim.tv_sec &&
	    sb.st_mtim.tv_nsec == c->seen.st_mtim.tv_nsec)
		return;
	for (i = 0; i < CRLITE_SLOTS && slot == NULL; i++)
		if (c->slots[i].set == NULL)
			slot = &c->slots[i];
	if (slot == NULL)
		return;		/* old generations still pinned: next time */
	rc = crlc_crliteset_open(c->dir, &set, why, sizeof(why));
	if (rc == 1) {
		/* none installed (any more): CRLs alone, nothing to say */
		atomic_store(&c->cur, NULL);
		c->have_seen = 0;
		reclaim(c);
		return;
	}
	if (rc == -1) {
		/* each reason once; not recording sb: retried next check */
		fp = crlc_sum64(why, strlen(why));
		if (fp != c->last_why)
			crlc_log(c->log, LOG_WARNING, "CRLite data in %s not "
			    "used: %s; %s", c->dir, why, atomic_load(&c->cur) ?
			    "keeping the set already read" :
			    "revocation is checked with CRLs alone");
		c->last_why = fp;
		return;
	}
	c->seen = sb;
	c->have_seen = 1;
	c->last_why = 0;
	crlc_crliteset_size(set, &filters, &bytes);
	crlc_log(c->log, LOG_INFO, "CRLite data in %s: %zu filters, %zu "
	    "bytes read", c->dir, filters, bytes);
	slot->set = set;
	atomic_store(&c->cur, slot);
	reclaim(c);
}

/* Pin the current generation, looking at the set first when due. */
static struct crlite_gen *
acquire(struct crlc_crlite *c)
{
	struct crlite_gen *g;
	long long now = crlc_mono_ms();

	if (now >= atomic_load_explicit(&c->next_check_ms,
	    memory_order_relaxed) && atomic_exchange(&c->refreshing, 1) == 0) {
		atomic_store(&c->next_check_ms, now + CRLC_RECHECK_MS);
		refresh(c);
		atomic_store(&c->refreshing, 0);
	}
	for (;;) {
		if ((g = atomic_load(&c->cur)) == NULL)
			return NULL;
		atomic_fetch_add(&g->users, 1);
		if (atomic_load(&c->cur) == g)
			return g;
		atomic_fetch_sub(&g->users, 1);
	}
}

enum crlc_clubcard_answer
crlc_crlite_check(struct crlc_crlite *c, const struct crlc_tbs *cert,
    struct crlc_key *key, uint64_t *newest)
{
	enum crlc_clubcard_answer a = CRLC_CLUBCARD_NOT_COVERED;
	uint8_t scratch[CRLC_HASH_LEN];
	const uint8_t *spki;
	struct crlite_gen *g;

	*newest = 0;
	/* Certificates without SCTs (CAs, private PKIs) cost one test. */
	if (c == NULL || c->dir[0] == '\0' || cert->sct_list.len == 0 ||
	    key == NULL || (spki = crlc_key_spki(key, scratch)) == NULL ||
	    (g = acquire(c)) == NULL)
		return a;
	a = crlc_crliteset_ask(g->set, spki, &cert->serial, &cert->sct_list,
	    newest);
	atomic_fetch_sub(&g->users, 1);
	return a;
}
