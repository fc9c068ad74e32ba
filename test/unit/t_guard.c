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

/*
 * One step: set the variable ("NAME=VALUE"; "NAME" alone unsets it, NULL
 * leaves all as they are), then url must get want: the proxy, "-" for
 * direct, "!" for a URL refused.
 */
struct step {
	const char	*set;
	const char	*url;
	const char	*want;
};

static const struct step steps[] = {
	{ NULL, "http://crl.example/a.crl", "-" },
	/* per scheme: https_proxy is not for http */
	{ "https_proxy=http://s:1", "http://crl.example/a.crl", "-" },
	{ NULL, "https://crl.example/a.crl", "http://s:1" },
	/* HTTP_PROXY is never read (a CGI program's Proxy: header) */
	{ "HTTP_PROXY=http://cgi:1", "http://crl.example/a.crl", "-" },
	{ "http_proxy=http://h:1", "HTTP://crl.example/a.crl", "http://h:1" },
	{ "https_proxy", "https://crl.example/", "-" },
	{ "HTTPS_PROXY=http://S:1", "https://crl.example/", "http://S:1" },
	/* an empty variable counts as unset */
	{ "https_proxy=", "https://crl.example/", "http://S:1" },
	{ "http_proxy", "http://crl.example/", "-" },
	{ "ALL_PROXY=socks5h://A:1", "http://crl.example/", "socks5h://A:1" },
	{ "all_proxy=http://a:1", "http://crl.example/", "http://a:1" },
	{ NULL, "https://crl.example/", "http://S:1" },
	{ NULL, "ftp://crl.example/", "!" },
	{ NULL, "http://[::1/", "!" },
	/* no_proxy: names with their subdomains, addresses, CIDR blocks */
	{ "http_proxy=http://h:1", "http://example.com/", "http://h:1" },
	{ "no_proxy=example.com, .internal.,10.0.0.0/8 ::1 192.0.2.7",
	  "http://example.com/", "-" },
	{ NULL, "http://EXAMPLE.com./", "-" },
	{ NULL, "http://crl.example.com/", "-" },
	{ NULL, "http://notexample.com/", "http://h:1" },
	{ NULL, "http://example.com.evil/", "http://h:1" },
	{ NULL, "http://a.b.internal/", "-" },
	{ NULL, "http://internal/", "-" },
	{ NULL, "http://10.1.2.3/", "-" },
	{ NULL, "http://11.1.2.3/", "http://h:1" },
	{ NULL, "http://192.0.2.7/", "-" },
	{ NULL, "http://192.0.2.8/", "http://h:1" },
	{ NULL, "http://[::1]:8080/", "-" },
	{ NULL, "http://[::2]/", "http://h:1" },
	/* an address matches literal addresses only: no lookup */
	{ "no_proxy=127.0.0.1", "http://localhost/", "http://h:1" },
	{ "no_proxy=*", "http://anything.example/", "-" },
	/* "*" only alone */
	{ "no_proxy=*.example", "http://a.example/", "http://h:1" },
	{ "no_proxy=", "http://example.com/", "http://h:1" },
	{ "NO_PROXY=example.com", "http://example.com/", "-" },
	/* lower case first */
	{ "no_proxy=other.example", "http://example.com/", "http://h:1" },
	{ "no_proxy=10.0.0.0/33,10.0.0.0/x", "http://10.0.0.1/", "http://h:1" },
	{ "no_proxy=2001:db8::/32", "http://[2001:db8:1::5]/", "-" },
	{ NULL, "http://[2001:db9::5]/", "http://h:1" },
};

static void
check_proxy(void)
{
	static const char *const vars[] = { "http_proxy", "HTTP_PROXY",
	    "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
	    "no_proxy", "NO_PROXY" };
	struct guard_target t;
	const char *got, *eq;
	char name[32];
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		eq = steps[i].set != NULL ? strchr(steps[i].set, '=') : NULL;
		if (eq != NULL) {
			snprintf(name, sizeof(name), "%.*s",
			    (int)(eq - steps[i].set), steps[i].set);
			setenv(name, eq + 1, 1);
		} else if (steps[i].set != NULL)
			unsetenv(steps[i].set);
		if (guard_target(steps[i].url, &t) == -1)
			got = "!";
		else if ((got = guard_proxy(&t)) == NULL)
			got = "-";
		if (strcmp(got, steps[i].want) != 0) {
			fprintf(stderr, "step %zu: %s: %s, wanted %s\n", i,
			    steps[i].url, got, steps[i].want);
			CHECK(0);
		}
	}
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
	check_proxy();
	check_host();
	return check_result();
}
