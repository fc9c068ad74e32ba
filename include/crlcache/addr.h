/*
 * Which network addresses a URL learned from a certificate may reach.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * A CRL distribution point or caIssuers URL inside a certificate that
 * some program on the host met is chosen by whoever issued it: fetching
 * it blindly would let a certificate make the fetcher probe the host's
 * own services or its private network (server-side request forgery).
 * The fetcher connects to such URLs only when every address is a
 * globally routable unicast one.
 */
#ifndef CRLCACHE_ADDR_H
#define CRLCACHE_ADDR_H

#include <stdint.h>
#include <sys/socket.h>

/* An operator's NAT64 prefix (nat64_prefix =) is a /96: 12 bytes. */
#define CRLC_NAT64_PREFIX_LEN	12

/*
 * 1 when sa is a global unicast address; 0 for unspecified, loopback,
 * private (RFC 1918, RFC 4193), shared (RFC 6598), link-local (RFC 3927,
 * RFC 4291), multicast, broadcast, reserved, documentation and
 * benchmarking ranges (RFC 6890 special-purpose registries), IPv4-mapped,
 * -compatible, -translated or NAT64 forms of those (64:ff9b::/96,
 * 64:ff9b:1::/48, and nat64, an operator's /96 prefix of
 * CRLC_NAT64_PREFIX_LEN bytes, or NULL), and any family other than
 * AF_INET and AF_INET6.
 */
int	crlc_addr_is_public(const struct sockaddr *sa, const uint8_t *nat64);

/*
 * An operator's NAT64 prefix, "2001:db8:64::/96" or "2001:db8:64::" (a /96
 * whose last 32 bits are zero; RFC 6052 2.2), into prefix.  0, or -1 for
 * anything else (other prefix lengths are not supported).
 */
int	crlc_addr_parse_nat64(const char *text,
	    uint8_t prefix[CRLC_NAT64_PREFIX_LEN]);

/*
 * The non-public addresses a configured URL itself connected to: a
 * redirect may come back to them (another path or scheme on the same
 * host), nowhere else that is not public.  A bounded set: one host name
 * resolves to a handful of addresses, and connections are tried in turn.
 */
#define CRLC_ORIGIN_MAX	8
struct crlc_origin {
	struct sockaddr_storage	a[CRLC_ORIGIN_MAX];
	unsigned		n;
};

/*
 * Whether a transfer may connect to sa (the port is not compared: the
 * same host on another port, http to https, is the same host).
 *   - a public address: always;
 *   - learned (the URL came from a certificate or the issuer directory):
 *     never anything else;
 *   - a configured URL before any redirect: yes, and sa joins *origin;
 *   - after a redirect: only an address in *origin.
 * "Public" as crlc_addr_is_public says with nat64.  allow_private_urls =
 * yes means the caller does not ask.  Returns 1 or 0.
 */
int	crlc_addr_may_connect(const struct sockaddr *sa, int learned,
	    int redirected, const uint8_t *nat64, struct crlc_origin *origin);

#endif /* CRLCACHE_ADDR_H */
