/*
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
/*
 * The SHA256_* functions are deprecated in OpenSSL 3 in favour of EVP, but
 * EVP_Digest* fetches an implementation and allocates a context, which is
 * what the provider's hot path must avoid (and a fetch from inside a
 * provider callback can recurse).  Declare the 1.1.1 API level for this
 * file only so the low-level functions are available without warnings.
 */
#define OPENSSL_API_COMPAT 10101

#include <string.h>

#include <openssl/sha.h>

#include <crlcache/hash.h>

void
crlc_sha256(const void *data, size_t len, uint8_t out[CRLC_HASH_LEN])
{
	SHA256_CTX ctx;

	SHA256_Init(&ctx);
	SHA256_Update(&ctx, data, len);
	SHA256_Final(out, &ctx);
}

/*
 * Apart from crlc_sha256, which every index lookup calls: as its one-piece
 * case it cost each lookup 28 more instructions (callgrind).
 */
void
crlc_sha256_iov(const struct iovec *iov, int n, uint8_t out[CRLC_HASH_LEN])
{
	SHA256_CTX ctx;
	int i;

	SHA256_Init(&ctx);
	for (i = 0; i < n; i++)
		SHA256_Update(&ctx, iov[i].iov_base, iov[i].iov_len);
	SHA256_Final(out, &ctx);
}

/* One CRLCSUM64 step: a bijection of h for each w and of w for each h. */
static inline uint64_t
sum_step(uint64_t h, uint64_t w)
{
	h ^= w * CRLC_SUM_K1;
	h = h << CRLC_SUM_ROT | h >> (64 - CRLC_SUM_ROT);
	return h * CRLC_SUM_K2;
}

/*
 * Four words an iteration: the same sequential definition, a quarter of
 * the loop's own instructions (every verifying process sums the top).
 */
uint64_t
crlc_sum64(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint8_t tail[8] = { 0 };
	uint64_t h = CRLC_SUM_IV;
	size_t n = len;

	for (; n >= 32; n -= 32, p += 32) {
		h = sum_step(h, crlc_get_u64(p));
		h = sum_step(h, crlc_get_u64(p + 8));
		h = sum_step(h, crlc_get_u64(p + 16));
		h = sum_step(h, crlc_get_u64(p + 24));
	}
	for (; n >= 8; n -= 8, p += 8)
		h = sum_step(h, crlc_get_u64(p));
	if (n > 0) {
		memcpy(tail, p, n);
		h = sum_step(h, crlc_get_u64(tail));
	}
	h ^= (uint64_t)len;
	h ^= h >> 33;
	h *= CRLC_SUM_F1;
	h ^= h >> 29;
	h *= CRLC_SUM_F2;
	return h ^ h >> 32;
}
