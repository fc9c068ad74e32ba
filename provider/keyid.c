/*
 * The identity of a verifying key: SHA-256 of its public key encoded as
 * the subjectPublicKey of a SubjectPublicKeyInfo (RFC 5280 4.1.2.7), the
 * same bytes the fetcher hashes from the CA certificate (format.h "key").
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Asked of the default provider's keydata with get_params into buffers
 * on the stack, once per key object: EC and EdDSA keys give their
 * public point (crlc_key_point(): EC uncompressed), RSA keys n and e,
 * from which the DER RSAPublicKey (RFC 8017 A.1.1) is rebuilt, DSA keys
 * y, the DER INTEGER DSAPublicKey (RFC 3279 2.3.2), and any other key
 * its raw public key (OpenSSL 3.5's ML-DSA, FIPS 204, and SLH-DSA,
 * FIPS 205, whose subjectPublicKey is that key, RFC 5280 4.1.2.7).
 */
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <crlcache/hash.h>
#include <crlcache/point.h>

#include "prov.h"

/*
 * Largest RSA modulus and DSA y (16384 bits; OpenSSL's DSA stops at
 * 10000) we identify; a larger key gets no identity and is looked up by
 * its issuer's name.
 */
#define MODULUS_MAX	2048
#define EXPONENT_MAX	64
/* SEQUENCE { INTEGER n, INTEGER e }: three headers of at most 4 bytes. */
#define RSAPUB_MAX	(3 * 4 + 1 + MODULUS_MAX + 1 + EXPONENT_MAX)
/*
 * Largest raw public key: ML-DSA-87's (FIPS 204 table 2: 2592 bytes);
 * SLH-DSA's are at most 64 (FIPS 205 table 2).
 */
#define RAWPUB_MAX	2592
#define PUB_MAX		(RSAPUB_MAX > RAWPUB_MAX ? RSAPUB_MAX : RAWPUB_MAX)

enum { KEYID_UNSET, KEYID_BUSY, KEYID_READY, KEYID_NONE };

/* Native-endian unsigned integer (OSSL_PARAM_UNSIGNED_INTEGER) to big. */
static void
to_big_endian(uint8_t *p, size_t n)
{
	const union { uint16_t u; uint8_t c[2]; } one = { 1 };
	uint8_t t;
	size_t i;

	if (one.c[0] != 1)
		return;
	for (i = 0; i < n / 2; i++) {
		t = p[i];
		p[i] = p[n - 1 - i];
		p[n - 1 - i] = t;
	}
}

static size_t
put_header(uint8_t *out, uint8_t tag, size_t len)
{
	size_t n = 0;

	out[n++] = tag;
	if (len < 0x80) {
		out[n++] = (uint8_t)len;
	} else if (len < 0x100) {
		out[n++] = 0x81;
		out[n++] = (uint8_t)len;
	} else {
		out[n++] = 0x82;
		out[n++] = (uint8_t)(len >> 8);
		out[n++] = (uint8_t)len;
	}
	return n;
}

/* DER INTEGER of the big-endian magnitude p[0..n): minimal, positive. */
static size_t
put_integer(uint8_t *out, const uint8_t *p, size_t n)
{
	size_t o;
	int pad;

	while (n > 1 && p[0] == 0) {
		p++;
		n--;
	}
	pad = p[0] & 0x80 ? 1 : 0;
	o = put_header(out, 0x02, n + (size_t)pad);
	if (pad)
		out[o++] = 0;
	memcpy(out + o, p, n);
	return o + n;
}

/*
 * Ask k for the BIGNUM parameters of p (each with data NULL) twice: their
 * sizes, then their values into buf[i], at most cap[i] bytes.  OpenSSL
 * writes a BIGNUM padded to the whole buffer it is given, one byte at a
 * time in constant time: a buffer of MODULUS_MAX for a 256-byte modulus
 * made most of the cost of a key's identity, paid by every process start.
 */
static int
get_sized(struct crlc_key *k, OSSL_PARAM p[], uint8_t *const buf[],
    const size_t cap[])
{
	size_t i;

	if (!k->impl->get_params(k->kd, p))
		return 0;
	for (i = 0; p[i].key != NULL; i++) {
		if (!OSSL_PARAM_modified(&p[i]) || p[i].return_size == 0 ||
		    p[i].return_size > cap[i])
			return 0;
		p[i].data = buf[i];
		p[i].data_size = p[i].return_size;
		p[i].return_size = OSSL_PARAM_UNMODIFIED;
	}
	if (!k->impl->get_params(k->kd, p))
		return 0;
	for (i = 0; p[i].key != NULL; i++)
		if (p[i].return_size != p[i].data_size)
			return 0;
	return 1;
}

/* DER RSAPublicKey of an RSA keydata; 0 when it has no n and e. */
static size_t
rsa_public_key(struct crlc_key *k, uint8_t out[PUB_MAX])
{
	uint8_t n[MODULUS_MAX], e[EXPONENT_MAX], body[RSAPUB_MAX];
	uint8_t *const buf[] = { n, e };
	const size_t cap[] = { sizeof(n), sizeof(e) };
	OSSL_PARAM p[] = {
		OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_N, NULL, 0),
		OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_E, NULL, 0),
		OSSL_PARAM_END
	};
	size_t len, o;

	if (!get_sized(k, p, buf, cap))
		return 0;
	to_big_endian(n, p[0].data_size);
	to_big_endian(e, p[1].data_size);
	len = put_integer(body, n, p[0].data_size);
	len += put_integer(body + len, e, p[1].data_size);
	o = put_header(out, 0x30, len);
	memcpy(out + o, body, len);
	return o + len;
}

/* DER INTEGER y of a DSA keydata; 0 when it has none. */
static size_t
dsa_public_key(struct crlc_key *k, uint8_t out[PUB_MAX])
{
	uint8_t y[MODULUS_MAX];
	uint8_t *const buf[] = { y };
	const size_t cap[] = { sizeof(y) };
	OSSL_PARAM p[] = {
		OSSL_PARAM_BN(OSSL_PKEY_PARAM_PUB_KEY, NULL, 0),
		OSSL_PARAM_END
	};

	if (!get_sized(k, p, buf, cap))
		return 0;
	to_big_endian(y, p[0].data_size);
	return put_integer(out, y, p[0].data_size);
}

/*
 * The raw public key of a keydata, beyond crlc_key_point()'s reach (an
 * ML-DSA key is longer than a point); 0 when it has none or a longer one.
 */
static size_t
raw_public_key(struct crlc_key *k, uint8_t out[PUB_MAX])
{
	uint8_t *const buf[] = { out };
	const size_t cap[] = { RAWPUB_MAX };
	OSSL_PARAM p[] = {
		OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, NULL, 0),
		OSSL_PARAM_END
	};

	if (!get_sized(k, p, buf, cap))
		return 0;
	return p[0].data_size;
}

/*
 * k's public key as its subjectPublicKey holds it, into pub: its length,
 * 0 when it cannot be had.
 */
static size_t
public_key(struct crlc_key *k, uint8_t pub[PUB_MAX])
{
	size_t len;

	if (k->impl->get_params == NULL)
		return 0;
	/*
	 * Tried in this order: an EC key answers OSSL_PKEY_PARAM_PUB_KEY
	 * with an octet string, which a BIGNUM buffer would refuse.
	 */
	if ((len = crlc_key_point(k->impl->get_params, k->kd, pub)) == 0 &&
	    (len = rsa_public_key(k, pub)) == 0 &&
	    (len = dsa_public_key(k, pub)) == 0)
		len = raw_public_key(k, pub);
	return len;
}

static int
compute_id(struct crlc_key *k, uint8_t id[CRLC_HASH_LEN])
{
	uint8_t pub[PUB_MAX];
	size_t len;

	if ((len = public_key(k, pub)) == 0)
		return -1;
	crlc_sha256(pub, len, id);
	return 0;
}

/*
 * AlgorithmIdentifier DER of the SubjectPublicKeyInfo of the key types
 * CAs of the web PKI use: rsaEncryption with NULL parameters (RFC 3279
 * 2.3.1), id-ecPublicKey with a namedCurve (RFC 5480 2.1.1: P-256,
 * P-384, P-521, the curves CCADB root programs accept), id-Ed25519 and
 * id-Ed448 without parameters (RFC 8410 3).
 */
static const uint8_t alg_rsa[] = {
	0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01,
	0x01, 0x01, 0x05, 0x00
};
static const uint8_t alg_ed25519[] = { 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70 };
static const uint8_t alg_ed448[] = { 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x71 };
#define ALG_EC_MAX	21
static const struct {
	const char	*name;		/* OSSL_PKEY_PARAM_GROUP_NAME */
	uint8_t		 alg[ALG_EC_MAX];
	size_t		 len;
} ec_algs[] = {
	{ "prime256v1", { 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce,
	    0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03,
	    0x01, 0x07 }, 21 },
	{ "secp384r1", { 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce,
	    0x3d, 0x02, 0x01, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22 }, 18 },
	{ "secp521r1", { 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce,
	    0x3d, 0x02, 0x01, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23 }, 18 },
};
/* Room for a group name OpenSSL gives (the longest it knows is shorter). */
#define GROUP_NAME_MAX	64

/* The first of a keymgmt's names (names is "RSA:rsaEncryption:..."). */
static int
key_type_is(const struct crlc_key *k, const char *type)
{
	size_t n = strlen(type);

	return strncmp(k->impl->names, type, n) == 0 &&
	    (k->impl->names[n] == ':' || k->impl->names[n] == '\0');
}

/* The AlgorithmIdentifier of k's SubjectPublicKeyInfo, or NULL. */
static const uint8_t *
spki_alg(struct crlc_key *k, size_t *len)
{
	char group[GROUP_NAME_MAX];
	OSSL_PARAM p[] = {
		OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group,
		    sizeof(group)),
		OSSL_PARAM_END
	};
	size_t i;

	if (key_type_is(k, "RSA")) {
		*len = sizeof(alg_rsa);
		return alg_rsa;
	}
	if (key_type_is(k, "ED25519") || key_type_is(k, "ED448")) {
		*len = sizeof(alg_ed25519);
		return key_type_is(k, "ED448") ? alg_ed448 : alg_ed25519;
	}
	if (!key_type_is(k, "EC") || k->impl->get_params == NULL ||
	    !k->impl->get_params(k->kd, p) || !OSSL_PARAM_modified(&p[0]))
		return NULL;
	for (i = 0; i < sizeof(ec_algs) / sizeof(ec_algs[0]); i++)
		if (strcmp(group, ec_algs[i].name) == 0) {
			*len = ec_algs[i].len;
			return ec_algs[i].alg;
		}
	return NULL;
}

/* SHA-256 of SEQUENCE { AlgorithmIdentifier, BIT STRING { 0, pub } }. */
static int
compute_spki(struct crlc_key *k, uint8_t out[CRLC_HASH_LEN])
{
	uint8_t pub[PUB_MAX], seq[4], bits[5];
	const uint8_t *alg;
	size_t alen, len, slen, blen;
	struct iovec iov[4];

	if ((alg = spki_alg(k, &alen)) == NULL ||
	    (len = public_key(k, pub)) == 0)
		return -1;
	blen = put_header(bits, 0x03, len + 1);
	bits[blen++] = 0;	/* no unused bits */
	slen = put_header(seq, 0x30, alen + blen + len);
	iov[0] = (struct iovec){ seq, slen };
	iov[1] = (struct iovec){ (void *)(uintptr_t)alg, alen };
	iov[2] = (struct iovec){ bits, blen };
	iov[3] = (struct iovec){ pub, len };
	crlc_sha256_iov(iov, 4, out);
	return 0;
}

/* The first to finish keeps its result for every later verification. */
static void
keep(struct crlc_keyhash *kh, const uint8_t h[CRLC_HASH_LEN])
{
	int state = KEYID_UNSET;

	if (atomic_compare_exchange_strong(&kh->state, &state, KEYID_BUSY)) {
		memcpy(kh->h, h, CRLC_HASH_LEN);
		atomic_store_explicit(&kh->state, KEYID_READY,
		    memory_order_release);
	}
}

/* kh computed by compute once per key; a thread that races computes its own. */
static const uint8_t *
cached(struct crlc_key *k, struct crlc_keyhash *kh,
    int (*compute)(struct crlc_key *, uint8_t[CRLC_HASH_LEN]),
    uint8_t scratch[CRLC_HASH_LEN])
{
	int state = atomic_load_explicit(&kh->state, memory_order_acquire);

	if (state == KEYID_READY)
		return kh->h;
	if (state == KEYID_NONE)
		return NULL;
	if (compute(k, scratch) == -1) {
		state = KEYID_UNSET;
		(void)atomic_compare_exchange_strong(&kh->state, &state,
		    KEYID_NONE);
		return NULL;
	}
	keep(kh, scratch);
	return scratch;
}

static struct crlc_keyid *
id_of(struct crlc_key *k)
{
	return k->share != NULL ? crlc_kshare_id(k->share) : &k->id;
}

const uint8_t *
crlc_key_id(struct crlc_key *k, uint8_t scratch[CRLC_HASH_LEN])
{
	return cached(k, &id_of(k)->id, compute_id, scratch);
}

const uint8_t *
crlc_key_spki(struct crlc_key *k, uint8_t scratch[CRLC_HASH_LEN])
{
	return cached(k, &id_of(k)->spki, compute_spki, scratch);
}

void
crlc_key_id_offer(struct crlc_key *k, const OSSL_PARAM params[])
{
	struct crlc_keyhash *kh = &id_of(k)->id;
	const OSSL_PARAM *pub;
	uint8_t id[CRLC_HASH_LEN];

	if (atomic_load_explicit(&kh->state, memory_order_acquire) !=
	    KEYID_UNSET)
		return;
	/*
	 * A named curve's point in the uncompressed form (SEC 1 2.3.3:
	 * 04 || X || Y) is already the identity's bytes; any other form or
	 * key type is left to crlc_key_id().
	 */
	if (OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_GROUP_NAME) == NULL ||
	    (pub = OSSL_PARAM_locate_const(params,
	    OSSL_PKEY_PARAM_PUB_KEY)) == NULL ||
	    pub->data_type != OSSL_PARAM_OCTET_STRING || pub->data == NULL ||
	    pub->data_size < 3 || pub->data_size % 2 == 0 ||
	    pub->data_size > CRLC_POINT_MAX ||
	    ((const uint8_t *)pub->data)[0] != 0x04)
		return;
	crlc_sha256(pub->data, pub->data_size, id);
	keep(kh, id);
}
