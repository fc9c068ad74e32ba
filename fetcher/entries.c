/*
 * The revocation entries of the working index (format.h "rev"): each
 * serial's records, one per scope that lists it, written from and
 * deleted by the entries of a scope's CRLs.
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

#include "fetcher.h"
#include "store.h"

#define REASON_REMOVE_FROM_CRL	8			/* RFC 5280 5.3.1 */

size_t
store_rev_key(const uint8_t prefix[CRLC_PREFIX_LEN], const uint8_t *serial,
    size_t len, uint8_t key[CRLC_PREFIX_LEN + CRLC_SERIAL_MAX])
{
	memcpy(key, prefix, CRLC_PREFIX_LEN);
	return CRLC_PREFIX_LEN + crlc_serial_key(serial, len,
	    key + CRLC_PREFIX_LEN);
}

/*
 * Set (rec: CRLC_REV_LEN - 2 bytes, date reason flags) or remove (rec
 * NULL) the record scope_no holds in one "rev" value (format.h), leaving
 * the other scopes' records alone.  *had says whether scope_no had one.
 */
#define REV_INLINE	8	/* records on the stack; more are rare */

static int
rev_set(struct store *s, MDB_txn *txn, const uint8_t *key, size_t klen,
    unsigned scope_no, const uint8_t *rec, int *had)
{
	uint8_t small[REV_INLINE * CRLC_REV_LEN], *buf = small;
	MDB_val k = { klen, (void *)key }, v;
	const uint8_t *r;
	size_t n = 0, i, out = 0;
	int rc;

	*had = 0;
	rc = mdb_get(txn, s->rev, &k, &v);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return rc;
	if (rc == 0) {
		if (v.mv_size % CRLC_REV_LEN != 0)
			return EINVAL;
		n = v.mv_size;
	}
	if (n + CRLC_REV_LEN > sizeof(small))
		buf = xcalloc(1, n + CRLC_REV_LEN);
	for (i = 0; i < n; i += CRLC_REV_LEN) {
		r = (const uint8_t *)v.mv_data + i;
		if (((unsigned)r[0] << 8 | r[1]) == scope_no) {
			*had = 1;
			continue;
		}
		memcpy(buf + out, r, CRLC_REV_LEN);
		out += CRLC_REV_LEN;
	}
	if (rec != NULL) {
		buf[out] = (uint8_t)(scope_no >> 8);
		buf[out + 1] = (uint8_t)scope_no;
		memcpy(buf + out + 2, rec, CRLC_REV_LEN - 2);
		out += CRLC_REV_LEN;
	}
	rc = 0;
	if (out == 0 && n > 0)
		rc = mdb_del(txn, s->rev, &k, NULL);
	else if (out > 0) {
		v.mv_size = out;
		v.mv_data = buf;
		rc = mdb_put(txn, s->rev, &k, &v, 0);
	}
	if (buf != small)
		free(buf);
	return rc;
}

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

/* The "rev" key of entry ref's serial under prefix (format.h "rev"). */
static size_t
ref_key(const uint8_t prefix[CRLC_PREFIX_LEN], const struct cert_issuers *ci,
    unsigned iss, const uint8_t *serial, size_t len,
    uint8_t key[CRLC_PREFIX_LEN + CRLC_SERIAL_MAX])
{
	_Static_assert(CRLC_FOREIGN_FORM_LEN <= CRLC_SERIAL_MAX,
	    "a foreign form fits a rev key");
	if (iss == 0)
		return store_rev_key(prefix, serial, len, key);
	memcpy(key, prefix, CRLC_PREFIX_LEN);
	crlc_foreign_form(ci->canon[iss], serial, len, key + CRLC_PREFIX_LEN);
	return CRLC_PREFIX_LEN + CRLC_FOREIGN_FORM_LEN;
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
 * One entry into the "rev" database as scope_no's record; *append: try
 * MDB_APPEND first (a key no record holds yet).
 */
static int
write_entry(struct store *s, MDB_txn *txn,
    const uint8_t prefix[CRLC_PREFIX_LEN], const struct cert_issuers *ci,
    unsigned iss, unsigned scope_no, const struct crlc_crl_entry *e,
    int delta, int *append, int64_t *count)
{
	uint8_t key[CRLC_PREFIX_LEN + CRLC_SERIAL_MAX], val[CRLC_REV_LEN];
	MDB_val k = { 0, key }, v = { sizeof(val), val };
	int rc, had;

	if (e->serial.len == 0)
		return EINVAL;
	k.mv_size = ref_key(prefix, ci, iss, e->serial.p, e->serial.len, key);
	if (delta && e->reason == REASON_REMOVE_FROM_CRL) {
		if ((rc = rev_set(s, txn, key, k.mv_size, scope_no, NULL,
		    &had)) == 0 && had)
			(*count)--;
		return rc;
	}
	val[0] = (uint8_t)(scope_no >> 8);
	val[1] = (uint8_t)scope_no;
	crlc_put_i64(val + 2, e->revoked_at);
	val[10] = e->reason == CRLC_CRL_REASON_NONE ? CRLC_REASON_NONE :
	    (uint8_t)e->reason;
	val[11] = delta ? CRLC_REV_DELTA : 0;
	if (*append) {
		if ((rc = mdb_put(txn, s->rev, &k, &v, MDB_APPEND)) == 0) {
			(*count)++;
			return 0;
		}
		if (rc != MDB_KEYEXIST)
			return rc;
		*append = 0;	/* a key at or after this one is held */
	}
	if ((rc = rev_set(s, txn, key, k.mv_size, scope_no, val + 2,
	    &had)) == 0 && !had)
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
 * The smallest revoked entry: SEQUENCE header (2), a one-octet INTEGER
 * (3), a UTCTime (15).  A CRL of len bytes lists at most len / this.
 */
#define ENTRY_DER_MIN	20

/*
 * The revoked entries of crl sorted by entry_ref_cmp into *out (the
 * caller frees it), *n of them, at most cap: a CRL lists at most
 * MAX_CRL_ENTRIES (checked before this, crl_verify), so this bounds the
 * array.  EINVAL: an entry is malformed.
 */
static int
entry_refs(struct wtxn *w, const struct crlc_crl *crl, size_t cap,
    struct entry_ref **out, size_t *n, struct cert_issuers *ci)
{
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
 * Delete scope_no's records of every serial a stored CRL lists (they may
 * be gone already); other scopes that list a serial keep theirs.  In key
 * order, like write_entries(): one pass over the "rev" pages, where CRL
 * order would dirty nearly every page of the scope in each transaction.
 */
int
delete_entries(struct wtxn *w, const uint8_t prefix[CRLC_PREFIX_LEN],
    unsigned scope_no, const uint8_t *der, size_t len)
{
	uint8_t key[CRLC_PREFIX_LEN + CRLC_SERIAL_MAX];
	struct cert_issuers *ci;
	struct entry_ref *refs;
	struct crlc_crl crl;
	const char *why;
	size_t i, n;
	int had, rc;

	if (len == 0)
		return 0;
	if (crlc_crl_parse_stored(der, len, &crl, &why) == -1)
		return EINVAL;
	ci = xcalloc(1, sizeof(*ci));
	if ((rc = entry_refs(w, &crl, crl.revoked.len / ENTRY_DER_MIN, &refs,
	    &n, ci)) != 0) {
		free(ci);
		return rc;
	}
	for (i = 0; i < n && rc == 0; i++)
		if ((rc = rev_set(w->s, w->txn, key, ref_key(prefix, ci,
		    REF_ISS(&refs[i]), crl.revoked.p + refs[i].at,
		    REF_LEN(&refs[i]), key), scope_no, NULL, &had)) == 0)
			rc = wtxn_step(w);
	free(refs);
	free(ci);
	return rc;
}

/* Does a "rev" value hold a record of scope_no? */
static int
rev_has(const MDB_val *v, unsigned scope_no)
{
	const uint8_t *r = v->mv_data;
	size_t i;

	for (i = 0; i + CRLC_REV_LEN <= v->mv_size; i += CRLC_REV_LEN)
		if (((unsigned)r[i] << 8 | r[i + 1]) == scope_no)
			return 1;
	return 0;
}

/*
 * Delete every record of scope_no under prefix, walking the prefix's
 * "rev" keys in order: each page is read once, and no stored CRL is read
 * (a large one's serials in key order lie all over it).  The walk also
 * passes the records of the issuer key's other scopes.
 */
int
drop_scope(struct wtxn *w, const uint8_t prefix[CRLC_PREFIX_LEN],
    unsigned scope_no)
{
	uint8_t at[CRLC_PREFIX_LEN + CRLC_SERIAL_MAX];
	size_t atlen = CRLC_PREFIX_LEN, seen = 0;
	MDB_cursor *cur = NULL;
	MDB_val k, v;
	int rc, had;

	memcpy(at, prefix, CRLC_PREFIX_LEN);
	for (;;) {
		if (cur != NULL)
			rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
		else if ((rc = mdb_cursor_open(w->txn, w->s->rev, &cur)) == 0) {
			k.mv_size = atlen;
			k.mv_data = at;
			rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
			/* at itself, when still held, is done */
			if (rc == 0 && k.mv_size == atlen &&
			    memcmp(k.mv_data, at, atlen) == 0)
				rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
		}
		if (rc == MDB_NOTFOUND || (rc == 0 &&
		    (k.mv_size < CRLC_PREFIX_LEN ||
		    memcmp(k.mv_data, prefix, CRLC_PREFIX_LEN) != 0))) {
			rc = 0;
			break;
		}
		if (rc != 0)
			break;
		if (++seen % MAP_DROP_EVERY == 0 && w->split)
			map_drop(w->s);
		if (!rev_has(&v, scope_no))
			continue;
		if (k.mv_size > sizeof(at)) {
			rc = EINVAL;
			break;
		}
		memcpy(at, k.mv_data, k.mv_size);
		atlen = k.mv_size;
		/* rev_set writes: reopen the cursor after it */
		mdb_cursor_close(cur);
		cur = NULL;
		if ((rc = rev_set(w->s, w->txn, at, atlen, scope_no, NULL,
		    &had)) != 0 || (rc = wtxn_step(w)) != 0)
			return rc;
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
	if ((rc = entry_refs(w, crl, crl->nrevoked, &refs, &n, ci)) != 0) {
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
int
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
