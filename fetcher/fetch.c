/*
 * Fetch CRLs over HTTP(S) in parallel with libcurl's multi interface.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Servers are untrusted: bodies are capped at max_size while they
 * arrive (Content-Length is not believed), every transfer has a connect
 * and a total timeout, redirects are bounded and stay on http/https.
 * Proxies come from the environment (http_proxy, https_proxy, no_proxy)
 * as libcurl reads them.
 *
 * A URL that was not configured by the administrator (learned from a
 * certificate or from the issuer directory: fetch.guarded) may reach only
 * global unicast addresses (lib/addr.c) unless allow_private_urls = yes.
 * A configured URL may name a loopback or private host, but a redirect
 * from it may lead only to public addresses or back to the addresses the
 * configured URL itself connected to (crlc_addr_may_connect).  Without a
 * proxy every connection is checked as it opens, redirects and DNS
 * rebinding included; through a proxy, which resolves names and follows
 * nothing itself but connects for us, a learned URL's host is checked
 * before the transfer starts.
 */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include <crlcache/addr.h>
#include <crlcache/clock.h>

#include "fetcher.h"

/* Response header lines we keep (ETag, Last-Modified) are short. */
#define MAX_HEADER_VALUE	512

struct xfer {
	struct fetch	*f;
	const struct conf *conf;
	CURL		*easy;
	struct curl_slist *headers;
	size_t		 cap;
	int		 too_large;
	int		 refused_addr;	/* the guard refused an address */
	struct crlc_origin origin;	/* the configured URL's own addresses */
	long		 attempts;	/* transfers started */
	long long	 retry_at;	/* monotonic ms; 0: not waiting */
};

/* Backoff before retry k (1, 2, ...): 1 s doubling, at most this. */
#define RETRY_BACKOFF_MS	1000
#define RETRY_BACKOFF_MAX_MS	30000

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
	if (f->len + n > x->cap) {
		cap = x->cap == 0 ? 65536 : x->cap;
		while (cap < f->len + n)
			cap *= 2;
		if (cap > x->conf->max_size)
			cap = x->conf->max_size;
		if ((p = realloc(f->body, cap)) == NULL)
			return 0;
		f->body = p;
		x->cap = cap;
	}
	memcpy(f->body + f->len, data, n);
	f->len += n;
	return n;
}

/* Keep the value of "Name: value" if the header is name. */
static void
header_value(const char *line, size_t len, const char *name, char **out)
{
	size_t nl = strlen(name);

	if (len <= nl + 1 || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
		return;
	line += nl + 1;
	len -= nl + 1;
	while (len > 0 && (*line == ' ' || *line == '\t'))
		line++, len--;
	while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == '\n' ||
	    line[len - 1] == ' '))
		len--;
	if (len == 0 || len > MAX_HEADER_VALUE || memchr(line, '\0', len))
		return;
	free(*out);
	*out = xcalloc(1, len + 1);
	memcpy(*out, line, len);
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
	}
	header_value(data, n, "ETag", &x->f->new_etag);
	header_value(data, n, "Last-Modified", &x->f->new_last_modified);
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

/*
 * Every connection: a guarded transfer reaches global unicast addresses
 * only, a redirect only those or the configured URL's own addresses.
 */
static curl_socket_t
guard_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct xfer *x = arg;
	long redirects = 0;

	(void)purpose;
	/* libcurl counts a redirect before it connects to its target. */
	curl_easy_getinfo(x->easy, CURLINFO_REDIRECT_COUNT, &redirects);
	if (!crlc_addr_may_connect(&a->addr, x->f->guarded, redirects > 0,
	    &x->origin)) {
		x->refused_addr = 1;
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

static int
proxy_configured(void)
{
	static const char *const vars[] = { "http_proxy", "https_proxy",
	    "HTTPS_PROXY", "all_proxy", "ALL_PROXY" };
	size_t i;
	const char *v;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if ((v = getenv(vars[i])) != NULL && *v != '\0')
			return 1;
	return 0;
}

/* Through a proxy: do all of the host's addresses pass the guard? */
static int
host_is_public(const char *url)
{
	struct addrinfo hints, *res = NULL, *ai;
	char *host = NULL, bare[256];
	CURLU *u;
	size_t len;
	int ok = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if ((u = curl_url()) == NULL)
		return 0;
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
	    (len = strlen(host)) == 0 || len >= sizeof(bare))
		goto done;
	/* An IPv6 literal comes in brackets; getaddrinfo wants it bare. */
	if (host[0] == '[' && host[len - 1] == ']')
		snprintf(bare, sizeof(bare), "%.*s", (int)(len - 2), host + 1);
	else
		snprintf(bare, sizeof(bare), "%s", host);
	if (getaddrinfo(bare, NULL, &hints, &res) != 0)
		goto done;
	ok = 1;
	for (ai = res; ai != NULL; ai = ai->ai_next)
		if (!crlc_addr_is_public(ai->ai_addr))
			ok = 0;
	freeaddrinfo(res);
done:
	curl_free(host);
	curl_url_cleanup(u);
	return ok;
}

static int
setup(struct xfer *x)
{
	CURL *e;

	if ((x->easy = e = curl_easy_init()) == NULL)
		return -1;
	if (!x->conf->allow_private) {
		if (!proxy_configured()) {
			curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, guard_socket);
			curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, x);
		} else if (x->f->guarded && !host_is_public(x->f->url))
			x->refused_addr = 1;
	}
	if (add_header(x, "If-None-Match", x->f->etag) == -1 ||
	    add_header(x, "If-Modified-Since", x->f->last_modified) == -1)
		return -1;
	curl_easy_setopt(e, CURLOPT_URL, x->f->via != NULL ? x->f->via :
	    x->f->url);
	/*
	 * The path as the CRL distribution point wrote it: curl 8 also
	 * removes dot segments written as %2e (RFC 3986 5.2.4), which would
	 * fetch another resource than the one the mirror names (mirror.c).
	 */
	curl_easy_setopt(e, CURLOPT_PATH_AS_IS, 1L);
	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(e, CURLOPT_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS);
	curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS);
#endif
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(e, CURLOPT_MAXREDIRS, x->conf->max_redirects);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, x->conf->connect_timeout);
	curl_easy_setopt(e, CURLOPT_TIMEOUT, x->conf->timeout);
	curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE,
	    (curl_off_t)x->conf->max_size);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "crlcache/0.1");
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
	if (x->headers != NULL)
		curl_easy_setopt(e, CURLOPT_HTTPHEADER, x->headers);
	return 0;
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
	if (!f->ok) {
		free(f->body);
		f->body = NULL;
		f->len = 0;
		mirror_blame(f);
	}
}

static void
progress(size_t done, size_t n)
{
	if (verbosity > 0 && isatty(STDERR_FILENO))
		fprintf(stderr, "\rcrlcache: fetched %zu/%zu%s", done, n,
		    done == n ? "\n" : "");
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

	if (x->too_large || x->refused_addr)
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
	x->f->len = 0;
	x->cap = 0;
	x->too_large = 0;
}

static int
start(CURLM *multi, struct xfer *x)
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
	if (x->refused_addr) {		/* the proxy check, before any traffic */
		finish(x, CURLE_COULDNT_CONNECT);
		return -1;
	}
	if (curl_multi_add_handle(multi, x->easy) != CURLM_OK) {
		snprintf(x->f->err, sizeof(x->f->err),
		    "cannot set up the transfer");
		return -1;
	}
	return 0;
}

/* Settle a finished transfer: done, or parked for a retry (returns 0). */
static int
completed(CURLM *multi, struct xfer *x, CURLcode res)
{
	long long backoff;

	curl_multi_remove_handle(multi, x->easy);
	if (transient(x, res) && x->attempts <= x->conf->retries) {
		backoff = (long long)RETRY_BACKOFF_MS << (x->attempts - 1);
		if (backoff > RETRY_BACKOFF_MAX_MS)
			backoff = RETRY_BACKOFF_MAX_MS;
		logx(2, "%s: %s; retrying in %lld ms", x->f->url,
		    res != CURLE_OK ? curl_easy_strerror(res) : "server error",
		    backoff);
		reset_attempt(x);
		x->retry_at = crlc_mono_ms() + backoff;
		return 0;
	}
	finish(x, res);
	return 1;
}

int
fetch_all(struct fetch *f, size_t n, const struct conf *conf)
{
	return fetch_each(f, n, conf, NULL, NULL);
}

/* A transfer is over: count it and hand it to the caller's callback. */
static void
over(struct fetch *f, size_t *done, size_t n,
    void (*cb)(struct fetch *, void *), void *arg)
{
	(*done)++;
	progress(*done, n);
	if (cb != NULL)
		cb(f, arg);
}

int
fetch_each(struct fetch *f, size_t n, const struct conf *conf,
    void (*cb)(struct fetch *, void *), void *arg)
{
	struct xfer *xs;
	CURLM *multi;
	CURLMsg *msg;
	size_t next = 0, done = 0, i;
	long long now, wake;
	int running, left, active = 0, wait_ms;

	if (n == 0)
		return 0;
	if ((multi = curl_multi_init()) == NULL)
		return -1;
	xs = xcalloc(n, sizeof(*xs));
	for (i = 0; i < n; i++) {
		xs[i].f = &f[i];
		xs[i].conf = conf;
	}
	while (done < n) {
		/* Retries that are due first, then new transfers. */
		now = crlc_mono_ms();
		wake = now + 1000;
		for (i = 0; i < next && active < conf->parallel; i++) {
			if (xs[i].retry_at == 0)
				continue;
			if (xs[i].retry_at > now) {
				if (xs[i].retry_at < wake)
					wake = xs[i].retry_at;
				continue;
			}
			if (start(multi, &xs[i]) == -1)
				over(&f[i], &done, n, cb, arg);
			else
				active++;
		}
		while (next < n && active < conf->parallel) {
			if (start(multi, &xs[next]) == -1)
				over(&f[next], &done, n, cb, arg);
			else
				active++;
			next++;
		}
		if (curl_multi_perform(multi, &running) != CURLM_OK)
			break;
		while ((msg = curl_multi_info_read(multi, &left)) != NULL) {
			struct xfer *x;

			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &x);
			active--;
			if (completed(multi, x, msg->data.result))
				over(x->f, &done, n, cb, arg);
		}
		/*
		 * A slot freed and a transfer waits for it: start it now.
		 * Waiting first would sleep up to the whole wait_ms when
		 * every transfer in flight has just ended (nothing left to
		 * wake the poll): 2,000 sources over loopback took 4 to 13 s
		 * instead of 1.
		 */
		if (next < n && active < conf->parallel)
			continue;
		/* Wait for traffic, or until the next retry is due. */
		wait_ms = (int)(wake - crlc_mono_ms());
		if (done < n && (running > 0 || active == 0) &&
		    curl_multi_poll(multi, NULL, 0, wait_ms > 0 ? wait_ms : 0,
		    NULL) != CURLM_OK)
			break;
	}
	for (i = 0; i < n; i++) {
		if (xs[i].easy != NULL) {
			curl_multi_remove_handle(multi, xs[i].easy);
			curl_easy_cleanup(xs[i].easy);
		}
		curl_slist_free_all(xs[i].headers);
	}
	free(xs);
	curl_multi_cleanup(multi);
	return done == n ? 0 : -1;
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
