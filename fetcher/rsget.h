/*
 * A Remote Settings client's transfers (rsget.c): every request within
 * one deadline, the bytes counted, the first failure said.  Below both
 * the client's steps (rsclient.c) and the changeset reader
 * (rschangeset.c), which fetches the signer's chain.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_RSGET_H
#define CRLCACHE_RSGET_H

#include <stddef.h>
#include <stdint.h>

#include "fetch.h"
#include "fetcher.h"

struct state;

struct rs_client {
	const struct conf *conf;
	struct state	*st;
	long long	 deadline;	/* crlc_mono_ms(): nothing asked after */
	uint64_t	 bytes;		/* received */
	char		 err[ERRLEN];
};

/* A client whose deadline is fetch_budget() from now. */
void	 rs_client_init(struct rs_client *rc, struct state *st,
	    const struct conf *conf);
int	 rs_fail(struct rs_client *rc, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* One GET within the deadline: 0 with f filled, or -1 (rc->err). */
int	 rs_get(struct rs_client *rc, struct fetch *f, const char *url,
	    int guarded, int decode, size_t max);

#endif /* CRLCACHE_RSGET_H */
