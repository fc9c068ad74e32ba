/*
 * Unit test of the learned-URL address classifier (lib/addr.c): every
 * special-purpose range at its edges, IPv4 embedded in IPv6, and public
 * addresses next to them; an operator's NAT64 prefix; and the redirect
 * decision built on it.  No packet is sent: the addresses are only parsed
 * with inet_pton and classified.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "check.h"
#include <crlcache/addr.h>

static int
classify_with(const char *text, const uint8_t *nat64)
{
	struct sockaddr_in6 s6;
	struct sockaddr_in s4;

	memset(&s4, 0, sizeof(s4));
	memset(&s6, 0, sizeof(s6));
	if (inet_pton(AF_INET, text, &s4.sin_addr) == 1) {
		s4.sin_family = AF_INET;
		return crlc_addr_is_public((struct sockaddr *)&s4, nat64);
	}
	if (inet_pton(AF_INET6, text, &s6.sin6_addr) == 1) {
		s6.sin6_family = AF_INET6;
		return crlc_addr_is_public((struct sockaddr *)&s6, nat64);
	}
	fprintf(stderr, "bad test address %s\n", text);
	return -1;
}

static int
classify(const char *text)
{
	return classify_with(text, NULL);
}

static const char *const refused[] = {
	"0.0.0.0", "0.255.255.255", "10.0.0.1", "10.255.255.255",
	"100.64.0.0", "100.127.255.255", "127.0.0.1", "127.1.2.3",
	"169.254.169.254", "172.16.0.1", "172.31.255.255", "192.0.0.8",
	"192.0.2.1", "192.88.99.1", "192.168.1.1", "198.18.0.1",
	"198.19.255.255", "198.51.100.7", "203.0.113.9", "224.0.0.1",
	"239.255.255.250", "240.0.0.1", "255.255.255.255",
	"::", "::1", "::127.0.0.1", "::ffff:127.0.0.1", "::ffff:10.1.2.3",
	"::ffff:169.254.169.254", "64:ff9b::192.168.0.1", "2002:7f00:1::",
	"2002:c0a8:101::1", "100::1", "2001:db8::1", "2001::1",
	"fc00::1", "fd12:3456::1", "fe80::1", "febf::1", "fec0::1",
	"ff02::1", "ff05::1:3",
	/* IPv4-translated (RFC 2765) and local-use NAT64 (RFC 8215) */
	"::ffff:0:127.0.0.1", "::ffff:0:10.1.2.3", "::ffff:0:169.254.169.254",
	"::ffff:0:0:0", "64:ff9b:1::127.0.0.1", "64:ff9b:1::192.168.0.1",
	"64:ff9b:1::a9fe:a9fe", "64:ff9b:1:1::8.8.8.8",
	"64:ff9b:1:ffff:ffff:ffff:ffff:ffff",
};

static const char *const allowed[] = {
	"1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.0", "100.63.255.255",
	"100.128.0.0", "126.255.255.255", "128.0.0.1", "169.253.255.255",
	"172.15.255.255", "172.32.0.0", "192.0.3.1", "192.167.255.255",
	"192.169.0.0", "198.17.255.255", "198.20.0.0", "223.255.255.255",
	"2606:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8",
	"64:ff9b::808:808", "2002:808:808::1", "2001:4860::8888",
	"fe7f:ffff::1", "2400:cb00::1",
	"::ffff:0:8.8.8.8", "64:ff9b:1::808:808", "64:ff9b:0:1::1",
	"64:ff9b:2::1",
};

/* text as a sockaddr (port 80) in *ss; the address must parse. */
static const struct sockaddr *
sa_of(const char *text, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, text, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(80);
	} else if (inet_pton(AF_INET6, text, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(80);
	} else
		fprintf(stderr, "bad test address %s\n", text);
	return (const struct sockaddr *)ss;
}

/* The redirect decision: who may connect where (fetcher/fetch.c). */
static void
check_may_connect(void)
{
	struct sockaddr_storage ss;
	struct crlc_origin o;
	unsigned i;
	char text[32];

	/* A configured URL on loopback; its redirect to another loopback
	 * address, a private one or link local is refused, back to its own
	 * address (another port or scheme) and to a public one allowed. */
	memset(&o, 0, sizeof(o));
	CHECK(crlc_addr_may_connect(sa_of("127.0.0.1", &ss), 0, 0, NULL, &o) == 1);
	CHECK(o.n == 1);
	CHECK(crlc_addr_may_connect(sa_of("::1", &ss), 0, 0, NULL, &o) == 1);
	CHECK(crlc_addr_may_connect(sa_of("127.0.0.2", &ss), 0, 1, NULL, &o) == 0);
	CHECK(crlc_addr_may_connect(sa_of("10.0.0.1", &ss), 0, 1, NULL, &o) == 0);
	CHECK(crlc_addr_may_connect(sa_of("169.254.169.254", &ss), 0, 1, NULL, &o) == 0);
	CHECK(crlc_addr_may_connect(sa_of("fe80::1", &ss), 0, 1, NULL, &o) == 0);
	CHECK(crlc_addr_may_connect(sa_of("ff02::1", &ss), 0, 1, NULL, &o) == 0);
	CHECK(crlc_addr_may_connect(sa_of("224.0.0.1", &ss), 0, 1, NULL, &o) == 0);
	CHECK(crlc_addr_may_connect(sa_of("::ffff:127.0.0.2", &ss), 0, 1, NULL, &o) == 0);
	CHECK(crlc_addr_may_connect(sa_of("127.0.0.1", &ss), 0, 1, NULL, &o) == 1);
	CHECK(crlc_addr_may_connect(sa_of("::1", &ss), 0, 1, NULL, &o) == 1);
	CHECK(crlc_addr_may_connect(sa_of("8.8.8.8", &ss), 0, 1, NULL, &o) == 1);
	CHECK(o.n == 2);
	/* A configured public URL: its redirect to loopback is refused. */
	memset(&o, 0, sizeof(o));
	CHECK(crlc_addr_may_connect(sa_of("2606:4700::1111", &ss), 0, 0, NULL, &o) == 1);
	CHECK(o.n == 0);
	CHECK(crlc_addr_may_connect(sa_of("127.0.0.1", &ss), 0, 1, NULL, &o) == 0);
	CHECK(crlc_addr_may_connect(sa_of("192.168.1.1", &ss), 0, 1, NULL, &o) == 0);
	/* A learned URL: public only, before and after a redirect. */
	memset(&o, 0, sizeof(o));
	CHECK(crlc_addr_may_connect(sa_of("127.0.0.1", &ss), 1, 0, NULL, &o) == 0);
	CHECK(crlc_addr_may_connect(sa_of("10.1.2.3", &ss), 1, 0, NULL, &o) == 0);
	CHECK(crlc_addr_may_connect(sa_of("8.8.8.8", &ss), 1, 1, NULL, &o) == 1);
	CHECK(o.n == 0);
	/* The origin set is bounded; a configured URL still connects. */
	memset(&o, 0, sizeof(o));
	for (i = 1; i <= CRLC_ORIGIN_MAX + 4; i++) {
		snprintf(text, sizeof(text), "10.0.0.%u", i);
		CHECK(crlc_addr_may_connect(sa_of(text, &ss), 0, 0, NULL, &o) == 1);
	}
	CHECK(o.n == CRLC_ORIGIN_MAX);
	CHECK(crlc_addr_may_connect(sa_of("10.0.0.1", &ss), 0, 1, NULL, &o) == 1);
	CHECK(crlc_addr_may_connect(sa_of("10.0.0.12", &ss), 0, 1, NULL, &o) == 0);
}

/* An operator's NAT64 prefix: its embedded IPv4 address decides. */
static void
check_nat64_prefix(void)
{
	static const char *const bad[] = { "2a00:1:64::/64", "2a00:1:64::1/96",
	    "2a00:1:64::/96x", "10.0.0.0/96", "", "/96", "2a00:1:64::/",
	    "2a00:1:64:0:0:0:0:0:0/96" };
	struct sockaddr_storage ss;
	struct crlc_origin o;
	uint8_t p[CRLC_NAT64_PREFIX_LEN], q[CRLC_NAT64_PREFIX_LEN];
	size_t i;

	CHECK(crlc_addr_parse_nat64("2a00:1:64::/96", p) == 0);
	CHECK(crlc_addr_parse_nat64("2a00:1:64::", q) == 0);
	CHECK(memcmp(p, q, sizeof(p)) == 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (crlc_addr_parse_nat64(bad[i], q) != -1) {
			fprintf(stderr, "nat64 prefix %s accepted\n", bad[i]);
			CHECK(0);
		}
	/* Without the prefix these are ordinary global addresses. */
	CHECK(classify("2a00:1:64::10.0.0.1") == 1);
	CHECK(classify_with("2a00:1:64::10.0.0.1", p) == 0);
	CHECK(classify_with("2a00:1:64::127.0.0.1", p) == 0);
	CHECK(classify_with("2a00:1:64::169.254.169.254", p) == 0);
	CHECK(classify_with("2a00:1:64::8.8.8.8", p) == 1);
	CHECK(classify_with("2a00:1:65::10.0.0.1", p) == 1);
	/* The well-known forms still apply beside it. */
	CHECK(classify_with("64:ff9b::10.0.0.1", p) == 0);
	CHECK(classify_with("10.0.0.1", p) == 0);
	memset(&o, 0, sizeof(o));
	CHECK(crlc_addr_may_connect(sa_of("2a00:1:64::10.0.0.1", &ss), 1, 0,
	    p, &o) == 0);
	CHECK(crlc_addr_may_connect(sa_of("2a00:1:64::8.8.8.8", &ss), 1, 0,
	    p, &o) == 1);
}

int
main(void)
{
	struct sockaddr_un su;
	size_t i;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (classify(refused[i]) != 0) {
			fprintf(stderr, "%s: classified public\n", refused[i]);
			CHECK(0);
		}
	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (classify(allowed[i]) != 1) {
			fprintf(stderr, "%s: not classified public\n", allowed[i]);
			CHECK(0);
		}
	memset(&su, 0, sizeof(su));
	su.sun_family = AF_UNIX;
	CHECK(crlc_addr_is_public((struct sockaddr *)&su, NULL) == 0);
	CHECK(crlc_addr_is_public(NULL, NULL) == 0);
	check_may_connect();
	check_nat64_prefix();
	return check_result();
}
