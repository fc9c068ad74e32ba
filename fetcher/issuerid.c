/*
 * Issuer identities in the working index: the dense id of an issuer name
 * (format.h "canon", "alias"), the number of each of its keys ("key"),
 * and the "crl" key of a scope built from them.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <lmdb.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <crlcache/dpname.h>
#include <crlcache/index.h>
#include <crlcache/reasons.h>

#include "fetcher.h"
#include "issuerid.h"
#include "name.h"
#include "store_int.h"

#define META_NEXT_ISSUER	"next_issuer_id"	/* writer's id counter */

static int
put_u32(MDB_txn *txn, MDB_dbi dbi, const void *key, size_t klen, uint32_t val)
{
	MDB_val k = { klen, (void *)key }, v;
	uint8_t be[4];

	crlc_put_u32(be, val);
	v.mv_size = sizeof(be);
	v.mv_data = be;
	return mdb_put(txn, dbi, &k, &v, 0);
}

/*
 * A dedicated CRL signer: a keyUsage without keyCertSign, so its key
 * issues no certificate (RFC 5280 4.2.1.3, 6.3.3 (f); PKITS 4.4.19).  Its
 * CRLs cover the certificates every key of the name issued.
 */
static int
crl_only_signer(X509 *signer)
{
	uint32_t ku = X509_get_key_usage(signer);

	return ku != UINT32_MAX && !(ku & KU_KEY_CERT_SIGN);
}

/*
 * The key number of signer's key under issuer id (format.h "key"),
 * registering it when new; 0 for a dedicated CRL signer.
 */
int
key_no_of(struct store *s, MDB_txn *txn, uint32_t id, X509 *signer,
    uint32_t *key_no)
{
	uint8_t kk[CRLC_ISSUER_ID_LEN + CRLC_HASH_LEN];
	uint8_t val[CRLC_KEY_NO_LEN + 1 + CRLC_SKI_MAX];
	const ASN1_OCTET_STRING *ski;
	const ASN1_BIT_STRING *spk;
	MDB_val k = { sizeof(kk), kk }, v;
	MDB_cursor *cur;
	unsigned int skilen = 0;
	int rc;

	*key_no = 0;
	if (crl_only_signer(signer))
		return 0;
	crlc_put_u32(kk, id);
	if (cert_key_hash(signer, kk + CRLC_ISSUER_ID_LEN) == -1)
		return EINVAL;
	rc = mdb_get(txn, s->key, &k, &v);
	if (rc == 0 && v.mv_size >= CRLC_KEY_NO_LEN) {
		*key_no = crlc_get_u32(v.mv_data);
		return 0;
	}
	if (rc != MDB_NOTFOUND)
		return rc != 0 ? rc : EINVAL;
	/* New: one more than the issuer's highest (keys are never removed). */
	*key_no = 1;
	if ((rc = mdb_cursor_open(txn, s->key, &cur)) != 0)
		return rc;
	k.mv_size = CRLC_ISSUER_ID_LEN;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0 &&
	    k.mv_size > CRLC_ISSUER_ID_LEN && crlc_get_u32(k.mv_data) == id;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
		if (v.mv_size >= CRLC_KEY_NO_LEN &&
		    crlc_get_u32(v.mv_data) >= *key_no)
			*key_no = crlc_get_u32(v.mv_data) + 1;
	mdb_cursor_close(cur);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return rc;
	if (*key_no == UINT32_MAX)
		return ENOSPC;
	crlc_put_u32(val, *key_no);
	/* Its subjectKeyIdentifier, else RFC 5280 4.2.1.2 method (1). */
	if ((ski = X509_get0_subject_key_id(signer)) != NULL &&
	    ASN1_STRING_length(ski) <= CRLC_SKI_MAX) {
		skilen = (unsigned)ASN1_STRING_length(ski);
		memcpy(val + CRLC_KEY_NO_LEN + 1, ASN1_STRING_get0_data(ski),
		    skilen);
	} else if ((spk = X509_get0_pubkey_bitstr(signer)) == NULL ||
	    !EVP_Digest(spk->data, (size_t)spk->length,
	    val + CRLC_KEY_NO_LEN + 1, &skilen, EVP_sha1(), NULL))
		return EINVAL;
	val[CRLC_KEY_NO_LEN] = (uint8_t)skilen;
	k.mv_size = sizeof(kk);
	k.mv_data = kk;
	v.mv_size = CRLC_KEY_NO_LEN + 1 + skilen;
	v.mv_data = val;
	return mdb_put(txn, s->key, &k, &v, 0);
}

/* The issuer id for the CRL's issuer, creating it and its aliases. */
int
issuer_id(struct store *s, MDB_txn *txn, const struct crl *c, uint32_t *id)
{
	uint8_t canon[CRLC_HASH_LEN], h[CRLC_HASH_LEN];
	MDB_val k = { sizeof(canon), canon }, v;
	MDB_val nk = { strlen(META_NEXT_ISSUER), META_NEXT_ISSUER };
	uint32_t next = 1;
	int rc;

	if (name_canon_hash(c->issuer_name, canon) == -1)
		return EINVAL;
	rc = mdb_get(txn, s->canon, &k, &v);
	if (rc == 0 && v.mv_size == CRLC_ISSUER_ID_LEN) {
		*id = crlc_get_u32(v.mv_data);
	} else if (rc == MDB_NOTFOUND) {
		if ((rc = mdb_get(txn, s->meta, &nk, &v)) == 0 && v.mv_size == 4)
			next = crlc_get_u32(v.mv_data);
		else if (rc != MDB_NOTFOUND)
			return rc;
		if (next == UINT32_MAX)
			return ENOSPC;
		*id = next;
		if ((rc = put_u32(txn, s->canon, canon, sizeof(canon), next)) != 0 ||
		    (rc = put_u32(txn, s->meta, META_NEXT_ISSUER,
		    strlen(META_NEXT_ISSUER), next + 1)) != 0)
			return rc;
	} else
		return rc != 0 ? rc : EINVAL;
	/* Both encodings of the issuer's name lead readers to this id. */
	if (name_der_hash(c->issuer_name, h) == -1 ||
	    (rc = put_u32(txn, s->alias, h, sizeof(h), *id)) != 0)
		return rc != 0 ? rc : EINVAL;
	if (name_der_hash(X509_get_subject_name(c->issuer), h) == -1 ||
	    (rc = put_u32(txn, s->alias, h, sizeof(h), *id)) != 0)
		return rc != 0 ? rc : EINVAL;
	return 0;
}

void
put_prefix(uint8_t prefix[CRLC_PREFIX_LEN], uint32_t id, uint32_t key_no)
{
	crlc_put_u32(prefix, id);
	crlc_put_u32(prefix + CRLC_ISSUER_ID_LEN, key_no);
}

/*
 * The "crl" key of a scope: prefix (issuer id || key number) || IDP name
 * || kind || reasons (format.h "crl", SCOPE KINDS, REASONS); kind its IDP
 * flags.
 */
int
scope_key(const uint8_t prefix[CRLC_PREFIX_LEN], const char *scope,
    unsigned reasons, unsigned kind, uint8_t *key, size_t *keylen)
{
	size_t slen = scope != NULL ? strlen(scope) : 0;
	size_t more = ((kind & CRLC_CRL_KIND) != 0 ? CRLC_SCOPE_KIND_LEN : 0) +
	    (reasons != CRLC_REASONS_ALL ? CRLC_REASONS_SUFFIX_LEN : 0);

	if (slen > CRLC_SCOPE_URI_MAX || CRLC_SCOPE_URI_MAX - slen < more)
		return -1;
	memcpy(key, prefix, CRLC_PREFIX_LEN);
	if (slen > 0)
		memcpy(key + CRLC_PREFIX_LEN, scope, slen);
	*keylen = CRLC_PREFIX_LEN + slen;
	*keylen += crlc_scope_put_kind(key + *keylen, kind);
	/* onlySomeReasons: then 00 || u16 mask */
	*keylen += crlc_scope_put_reasons(key + *keylen, reasons);
	return 0;
}

/*
 * The "crl" key of the scope: the issuer by its name's canonical form,
 * the key signer's (key number 0 when the index does not know it: a
 * dedicated CRL signer's), the IDP URI.
 */
int
store_scope_key(struct store *s, const X509_NAME *name, X509 *signer,
    const char *scope, unsigned reasons, unsigned kind, uint8_t *key,
    size_t *keylen)
{
	uint8_t canon[CRLC_HASH_LEN], kk[CRLC_ISSUER_ID_LEN + CRLC_HASH_LEN];
	uint8_t prefix[CRLC_PREFIX_LEN];
	MDB_txn *txn;
	MDB_val k = { CRLC_HASH_LEN, canon }, v;
	uint32_t id, key_no = 0;
	int ret = -1;

	*keylen = 0;
	if (name_canon_hash(name, canon) == -1 ||
	    cert_key_hash(signer, kk + CRLC_ISSUER_ID_LEN) == -1 ||
	    read_begin(s, &txn) != 0)
		return -1;
	if (mdb_get(txn, s->canon, &k, &v) == 0 && v.mv_size == 4) {
		id = crlc_get_u32(v.mv_data);
		crlc_put_u32(kk, id);
		k.mv_size = sizeof(kk);
		k.mv_data = kk;
		if (mdb_get(txn, s->key, &k, &v) == 0 &&
		    v.mv_size >= CRLC_KEY_NO_LEN)
			key_no = crlc_get_u32(v.mv_data);
		put_prefix(prefix, id, key_no);
		ret = scope_key(prefix, scope, reasons, kind, key, keylen);
	}
	read_end(s, txn);
	return ret;
}
