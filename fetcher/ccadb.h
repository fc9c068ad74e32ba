/*
 * crlcache command-line tool: what ccadb.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_CCADB_H
#define CRLCACHE_FETCHER_CCADB_H

#include "fetcher.h"

/* ccadb.c: CRL URLs from a CCADB CSV export */
int	 ccadb_parse(const uint8_t *buf, size_t len, const char *source,
	    struct strlist *urls);
/* The CRL URL columns of the CCADB's exports and reports, any of them. */
#define CCADB_URL_COLUMNS	3
extern const char *const ccadb_url_columns[CCADB_URL_COLUMNS];
/*
 * Add the usable URLs (url_usable) of one URL field to urls: a JSON
 * array, a bracketed list that is not JSON, or one URL, each element
 * trimmed of white space and zero-width characters; [""] is no URL.
 * *bad counts the elements that looked like URLs and were not usable.
 * -1 when urls would hold more than max.
 */
int	 ccadb_urls(const char *field, size_t len, struct strlist *urls,
	    size_t max, size_t *bad);

#endif /* CRLCACHE_FETCHER_CCADB_H */
