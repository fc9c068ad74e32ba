/*
 * The encoded public point of a key object as format.h "key" identifies
 * it: EC keys by their uncompressed point, EdDSA keys by their raw key.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_POINT_H
#define CRLCACHE_POINT_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/params.h>

/*
 * Largest encoded point we identify: P-521 uncompressed is 133 bytes,
 * Ed448 57; a larger one gets no identity (the issuer is then looked up
 * by its name).
 */
#define CRLC_POINT_MAX	256

/* A key object's get_params: a keymgmt's, or EVP_PKEY_get_params. */
typedef int crlc_key_params_fn(void *key, OSSL_PARAM params[]);

/*
 * Into out, the key's public point (OSSL_PKEY_PARAM_PUB_KEY), an EC point
 * made uncompressed (SEC 1 2.3.3: 04 || X || Y, each the field's length)
 * whichever form the certificate or the provider holds it in, an EdDSA
 * key as it is.  Returns its length; 0 for a key without an octet-string
 * public key (RSA; DSA's is an integer) or one that does not fit.  No
 * allocation.
 */
size_t	crlc_key_point(crlc_key_params_fn *get, void *key,
	    uint8_t out[CRLC_POINT_MAX]);

#endif /* CRLCACHE_POINT_H */
