/*
 * Special-purpose address ranges (RFC 6890 and its IANA registries).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <crlcache/addr.h>

struct range {
	uint8_t	prefix[16];
	int	bits;
};

/* IPv4, in network order (RFC 6890 table 2 and later additions). */
static const struct range v4_special[] = {
	{ { 0 }, 8 },			/* "this network", RFC 791 */
	{ { 10 }, 8 },			/* private, RFC 1918 */
	{ { 100, 64 }, 10 },		/* shared address space, RFC 6598 */
	{ { 127 }, 8 },			/* loopback, RFC 1122 */
	{ { 169, 254 }, 16 },		/* link local, RFC 3927 */
	{ { 172, 16 }, 12 },		/* private, RFC 1918 */
	{ { 192, 0, 0 }, 24 },		/* IETF protocol assignments */
	{ { 192, 0, 2 }, 24 },		/* TEST-NET-1, RFC 5737 */
	{ { 192, 88, 99 }, 24 },	/* 6to4 relay anycast, RFC 7526 */
	{ { 192, 168 }, 16 },		/* private, RFC 1918 */
	{ { 198, 18 }, 15 },		/* benchmarking, RFC 2544 */
	{ { 198, 51, 100 }, 24 },	/* TEST-NET-2, RFC 5737 */
	{ { 203, 0, 113 }, 24 },	/* TEST-NET-3, RFC 5737 */
	{ { 224 }, 4 },			/* multicast, RFC 5771 */
	{ { 240 }, 4 },			/* reserved, and 255.255.255.255 */
};

/* IPv6 (RFC 6890 table 17, RFC 4291). */
static const struct range v6_special[] = {
	{ { 0 }, 96 },			/* ::/128, ::1/128, IPv4-compatible */
	{ { 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01 }, 48 },	/* local-use
					   IPv4/IPv6 translation, RFC 8215 */
	{ { 0x01, 0x00 }, 64 },		/* discard-only, RFC 6666 */
	{ { 0x20, 0x01, 0x0d, 0xb8 }, 32 },	/* documentation, RFC 3849 */
	{ { 0x20, 0x01 }, 23 },		/* IETF protocol assignments */
	{ { 0xfc }, 7 },		/* unique local, RFC 4193 */
	{ { 0xfe, 0x80 }, 10 },		/* link local, RFC 4291 */
	{ { 0xfe, 0xc0 }, 10 },		/* site local, deprecated (RFC 3879) */
	{ { 0xff }, 8 },		/* multicast, RFC 4291 */
};

static int
in_range(const uint8_t *a, const struct range *r)
{
	int full = r->bits / 8, rest = r->bits % 8;

	if (memcmp(a, r->prefix, (size_t)full) != 0)
		return 0;
	return rest == 0 ||
	    ((a[full] ^ r->prefix[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

static int
v4_public(const uint8_t a[4])
{
	size_t i;

	for (i = 0; i < sizeof(v4_special) / sizeof(v4_special[0]); i++)
		if (in_range(a, &v4_special[i]))
			return 0;
	return 1;
}

/*
 * IPv6 forms that reach an IPv4 address in their last 32 bits: they are
 * what that address is.  IPv4-mapped ::ffff:0:0/96 (RFC 4291 2.5.5.2),
 * IPv4-translated ::ffff:0:0:0/96 (RFC 2765 2.1), the NAT64 well-known
 * prefix 64:ff9b::/96 (RFC 6052 2.1) and the /96 at the start of the
 * local-use 64:ff9b:1::/48 (RFC 8215); the rest of that /48 is refused
 * (its layout is the operator's: RFC 6052 2.2), unless nat64 (an
 * operator's /96, nat64_prefix =) names it.
 */
static const uint8_t v4_in_v6[][12] = {
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff },
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0 },
	{ 0x00, 0x64, 0xff, 0x9b },
	{ 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01 },
};

static int
v6_public(const uint8_t a[16], const uint8_t *nat64)
{
	size_t i;

	for (i = 0; i < sizeof(v4_in_v6) / sizeof(v4_in_v6[0]); i++)
		if (memcmp(a, v4_in_v6[i], sizeof(v4_in_v6[i])) == 0)
			return v4_public(a + 12);
	if (nat64 != NULL && memcmp(a, nat64, CRLC_NAT64_PREFIX_LEN) == 0)
		return v4_public(a + 12);
	/* 2002::/16 (6to4) embeds an IPv4 address in bits 16..47. */
	if (a[0] == 0x20 && a[1] == 0x02)
		return v4_public(a + 2);
	for (i = 0; i < sizeof(v6_special) / sizeof(v6_special[0]); i++)
		if (in_range(a, &v6_special[i]))
			return 0;
	return 1;
}

int
crlc_addr_is_public(const struct sockaddr *sa, const uint8_t *nat64)
{
	if (sa == NULL)
		return 0;
	if (sa->sa_family == AF_INET)
		return v4_public((const uint8_t *)
		    &((const struct sockaddr_in *)(const void *)sa)->sin_addr);
	if (sa->sa_family == AF_INET6)
		return v6_public(((const struct sockaddr_in6 *)
		    (const void *)sa)->sin6_addr.s6_addr, nat64);
	return 0;
}

int
crlc_addr_parse_nat64(const char *text, uint8_t prefix[CRLC_NAT64_PREFIX_LEN])
{
	char buf[INET6_ADDRSTRLEN + 4];
	const char *slash;
	uint8_t a[16];
	size_t len;

	if ((slash = strchr(text, '/')) != NULL && strcmp(slash, "/96") != 0)
		return -1;
	len = slash != NULL ? (size_t)(slash - text) : strlen(text);
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	/* The IPv4 address goes in the last 32 bits: they are zero here. */
	if (inet_pton(AF_INET6, buf, a) != 1 || a[12] != 0 || a[13] != 0 ||
	    a[14] != 0 || a[15] != 0)
		return -1;
	memcpy(prefix, a, CRLC_NAT64_PREFIX_LEN);
	return 0;
}

/* Family and address equal; ports and scope ignored. */
static int
same_host(const struct sockaddr *a, const struct sockaddr_storage *b)
{
	if (a->sa_family != b->ss_family)
		return 0;
	if (a->sa_family == AF_INET)
		return memcmp(&((const struct sockaddr_in *)(const void *)a)->sin_addr,
		    &((const struct sockaddr_in *)(const void *)b)->sin_addr,
		    sizeof(struct in_addr)) == 0;
	return memcmp(&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr,
	    &((const struct sockaddr_in6 *)(const void *)b)->sin6_addr,
	    sizeof(struct in6_addr)) == 0;
}

int
crlc_addr_may_connect(const struct sockaddr *sa, int learned, int redirected,
    const uint8_t *nat64, struct crlc_origin *origin)
{
	unsigned i;

	if (crlc_addr_is_public(sa, nat64))
		return 1;
	if (learned || (sa->sa_family != AF_INET && sa->sa_family != AF_INET6))
		return 0;
	for (i = 0; i < origin->n && i < CRLC_ORIGIN_MAX; i++)
		if (same_host(sa, &origin->a[i]))
			return 1;
	if (redirected)
		return 0;
	if (origin->n < CRLC_ORIGIN_MAX)
		memcpy(&origin->a[origin->n++], sa, sa->sa_family == AF_INET ?
		    sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	return 1;
}
