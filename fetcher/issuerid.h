/*
 * crlcache command-line tool: what issuerid.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_ISSUERID_H
#define CRLCACHE_FETCHER_ISSUERID_H

#include "fetcher.h"

struct store;

/* issuerid.c: the "crl" key of a scope, from its issuer and signer */
int	 store_scope_key(struct store *s, const X509_NAME *name, X509 *signer,
	    const char *scope, unsigned reasons, unsigned kind, uint8_t *key,
	    size_t *keylen);

#endif /* CRLCACHE_FETCHER_ISSUERID_H */
