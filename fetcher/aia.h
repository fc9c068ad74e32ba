/*
 * crlcache command-line tool: what aia.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_AIA_H
#define CRLCACHE_FETCHER_AIA_H

#include "fetcher.h"

struct trust;

/*
 * aia.c: x's issuers from its caIssuers URLs into cands, and the
 * certificates above them, followed until they chain to an anchor of t
 * (those join t's pool), each fetch spending one of *budget.  1 when
 * the budget ran out before the search ended, else 0.
 */
int	 aia_issuers(X509 *x, const struct trust *t, const struct conf *conf,
	    size_t *budget, time_t now, STACK_OF(X509) *cands);
/*
 * caIssuers fetches one run may make, each bounded by AIA_TIMEOUT (15 s):
 * a run that meets hostile URLs stalls for two minutes at most.  Issuers
 * in the CCADB directory need none.  Hints spend them in turns, at most
 * AIA_WRITER_MAX of them for the hints of one writer (one URL for each
 * certificate above a hinted one, on the deepest Web PKI paths: three
 * intermediates); a hint that finds them spent waits for the next run,
 * which starts with its writer.
 */
#define MAX_AIA_FETCHES	8
#define AIA_WRITER_MAX	3

#endif /* CRLCACHE_FETCHER_AIA_H */
