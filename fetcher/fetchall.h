/*
 * crlcache command-line tool: what fetchall.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_FETCHALL_H
#define CRLCACHE_FETCHER_FETCHALL_H

#include <stddef.h>

#include "fetch.h"
#include "fetcher.h"

/*
 * The n transfers of f, many at once: 0 when every one ended (f[i].ok,
 * or f[i].err says why not), -1 when the engine gave up on some.
 */
int	 fetch_all(struct fetch *f, size_t n, const struct conf *conf);
/*
 * fetch_all, calling cb(f, arg) as each transfer ends (retries done):
 * the caller can use and free its body while the others go on.  A
 * transfer the engine gave up on (-1) gets no call.
 */
int	 fetch_each(struct fetch *f, size_t n, const struct conf *conf,
	    void (*cb)(struct fetch *, void *), void *arg);

#endif /* CRLCACHE_FETCHER_FETCHALL_H */
