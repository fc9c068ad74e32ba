/*
 * The hash that names a "crl" record's content (format.h "crlhash"):
 * stored beside the record at ingest, read by a publish.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdint.h>
#include <sys/uio.h>

#include <crlcache/hash.h>
#include <crlcache/index.h>

#include "scopehash.h"
#include "fetcher.h"

/*
 * The "crlhash" record of a "crl" record (format.h): SHA-256 of its
 * value after the header, source || complete CRL || delta CRL.
 */
void
crl_record_hash(const struct crlc_crl_info *r, uint8_t out[CRLC_HASH_LEN])
{
	struct iovec iov[] = {
		{ (void *)r->source.p, r->source.len },
		{ (void *)r->der.p, r->der.len },
		{ (void *)r->delta.p, r->delta.len },
	};

	crlc_sha256_iov(iov, (int)(sizeof(iov) / sizeof(iov[0])), out);
}
