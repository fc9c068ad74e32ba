/*
 * guard.c: the proxy and the address rules for one hop of a transfer.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_GUARD_H
#define CRLCACHE_GUARD_H

#include <crlcache/addr.h>

struct conf;

/* A DNS name is at most 253 characters (RFC 1035 2.3.4). */
#define GUARD_HOST_MAX	256

/* What the decisions need of a URL. */
struct guard_target {
	char	host[GUARD_HOST_MAX];	/* bare: no brackets, no final dot */
	int	https;
};

/* url's scheme (http or https only) and host.  0, or -1. */
int	guard_target(const char *url, struct guard_target *t);

/* The proxy libcurl's environment rules choose for t, or NULL: direct. */
const char *guard_proxy(const struct guard_target *t);

/*
 * Through a proxy: may the hop reach t's host?  Every address the local
 * resolver gives must pass crlc_addr_may_connect (a configured URL's
 * first hop adds them to *origin); a name that does not resolve here
 * passes only for a configured URL's first hop.  1 or 0.
 */
int	guard_host(const struct guard_target *t, int learned, int redirected,
	    const struct conf *conf, struct crlc_origin *origin);

#endif /* CRLCACHE_GUARD_H */
