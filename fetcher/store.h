/*
 * crlcache command-line tool: what store.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_STORE_H
#define CRLCACHE_FETCHER_STORE_H

#include "fetcher.h"

struct state;

/*
 * The fetcher's private working environment (format.h NAMED DATABASES),
 * one file per object; what they share among themselves is in store_int.h.
 */
struct store;
enum ingest_result { INGEST_FAILED = -1, INGEST_UNCHANGED = 0, INGEST_CHANGED = 1 };
/*
 * store.c: open (refusing another format), close, publish.  open_empty:
 * the working index removed first and made anew (`reset --all`).  The
 * state directory is made when missing (state_create()); st must
 * outlive the store.
 */
int	 store_open(struct store **s, struct state *st, char *err,
	    size_t errlen);
int	 store_open_empty(struct store **s, struct state *st, char *err,
	    size_t errlen);
void	 store_close(struct store *s);
int	 store_publish(struct store *s, int force, uint64_t *generation,
	    char *err, size_t errlen);

#endif /* CRLCACHE_FETCHER_STORE_H */
