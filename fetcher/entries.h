/*
 * crlcache command-line tool: what entries.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_ENTRIES_H
#define CRLCACHE_FETCHER_ENTRIES_H

#include "fetcher.h"

/* entries.c: the start of a scope's "rev" range (every key of it) */
void	 store_rev_range(const uint8_t prefix[CRLC_PREFIX_LEN],
	    unsigned scope_no, uint8_t key[CRLC_REV_SCOPE_LEN]);

#endif /* CRLCACHE_FETCHER_ENTRIES_H */
