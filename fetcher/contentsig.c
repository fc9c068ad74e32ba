/*
 * Mozilla's content signature: ECDSA P-384 over a Remote Settings
 * collection, by an end-entity certificate chained to a pinned root.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * What is checked, as Firefox's ContentSignatureVerifier does
 * (security/manager/ssl/ContentSignatureVerifier.cpp; kinto-signer and
 * Autograph make the signatures):
 *   - the signed bytes are "Content-Signature:\0" followed by the data;
 *   - the signature is base64url (RFC 4648 5) of the raw r || s, 48
 *     bytes each for P-384, made with SHA-384;
 *   - the x5u document is a PEM chain, end-entity first, the root last;
 *     the root's SHA-256 (of its DER) is the pinned fingerprint;
 *   - the end-entity chains to that root alone through the certificates
 *     between (RFC 5280 6.1, at the time given), carries the code
 *     signing extended key usage (id-kp-codeSigning, RFC 5280
 *     4.2.1.12) as does every certificate of the chain that restricts
 *     its usages, names the signer in a subjectAltName dNSName (no
 *     wildcard, no subject common name), and holds a P-384 key.
 */
#include <string.h>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "contentsig.h"
#include "fetcher.h"

#define CS_PREFIX	"Content-Signature:\0"
#define CS_PREFIX_LEN	(sizeof(CS_PREFIX) - 1)
/* P-384: r and s of 48 bytes each (SEC 1 2.3.7, raw concatenation). */
#define CS_HALF_LEN	48

/* Strict base64url, padding optional: n bytes to out, or -1. */
static int
b64url_decode(const char *s, size_t len, uint8_t *out, size_t max,
    size_t *n)
{
	static const char alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-_";
	uint32_t acc = 0;
	size_t i, bits = 0;
	const char *c;

	*n = 0;
	while (len > 0 && s[len - 1] == '=')
		len--;
	for (i = 0; i < len; i++) {
		if (s[i] == '\0' || (c = strchr(alpha, s[i])) == NULL)
			return -1;
		acc = acc << 6 | (uint32_t)(c - alpha);
		if ((bits += 6) >= 8) {
			bits -= 8;
			if (*n == max)
				return -1;
			out[(*n)++] = (uint8_t)(acc >> bits);
		}
	}
	/* Leftover bits must be zero and fewer than a byte's worth. */
	return bits >= 6 || (acc & ((1u << bits) - 1)) != 0 ? -1 : 0;
}

static int
say(char *err, size_t errlen, const char *why)
{
	snprintf(err, errlen, "content signature: %s", why);
	return -1;
}

/* The PEM chain, at most CONTENTSIG_MAX_CERTS certificates. */
static STACK_OF(X509) *
read_chain(const uint8_t *pem, size_t len)
{
	STACK_OF(X509) *sk = sk_X509_new_null();
	BIO *b = BIO_new_mem_buf(pem, (int)len);
	X509 *x;

	if (sk == NULL || b == NULL || len > CONTENTSIG_MAX_CHAIN)
		goto bad;
	while ((x = PEM_read_bio_X509(b, NULL, NULL, NULL)) != NULL)
		if (sk_X509_num(sk) >= CONTENTSIG_MAX_CERTS ||
		    !sk_X509_push(sk, x)) {
			X509_free(x);
			goto bad;
		}
	ERR_clear_error();
	BIO_free(b);
	return sk;
bad:
	BIO_free(b);
	sk_X509_pop_free(sk, X509_free);
	return NULL;
}

/* Does x allow code signing (no extended key usage, or one naming it)? */
static int
code_signing(X509 *x, int required)
{
	if (!(X509_get_extension_flags(x) & EXFLAG_XKUSAGE))
		return !required;
	return (X509_get_extended_key_usage(x) & XKU_CODE_SIGN) != 0;
}

/* Chain ee to root through the others, at now. */
static int
chain_ok(STACK_OF(X509) *certs, int64_t now, char *err, size_t errlen)
{
	X509 *ee = sk_X509_value(certs, 0);
	X509 *root = sk_X509_value(certs, sk_X509_num(certs) - 1);
	STACK_OF(X509) *mid = sk_X509_new_null(), *path;
	X509_STORE *store = X509_STORE_new();
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	int i, ok = 0;

	if (mid == NULL || store == NULL || ctx == NULL ||
	    !X509_STORE_add_cert(store, root))
		goto done;
	for (i = 1; i < sk_X509_num(certs) - 1; i++)
		if (!sk_X509_push(mid, sk_X509_value(certs, i)))
			goto done;
	if (!X509_STORE_CTX_init(ctx, store, ee, mid))
		goto done;
	X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(ctx), (time_t)now);
	if (X509_verify_cert(ctx) != 1) {
		snprintf(err, errlen, "content signature: the x5u chain does "
		    "not verify to the pinned root: %s",
		    X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx)));
		goto done;
	}
	path = X509_STORE_CTX_get0_chain(ctx);
	for (i = 0; i < sk_X509_num(path); i++)
		if (!code_signing(sk_X509_value(path, i), i == 0)) {
			snprintf(err, errlen, "content signature: certificate %d "
			    "of the chain does not allow code signing", i);
			goto done;
		}
	ok = 1;
done:
	if (!ok && err[0] == '\0')
		say(err, errlen, "cannot verify the chain");
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(store);
	sk_X509_free(mid);
	return ok;
}

/* The raw r || s as DER ECDSA-Sig-Value (RFC 3279 2.2.3), or -1. */
static int
raw_to_der(const uint8_t raw[2 * CS_HALF_LEN], uint8_t **der, int *derlen)
{
	ECDSA_SIG *sig = ECDSA_SIG_new();
	BIGNUM *r = BN_bin2bn(raw, CS_HALF_LEN, NULL);
	BIGNUM *s = BN_bin2bn(raw + CS_HALF_LEN, CS_HALF_LEN, NULL);

	*der = NULL;
	if (sig == NULL || r == NULL || s == NULL || !ECDSA_SIG_set0(sig, r, s)) {
		BN_free(r);
		BN_free(s);
		ECDSA_SIG_free(sig);
		return -1;
	}
	*derlen = i2d_ECDSA_SIG(sig, der);
	ECDSA_SIG_free(sig);
	return *derlen > 0 ? 0 : -1;
}

/* Is key an EC key on P-384? */
static int
is_p384(EVP_PKEY *key)
{
	char group[32];
	size_t len;

	return EVP_PKEY_is_a(key, "EC") &&
	    EVP_PKEY_get_utf8_string_param(key, "group", group, sizeof(group),
	    &len) && strcmp(group, "secp384r1") == 0;
}

static int
signature_ok(X509 *ee, const uint8_t raw[2 * CS_HALF_LEN],
    const uint8_t *data, size_t len)
{
	EVP_PKEY *key = X509_get0_pubkey(ee);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	uint8_t *der = NULL;
	int derlen = 0, ok = 0;

	if (md != NULL && key != NULL && is_p384(key) &&
	    raw_to_der(raw, &der, &derlen) == 0 &&
	    EVP_DigestVerifyInit(md, NULL, EVP_sha384(), NULL, key) == 1 &&
	    EVP_DigestVerifyUpdate(md, CS_PREFIX, CS_PREFIX_LEN) == 1 &&
	    EVP_DigestVerifyUpdate(md, data, len) == 1 &&
	    EVP_DigestVerifyFinal(md, der, (size_t)derlen) == 1)
		ok = 1;
	ERR_clear_error();
	OPENSSL_free(der);
	EVP_MD_CTX_free(md);
	return ok;
}

int
contentsig_verify(const struct contentsig *cs, const uint8_t *data,
    size_t len, char *err, size_t errlen)
{
	STACK_OF(X509) *certs;
	uint8_t raw[2 * CS_HALF_LEN + 1], fp[CRLC_HASH_LEN];
	unsigned int fplen = 0;
	size_t rawlen;
	X509 *ee, *root;
	int ret = -1;

	err[0] = '\0';
	if (b64url_decode(cs->signature, strlen(cs->signature), raw,
	    sizeof(raw), &rawlen) == -1 || rawlen != 2 * CS_HALF_LEN)
		return say(err, errlen, "the signature is not 96 bytes of "
		    "base64url (P-384 r || s)");
	if ((certs = read_chain(cs->chain, cs->chainlen)) == NULL ||
	    sk_X509_num(certs) < 2) {
		sk_X509_pop_free(certs, X509_free);
		return say(err, errlen, "the x5u document is not a PEM chain "
		    "of 2 to " CONTENTSIG_MAX_CERTS_STR " certificates");
	}
	ee = sk_X509_value(certs, 0);
	root = sk_X509_value(certs, sk_X509_num(certs) - 1);
	if (!X509_digest(root, EVP_sha256(), fp, &fplen) ||
	    fplen != CRLC_HASH_LEN || memcmp(fp, cs->root, CRLC_HASH_LEN) != 0)
		say(err, errlen, "the x5u chain's root is not the pinned "
		    "content-signing root (crlite_root)");
	else if (!chain_ok(certs, cs->now, err, errlen))
		;
	else if (X509_check_host(ee, cs->signer, 0,
	    X509_CHECK_FLAG_NEVER_CHECK_SUBJECT | X509_CHECK_FLAG_NO_WILDCARDS,
	    NULL) != 1)
		snprintf(err, errlen, "content signature: the certificate is "
		    "not for %s (subjectAltName dNSName)", cs->signer);
	else if (!signature_ok(ee, raw, data, len))
		say(err, errlen, "does not verify over the collection "
		    "(a P-384 key's ECDSA with SHA-384)");
	else
		ret = 0;
	ERR_clear_error();
	sk_X509_pop_free(certs, X509_free);
	return ret;
}
