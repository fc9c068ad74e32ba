/*
 * One HTTP(S) transfer (struct xfer, xfer.h) of the many fetchall.c runs
 * at once over libcurl's multi interface: set up, its body received,
 * every hop guarded, settled (done, retried, redirected or deferred).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Servers are untrusted: bodies are capped at max_size while they
 * arrive (Content-Length is not believed), every transfer has a connect
 * and a total timeout, redirects are bounded and stay on http/https.
 *
 * A URL that was not configured by the administrator (learned from a
 * certificate, a hint or the issuer directory: fetch.guarded) may reach
 * only global unicast addresses (lib/addr.c) unless allow_private_urls =
 * yes.  A configured URL may name a loopback or private host, but a
 * redirect from it may lead only to public addresses or back to the
 * addresses the configured URL itself connected to
 * (crlc_addr_may_connect).  The rule holds on every hop: redirects are
 * followed here, not by libcurl, each one aimed anew (guard.c picks its
 * proxy from the environment as libcurl would, and libcurl is told that
 * choice).  A direct hop is checked on every connection as it opens
 * (DNS rebinding included) and again before every request, since a
 * connection kept alive for one transfer may serve another; a hop
 * through a proxy is checked by resolving its host before it starts.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include <crlcache/addr.h>
#include <crlcache/clock.h>
#include <crlcache/version.h>

#include "fetch.h"
#include "fetcher.h"
#include "guard.h"
#include "header.h"
#include "xfer.h"

/* Reused connections are checked before each request (PREREQFUNCTION). */
#if LIBCURL_VERSION_NUM < 0x075000
#error "libcurl 7.80 or later is needed (CURLOPT_PREREQFUNCTION)"
#endif

/*
 * A gzip-coded body (fetch.decode) may decode to at most this many times
 * the bytes received, plus FETCH_DECODE_FREE: the CCADB's CSV reports
 * compress 2.6 to 1 (35 MB to 13.6), and deflate reaches 1,032 to 1, so
 * a compression bomb is refused after its first reads, holding a few MB,
 * whatever it would have grown to.  The decoded bytes count against
 * max_size as they arrive.
 */
#define FETCH_DECODE_RATIO	64
#define FETCH_DECODE_FREE	((size_t)1 << 20)

/* Backoff before retry k (1, 2, ...): 1 s doubling, at most this. */
#define RETRY_BACKOFF_MS	1000
#define RETRY_BACKOFF_MAX_MS	30000

/*
 * Room for want bytes of body: what Content-Length announces when that
 * is enough (the body is held at its size), else doubling; at most
 * max_size.  The announced length is a hint, never a limit.
 */
static size_t
capacity(const struct xfer *x, size_t want)
{
	curl_off_t announced = -1;
	size_t cap;

	if (curl_easy_getinfo(x->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T,
	    &announced) == CURLE_OK && announced >= (curl_off_t)want &&
	    (unsigned long long)announced <= x->conf->max_size)
		return (size_t)announced;
	cap = x->cap == 0 ? FETCH_BODY_FREE : x->cap;
	while (cap < want)
		cap *= 2;
	return cap > x->conf->max_size ? x->conf->max_size : cap;
}

int
xfer_hold(struct xfer *x, size_t cap, int in_turn)
{
	struct body_budget *b = x->budget;

	if (cap <= FETCH_BODY_FREE || cap <= x->held)
		return 1;
	if ((b->waiting > 0 && !in_turn) || cap - x->held > b->limit - b->held)
		return 0;
	b->held += cap - x->held;
	x->held = cap;
	return 1;
}

/* The transfer holds no body any more (freed, or handed on). */
static void
body_budget_give(struct xfer *x)
{
	if (x->budget != NULL)
		x->budget->held -= x->held;
	x->held = 0;
}

/* Does a decoded length of len exceed FETCH_DECODE_RATIO to the bytes in? */
static int
decoded_too_much(const struct xfer *x, size_t len)
{
	curl_off_t in = 0;

	/* The bytes received as they came, before the content decoding. */
	if (curl_easy_getinfo(x->easy, CURLINFO_SIZE_DOWNLOAD_T, &in) !=
	    CURLE_OK || in < 0)
		return 1;
	if (len <= FETCH_DECODE_FREE)
		return 0;
	return (unsigned long long)in < (len - FETCH_DECODE_FREE) /
	    FETCH_DECODE_RATIO;
}

static size_t
on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	struct fetch *f = x->f;
	size_t n = size * nmemb, cap;
	uint8_t *p;

	if (n > x->conf->max_size || f->len > x->conf->max_size - n) {
		x->too_large = 1;
		return 0;	/* aborts the transfer */
	}
	if (f->decode && decoded_too_much(x, f->len + n)) {
		x->bomb = 1;
		return 0;
	}
	if (f->len + n > x->cap) {
		cap = capacity(x, f->len + n);
		if (!xfer_hold(x, cap, 0)) {
			logx(2, "%s: waits for %zu bytes of memory (bodies in "
			    "flight hold %zu of %zu, %zu waiting)", f->url,
			    cap, x->budget->held, x->budget->limit,
			    x->budget->waiting);
			x->need = cap;
			x->ticket = x->budget->tickets++;
			x->budget->waiting++;
			return 0;	/* deferred (FETCH_HELD_MAX_SIZES) */
		}
		if ((p = realloc(f->body, cap)) == NULL)
			return 0;
		f->body = p;
		x->cap = cap;
	}
	memcpy(f->body + f->len, data, n);
	f->len += n;
	return n;
}

static size_t
on_header(char *data, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	size_t n = size * nmemb;

	/* A redirect's headers must not stick: reset on each status line. */
	if (n > 5 && strncmp(data, "HTTP/", 5) == 0) {
		free(x->f->new_etag);
		free(x->f->new_last_modified);
		x->f->new_etag = x->f->new_last_modified = NULL;
		freshness_forget(&x->fresh);
	}
	header_value(data, n, "ETag", 0, &x->f->new_etag);
	header_value(data, n, "Last-Modified", 0, &x->f->new_last_modified);
	freshness_header(&x->fresh, data, n);
	return n;
}

static int
add_header(struct xfer *x, const char *name, const char *value)
{
	char line[MAX_HEADER_VALUE + 64];
	struct curl_slist *l;

	if (value == NULL || strlen(value) > MAX_HEADER_VALUE ||
	    strpbrk(value, "\r\n") != NULL)
		return 0;
	snprintf(line, sizeof(line), "%s: %s", name, value);
	if ((l = curl_slist_append(x->headers, line)) == NULL)
		return -1;
	x->headers = l;
	return 0;
}

/* May this hop use a connection to sa (opening or reused)? */
static int
may_reach(struct xfer *x, const struct sockaddr *sa)
{
	if (x->proxied)		/* the proxy; aim() checked the host */
		return 1;
	if (crlc_addr_may_connect(sa, x->f->guarded, x->hops > 0,
	    x->conf->has_nat64 ? x->conf->nat64 : NULL, &x->origin))
		return 1;
	x->refused_addr = 1;
	return 0;
}

/* Every connection as it opens: refused ones see no packet. */
static curl_socket_t
guard_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct xfer *x = arg;

	(void)purpose;
	if (!may_reach(x, &a->addr))
		return CURL_SOCKET_BAD;
	return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

/*
 * Before every request, on a new or a reused connection: one kept alive
 * for a configured URL on a private host would otherwise serve a learned
 * URL or a redirect to that host without any socket being opened.
 */
static int
guard_request(void *arg, char *peer, char *local, int peer_port,
    int local_port)
{
	struct xfer *x = arg;
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	char ip[INET6_ADDRSTRLEN];

	(void)local, (void)peer_port, (void)local_port;
	memset(&ss, 0, sizeof(ss));
	/* An IPv6 zone ("fe80::1%eth0") names the link, not the host. */
	snprintf(ip, sizeof(ip), "%.*s", (int)strcspn(peer, "%"), peer);
	if (inet_pton(AF_INET, ip, &s4->sin_addr) == 1)
		ss.ss_family = AF_INET;
	else if (inet_pton(AF_INET6, ip, &s6->sin6_addr) == 1)
		ss.ss_family = AF_INET6;
	if (!may_reach(x, (struct sockaddr *)&ss))
		return CURL_PREREQFUNC_ABORT;
	return CURL_PREREQFUNC_OK;
}

/* The URL a transfer starts from: the source, or its mirror copy. */
static const char *
first_url(const struct xfer *x)
{
	return x->f->via != NULL ? x->f->via : x->f->url;
}

/*
 * Through a proxy: may this hop reach t?  A configured URL's first hop
 * may go anywhere, unresolved; its own addresses are looked up only when
 * a redirect asks, since the redirect may come back to them (the lookup
 * blocks the transfer loop: once per source at most).
 */
static int
proxy_may_reach(struct xfer *x, const struct guard_target *t)
{
	struct guard_target first;

	if (!x->f->guarded && x->hops == 0)
		return 1;
	if (!x->f->guarded && !x->origin_resolved) {
		x->origin_resolved = 1;
		if (guard_target(first_url(x), &first) == 0)
			(void)guard_host(&first, 0, 0, x->conf, &x->origin);
	}
	return guard_host(t, x->f->guarded, x->hops > 0, x->conf, &x->origin);
}

/*
 * Point the transfer at url, its first URL or a redirect: the proxy the
 * environment names for it, and through a proxy the check of its host.
 * 0, or -1 with x->stop.
 */
static int
aim(struct xfer *x, const char *url)
{
	struct guard_target t;
	const char *proxy;

	if (guard_target(url, &t) == -1) {
		x->stop = x->hops > 0 ? "redirect to a URL that is not http or "
		    "https" : "not an http or https URL with a host";
		return -1;
	}
	proxy = guard_proxy(&t);
	x->proxied = proxy != NULL;
	curl_easy_setopt(x->easy, CURLOPT_PROXY, proxy != NULL ? proxy : "");
	curl_easy_setopt(x->easy, CURLOPT_URL, url);
	if (x->proxied && !x->conf->allow_private && !proxy_may_reach(x, &t))
		x->refused_addr = 1;
	return 0;
}

/* Long: a transfer's options, one a line, each reason beside it. */
static int
setup(struct xfer *x)
{
	const char *ca;
	CURL *e;

	if ((x->easy = e = curl_easy_init()) == NULL)
		return -1;
	if (!x->conf->allow_private) {
		curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, guard_socket);
		curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, x);
		curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, guard_request);
		curl_easy_setopt(e, CURLOPT_PREREQDATA, x);
	}
	/* aim() sets the proxy per hop: the environment's list is read there. */
	curl_easy_setopt(e, CURLOPT_NOPROXY, "");
	if (add_header(x, "If-None-Match", x->f->etag) == -1 ||
	    add_header(x, "If-Modified-Since", x->f->last_modified) == -1)
		return -1;
	/*
	 * The path as the CRL distribution point wrote it: curl 8 also
	 * removes dot segments written as %2e (RFC 3986 5.2.4), which would
	 * fetch another resource than the one the mirror names (mirror.c).
	 */
	curl_easy_setopt(e, CURLOPT_PATH_AS_IS, 1L);
	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(e, CURLOPT_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS);
#endif
	/*
	 * The system trust store as OpenSSL's programs read it: SSL_CERT_FILE
	 * and SSL_CERT_DIR, when set, stand for libcurl's built-in bundle.
	 */
	if ((ca = getenv("SSL_CERT_FILE")) != NULL && *ca != '\0')
		curl_easy_setopt(e, CURLOPT_CAINFO, ca);
	if ((ca = getenv("SSL_CERT_DIR")) != NULL && *ca != '\0')
		curl_easy_setopt(e, CURLOPT_CAPATH, ca);
	/* follow() takes each redirect, so that every hop is aimed anew. */
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, x->conf->connect_timeout);
	curl_easy_setopt(e, CURLOPT_TIMEOUT, x->conf->timeout);
	curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE,
	    (curl_off_t)x->conf->max_size);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	/*
	 * HTTP/2 over TLS where the server offers it (ALPN), then wait for
	 * the host's connection to multiplex on rather than open another.
	 */
	curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "crlcache/" CRLCACHE_VERSION);
	/*
	 * gzip only: one decoder (zlib), which every server that codes its
	 * answers offers.  CRLs are not asked for it: DER of random serials
	 * and signatures shrinks little, and caches would keep two copies.
	 */
	if (x->f->decode)
		curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "gzip");
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
	if (x->headers != NULL)
		curl_easy_setopt(e, CURLOPT_HTTPHEADER, x->headers);
	return 0;
}

/* A failed transfer from the mirror: its error names the mirror's URL. */
static void
mirror_blame(const char *via, char err[ERRLEN])
{
	char buf[ERRLEN];

	if (via == NULL)
		return;
	/* Both cut to fit: a transfer error is short, the URL rarely long. */
	snprintf(buf, sizeof(buf), "from the mirror, %.256s: %.200s", via,
	    err);
	memcpy(err, buf, sizeof(buf));
}

static void
finish(struct xfer *x, CURLcode res)
{
	struct fetch *f = x->f;

	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &f->status);
	if (x->refused_addr && f->guarded) {
		snprintf(f->err, sizeof(f->err), "refused: a learned URL may "
		    "reach only public addresses (allow_private_urls = no)");
	} else if (x->refused_addr) {
		snprintf(f->err, sizeof(f->err), "refused: a redirect may reach "
		    "only public addresses or the configured URL's own host "
		    "(allow_private_urls = no)");
	} else if (x->stop != NULL) {
		snprintf(f->err, sizeof(f->err), "%s", x->stop);
	} else if (x->bomb) {
		snprintf(f->err, sizeof(f->err), "refused: the gzip-coded body "
		    "decodes to more than %d times its size",
		    FETCH_DECODE_RATIO);
	} else if (x->too_large || res == CURLE_FILESIZE_EXCEEDED) {
		snprintf(f->err, sizeof(f->err), "body larger than max_size "
		    "(%zu bytes)", x->conf->max_size);
	} else if (res != CURLE_OK) {
		snprintf(f->err, sizeof(f->err), "%s", curl_easy_strerror(res));
	} else if (f->status == 304 && (f->etag != NULL ||
	    f->last_modified != NULL)) {
		f->ok = f->not_modified = 1;
	} else if (f->status != 200) {
		snprintf(f->err, sizeof(f->err), "HTTP status %ld", f->status);
	} else
		f->ok = 1;
	if (f->ok)
		f->fresh_for = freshness_of(&x->fresh, (int64_t)time(NULL));
	freshness_forget(&x->fresh);
	if (!f->ok) {
		free(f->body);
		f->body = NULL;
		f->len = 0;
		mirror_blame(f->via, f->err);
	}
}

/*
 * Worth another try in this run: the server or the path may recover
 * (connection refused or reset, timeout, 5xx, 429).  Not: 4xx, a body
 * over max_size, TLS or protocol errors.
 */
static int
transient(const struct xfer *x, CURLcode res)
{
	long status = 0;

	if (x->too_large || x->bomb || x->refused_addr)
		return 0;
	switch (res) {
	case CURLE_COULDNT_CONNECT: case CURLE_OPERATION_TIMEDOUT:
	case CURLE_RECV_ERROR: case CURLE_SEND_ERROR: case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE: case CURLE_COULDNT_RESOLVE_HOST:
		return 1;
	case CURLE_OK:
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
		return status >= 500 || status == 429;
	default:
		return 0;
	}
}

/* Forget what a failed attempt received, so the retry starts clean. */
static void
reset_attempt(struct xfer *x)
{
	free(x->f->body);
	free(x->f->new_etag);
	free(x->f->new_last_modified);
	x->f->body = NULL;
	x->f->new_etag = x->f->new_last_modified = NULL;
	freshness_forget(&x->fresh);
	x->f->len = 0;
	x->cap = 0;
	x->too_large = 0;
	x->bomb = 0;
	body_budget_give(x);
}

/* Hand the transfer to libcurl, aimed where it is: 0, or -1 when over. */
static int
launch(CURLM *multi, struct xfer *x)
{
	if (aim(x, x->hop != NULL ? x->hop : first_url(x)) == -1 ||
	    x->refused_addr) {
		finish(x, CURLE_OK);	/* refused before any traffic */
		return -1;
	}
	if (curl_multi_add_handle(multi, x->easy) != CURLM_OK) {
		snprintf(x->f->err, sizeof(x->f->err),
		    "cannot set up the transfer");
		return -1;
	}
	return 0;
}

int
xfer_start(CURLM *multi, struct xfer *x)
{
	x->attempts++;
	x->retry_at = 0;
	if (x->f->refused)
		return -1;
	if (x->easy == NULL && setup(x) == -1) {
		snprintf(x->f->err, sizeof(x->f->err),
		    "cannot set up the transfer");
		return -1;
	}
	return launch(multi, x);
}

/*
 * A redirect (RFC 9110 15.4) to follow: 1, and x->hop is the resolved
 * Location; 0 when the answer is not one; -1 when it may not be
 * followed (x->stop says why).
 */
static int
redirect(struct xfer *x)
{
	char *location = NULL;
	long status = 0;

	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	if (status != 301 && status != 302 && status != 303 &&
	    status != 307 && status != 308)
		return 0;
	/* libcurl resolves a relative Location against the request's URL. */
	if (curl_easy_getinfo(x->easy, CURLINFO_REDIRECT_URL, &location) !=
	    CURLE_OK || location == NULL)
		return 0;
	if (x->hops >= x->conf->max_redirects) {
		x->stop = "more redirects than max_redirects";
		return -1;
	}
	location = xstrdup(location);	/* libcurl's copy goes with the URL */
	free(x->hop);
	x->hop = location;
	x->hops++;
	return 1;
}

/* Back to the first URL: a retry starts over. */
static void
restart(struct xfer *x)
{
	reset_attempt(x);
	free(x->hop);
	x->hop = NULL;
	x->hops = 0;
}

enum xfer_next
xfer_completed(CURLM *multi, struct xfer *x, CURLcode res)
{
	long long backoff;
	int r;

	curl_multi_remove_handle(multi, x->easy);
	if (x->need > 0) {	/* on_body: over the budget, not an attempt */
		reset_attempt(x);
		x->attempts--;
		return XFER_DEFER;
	}
	if (res == CURLE_OK && !x->refused_addr &&
	    (r = redirect(x)) != 0) {
		if (r == -1) {
			finish(x, res);
			return XFER_DONE;
		}
		reset_attempt(x);
		return launch(multi, x) == 0 ? XFER_FOLLOW : XFER_DONE;
	}
	if (transient(x, res) && x->attempts <= x->conf->retries) {
		backoff = (long long)RETRY_BACKOFF_MS << (x->attempts - 1);
		if (backoff > RETRY_BACKOFF_MAX_MS)
			backoff = RETRY_BACKOFF_MAX_MS;
		logx(2, "%s: %s; retrying in %lld ms", x->f->url,
		    res != CURLE_OK ? curl_easy_strerror(res) : "server error",
		    backoff);
		restart(x);
		x->retry_at = crlc_mono_ms() + backoff;
		return XFER_RETRY;
	}
	finish(x, res);
	return XFER_DONE;
}

void
xfer_free(CURLM *multi, struct xfer *x)
{
	body_budget_give(x);
	if (x->easy != NULL) {
		curl_multi_remove_handle(multi, x->easy);
		curl_easy_cleanup(x->easy);
	}
	curl_slist_free_all(x->headers);
	free(x->hop);
	freshness_forget(&x->fresh);
	memset(x, 0, sizeof(*x));
}

void
fetch_free(struct fetch *f)
{
	free(f->body);
	free(f->new_etag);
	free(f->new_last_modified);
	free(f->via);
	f->body = NULL;
	f->via = f->new_etag = f->new_last_modified = NULL;
}
