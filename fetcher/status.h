/*
 * crlcache command-line tool: what status.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_STATUS_H
#define CRLCACHE_FETCHER_STATUS_H

#include "fetcher.h"

struct state;

/* After a command that wrote the state: its verdict, as status sees it. */
void	 status_leave_verdict(struct state *st, int64_t grace);

#endif /* CRLCACHE_FETCHER_STATUS_H */
