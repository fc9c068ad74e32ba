/*
 * crlcache command-line tool: what hostq.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_HOSTQ_H
#define CRLCACHE_FETCHER_HOSTQ_H

#include "fetcher.h"

/*
 * hostq.c: which transfer starts next, host by host (scheme, host and
 * port of urls[i]): at most budget transfers at once to an http host,
 * tls_budget to an https one, the hosts taking turns.
 */
struct hostq;
struct hostq *hostq_new(const char *const *urls, size_t n, long budget,
	    long tls_budget);
/* The next transfer whose host has room (0), or none now (-1). */
int	 hostq_next(struct hostq *q, size_t *transfer);
/* A transfer hostq_next gave is over: its host has room again. */
void	 hostq_done(struct hostq *q, size_t transfer);
void	 hostq_free(struct hostq *q);

#endif /* CRLCACHE_FETCHER_HOSTQ_H */
