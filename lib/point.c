/*
 * The encoded public point of a key object (format.h "key").
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The key object's OSSL_PKEY_PARAM_PUB_KEY: an EC key's point in the form
 * it was decoded from (a certificate may hold it compressed, RFC 5480
 * 2.2), an EdDSA key's raw key.  (OpenSSL 3.0's EdDSA keys do not answer
 * OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY.)  The fetcher (from the CA
 * certificate) and the provider (from the verifying key) must name one
 * key alike: both rebuild the uncompressed point from the affine
 * coordinates, asked in the same get_params call.
 */
#include <string.h>

#include <openssl/core_names.h>

#include <crlcache/point.h>

/* SEC 1 2.3.3 point forms: the first octet. */
#define FORM_COMPRESSED_EVEN	0x02
#define FORM_COMPRESSED_ODD	0x03
#define FORM_UNCOMPRESSED	0x04
#define FORM_HYBRID_EVEN	0x06
#define FORM_HYBRID_ODD		0x07

/*
 * The low n bytes, big-endian, of a native-endian
 * OSSL_PARAM_UNSIGNED_INTEGER of size bytes.
 */
static void
put_big_endian(uint8_t *out, const uint8_t *native, size_t size, size_t n)
{
	const union { uint16_t u; uint8_t c[2]; } one = { 1 };
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = one.c[0] == 1 ? native[n - 1 - i] :
		    native[size - n + i];
}

size_t
crlc_key_point(crlc_key_params_fn *get, void *key, uint8_t out[CRLC_POINT_MAX])
{
	/* Each coordinate fits in half a point (x and y of equal length). */
	uint8_t x[CRLC_POINT_MAX / 2], y[CRLC_POINT_MAX / 2];
	OSSL_PARAM p[] = {
		OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY,
		    out, CRLC_POINT_MAX),
		OSSL_PARAM_BN(OSSL_PKEY_PARAM_EC_PUB_X, x, sizeof(x)),
		OSSL_PARAM_BN(OSSL_PKEY_PARAM_EC_PUB_Y, y, sizeof(y)),
		OSSL_PARAM_END
	};
	size_t len, flen;

	if (!get(key, p) || !OSSL_PARAM_modified(&p[0]) ||
	    (len = p[0].return_size) == 0 || len > CRLC_POINT_MAX)
		return 0;
	/* No coordinates: not an EC key (EdDSA's raw key is its identity). */
	if (!OSSL_PARAM_modified(&p[1]) || !OSSL_PARAM_modified(&p[2]))
		return len;
	switch (out[0]) {
	case FORM_UNCOMPRESSED:
		return len;
	case FORM_COMPRESSED_EVEN:
	case FORM_COMPRESSED_ODD:
		flen = len - 1;
		break;
	case FORM_HYBRID_EVEN:
	case FORM_HYBRID_ODD:
		flen = (len - 1) / 2;
		break;
	default:
		return 0;
	}
	/* The coordinates come padded to the buffer: keep the low flen. */
	if (flen == 0 || 1 + 2 * flen > CRLC_POINT_MAX ||
	    p[1].return_size != sizeof(x) || p[2].return_size != sizeof(y) ||
	    flen > sizeof(x))
		return 0;
	out[0] = FORM_UNCOMPRESSED;
	put_big_endian(out + 1, x, sizeof(x), flen);
	put_big_endian(out + 1 + flen, y, sizeof(y), flen);
	return 1 + 2 * flen;
}
