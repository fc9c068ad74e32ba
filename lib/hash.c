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
