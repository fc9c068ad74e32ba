/*
 * crlcache command-line tool: what hint.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_HINTQ_H
#define CRLCACHE_FETCHER_HINTQ_H

#include "fetcher.h"

struct hint_tally;
struct state;

/* hint.c */
/*
 * The hints of this run: the spool's files moved to their writers'
 * queues, then taken in turns, one of every writer per turn.  0, or -1
 * (logged).  hints_next() gives the next (NULL: none this run) and, in
 * *aia, its writer's caIssuers fetches left this run; each hint given is
 * settled before the next: removed, or (wait) left for the next run.
 * hints_close() accepts NULL.
 */
struct hint_queue;
int	 hints_open(struct state *st, struct hint_queue **q,
	    struct hint_tally *tl);
X509	*hints_next(struct hint_queue *q, size_t **aia);
void	 hints_settle(struct hint_queue *q, int wait);
void	 hints_close(struct hint_queue *q);

#endif /* CRLCACHE_FETCHER_HINTQ_H */
