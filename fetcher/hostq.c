/*
 * Which transfer starts next: the sources grouped by host, so that no
 * host gets more transfers at once than its budget and every host with
 * work left gets its share.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * CRLs live on a few CDN hosts, thousands of URLs each.  Started in
 * URL order, the transfers in flight would all wait for the connections
 * of the first host while the others stay idle; here the hosts take
 * turns, each up to its budget.  A host is the scheme and authority of
 * the URL (RFC 3986 3.2) without its userinfo, compared without case:
 * what a connection is kept alive for.  Redirects are not foreseen.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fetcher.h"
#include "hostq.h"

struct hostq_host {
	size_t	 next, end;	/* its transfers not started: order[next..end) */
	long	 in_flight, budget;
};

struct hostq {
	size_t			*order;	/* transfer numbers, host by host */
	size_t			*host;	/* host of each transfer */
	struct hostq_host	*hosts;
	size_t			*open;	/* hosts with transfers not started */
	size_t			 nopen, turn;
};

/* Where a URL's host is: scheme "://" [userinfo "@"] host [":" port]. */
struct hostq_key {
	const char	*s;	/* host[:port] */
	size_t		 len, i;
	int		 tls;	/* https: a host of its own */
};

static struct hostq_key
key_of(const char *url, size_t i)
{
	struct hostq_key k = { url, 0, i, strncasecmp(url, "https:", 6) == 0 };
	const char *auth, *end, *at;

	if ((auth = strstr(url, "://")) == NULL) {
		k.len = strlen(url);
		return k;
	}
	auth += 3;
	end = auth + strcspn(auth, "/?#");
	for (at = auth; at < end; at++)
		if (*at == '@')
			auth = at + 1;
	k.s = auth;
	k.len = (size_t)(end - auth);
	return k;
}

static int
key_cmp(const struct hostq_key *a, const struct hostq_key *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c;

	if (a->tls != b->tls)
		return a->tls - b->tls;
	if ((c = strncasecmp(a->s, b->s, n)) != 0)
		return c;
	return a->len < b->len ? -1 : a->len > b->len;
}

/* Host by host, each in the order given. */
static int
by_host(const void *pa, const void *pb)
{
	const struct hostq_key *a = pa, *b = pb;
	int c;

	if ((c = key_cmp(a, b)) != 0)
		return c;
	return a->i < b->i ? -1 : a->i > b->i;
}

struct hostq *
hostq_new(const char *const *urls, size_t n, long budget, long tls_budget)
{
	struct hostq *q = xcalloc(1, sizeof(*q));
	struct hostq_key *keys = xcalloc(n + 1, sizeof(*keys));
	size_t i, h = 0;

	q->order = xcalloc(n + 1, sizeof(*q->order));
	q->host = xcalloc(n + 1, sizeof(*q->host));
	q->hosts = xcalloc(n + 1, sizeof(*q->hosts));
	q->open = xcalloc(n + 1, sizeof(*q->open));
	for (i = 0; i < n; i++)
		keys[i] = key_of(urls[i], i);
	qsort(keys, n, sizeof(*keys), by_host);
	for (i = 0; i < n; i++) {
		if (i > 0 && key_cmp(&keys[i - 1], &keys[i]) != 0) {
			q->hosts[h++].end = i;
			q->hosts[h].next = i;
		}
		q->hosts[h].budget = keys[i].tls ? tls_budget : budget;
		q->order[i] = keys[i].i;
		q->host[keys[i].i] = h;
	}
	if (n > 0) {
		q->hosts[h++].end = n;
		for (i = 0; i < h; i++)
			q->open[i] = i;
		q->nopen = h;
	}
	free(keys);
	return q;
}

int
hostq_next(struct hostq *q, size_t *transfer)
{
	struct hostq_host *h;
	size_t tried;

	for (tried = 0; tried < q->nopen; tried++) {
		if (q->turn >= q->nopen)
			q->turn = 0;
		h = &q->hosts[q->open[q->turn]];
		if (h->in_flight >= h->budget) {
			q->turn++;
			continue;
		}
		*transfer = q->order[h->next++];
		h->in_flight++;
		/* All started: the host leaves the turns (its place taken by
		   the last, which has its turn now). */
		if (h->next == h->end)
			q->open[q->turn] = q->open[--q->nopen];
		else
			q->turn++;
		return 0;
	}
	return -1;
}

void
hostq_done(struct hostq *q, size_t transfer)
{
	q->hosts[q->host[transfer]].in_flight--;
}

void
hostq_free(struct hostq *q)
{
	if (q == NULL)
		return;
	free(q->order);
	free(q->host);
	free(q->hosts);
	free(q->open);
	free(q);
}
