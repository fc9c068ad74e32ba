/*
 * Working indexes older versions wrote, brought to the current format
 * (format.h VERSIONS): format 1 records moved to their signer's key,
 * the "crlhash" records of format 2, the "rev" ranges of format 3,
 * source records keyed by a URL with its userinfo.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lmdb.h>
#include <openssl/err.h>
#include <openssl/x509.h>

#include <crlcache/index.h>

#include "fetcher.h"
#include "store.h"

/*
 * Source records older versions keyed by a URL with its userinfo move to
 * the redacted key (the record already there, if any, wins).
 */
int
redact_source_keys(MDB_txn *txn, MDB_dbi dbi)
{
	struct strlist old = { NULL, 0 };
	MDB_cursor *cur;
	MDB_val k, v;
	char *key, *red;
	size_t i;
	int rc;

	if ((rc = mdb_cursor_open(txn, dbi, &cur)) != 0)
		return rc;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (memchr(k.mv_data, '@', k.mv_size) == NULL ||
		    memchr(k.mv_data, '\0', k.mv_size) != NULL)
			continue;
		key = xcalloc(1, k.mv_size + 1);
		memcpy(key, k.mv_data, k.mv_size);
		red = redact_userinfo(key);
		if (strcmp(red, key) != 0)
			strlist_add(&old, key);
		free(red);
		free(key);
	}
	mdb_cursor_close(cur);
	rc = rc == MDB_NOTFOUND ? 0 : rc;
	for (i = 0; i < old.n && rc == 0; i++) {
		uint8_t *copy;
		MDB_val nk;

		k.mv_size = strlen(old.v[i]);
		k.mv_data = old.v[i];
		if ((rc = mdb_get(txn, dbi, &k, &v)) != 0)
			break;
		copy = xcalloc(1, v.mv_size + 1);
		memcpy(copy, v.mv_data, v.mv_size);
		v.mv_data = copy;
		red = redact_userinfo(old.v[i]);
		nk.mv_size = strlen(red);
		nk.mv_data = red;
		/* A key redaction makes too long is dropped: state only. */
		rc = nk.mv_size > CRLC_KEY_MAX ? 0 :
		    mdb_put(txn, dbi, &nk, &v, MDB_NOOVERWRITE);
		if (rc == MDB_KEYEXIST)
			rc = 0;
		if (rc == 0)
			rc = mdb_del(txn, dbi, &k, NULL);
		free(red);
		free(copy);
	}
	strlist_free(&old);
	return rc;
}

/*
 * The first "crl" record at or after key last (the first of all when
 * lastlen is 0) that want takes (any, want NULL), into k and v: 0, or
 * MDB_NOTFOUND, or an LMDB error.  A cursor of its own: the caller
 * writes between the calls.  The records passed over are let go of in
 * the map (map_read).
 */
static int
crl_from(struct store *s, MDB_txn *txn, uint8_t *last, size_t lastlen,
    int (*want)(const MDB_val *, const MDB_val *), MDB_val *k, MDB_val *v)
{
	MDB_cursor *cur;
	int rc;

	if ((rc = mdb_cursor_open(txn, s->crl, &cur)) != 0)
		return rc;
	k->mv_size = lastlen;
	k->mv_data = last;
	rc = mdb_cursor_get(cur, k, v, lastlen > 0 ? MDB_SET_RANGE : MDB_FIRST);
	while (rc == 0 && want != NULL && !want(k, v)) {
		map_read(s);
		rc = mdb_cursor_get(cur, k, v, MDB_NEXT);
	}
	mdb_cursor_close(cur);
	return rc;
}

/* A "crl" record of format 1 (record version 1). */
static int
record_v1(const MDB_val *k, const MDB_val *v)
{
	(void)k;
	return v->mv_size >= 1 && *(const uint8_t *)v->mv_data == 1;
}

/*
 * Format 1 to 2 (format.h VERSIONS), in the caller's transaction: every
 * "crl" record moves to key number 0 of its issuer with a scope number of
 * its own, and "rev" is written anew from the stored CRLs, one record per
 * scope.  One record in memory at a time; new records (version 2) sort
 * after, or are skipped by, the walk over the old ones.
 */
int
migrate_v1(struct store *s, MDB_txn *txn)
{
	uint8_t last[CRLC_KEY_MAX + 1], key[CRLC_KEY_MAX];
	uint8_t prefix[CRLC_PREFIX_LEN], *copy;
	struct crlc_crl_info ci;
	MDB_val k, v;
	size_t lastlen = 0, keylen;
	int64_t count;
	int rc;

	if ((rc = mdb_drop(txn, s->rev, 0)) != 0)
		return rc;
	for (;;) {
		if ((rc = crl_from(s, txn, last, lastlen, record_v1, &k,
		    &v)) != 0)
			return rc == MDB_NOTFOUND ? 0 : rc;
		if (k.mv_size > CRLC_KEY_MAX)
			return EINVAL;
		memcpy(last, k.mv_data, k.mv_size);
		lastlen = k.mv_size;
		copy = xcalloc(1, v.mv_size);
		memcpy(copy, v.mv_data, v.mv_size);
		rc = crlc_crl_decode(last, lastlen, copy, v.mv_size, &ci) == -1 ?
		    EINVAL : 0;
		put_prefix(prefix, ci.issuer_id, 0);
		if (rc == 0 && ci.scope.len > CRLC_SCOPE_URI_MAX)
			rc = EINVAL;
		if (rc == 0) {
			memcpy(key, prefix, CRLC_PREFIX_LEN);
			memcpy(key + CRLC_PREFIX_LEN, ci.scope.p, ci.scope.len);
			keylen = CRLC_PREFIX_LEN + ci.scope.len;
			rc = next_scope_no(s, txn, prefix, &ci.scope_no);
		}
		if (rc == 0)
			rc = write_scope_entries(ONE_TXN(s, txn), prefix,
			    ci.scope_no, &ci.der, &ci.delta, &count);
		if (rc == 0) {
			ci.entries = count < 0 ? 0 : (uint32_t)count;
			k.mv_size = lastlen;
			k.mv_data = last;
			if ((rc = del_scope(s, txn, &k)) == 0)
				rc = put_scope(s, txn, key, keylen, &ci, 0);
		}
		free(copy);
		if (rc != 0)
			return rc;
	}
}

/*
 * Work format 2 -> 3: the "crlhash" record of every "crl" record, each
 * read in place (LMDB's map: nothing is copied, and the pages read are
 * clean pages of the file, which the kernel may take back).
 */
int
hash_crls(struct store *s, MDB_txn *txn)
{
	struct crlc_crl_info ci;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc;

	if ((rc = mdb_cursor_open(txn, s->crl, &cur)) != 0)
		return rc;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (crlc_crl_decode(k.mv_data, k.mv_size, v.mv_data, v.mv_size,
		    &ci) == -1) {
			rc = EINVAL;
			break;
		}
		if ((rc = put_crl_hash(s, txn, &k, &ci)) != 0)
			break;
		map_read(s);
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

/*
 * Work format 3 -> 4, when CRLC_META_REV_REBUILD is set: "rev" written
 * anew from the stored CRLs of every "crl" record, a range per scope, in
 * transactions of about INGEST_CHUNK writes (a CRL's own at least): in
 * one, the dirty pages of every entry held (4,200,000 at Web PKI scale)
 * were 550 MB of memory.  Killed half way, the flag stays and the next
 * writer starts over.
 */
int
rebuild_rev(struct store *s)
{
	MDB_val fk = { strlen(CRLC_META_REV_REBUILD), CRLC_META_REV_REBUILD };
	uint8_t last[CRLC_KEY_MAX + 1];
	size_t lastlen = 0, writes = 0;
	struct crlc_crl_info ci;
	MDB_txn *txn;
	MDB_val k, v;
	int64_t count;
	int rc;

	if ((rc = mdb_txn_begin(s->env, NULL, 0, &txn)) != 0)
		return rc;
	if ((rc = mdb_drop(txn, s->rev, 0)) != 0)
		goto fail;
	for (;;) {
		rc = crl_from(s, txn, last, lastlen, NULL, &k, &v);
		if (rc == MDB_NOTFOUND)
			break;
		if (rc == 0 && k.mv_size > CRLC_KEY_MAX)
			rc = EINVAL;
		if (rc != 0)
			goto fail;
		memcpy(last, k.mv_data, k.mv_size);
		lastlen = k.mv_size;
		if (crlc_crl_decode(last, lastlen, v.mv_data, v.mv_size,
		    &ci) == -1) {
			rc = EINVAL;
			goto fail;
		}
		if ((rc = write_scope_entries(ONE_TXN(s, txn), last, ci.scope_no,
		    &ci.der, &ci.delta, &count)) != 0)
			goto fail;
		/* The smallest key after last: last || 00. */
		last[lastlen++] = 0;
		map_read(s);
		if ((writes += (count > 0 ? (size_t)count : 0) + 1) < INGEST_CHUNK)
			continue;
		writes = 0;
		if ((rc = mdb_txn_commit(txn)) != 0)
			return rc;
		map_drop(s);
		if ((rc = mdb_txn_begin(s->env, NULL, 0, &txn)) != 0)
			return rc;
	}
	if ((rc = mdb_del(txn, s->meta, &fk, NULL)) != 0)
		goto fail;
	return mdb_txn_commit(txn);
fail:
	mdb_txn_abort(txn);
	return rc;
}

static X509_CRL *
crl_from_der(const uint8_t *der, size_t len)
{
	const unsigned char *p = der;

	return len == 0 ? NULL : d2i_X509_CRL(NULL, &p, (long)len);
}

/*
 * Is this "crl" record one a format 1 index left (key number 0)?  The key
 * first: reading the value of every record, the CRL, would map all of
 * them into the process (190 MB for 16,000 CRLs, each run).
 */
static int
is_legacy(const MDB_val *k, const MDB_val *v)
{
	const uint8_t *h = v->mv_data;

	return k->mv_size >= CRLC_PREFIX_LEN &&
	    crlc_get_u32((const uint8_t *)k->mv_data + CRLC_ISSUER_ID_LEN) == 0 &&
	    v->mv_size >= CRLC_CRL_HDR_LEN && h[0] == CRLC_CRL_RECORD_VERSION;
}

/*
 * Move one key-0 record to the key of the certificate in t that verifies
 * its CRL: 1 moved, 0 no such certificate (kept), else an LMDB error.
 */
static int
adopt_one(struct store *s, MDB_txn *txn, const struct trust *t,
    const uint8_t *key, size_t keylen, const MDB_val *val)
{
	uint8_t nkey[CRLC_KEY_MAX], prefix[CRLC_PREFIX_LEN], *copy;
	STACK_OF(X509) *cands = NULL;
	struct crlc_crl_info ci;
	X509_CRL *x = NULL;
	X509 *signer = NULL;
	MDB_val k = { keylen, (void *)key }, v;
	uint32_t key_no;
	int64_t count;
	int i, rc = 0;

	copy = xcalloc(1, val->mv_size);
	memcpy(copy, val->mv_data, val->mv_size);
	if (crlc_crl_decode(key, keylen, copy, val->mv_size, &ci) == -1 ||
	    (x = crl_from_der(ci.der.p, ci.der.len)) == NULL ||
	    (cands = trust_candidates(t, X509_CRL_get_issuer(x))) == NULL)
		goto done;
	for (i = 0; i < sk_X509_num(cands) && signer == NULL; i++)
		if (X509_CRL_verify(x, X509_get0_pubkey(sk_X509_value(cands,
		    i))) > 0)
			signer = sk_X509_value(cands, i);
	ERR_clear_error();
	if (signer == NULL)
		goto done;
	if ((rc = key_no_of(s, txn, ci.issuer_id, signer, &key_no)) != 0 ||
	    key_no == 0)
		goto done;	/* a dedicated CRL signer's: where it belongs */
	if ((rc = drop_scope(ONE_TXN(s, txn), key, ci.scope_no)) != 0 ||
	    (rc = del_scope(s, txn, &k)) != 0)
		goto done;
	put_prefix(prefix, ci.issuer_id, key_no);
	memcpy(nkey, prefix, CRLC_PREFIX_LEN);
	memcpy(nkey + CRLC_PREFIX_LEN, ci.scope.p, ci.scope.len);
	k.mv_size = CRLC_PREFIX_LEN + ci.scope.len;
	k.mv_data = nkey;
	/* A record the key already has is newer than the format 1 one. */
	rc = mdb_get(txn, s->crl, &k, &v);
	if (rc == 0 || rc != MDB_NOTFOUND)
		goto moved;
	if ((rc = next_scope_no(s, txn, prefix, &ci.scope_no)) != 0 ||
	    (rc = write_scope_entries(ONE_TXN(s, txn), prefix, ci.scope_no,
	    &ci.der, &ci.delta, &count)) != 0)
		goto done;
	ci.entries = count < 0 ? 0 : (uint32_t)count;
	rc = put_scope(s, txn, nkey, k.mv_size, &ci, 0);
moved:
	if (rc == 0)
		rc = 1;
done:
	sk_X509_pop_free(cands, X509_free);
	X509_CRL_free(x);
	free(copy);
	return rc;
}

int
store_adopt_legacy(struct store *s, const struct trust *t)
{
	uint8_t last[CRLC_KEY_MAX + 1];
	size_t lastlen = 0, moved = 0, kept = 0;
	MDB_txn *txn;
	MDB_val k, v;
	int rc;

	if (batch_end(s) != 0 || mdb_txn_begin(s->env, NULL, 0, &txn) != 0)
		return -1;
	for (;;) {
		rc = crl_from(s, txn, last, lastlen, is_legacy, &k, &v);
		if (rc != 0 || k.mv_size > CRLC_KEY_MAX)
			break;
		memcpy(last, k.mv_data, k.mv_size);
		lastlen = k.mv_size;
		if ((rc = adopt_one(s, txn, t, last, lastlen, &v)) < 0 || rc > 1)
			break;
		*(rc == 1 ? &moved : &kept) += 1;
		/* The smallest key after last: last || 00. */
		last[lastlen++] = 0;
	}
	if ((rc != MDB_NOTFOUND && rc != 0) || moved == 0) {
		mdb_txn_abort(txn);
		if (rc != MDB_NOTFOUND && rc != 0)
			return -1;
	} else if (mdb_txn_commit(txn) != 0)
		return -1;
	if (moved > 0)
		s->dirty = 1;
	if (moved + kept > 0)
		logx(1, "format 1 CRL records: %zu moved to their signer's key, "
		    "%zu kept under the issuer name (signed by a dedicated CRL "
		    "signer, or by no configured certificate)", moved, kept);
	return 0;
}
