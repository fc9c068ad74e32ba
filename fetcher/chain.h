/*
 * crlcache command-line tool: what chain.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_CHAIN_H
#define CRLCACHE_FETCHER_CHAIN_H

#include "fetcher.h"

/*
 * chain.c: CA certificates indexed by subject, and certification paths
 * built from them trying every candidate issuer (RFC 4158).
 */
struct certpool;
struct certpool *certpool_new(void);
/* Hold a reference to x; one the pool holds already is not added again. */
int	 certpool_add(struct certpool *p, X509 *x);
void	 certpool_free(struct certpool *p);
/*
 * A source of certificates held back until a search asks for their
 * subject: called with each name before the pool is searched for it, it
 * adds (certpool_add) what it holds of that name.  One fill at a time.
 */
typedef void (*certpool_fill_fn)(void *arg, struct certpool *p,
	    const X509_NAME *name);
void	 certpool_set_fill(struct certpool *p, certpool_fill_fn fill, void *arg);
/* The certificates of the pool named name (a new stack). */
STACK_OF(X509) *certpool_named(struct certpool *p, const X509_NAME *name);
/* 1 when the caller takes a validated path, else 0 with why. */
typedef int (*chain_accept_fn)(void *arg, STACK_OF(X509) *chain, char *why,
    size_t whylen);
/*
 * 1 when x has a certification path to an anchor of store at now through
 * certificates of pool that OpenSSL validates (RFC 5280 6.1) and accept
 * (if not NULL) takes; the path, x first and the anchor last, goes to
 * *chain (if not NULL; free with sk_X509_pop_free).  Else 0 and why says
 * what failed.  The pool remembers proven links, so it is not const.
 */
int	 chain_build(X509_STORE *store, struct certpool *pool, X509 *x,
	    time_t now, chain_accept_fn accept, void *arg, STACK_OF(X509) **chain,
	    char *why, size_t whylen);

#endif /* CRLCACHE_FETCHER_CHAIN_H */
