/*
 * SHA-256 without allocation, for index keys (see format.h) and the
 * provider's hint names; the top file's checksum.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_HASH_H
#define CRLCACHE_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <crlcache/format.h>

/*
 * out = SHA-256(data[0..len)).  Uses libcrypto's low-level digest on a
 * stack context: no allocation, no provider fetch, safe to call from
 * inside a provider callback.
 */
void	crlc_sha256(const void *data, size_t len, uint8_t out[CRLC_HASH_LEN]);
/* The same over the concatenation of iov[0..n), as writev(2) would write it. */
void	crlc_sha256_iov(const struct iovec *iov, int n,
	    uint8_t out[CRLC_HASH_LEN]);
/*
 * CRLCSUM64 of data[0..len) (format.h TOP CHECKSUM): the top file's
 * trailer.  Not cryptographic; about one instruction per byte.
 */
uint64_t	crlc_sum64(const void *data, size_t len);

#endif /* CRLCACHE_HASH_H */
