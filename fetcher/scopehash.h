/*
 * crlcache command-line tool: what scopehash.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_SCOPEHASH_H
#define CRLCACHE_FETCHER_SCOPEHASH_H

#include "fetcher.h"

/* scopehash.c: the "crlhash" record of a "crl" record: its CRLs' SHA-256 */
struct crlc_crl_info;
void	 crl_record_hash(const struct crlc_crl_info *r,
	    uint8_t out[CRLC_HASH_LEN]);

#endif /* CRLCACHE_FETCHER_SCOPEHASH_H */
