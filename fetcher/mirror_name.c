/*
 * Names on a mirror, for `crlcache mirror` and `mirror =`.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * A CRL fetched from URL scheme://host[:port]/p1/p2 has the name
 * scheme/host[:port]/p1/p2 on a mirror: host in lower case, a default
 * port left out, the path percent-decoded as a web server decodes a
 * request.  `crlcache mirror DIR` writes it as that file under DIR; a
 * host with `mirror = BASE` asks BASE/scheme/host[:port]/p1/p2 for it
 * (each component percent-encoded again).  The mirror is not trusted:
 * what comes from it is verified like anything from the origin, against
 * the origin URL (IDP, records).
 *
 * The URLs are hostile input (CDPs of certificates, CCADB rows): a name
 * is built only from components that cannot leave a directory (no "",
 * ".", "..", '/' or NUL after decoding, bounded length and depth).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "fetch.h"
#include "fetcher.h"
#include "mirror_name.h"

/* A host name (RFC 1035 2.3.4), or an IPv6 literal in brackets. */
#define MIRROR_HOST_MAX		(253 + 2)

/* Append a component; why says what was refused. */
static int
add_comp(struct mirror_name *m, const char *s, size_t len, const char **why)
{
	if (len == 0 || (len == 1 && s[0] == '.') ||
	    (len == 2 && s[0] == '.' && s[1] == '.')) {
		*why = "an empty, \".\" or \"..\" path segment";
		return -1;
	}
	if (len > MIRROR_COMPONENT_MAX) {
		*why = "a path segment longer than 255 bytes";
		return -1;
	}
	if (m->n == MIRROR_MAX_DEPTH) {
		*why = "more than 32 path segments";
		return -1;
	}
	memcpy(m->comp[m->n], s, len);
	m->comp[m->n++][len] = '\0';
	return 0;
}

/* The path's segments, percent-decoded (RFC 3986 2.1); a decoded '/'
   would split a segment differently on the web server: refused. */
static int
split_path(struct mirror_name *m, const char *path, const char **why)
{
	char seg[MIRROR_COMPONENT_MAX + 1];
	size_t len = 0;
	int hi, lo;

	if (*path++ != '/') {
		*why = "no absolute path";
		return -1;
	}
	for (;; path++) {
		if (*path == '/' || *path == '\0') {
			if (add_comp(m, seg, len, why) == -1)
				return -1;
			if (*path == '\0')
				return 0;
			len = 0;
			continue;
		}
		if (len == MIRROR_COMPONENT_MAX) {
			*why = "a path segment longer than 255 bytes";
			return -1;
		}
		if (*path != '%') {
			seg[len++] = *path;
			continue;
		}
		if ((hi = crlc_hex_digit((unsigned char)path[1])) == -1 ||
		    (lo = crlc_hex_digit((unsigned char)path[2])) == -1) {
			*why = "a malformed percent-encoding";
			return -1;
		}
		seg[len] = (char)(hi << 4 | lo);
		if (seg[len] == '\0' || seg[len] == '/') {
			*why = "an encoded NUL or '/'";
			return -1;
		}
		len++;
		path += 2;
	}
}

/* host[:port]: a DNS name or an IP literal, lower case, no default port. */
static int
host_comp(struct mirror_name *m, const char *scheme, const char *host,
    const char *port, const char **why)
{
	char buf[MIRROR_HOST_MAX + sizeof(":65535")];
	size_t i, len = strlen(host);
	int v6 = len > 2 && host[0] == '[' && host[len - 1] == ']';

	for (i = 0; i < len; i++)
		if (!(isalnum((unsigned char)host[i]) || host[i] == '.' ||
		    host[i] == '-' || (v6 && (host[i] == ':' ||
		    ((i == 0 || i == len - 1) && (host[i] == '[' ||
		    host[i] == ']')))))) {
			*why = "a host that is not a DNS name or an IP address";
			return -1;
		}
	if (len == 0 || len > MIRROR_HOST_MAX) {
		*why = "an empty or overlong host";
		return -1;
	}
	if (port != NULL && strcmp(port, strcmp(scheme, "https") == 0 ?
	    "443" : "80") == 0)
		port = NULL;
	snprintf(buf, sizeof(buf), "%s%s%s", host, port != NULL ? ":" : "",
	    port != NULL ? port : "");
	for (i = 0; buf[i] != '\0'; i++)
		buf[i] = (char)tolower((unsigned char)buf[i]);
	return add_comp(m, buf, strlen(buf), why);
}

int
mirror_name_parse(const char *url, struct mirror_name *m, const char **why)
{
	char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL, *q = NULL;
	CURLU *u;
	int ret = -1;

	m->n = 0;
	*why = "not an http(s) URL";
	if ((u = curl_url()) == NULL)
		return -1;
	if (!is_http_url(url, strlen(url)) ||
	    /* Dot segments, %2e ones too (curl 8), are for split_path to
	     * refuse, not for curl to resolve away. */
	    curl_url_set(u, CURLUPART_URL, url, CURLU_PATH_AS_IS) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PATH, &path, 0) != CURLUE_OK)
		goto done;
	if (curl_url_get(u, CURLUPART_QUERY, &q, 0) == CURLUE_OK ||
	    curl_url_get(u, CURLUPART_FRAGMENT, &q, 0) == CURLUE_OK) {
		*why = "a query or fragment";
		goto done;
	}
	(void)curl_url_get(u, CURLUPART_PORT, &port, 0);
	if (add_comp(m, scheme, strlen(scheme), why) == -1 ||
	    host_comp(m, scheme, host, port, why) == -1 ||
	    split_path(m, path, why) == -1)
		goto done;
	ret = 0;
done:
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_free(q);
	curl_url_cleanup(u);
	return ret;
}

/* Append s percent-encoded where it is not an RFC 3986 unreserved char. */
static void
encode_comp(char *out, size_t *o, const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' ||
		    c == ':')
			out[(*o)++] = (char)c;
		else {
			out[(*o)++] = '%';
			crlc_hex_encode(&c, 1, out + *o, 1);
			*o += 2;
		}
	}
}

void
mirror_route(const struct conf *conf, struct fetch *f)
{
	struct mirror_name *m;
	const char *why;
	size_t i, o, blen;

	if (conf->mirror == NULL)
		return;
	m = xcalloc(1, sizeof(*m));
	if (mirror_name_parse(f->url, m, &why) == -1) {
		f->refused = 1;
		snprintf(f->err, sizeof(f->err), "not fetched: no name on the "
		    "mirror: %s", why);
		goto done;
	}
	blen = strlen(conf->mirror);
	/* Every byte of a component may triple, plus a '/' each. */
	for (i = 0, o = blen + 2; i < m->n; i++)
		o += 3 * strlen(m->comp[i]) + 1;
	f->via = xcalloc(1, o);
	memcpy(f->via, conf->mirror, blen);
	o = blen;
	if (o == 0 || f->via[o - 1] != '/')
		f->via[o++] = '/';
	for (i = 0; i < m->n; i++) {
		if (i > 0)
			f->via[o++] = '/';
		encode_comp(f->via, &o, m->comp[i]);
	}
	/* The administrator chose the mirror: no public-address guard. */
	f->guarded = 0;
done:
	free(m);
}
