/*
 * crlcache command-line tool: what publish.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_PUBLISH_H
#define CRLCACHE_FETCHER_PUBLISH_H

#include "fetcher.h"

struct state;

/* publish.c: a publish of index format 4 (format.h PUBLISH) */
struct MDB_txn;
/* What a publish reads: one read transaction of the working environment. */
struct publish_src {
	struct MDB_txn	*txn;
	unsigned int	 canon, alias, key, rev, crl, crlhash;	/* MDB_dbi */
};
int	 publish(struct state *st, const struct publish_src *src,
	    uint64_t generation, int64_t created, char *err, size_t errlen);
int	 publish_needed(struct state *st);

#endif /* CRLCACHE_FETCHER_PUBLISH_H */
