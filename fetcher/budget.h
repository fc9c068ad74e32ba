/*
 * What a source of update's CRLite and OneCRL step may spend on the
 * network in one run (budget.c): every transfer within one deadline, the
 * bytes counted, a failure said.  Below the CRLite driver and its
 * sources (crlitesrc.h) and the Remote Settings client (rsclient.c,
 * rschangeset.c) alike, above fetchall.c.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_BUDGET_H
#define CRLCACHE_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "fetch.h"
#include "fetcher.h"

/*
 * What a source (monitor/changes, the CRLite source, OneCRL) may spend:
 * FETCH_BUDGET_TRANSFERS transfers of `timeout` (a root document, a
 * changeset or manifest, an x5u chain, a filter), at most
 * FETCH_BUDGET_MAX_S, so that a stalling server delays the run by
 * minutes, not by `timeout` for each URL it names.  Retries share it;
 * their backoff (at most 1 + 2 + ... s) may add a few seconds.
 */
#define FETCH_BUDGET_TRANSFERS	4
#define FETCH_BUDGET_MAX_S	300

struct fetch_budget {
	const struct conf *conf;
	long long	 deadline;	/* monotonic ms: nothing asked after */
	uint64_t	 bytes;		/* received */
	char		 err[ERRLEN];
};

/* b zeroed, its deadline the budget's from now. */
void	 fetch_budget_start(struct fetch_budget *b, const struct conf *conf);
/* Why it failed into b->err: -1. */
int	 fetch_budget_fail(struct fetch_budget *b, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/*
 * One GET of url, body at most max bytes (decoded from gzip when
 * decode), every attempt's timeout cut to what is left before the
 * deadline: 0 with f filled (the caller frees it) and its bytes
 * counted, or -1 with why (the URL escaped) in b->err.
 */
int	 fetch_budget_get(struct fetch_budget *b, struct fetch *f,
	    const char *url, int guarded, int decode, size_t max);

#endif /* CRLCACHE_BUDGET_H */
