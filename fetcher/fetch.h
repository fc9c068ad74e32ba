/*
 * crlcache command-line tool: what fetch.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_FETCH_H
#define CRLCACHE_FETCHER_FETCH_H

#include "fetcher.h"

/* fetch.c: parallel HTTP(S) with libcurl multi */
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
int	 fetch_all(struct fetch *f, size_t n, const struct conf *conf);
/*
 * fetch_all, calling cb(f, arg) as each transfer ends (retries done):
 * the caller can use and free its body while the others go on.  A
 * transfer the engine gave up on (-1) gets no call.
 */
int	 fetch_each(struct fetch *f, size_t n, const struct conf *conf,
	    void (*cb)(struct fetch *, void *), void *arg);
void	 fetch_free(struct fetch *f);

#endif /* CRLCACHE_FETCHER_FETCH_H */
