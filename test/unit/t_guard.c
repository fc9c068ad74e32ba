/*
 * Unit test of the per-hop decisions (fetcher/guard.c, built in): which
 * proxy the environment names for a URL, by libcurl's rules (per scheme,
 * HTTP_PROXY never read, all_proxy last, no_proxy names, suffixes,
 * addresses and CIDR blocks, "*", empty means unset), and the check of a
 * hop's host through a proxy.  Only literal addresses are resolved: no
 * packet is sent.
 */
#include <stdlib.h>

#include "check.h"
#include "../../fetcher/guard.c"

static const char *const vars[] = { "http_proxy", "HTTP_PROXY",
    "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy",
    "NO_PROXY" };

static void
clear(void)
{
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

/* The proxy for url, or "-" for direct, or "!" for a URL refused. */
static const char *
proxy_of(const char *url)
{
	static struct guard_target t;
	const char *p;

	if (guard_target(url, &t) == -1)
		return "!";
	p = guard_proxy(&t);
	return p != NULL ? p : "-";
}

#define PROXY_IS(url, want)	CHECK(strcmp(proxy_of(url), want) == 0)

static void
check_schemes(void)
{
	clear();
	PROXY_IS("http://crl.example/a.crl", "-");
	setenv("https_proxy", "http://s:1", 1);
	PROXY_IS("http://crl.example/a.crl", "-");	/* per scheme */
	PROXY_IS("https://crl.example/a.crl", "http://s:1");
	setenv("HTTP_PROXY", "http://cgi:1", 1);
	PROXY_IS("http://crl.example/a.crl", "-");	/* never HTTP_PROXY */
	setenv("http_proxy", "http://h:1", 1);
	PROXY_IS("HTTP://crl.example/a.crl", "http://h:1");
	clear();
	setenv("HTTPS_PROXY", "http://S:1", 1);
	PROXY_IS("https://crl.example/", "http://S:1");
	setenv("https_proxy", "", 1);		/* empty counts as unset */
	PROXY_IS("https://crl.example/", "http://S:1");
	setenv("ALL_PROXY", "socks5h://A:1", 1);
	PROXY_IS("http://crl.example/", "socks5h://A:1");
	setenv("all_proxy", "http://a:1", 1);
	PROXY_IS("http://crl.example/", "http://a:1");
	PROXY_IS("https://crl.example/", "http://S:1");
	PROXY_IS("ftp://crl.example/", "!");
	PROXY_IS("http://[::1/", "!");
}

static void
check_no_proxy(void)
{
	clear();
	setenv("http_proxy", "http://h:1", 1);
	setenv("no_proxy", "example.com, .internal.,10.0.0.0/8 ::1 192.0.2.7",
	    1);
	PROXY_IS("http://example.com/", "-");
	PROXY_IS("http://EXAMPLE.com./", "-");
	PROXY_IS("http://crl.example.com/", "-");
	PROXY_IS("http://notexample.com/", "http://h:1");
	PROXY_IS("http://example.com.evil/", "http://h:1");
	PROXY_IS("http://a.b.internal/", "-");
	PROXY_IS("http://internal/", "-");
	PROXY_IS("http://10.1.2.3/", "-");
	PROXY_IS("http://11.1.2.3/", "http://h:1");
	PROXY_IS("http://192.0.2.7/", "-");
	PROXY_IS("http://192.0.2.8/", "http://h:1");
	PROXY_IS("http://[::1]:8080/", "-");
	PROXY_IS("http://[::2]/", "http://h:1");
	/* An address pattern matches literal addresses only: no lookup. */
	setenv("no_proxy", "127.0.0.1", 1);
	PROXY_IS("http://localhost/", "http://h:1");
	setenv("no_proxy", "*", 1);
	PROXY_IS("http://anything.example/", "-");
	setenv("no_proxy", "*.example", 1);	/* "*" only alone */
	PROXY_IS("http://a.example/", "http://h:1");
	setenv("no_proxy", "", 1);
	setenv("NO_PROXY", "example.com", 1);
	PROXY_IS("http://example.com/", "-");
	setenv("no_proxy", "other.example", 1);	/* lower case first */
	PROXY_IS("http://example.com/", "http://h:1");
	setenv("no_proxy", "10.0.0.0/33,10.0.0.0/x", 1);
	PROXY_IS("http://10.0.0.1/", "http://h:1");
	setenv("no_proxy", "2001:db8::/32", 1);
	PROXY_IS("http://[2001:db8:1::5]/", "-");
	PROXY_IS("http://[2001:db9::5]/", "http://h:1");
	clear();
}

/* Through a proxy: literal hosts, learned or redirected or neither. */
static void
check_host(void)
{
	struct guard_target t;
	struct crlc_origin o;
	struct conf c;

	memset(&c, 0, sizeof(c));
	memset(&o, 0, sizeof(o));
	CHECK(guard_target("http://127.0.0.1:8080/a.crl", &t) == 0);
	CHECK(guard_host(&t, 1, 0, &c, &o) == 0);	/* learned */
	CHECK(guard_host(&t, 0, 0, &c, &o) == 1);	/* configured */
	CHECK(o.n == 1);
	CHECK(guard_host(&t, 0, 1, &c, &o) == 1);	/* back to it */
	CHECK(guard_target("http://[::ffff:0:127.0.0.2]/", &t) == 0);
	CHECK(guard_host(&t, 0, 1, &c, &o) == 0);	/* elsewhere */
	CHECK(guard_target("http://[64:ff9b:1::10.0.0.1]/", &t) == 0);
	CHECK(guard_host(&t, 1, 0, &c, &o) == 0);
	CHECK(guard_target("http://[2001:db8:64::a00:1]/", &t) == 0);
	CHECK(guard_host(&t, 1, 0, &c, &o) == 0);	/* documentation */
	CHECK(crlc_addr_parse_nat64("2a00:1:64::/96", c.nat64) == 0);
	c.has_nat64 = 1;
	CHECK(guard_target("http://[2a00:1:64::10.0.0.1]/", &t) == 0);
	CHECK(guard_host(&t, 1, 0, &c, &o) == 0);
	CHECK(guard_target("http://[2a00:1:64::8.8.8.8]/", &t) == 0);
	CHECK(guard_host(&t, 1, 0, &c, &o) == 1);
	CHECK(guard_target("http://8.8.8.8/", &t) == 0);
	CHECK(guard_host(&t, 1, 1, &c, &o) == 1);
	/* A name that does not resolve: only a configured first hop. */
	CHECK(guard_target("http://no-such-host.invalid/", &t) == 0);
	CHECK(strcmp(t.host, "no-such-host.invalid") == 0);
}

int
main(void)
{
	check_schemes();
	check_no_proxy();
	check_host();
	return check_result();
}
