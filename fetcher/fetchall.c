/*
 * Many HTTP(S) transfers at once over libcurl's multi interface
 * (fetchall.h): FETCH_SLOTS of them in flight, the hosts taking turns
 * (hostq.c), the bodies' memory shared (struct body_budget, xfer.h), the
 * deferred resumed in turn and the retries started when due.  Each
 * transfer, from its setup to its end, is fetch.c's.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <curl/curl.h>

#include <crlcache/clock.h>

#include "fetch.h"
#include "fetchall.h"
#include "fetcher.h"
#include "hostq.h"
#include "xfer.h"

/*
 * Transfers at once, all hosts together (`parallel` is the budget of one
 * host): each holds a slot, and while it receives a body of up to
 * max_size.  Eight hosts busy at the default parallel = 8: at 50 ms a
 * request, 16,000 conditional GETs take 13 s.
 */
#define FETCH_SLOTS		64
/* Connections open at once, all hosts together, idle ones included. */
#define FETCH_MAX_CONNECTIONS	FETCH_SLOTS
/*
 * Transfers at once to one https host, per connection `parallel` allows:
 * over HTTP/2 they are streams of the same connections (servers allow
 * 100 at least, RFC 9113 6.5.2); over HTTP/1.1 they wait for one.
 */
#define FETCH_STREAMS_PER_CONNECTION	4

static void
progress(size_t done, size_t n)
{
	if (verbosity > 0 && isatty(STDERR_FILENO))
		fprintf(stderr, "\rcrlcache: fetched %zu/%zu%s", done, n,
		    done == n ? "\n" : "");
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

/* A slot's transfer is over: its host has room, the slot is free. */
static void
release(CURLM *multi, struct hostq *q, struct xfer *x, size_t transfer)
{
	hostq_done(q, transfer);
	xfer_free(multi, x);
}

/* The deferred transfer first in line, or NULL. */
static struct xfer *
first_in_line(struct xfer *slots)
{
	struct xfer *first = NULL;
	size_t k;

	for (k = 0; k < FETCH_SLOTS; k++)
		if (slots[k].f != NULL && slots[k].need > 0 &&
		    (first == NULL || slots[k].ticket < first->ticket))
			first = &slots[k];
	return first;
}

/* The multi handle: connections kept alive and shared, host by host. */
static CURLM *
multi_new(const struct conf *conf)
{
	CURLM *multi;

	if ((multi = curl_multi_init()) == NULL)
		return NULL;
	/* HTTP/2 streams share a connection (https; libcurl's default). */
	curl_multi_setopt(multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
	curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, conf->parallel);
	curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS,
	    (long)FETCH_MAX_CONNECTIONS);
	/* Idle connections kept alive for the next transfers to their host. */
	curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, (long)FETCH_MAX_CONNECTIONS);
	return multi;
}

/* One fetch_each(): what its steps share. */
struct fetch_run {
	struct fetch		*f;		/* the caller's n transfers */
	size_t			 n;
	const struct conf	*conf;
	void			(*cb)(struct fetch *, void *);
	void			*arg;
	CURLM			*multi;
	struct hostq		*q;		/* which transfer starts next */
	struct xfer		*slots;		/* FETCH_SLOTS of them */
	struct body_budget	 budget;
	size_t			 done;		/* transfers over */
	size_t			 busy;		/* slots in use */
	int			 active;	/* transfers libcurl holds */
};

/* The multi handle, the host queue and the slots of r; -1 on failure. */
static int
run_open(struct fetch_run *r)
{
	const char **urls;
	size_t i;

	if ((r->multi = multi_new(r->conf)) == NULL)
		return -1;
	urls = xcalloc(r->n, sizeof(*urls));
	for (i = 0; i < r->n; i++)
		urls[i] = r->f[i].via != NULL ? r->f[i].via : r->f[i].url;
	r->q = hostq_new(urls, r->n, r->conf->parallel,
	    r->conf->parallel * FETCH_STREAMS_PER_CONNECTION);
	free(urls);
	r->budget.limit = r->conf->max_size <= SIZE_MAX / FETCH_HELD_MAX_SIZES ?
	    r->conf->max_size * FETCH_HELD_MAX_SIZES : SIZE_MAX;
	r->slots = xcalloc(FETCH_SLOTS, sizeof(*r->slots));
	return 0;
}

/* x is over: counted, handed to the callback, its slot freed. */
static void
run_over(struct fetch_run *r, struct xfer *x)
{
	over(x->f, &r->done, r->n, r->cb, r->arg);
	release(r->multi, r->q, x, (size_t)(x->f - r->f));
	r->busy--;
}

/* x handed to libcurl, or over when it cannot start. */
static void
run_launch(struct fetch_run *r, struct xfer *x)
{
	if (xfer_start(r->multi, x) == -1)
		run_over(r, x);
	else
		r->active++;
}

/*
 * The first deferred transfer if the budget has room for it (the next one
 * right after) and retries that are due: started again.  Returns when to
 * look again at the latest: the next retry's time, or a second from now.
 */
static long long
run_resume(struct fetch_run *r)
{
	long long now = crlc_mono_ms(), wake = now + 1000;
	struct xfer *first = first_in_line(r->slots), *x;
	size_t k;

	for (k = 0; k < FETCH_SLOTS; k++) {
		x = &r->slots[k];
		if (x->f == NULL || (x->retry_at == 0 && x->need == 0))
			continue;
		if (x->need > 0) {
			if (x != first || !xfer_hold(x, x->need, 1))
				continue;
			x->need = 0;
			r->budget.waiting--;
			wake = now;
		} else if (x->retry_at > now) {
			if (x->retry_at < wake)
				wake = x->retry_at;
			continue;
		}
		run_launch(r, x);
	}
	return wake;
}

/* New transfers into the free slots, as the host queue lets them start. */
static void
run_fill(struct fetch_run *r)
{
	struct xfer *x;
	size_t i;

	while (r->busy < FETCH_SLOTS && hostq_next(r->q, &i) == 0) {
		for (x = r->slots; x->f != NULL; x++)
			continue;	/* a free one: busy < FETCH_SLOTS */
		x->f = &r->f[i];
		x->conf = r->conf;
		x->budget = &r->budget;
		r->busy++;
		run_launch(r, x);
	}
}

/*
 * The transfers libcurl finished, settled (xfer_completed()); how many
 * of them freed a slot or went back in line.
 */
static int
run_collect(struct fetch_run *r)
{
	struct xfer *x;
	CURLMsg *msg;
	int left, ended = 0;

	while ((msg = curl_multi_info_read(r->multi, &left)) != NULL) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &x);
		switch (xfer_completed(r->multi, x, msg->data.result)) {
		case XFER_DONE:
			r->active--;
			run_over(r, x);
			ended++;
			break;
		case XFER_RETRY:
			r->active--;
			break;
		case XFER_DEFER:	/* back around: its turn may be due */
			r->active--;
			ended++;
			break;
		case XFER_FOLLOW:
			break;
		}
	}
	return ended;
}

/* Every slot still held released, then the slots, queue and handle. */
static void
run_close(struct fetch_run *r)
{
	size_t k;

	for (k = 0; k < FETCH_SLOTS; k++)
		if (r->slots[k].f != NULL)
			release(r->multi, r->q, &r->slots[k],
			    (size_t)(r->slots[k].f - r->f));
	free(r->slots);
	hostq_free(r->q);
	curl_multi_cleanup(r->multi);
}

int
fetch_each(struct fetch *f, size_t n, const struct conf *conf,
    void (*cb)(struct fetch *, void *), void *arg)
{
	struct fetch_run r = { .f = f, .n = n, .conf = conf, .cb = cb,
	    .arg = arg };
	long long wake;
	int running, wait_ms;

	if (n == 0)
		return 0;
	if (run_open(&r) == -1)
		return -1;
	while (r.done < n) {
		wake = run_resume(&r);
		run_fill(&r);
		if (curl_multi_perform(r.multi, &running) != CURLM_OK)
			break;
		/*
		 * A slot freed: start what waits for it now.  Waiting first
		 * would sleep up to the whole wait_ms when every transfer in
		 * flight has just ended (nothing left to wake the poll):
		 * 2,000 sources over loopback took 4 to 13 s instead of 1.
		 */
		if (run_collect(&r) > 0)
			continue;
		/* Wait for traffic, or until the next retry is due. */
		wait_ms = (int)(wake - crlc_mono_ms());
		if (r.done < n && (running > 0 || r.active == 0) &&
		    curl_multi_poll(r.multi, NULL, 0, wait_ms > 0 ? wait_ms : 0,
		    NULL) != CURLM_OK)
			break;
	}
	run_close(&r);
	return r.done == n ? 0 : -1;
}
