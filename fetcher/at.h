/*
 * crlcache command-line tool: what at.c offers the rest of the fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_AT_H
#define CRLCACHE_FETCHER_AT_H

#include "fetcher.h"

/* at.c: --at TIME (RFC 3339 or seconds since the epoch) */
int	 at_option(const char *cmd, const char *arg, int64_t *at);
int64_t	 at_or_now(int64_t at);

#endif /* CRLCACHE_FETCHER_AT_H */
