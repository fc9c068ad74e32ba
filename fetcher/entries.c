/*
 * The revocation entries of the working index (format.h "rev"): a
 * range per CRL scope, a record per serial it lists, written from the
 * entries of the scope's CRLs and dropped with the scope.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lmdb.h>

#include <crlcache/hash.h>
#include <crlcache/index.h>
#include <crlcache/name.h>

#include "entries.h"
#include "fetcher.h"
#include "store_int.h"

#define REASON_REMOVE_FROM_CRL	8			/* RFC 5280 5.3.1 */

void
store_rev_range(const uint8_t prefix[CRLC_PREFIX_LEN], unsigned scope_no,
    uint8_t key[CRLC_REV_SCOPE_LEN])
{
	memcpy(key, prefix, CRLC_PREFIX_LEN);
	key[CRLC_PREFIX_LEN] = (uint8_t)(scope_no >> 8);
	key[CRLC_PREFIX_LEN + 1] = (uint8_t)scope_no;
}

/* Longest "rev" key: the scope's range, then a serial form. */
#define REV_KEY_MAX	(CRLC_REV_SCOPE_LEN + CRLC_SERIAL_MAX)

/*
 * A revoked entry of the CRL being written, 8 bytes (a 20,000,000-entry
 * CRL sorts 160 MB of them): where its serial's content octets sit in the
 * revokedCertificates, their length (16 bits), the certificate issuer it
 * is about (8 bits: an index into struct cert_issuers, 0 for the CRL
 * issuer) and how many header bytes the entry has before them (8 bits:
 * two DER headers of at most 6).
 */
struct entry_ref {
	uint32_t	 at;
	uint32_t	 len_hdr;
};

/*
 * Longest serial the refs carry: RFC 5280 4.1.2.2 allows 20 octets; a
 * CRL with one of 64 KiB is refused as malformed.
 */
#define REF_SERIAL_MAX	0xffffu
#define REF_LEN(r)	((r)->len_hdr & REF_SERIAL_MAX)
#define REF_ISS(r)	(((r)->len_hdr >> 16) & 0xffu)
#define REF_HDR(r)	((r)->len_hdr >> 24)

struct cert_issuers {
	struct crlc_span issuer;	/* the CRL's issuer Name */
	uint8_t		 own[CRLC_HASH_LEN];	/* its canonical hash, once
						   an entry names an issuer */
	int		 own_known;
	size_t		 n;
	uint8_t		 canon[CERT_ISSUERS_MAX + 1][CRLC_HASH_LEN];
};

/*
 * The index in ci of the certificate issuer Name name (a Name TLV),
 * added when new; -1 and *rc when it cannot be.
 */
static int
cert_issuer_index(struct cert_issuers *ci, const struct crlc_span *name,
    int *rc)
{
	uint8_t h[CRLC_HASH_LEN];
	size_t i;

	if (crlc_name_canon_hash(name->p, name->len, h) == -1 ||
	    (!ci->own_known && crlc_name_canon_hash(ci->issuer.p,
	    ci->issuer.len, ci->own) == -1)) {
		*rc = EINVAL;
		return -1;
	}
	ci->own_known = 1;
	if (memcmp(h, ci->own, CRLC_HASH_LEN) == 0)
		return 0;
	for (i = 1; i <= ci->n; i++)
		if (memcmp(h, ci->canon[i], CRLC_HASH_LEN) == 0)
			return (int)i;
	if (ci->n == CERT_ISSUERS_MAX) {
		*rc = E2BIG;
		return -1;
	}
	memcpy(ci->canon[++ci->n], h, CRLC_HASH_LEN);
	return (int)ci->n;
}

/*
 * The "rev" key of a serial in scope_no under prefix (format.h "rev"):
 * the scope's range, then its serial form (certificate issuer iss: 0 the
 * CRL issuer's own).
 */
static size_t
ref_key(const uint8_t prefix[CRLC_PREFIX_LEN], unsigned scope_no,
    const struct cert_issuers *ci, unsigned iss, const uint8_t *serial,
    size_t len, uint8_t key[REV_KEY_MAX])
{
	_Static_assert(CRLC_FOREIGN_FORM_LEN <= CRLC_SERIAL_MAX,
	    "a foreign form fits a rev key");
	store_rev_range(prefix, scope_no, key);
	if (iss == 0)
		return CRLC_REV_SCOPE_LEN + crlc_serial_key(serial, len,
		    key + CRLC_REV_SCOPE_LEN);
	crlc_foreign_form(ci->canon[iss], serial, len,
	    key + CRLC_REV_SCOPE_LEN);
	return CRLC_REV_SCOPE_LEN + CRLC_FOREIGN_FORM_LEN;
}

/*
 * By certificate issuer, then LMDB's default key order (memcmp, then the
 * shorter first) of the serial forms, then CRL order.  A serial over
 * CRLC_SERIAL_MAX is keyed 00 00 || hash, before every other (a minimal
 * INTEGER never starts 00 00); among themselves such serials sort by
 * their bytes, not their hash, and merely end the appending
 * (write_entry), as the entries of other issuers do (their keys are
 * hashes).  arg: the revokedCertificates.
 */
static int
entry_ref_cmp(const void *a, const void *b, void *arg)
{
	const struct entry_ref *x = a, *y = b;
	const uint8_t *revoked = arg;
	uint32_t xn = REF_LEN(x), yn = REF_LEN(y);
	int xl = xn > CRLC_SERIAL_MAX, yl = yn > CRLC_SERIAL_MAX, c;

	if (REF_ISS(x) != REF_ISS(y))
		return REF_ISS(x) < REF_ISS(y) ? -1 : 1;
	if (xl != yl)
		return xl ? -1 : 1;
	c = memcmp(revoked + x->at, revoked + y->at, xn < yn ? xn : yn);
	if (c != 0)
		return c;
	if (xn != yn)
		return xn < yn ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * One entry into scope_no's range of "rev"; *append: try MDB_APPEND first
 * (a key after every key held).  *count: the entries the scope holds.
 */
static int
write_entry(struct store *s, MDB_txn *txn,
    const uint8_t prefix[CRLC_PREFIX_LEN], const struct cert_issuers *ci,
    unsigned iss, unsigned scope_no, const struct crlc_crl_entry *e,
    int delta, int *append, int64_t *count)
{
	uint8_t key[REV_KEY_MAX], val[CRLC_REV_LEN];
	MDB_val k = { 0, key }, v = { sizeof(val), val };
	int rc;

	if (e->serial.len == 0)
		return EINVAL;
	k.mv_size = ref_key(prefix, scope_no, ci, iss, e->serial.p,
	    e->serial.len, key);
	if (delta && e->reason == REASON_REMOVE_FROM_CRL) {
		if ((rc = mdb_del(txn, s->rev, &k, NULL)) == 0)
			(*count)--;
		return rc == MDB_NOTFOUND ? 0 : rc;
	}
	crlc_put_i64(val, e->revoked_at);
	val[8] = e->reason == CRLC_CRL_REASON_NONE ? CRLC_REASON_NONE :
	    (uint8_t)e->reason;
	val[9] = delta ? CRLC_REV_DELTA : 0;
	if (*append) {
		if ((rc = mdb_put(txn, s->rev, &k, &v, MDB_APPEND)) == 0) {
			(*count)++;
			return 0;
		}
		if (rc != MDB_KEYEXIST)
			return rc;
		*append = 0;	/* a key at or after this one is held */
	}
	/* Listed already (twice in a CRL, or by the base of a delta). */
	if ((rc = mdb_put(txn, s->rev, &k, &v, MDB_NOOVERWRITE)) ==
	    MDB_KEYEXIST)
		return mdb_put(txn, s->rev, &k, &v, 0);
	if (rc == 0)
		(*count)++;
	return rc;
}

/*
 * Where a stored CRL's entries are read again, in LMDB's map, a split
 * ingest lets go of the pages read every this many entries: they would
 * otherwise all be resident beside the CRL being ingested.
 */
#define MAP_DROP_EVERY	65536

/*
 * The revoked entries of crl sorted by entry_ref_cmp into *out (the
 * caller frees it), *n of them, at most the nrevoked its parse counted:
 * a CRL lists at most MAX_CRL_ENTRIES (checked before this, crl_verify),
 * so this bounds the array.  EINVAL: an entry is malformed.
 */
static int
entry_refs(struct wtxn *w, const struct crlc_crl *crl, struct entry_ref **out,
    size_t *n, struct cert_issuers *ci)
{
	size_t cap = crl->nrevoked;
	struct entry_ref *refs;
	struct crlc_crl_entry e;
	struct crlc_span rest = crl->revoked;
	const uint8_t *at;
	const char *why;
	int r, iss = 0, rc = EINVAL;

	*out = NULL;
	*n = 0;
	ci->n = 0;
	ci->own_known = 0;
	if (crl->revoked.len > UINT32_MAX)
		return EFBIG;
	ci->issuer = crl->issuer;
	/* calloc maps a large array: pages never written stay unmapped */
	refs = xcalloc(cap > 0 ? cap : 1, sizeof(*refs));
	for (;;) {
		at = rest.p;
		if ((r = crlc_crl_entry_next(&rest, &e, &why)) != 1)
			break;
		if (*n == cap || e.serial.len == 0 ||
		    e.serial.len > REF_SERIAL_MAX || e.serial.p - at > UINT8_MAX) {
			r = -1;
			break;
		}
		/* RFC 5280 5.3.3: it names this entry's and the next ones'
		   certificate issuer */
		if (e.cert_issuer.len > 0 &&
		    (iss = cert_issuer_index(ci, &e.cert_issuer, &rc)) == -1) {
			r = -1;
			break;
		}
		refs[*n].at = (uint32_t)(e.serial.p - crl->revoked.p);
		refs[*n].len_hdr = (uint32_t)(e.serial.p - at) << 24 |
		    (uint32_t)iss << 16 | (uint32_t)e.serial.len;
		if (++*n % MAP_DROP_EVERY == 0 && w->split)
			map_drop(w->s);
	}
	if (r == -1) {
		free(refs);
		*n = 0;
		return rc;
	}
	qsort_r(refs, *n, sizeof(*refs), entry_ref_cmp,
	    (void *)crl->revoked.p);
	*out = refs;
	return 0;
}

/*
 * Delete every record of scope_no under prefix: its range of "rev", in
 * key order, no stored CRL read.  A split ingest commits in between
 * (wtxn_step), which frees the cursor with its transaction.
 */
int
drop_scope(struct wtxn *w, const uint8_t prefix[CRLC_PREFIX_LEN],
    unsigned scope_no)
{
	uint8_t range[CRLC_REV_SCOPE_LEN];
	MDB_cursor *cur = NULL;
	MDB_val k, v;
	size_t seen = 0;
	int rc;

	store_rev_range(prefix, scope_no, range);
	for (;;) {
		if (cur == NULL &&
		    (rc = mdb_cursor_open(w->txn, w->s->rev, &cur)) != 0)
			return rc;
		k.mv_size = sizeof(range);
		k.mv_data = range;
		rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
		if (rc == MDB_NOTFOUND || (rc == 0 &&
		    (k.mv_size < sizeof(range) ||
		    memcmp(k.mv_data, range, sizeof(range)) != 0))) {
			rc = 0;
			break;
		}
		if (rc != 0 || (rc = mdb_cursor_del(cur, 0)) != 0)
			break;
		if (++seen % MAP_DROP_EVERY == 0 && w->split)
			map_drop(w->s);
		if ((rc = wtxn_step(w)) != 0)
			return rc;
		if (w->split && w->writes == 0)
			cur = NULL;	/* committed: freed with its txn */
	}
	mdb_cursor_close(cur);
	return rc;
}

/*
 * Write the entries of a CRL as scope_no's records under prefix.  A
 * delta's removeFromCRL entries delete that scope's record (RFC 5280
 * 5.2.4); *count tracks the entries the scope holds.
 *
 * They go in sorted by key, a serial listed twice keeping its last entry
 * as in CRL order.  While no held key comes after them -- the first CRL
 * of an issuer, whose new id is the highest -- they are appended, which
 * fills LMDB pages instead of splitting them half empty: for 1,000,000
 * random serials this halves the pages (and the write transaction's
 * memory) and the time.
 */
int
write_entries(struct wtxn *w, const uint8_t prefix[CRLC_PREFIX_LEN],
    unsigned scope_no, const struct crlc_crl *crl, int delta, int64_t *count)
{
	struct cert_issuers *ci;
	struct entry_ref *refs;
	struct crlc_crl_entry e;
	struct crlc_span one;
	const char *why;
	size_t i, n;
	int rc, append = 1;

	if (crl->nrevoked == 0)
		return 0;
	if (crl->nrevoked > MAX_CRL_ENTRIES)
		return EFBIG;
	ci = xcalloc(1, sizeof(*ci));
	if ((rc = entry_refs(w, crl, &refs, &n, ci)) != 0) {
		free(ci);
		return rc;
	}
	if (n != crl->nrevoked)
		rc = EINVAL;
	for (i = 0; i < n && rc == 0; i++) {
		one.p = crl->revoked.p + refs[i].at - REF_HDR(&refs[i]);
		one.len = crl->revoked.len - (refs[i].at - REF_HDR(&refs[i]));
		if (crlc_crl_entry_next(&one, &e, &why) != 1)
			rc = EINVAL;
		else if ((rc = write_entry(w->s, w->txn, prefix, ci,
		    REF_ISS(&refs[i]), scope_no, &e, delta, &append,
		    count)) == 0)
			rc = wtxn_step(w);
	}
	free(refs);
	free(ci);
	return rc;
}

/*
 * Write what a scope's complete CRL der and delta (may be empty) list as
 * scope_no's entries; *count is the number held.
 */
static int
write_scope_entries(struct wtxn *w, const uint8_t prefix[CRLC_PREFIX_LEN],
    unsigned scope_no, const struct crlc_span *der,
    const struct crlc_span *delta, int64_t *count)
{
	struct crlc_crl crl;
	const char *why;
	int rc;

	*count = 0;
	if (crlc_crl_parse(der->p, der->len, &crl, &why) == -1)
		return EINVAL;
	if ((rc = write_entries(w, prefix, scope_no, &crl, 0, count)) != 0 ||
	    delta->len == 0)
		return rc;
	if (crlc_crl_parse(delta->p, delta->len, &crl, &why) == -1)
		return EINVAL;
	return write_entries(w, prefix, scope_no, &crl, 1, count);
}

/*
 * Make the "rev" records of the scope a split ingest left pending
 * (struct wtxn) those of its "crl" record again: delete every record of
 * its scope number under its prefix, write the entries of the record,
 * if there is one (there is none when the ingest was the scope's first),
 * and remove CRLC_META_PENDING.  In the caller's transaction.
 */
int
recover_pending(struct store *s, MDB_txn *txn)
{
	MDB_val pk = { strlen(CRLC_META_PENDING), CRLC_META_PENDING };
	MDB_val k, v;
	struct crlc_crl_info ci;
	uint8_t key[CRLC_KEY_MAX];
	size_t keylen;
	unsigned scope_no;
	int64_t count;
	int rc;

	if ((rc = mdb_get(txn, s->meta, &pk, &v)) != 0)
		return rc == MDB_NOTFOUND ? 0 : rc;
	if (v.mv_size < 2 + CRLC_PREFIX_LEN || v.mv_size > 2 + CRLC_KEY_MAX)
		return EINVAL;
	scope_no = (unsigned)((const uint8_t *)v.mv_data)[0] << 8 |
	    ((const uint8_t *)v.mv_data)[1];
	keylen = v.mv_size - 2;
	memcpy(key, (const uint8_t *)v.mv_data + 2, keylen);
	if ((rc = drop_scope(ONE_TXN(s, txn), key, scope_no)) != 0)
		return rc;
	k.mv_size = keylen;
	k.mv_data = key;
	rc = mdb_get(txn, s->crl, &k, &v);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return rc;
	if (rc == 0 && (crlc_crl_decode(key, keylen, v.mv_data, v.mv_size,
	    &ci) == -1 || ci.scope_no != scope_no))
		return EINVAL;
	if (rc == 0 && (rc = write_scope_entries(ONE_TXN(s, txn), key,
	    scope_no, &ci.der, &ci.delta, &count)) != 0)
		return rc;
	return mdb_del(txn, s->meta, &pk, NULL);
}
