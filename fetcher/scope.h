/*
 * crlcache command-line tool: what scope.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_SCOPE_H
#define CRLCACHE_FETCHER_SCOPE_H

#include "fetcher.h"

struct crl;
struct store;

/* scope.c: a scope's CRL record, its admission, ingest and reset */
/* Consumes c->der: its pages are let go as they are copied (ingest.c). */
int	 store_ingest(struct store *s, const struct crl *c, char *err,
	    size_t errlen);
int	 store_has_scope(struct store *s, const uint8_t *key, size_t keylen,
	    int64_t *due);
/* What store_reset_scope removed. */
struct store_reset {
	uint32_t	 entries;
	int64_t		 this_update;
	uint8_t		 number[CRLC_CRLNUM_MAX];
	size_t		 numlen;
};
int	 store_reset_scope(struct store *s, X509 *issuer, const char *scope,
	    unsigned reasons, unsigned kind, struct store_reset *held, char *err,
	    size_t errlen);

#endif /* CRLCACHE_FETCHER_SCOPE_H */
