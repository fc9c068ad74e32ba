/*
 * Where one hop of a transfer may go: the proxy the environment names
 * for its URL, and whether its host may be reached.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * fetch.c asks per hop (the first URL and every redirect it follows
 * itself) and hands libcurl the answer explicitly (CURLOPT_PROXY, an
 * empty CURLOPT_NOPROXY), so the proxy used is always the one decided
 * here.  The rules are libcurl's for its environment variables:
 * <scheme>_proxy, then its upper-case form except HTTP_PROXY (a CGI
 * program gets a client's "Proxy:" header there), then all_proxy and
 * ALL_PROXY; no_proxy (else NO_PROXY) lists host names (matching the
 * name and its subdomains, a leading or trailing dot ignored), IP
 * addresses with an optional /bits (matching literal addresses only),
 * or "*" alone for every host; an empty variable counts as unset.
 *
 * Through a proxy the fetcher connects only to the proxy, which resolves
 * the host itself; the host's addresses are checked here as the local
 * resolver gives them, before any request.  A name the proxy resolves
 * otherwise (split DNS, rebinding between the two lookups) escapes this
 * check: the proxy's own rules must refuse private destinations
 * (crlcache.conf(5), allow_private_urls).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "fetcher.h"
#include "guard.h"

static const char *
env(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? v : NULL;
}

int
guard_target(const char *url, struct guard_target *t)
{
	char *scheme = NULL, *host = NULL;
	const char *h;
	size_t len;
	CURLU *u;
	int ret = -1;

	if ((u = curl_url()) == NULL)
		return -1;
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK)
		goto done;
	if (strcasecmp(scheme, "http") != 0 && strcasecmp(scheme, "https") != 0)
		goto done;
	t->https = strcasecmp(scheme, "https") == 0;
	/* An IPv6 literal comes in brackets: the resolver wants it bare. */
	h = host;
	len = strlen(h);
	if (len >= 2 && h[0] == '[' && h[len - 1] == ']')
		h++, len -= 2;
	/* A trailing dot names the same host (RFC 1034 3.1). */
	if (len > 0 && h[len - 1] == '.')
		len--;
	if (len == 0 || len >= sizeof(t->host))
		goto done;
	memcpy(t->host, h, len);
	t->host[len] = '\0';
	ret = 0;
done:
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return ret;
}

/* An address with an optional /bits against a literal host address. */
static int
cidr_match(const char *host, const char *tok, size_t len)
{
	uint8_t h[16], n[16];
	char buf[INET6_ADDRSTRLEN + 5], *slash, *end;
	int af, hl, bits;

	if (len >= sizeof(buf))
		return 0;
	memcpy(buf, tok, len);
	buf[len] = '\0';
	af = strchr(host, ':') != NULL ? AF_INET6 : AF_INET;
	hl = af == AF_INET6 ? 16 : 4;
	bits = hl * 8;
	if ((slash = strchr(buf, '/')) != NULL) {
		*slash = '\0';
		bits = (int)strtol(slash + 1, &end, 10);
		if (*end != '\0' || bits < 0 || bits > hl * 8)
			return 0;
		if (bits == 0)		/* libcurl reads /0 as the address */
			bits = hl * 8;
	}
	if (inet_pton(af, host, h) != 1 || inet_pton(af, buf, n) != 1)
		return 0;
	if (memcmp(h, n, (size_t)bits / 8) != 0)
		return 0;
	return bits % 8 == 0 || ((h[bits / 8] ^ n[bits / 8]) &
	    (uint8_t)(0xff << (8 - bits % 8))) == 0;
}

/* A host name against a name: itself or a subdomain of it. */
static int
name_match(const char *host, const char *tok, size_t len)
{
	size_t hl = strlen(host);

	if (len > 0 && tok[len - 1] == '.')
		len--;
	if (len > 0 && tok[0] == '.')
		tok++, len--;
	if (len == 0 || len > hl)
		return 0;
	if (strncasecmp(host + hl - len, tok, len) != 0)
		return 0;
	return len == hl || host[hl - len - 1] == '.';
}

static int
no_proxy_match(const char *list, const char *host)
{
	uint8_t tmp[16];
	const char *p = list;
	size_t len;
	int literal;

	if (strcmp(list, "*") == 0)
		return 1;
	literal = inet_pton(AF_INET, host, tmp) == 1 ||
	    inet_pton(AF_INET6, host, tmp) == 1;
	while (*p != '\0') {
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		len = strcspn(p, ", \t\r\n");
		if (len > 0 && (literal ? cidr_match(host, p, len) :
		    name_match(host, p, len)))
			return 1;
		p += len;
	}
	return 0;
}

const char *
guard_proxy(const struct guard_target *t)
{
	const char *no, *proxy;

	if ((no = env("no_proxy")) == NULL)
		no = env("NO_PROXY");
	if (no != NULL && no_proxy_match(no, t->host))
		return NULL;
	if (t->https) {
		if ((proxy = env("https_proxy")) == NULL)
			proxy = env("HTTPS_PROXY");
	} else
		proxy = env("http_proxy");
	if (proxy == NULL && (proxy = env("all_proxy")) == NULL)
		proxy = env("ALL_PROXY");
	return proxy;
}

int
guard_host(const struct guard_target *t, int learned, int redirected,
    const struct conf *conf, struct crlc_origin *origin)
{
	struct addrinfo hints, *res = NULL, *ai;
	const uint8_t *nat64 = conf->has_nat64 ? conf->nat64 : NULL;
	int ok;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(t->host, NULL, &hints, &res) != 0)
		/* Only the proxy may know the name: fine for what the
		 * administrator wrote, not for a learned URL or a redirect. */
		return !learned && !redirected;
	ok = 1;
	for (ai = res; ai != NULL && ok; ai = ai->ai_next)
		ok = crlc_addr_may_connect(ai->ai_addr, learned, redirected,
		    nat64, origin);
	freeaddrinfo(res);
	return ok;
}
