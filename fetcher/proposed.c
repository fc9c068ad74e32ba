/*
 * URLs that certificates proposed: the CRL distribution points of the
 * certificates hints (or `crlcache enroll`) proved, which only their
 * issuer chose and any local user can make a run fetch (a public
 * certificate left as a hint).  A failed fetch of one is that URL's
 * failure: recorded in its source record (format.h "source": origin,
 * failures in a row), asked again by hint runs with back-off, and never
 * the run's, the service's or `status`'s failure.  One that never served
 * a valid CRL is pruned after PRUNE_FAILURES failures over PRUNE_AGE.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdint.h>

#include "fetcher.h"
#include "proposed.h"

/*
 * Failures in a row, and seconds from the first of them, before a
 * proposed URL that never served a valid CRL is pruned: the hourly run
 * alone fails 24 times a day, hint runs (back-off below) 8 times in
 * about 21 hours; both bounds so that a new CA's server down for a
 * maintenance night is not pruned, and a dead one goes within a day or so.
 */
#define PRUNE_FAILURES	8
#define PRUNE_AGE	(24 * 3600)
/*
 * Longest wait of the hint runs' back-off (hint_refetch doubled with each
 * failure in a row): a day, the failures over which a URL is pruned.
 */
#define BACKOFF_MAX	(24 * 3600)
/* Back-off steps: hint_refetch (at most a day) << 20 exceeds any bound. */
#define BACKOFF_SHIFT_MAX 20
/*
 * A pruned URL that a hint proposes again is asked at most once a week
 * (a CA may bring its server back); failing, it stays pruned.
 */
#define PRUNED_RETRY	(7 * 24 * 3600)

int
source_origin_counts(unsigned origin, int hints_only)
{
	if (origin == CRLC_SRC_ORIGIN_PROPOSED)
		return 0;
	/* The hints chose the issuers whose directory URLs a hint run asks. */
	return !(hints_only && origin == CRLC_SRC_ORIGIN_DIRECTORY);
}

const char *
source_origin_name(unsigned origin)
{
	static const char *const names[] = {
		[CRLC_SRC_ORIGIN_UNKNOWN] = "unknown",
		[CRLC_SRC_ORIGIN_CONFIGURED] = "configured",
		[CRLC_SRC_ORIGIN_DIRECTORY] = "directory",
		[CRLC_SRC_ORIGIN_PROPOSED] = "proposed",
	};

	return origin <= CRLC_SRC_ORIGIN_PROPOSED ? names[origin] : "unknown";
}

void
source_history(struct source_rec *rec, int ok)
{
	if (ok) {
		rec->failures = 0;
		rec->first_failure = 0;
		return;
	}
	if (rec->failures == 0 || rec->first_failure == 0)
		rec->first_failure = rec->last_attempt;
	if (rec->failures < UINT32_MAX)
		rec->failures++;
}

/* As of its last attempt, which alone changes it: `status` agrees. */
int
proposed_pruned(const struct source_rec *rec)
{
	return rec->origin == CRLC_SRC_ORIGIN_PROPOSED &&
	    rec->last_success == 0 && rec->failures >= PRUNE_FAILURES &&
	    rec->first_failure != 0 &&
	    rec->last_attempt - rec->first_failure >= PRUNE_AGE;
}

int
proposed_waits(const struct conf *conf, const struct source_rec *rec,
    int hints_only, int64_t now)
{
	int64_t wait;
	unsigned shift;

	if (rec->origin != CRLC_SRC_ORIGIN_PROPOSED || rec->failures == 0)
		return 0;
	if (proposed_pruned(rec))
		wait = PRUNED_RETRY;
	else if (!hints_only)
		return 0;	/* the timer's run asks every source */
	else {
		shift = rec->failures - 1 < BACKOFF_SHIFT_MAX ?
		    rec->failures - 1 : BACKOFF_SHIFT_MAX;
		wait = conf->hint_refetch << shift;
		if (wait > BACKOFF_MAX)
			wait = BACKOFF_MAX;
	}
	/* An attempt ahead by more than the wait (a clock set back) holds
	 * nothing back. */
	return rec->last_attempt > now - wait && rec->last_attempt < now + wait;
}

enum source_state
source_state(const struct source_rec *rec)
{
	if (proposed_pruned(rec))
		return SOURCE_PRUNED;
	if (rec->error == NULL)
		return SOURCE_OK;
	return source_origin_counts(rec->origin, 0) ? SOURCE_FAILING :
	    SOURCE_RETRYING;
}

uint32_t
source_failures(const struct source_rec *rec)
{
	/* Records of earlier writers hold an error but no history. */
	return rec->error != NULL && rec->failures == 0 ? 1 : rec->failures;
}
