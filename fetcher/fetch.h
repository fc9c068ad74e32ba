/*
 * crlcache command-line tool: what fetch.c offers the rest of the
 * fetcher: one transfer's request and results (fetchall.h runs them).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_FETCH_H
#define CRLCACHE_FETCHER_FETCH_H

#include "fetcher.h"

/* One HTTP(S) transfer: what to ask, and what it gave. */
struct fetch {
	const char	*url;
	const char	*etag;		/* sent as If-None-Match */
	const char	*last_modified;	/* sent as If-Modified-Since */
	int		 guarded;	/* not configured: public addresses only */
	char		*via;		/* download from here instead (mirror =);
					   url still names the source */
	int		 refused;	/* set before the transfers: not fetched,
					   err says why */
	int		 decode;	/* ask for gzip (RFC 9110 8.4.1.3): body
					   and max_size are the decoded bytes */
	/* results */
	long		 status;
	int		 ok;		/* body or not_modified is valid */
	int		 not_modified;
	uint8_t		*body;
	size_t		 len;
	char		*new_etag;
	char		*new_last_modified;
	int64_t		 fresh_for;	/* seconds the answer stays fresh, as
					   its server said (header.c) */
	char		 err[ERRLEN];
};
/* What f holds, freed: its body, validators and via. */
void	 fetch_free(struct fetch *f);

#endif /* CRLCACHE_FETCHER_FETCH_H */
