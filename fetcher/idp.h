/*
 * crlcache command-line tool: what idp.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_IDP_H
#define CRLCACHE_FETCHER_IDP_H

#include "fetcher.h"

/* Names of one IDP a CRL is stored under, at most (idp.c). */
#define IDP_SCOPES_MAX	8
/* idp.c: the scopes of a partitioned CRL (<crlcache/dpname.h>) */
int	 idp_scope(const DIST_POINT_NAME *dpn, const X509_NAME *issuer,
	    const char *url, int is_delta, char *scopes[IDP_SCOPES_MAX],
	    size_t *n, char *err, size_t errlen);

#endif /* CRLCACHE_FETCHER_IDP_H */
