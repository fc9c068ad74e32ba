/*
 * crlcache command-line tool: what ingest.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_INGEST_H
#define CRLCACHE_FETCHER_INGEST_H

#include "fetcher.h"

struct store;
struct trust;

/* ingest.c: parse + verify + store one CRL, reporting a rejection */
int	 ingest_buffer(struct store *s, const struct trust *t,
	    const char *source, const char *url, const uint8_t *buf,
	    size_t len, uint8_t *key, size_t *keylen, char *err, size_t errlen);

#endif /* CRLCACHE_FETCHER_INGEST_H */
