/*
 * One transfer of fetchall.c's, as fetch.c runs it: what the two share.
 * Included by those two files only; the rest of the fetcher sees
 * fetch.h and fetchall.h.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_XFER_H
#define CRLCACHE_FETCHER_XFER_H

#include <stddef.h>

#include <curl/curl.h>

#include <crlcache/addr.h>

#include "fetcher.h"
#include "header.h"

struct fetch;

/*
 * The body bytes the transfers in flight hold, all together, in bodies
 * of max_size: 64 slots would otherwise hold 64 of them (4 GiB at the
 * default 64 MiB).  Four: 256 MiB at the default, where the largest
 * real CRLs are tens of MiB and rare, so that a few of them still come
 * in side by side while the thousands of small ones, holding only their
 * size, keep all the slots busy.  At least one, so that a CRL of
 * max_size can always be received: alone, it fits.
 *
 * A transfer whose body would go past the budget is deferred, not
 * failed: its attempt is dropped (the bytes it held given back) and it
 * starts again, from the top, once the budget has room for what it
 * asked (Content-Length, when the server sent one, so once is enough).
 * The deferred go first come, first served, and while one waits no
 * other transfer takes from the budget (one that would is deferred
 * too), so the budget drains to it: none waits for ever, even where
 * servers keep their bodies coming slowly.  The first FETCH_BODY_FREE
 * bytes of a body are not counted, so that the small CRLs, nearly all
 * of them, never wait: 64 slots hold 4 MiB of those at most.
 * Pausing it instead (CURL_WRITEFUNC_PAUSE) is not safe with libcurl
 * 7.88: over HTTP/2 the data of a paused stream that already arrived
 * stops nghttp2 for the whole connection (http2.c, pause_stream_id),
 * so the other streams on it, the one that would free the budget
 * among them, stall until their timeouts; and over HTTP/1.1 a paused
 * transfer keeps its connection and its CURLOPT_TIMEOUT running.  What
 * deferring costs is the bytes received before the check: with a
 * Content-Length, the first read.
 */
#define FETCH_HELD_MAX_SIZES	4
#define FETCH_BODY_FREE		65536

/* The body bytes all transfers in flight may hold, and who waits. */
struct body_budget {
	size_t		 limit;
	size_t		 held;
	size_t		 waiting;	/* transfers deferred */
	unsigned long long tickets;	/* deferrals so far: their order */
};

/* A slot's transfer: its fetch, its handle, where its attempt stands. */
struct xfer {
	struct fetch	*f;
	const struct conf *conf;
	struct body_budget *budget;
	CURL		*easy;
	struct curl_slist *headers;
	size_t		 cap;
	size_t		 held;		/* of the budget: cap, or more reserved */
	size_t		 need;		/* deferred until the budget has this */
	unsigned long long ticket;	/* its place in the queue */
	int		 too_large;
	int		 bomb;		/* decoded past FETCH_DECODE_RATIO */
	int		 refused_addr;	/* the guard refused an address */
	const char	*stop;		/* why a redirect was not followed */
	struct crlc_origin origin;	/* the configured URL's own addresses */
	int		 origin_resolved; /* through a proxy: looked up */
	char		*hop;		/* the redirect being followed, or NULL */
	long		 hops;		/* redirects followed in this attempt */
	int		 proxied;	/* this hop goes through a proxy */
	long		 attempts;	/* transfers started */
	long long	 retry_at;	/* monotonic ms; 0: not waiting */
	struct freshness fresh;		/* what the answer said of it */
};

/* How a transfer that libcurl finished goes on. */
enum xfer_next { XFER_DONE, XFER_RETRY, XFER_FOLLOW, XFER_DEFER };

/*
 * x (its f, conf and budget set) started, or started again: handed to
 * libcurl, 0; or -1 when it is over without a transfer (f->err).
 */
int	 xfer_start(CURLM *multi, struct xfer *x);
/* Settle a transfer libcurl finished: over, parked for a retry, or on. */
enum xfer_next xfer_completed(CURLM *multi, struct xfer *x, CURLcode res);
/*
 * Hold cap bytes of body: 1, or 0 when the others hold too much of the
 * budget, or when others wait for it and x is not the first in line.
 */
int	 xfer_hold(struct xfer *x, size_t cap, int in_turn);
/* What x holds let go (its handle, its bytes of the budget); x zeroed. */
void	 xfer_free(CURLM *multi, struct xfer *x);

#endif /* CRLCACHE_FETCHER_XFER_H */
