/*
 * Scopes of the working index (format.h "crl", "crlhash"): the record of
 * what one issuer key's CRL for one distribution point holds, whether a
 * new CRL may replace it (RFC 5280 5.2.3 CRL numbers, 5.2.4 delta CRLs),
 * its ingest, and its reset.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lmdb.h>
#include <openssl/x509.h>

#include <crlcache/index.h>
#include <crlcache/reasons.h>

#include "scopehash.h"
#include "fetcher.h"
#include "issuerid.h"
#include "scope.h"
#include "store.h"
#include "store_int.h"

/* A scope number not yet used among the "crl" records under prefix. */
static int
next_scope_no(struct store *s, MDB_txn *txn,
    const uint8_t prefix[CRLC_PREFIX_LEN], unsigned *scope_no)
{
	struct crlc_crl_info ci;
	MDB_cursor *cur;
	MDB_val k = { CRLC_PREFIX_LEN, (void *)prefix }, v;
	int rc;

	*scope_no = 1;
	if ((rc = mdb_cursor_open(txn, s->crl, &cur)) != 0)
		return rc;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0 &&
	    k.mv_size >= CRLC_PREFIX_LEN &&
	    memcmp(k.mv_data, prefix, CRLC_PREFIX_LEN) == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
		if (crlc_crl_decode(k.mv_data, k.mv_size, v.mv_data, v.mv_size,
		    &ci) == 0 && ci.scope_no >= *scope_no)
			*scope_no = ci.scope_no + 1;
	mdb_cursor_close(cur);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return rc;
	return *scope_no > CRLC_SCOPE_NO_MAX ? ENOSPC : 0;
}

/*
 * Copy a signed CRL into the "crl" record.  consume: the source is the
 * ingest's own (the received body, or LMDB's map), let go as it is
 * copied, so that the body and LMDB's dirty copy of it are not both
 * resident.
 */
#define COPY_STEP	((size_t)1 << 20)

static void
copy_body(uint8_t *to, const uint8_t *from, size_t len, int consume)
{
	size_t done, n;

	for (done = 0; done < len; done += n) {
		n = len - done < COPY_STEP ? len - done : COPY_STEP;
		memcpy(to + done, from + done, n);
		if (consume)
			pages_release(from, done + n);
	}
}

/* Store the "crlhash" record of the "crl" record key, for r. */
static int
put_crl_hash(struct store *s, MDB_txn *txn, const MDB_val *k,
    const struct crlc_crl_info *r)
{
	uint8_t hash[CRLC_HASH_LEN];
	MDB_val v = { sizeof(hash), hash };

	crl_record_hash(r, hash);
	return mdb_put(txn, s->crlhash, (MDB_val *)k, &v, 0);
}

/* Remove a "crl" record and its "crlhash" record together. */
static int
del_scope(struct store *s, MDB_txn *txn, MDB_val *k)
{
	int rc;

	if ((rc = mdb_del(txn, s->crl, k, NULL)) != 0)
		return rc;
	rc = mdb_del(txn, s->crlhash, k, NULL);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

/*
 * Serialise the "crl" record (format.h) straight into the space LMDB
 * reserves for it: the signed CRL it carries is not copied twice.  Its
 * "crlhash" record first, while the CRL is still whole (consume).
 */
static int
put_scope(struct store *s, MDB_txn *txn, const uint8_t *key, size_t keylen,
    const struct crlc_crl_info *r, int consume)
{
	MDB_val k = { keylen, (void *)key }, v;
	uint8_t *h;
	int rc;

	v.mv_size = CRLC_CRL_HDR_LEN + r->source.len + r->der.len + r->delta.len;
	if (r->der.len > UINT32_MAX || r->delta.len > UINT32_MAX)
		return EFBIG;
	if ((rc = put_crl_hash(s, txn, &k, r)) != 0 ||
	    (rc = mdb_put(txn, s->crl, &k, &v, MDB_RESERVE)) != 0)
		return rc;
	h = v.mv_data;
	memset(h, 0, CRLC_CRL_HDR_LEN);
	h[0] = CRLC_CRL_RECORD_VERSION;
	h[1] = (uint8_t)r->flags;
	h[2] = (uint8_t)(r->scope_no >> 8);
	h[3] = (uint8_t)r->scope_no;
	crlc_put_u32(h + 4, r->entries);
	crlc_put_i64(h + 8, r->this_update);
	crlc_put_i64(h + 16, r->next_update);
	crlc_put_i64(h + 24, r->fetched_at);
	crlc_put_i64(h + 32, r->delta_this_update);
	crlc_put_i64(h + 40, r->delta_next_update);
	h[48] = (uint8_t)r->number.len;
	h[70] = (uint8_t)r->base.len;
	crlc_put_u32(h + 92, (uint32_t)r->source.len);
	crlc_put_u32(h + 96, (uint32_t)r->der.len);
	crlc_put_u32(h + 100, (uint32_t)r->delta.len);
	/* An absent part is an empty span whose pointer may be NULL. */
	if (r->number.len > 0)
		memcpy(h + 49, r->number.p, r->number.len);
	if (r->base.len > 0)
		memcpy(h + 71, r->base.p, r->base.len);
	if (r->source.len > 0)
		memcpy(h + CRLC_CRL_HDR_LEN, r->source.p, r->source.len);
	if (r->der.len > 0)
		copy_body(h + CRLC_CRL_HDR_LEN + r->source.len, r->der.p,
		    r->der.len, consume);
	if (r->delta.len > 0)
		copy_body(h + CRLC_CRL_HDR_LEN + r->source.len + r->der.len,
		    r->delta.p, r->delta.len, consume);
	return 0;
}

/*
 * Does [p, p + len) lie in LMDB's map?  A record the batch (BATCH) wrote
 * is in a dirty page, memory of the process, which madvise would zero.
 */
static int
in_map(const struct store *s, const uint8_t *p, size_t len)
{
	uintptr_t a = (uintptr_t)p;

	return s->map_hi != 0 && a >= s->map_lo && a <= s->map_hi &&
	    len <= s->map_hi - a;
}

/*
 * Are a and held the same bytes?  release: held is in LMDB's map (in_map),
 * and its pages are let go as they are compared: with the received body,
 * both would be resident.
 */
static int
same_bytes(const uint8_t *a, const uint8_t *held, size_t len, int release)
{
	size_t done, n;

	for (done = 0; done < len; done += n) {
		n = len - done < COPY_STEP ? len - done : COPY_STEP;
		if (memcmp(a + done, held + done, n) != 0)
			return 0;
		if (release)
			pages_release(held, done + n);
	}
	return 1;
}

/*
 * Decide whether c may replace what the scope holds (RFC 5280 5.2.3:
 * CRL numbers increase monotonically; 5.2.4: a delta applies onto a
 * complete CRL whose number is at least the delta's BaseCRLNumber).
 * Returns 1 to apply, 0 when c is what we already hold, -1 to reject.
 * Long: each rule and its message side by side.
 */
static int
admissible(const struct store *s, const struct crl *c,
    const struct crlc_crl_info *old, int have, char *err, size_t errlen)
{
	const uint8_t *held = have ? old->number.p : NULL;
	size_t heldlen = have ? old->number.len : 0;
	int cmp;

	if (c->is_delta) {
		/* The scope key holds the IDP name, kind and reasons: the
		   base found has the delta's (RFC 5280 5.2.4, 5.2.5) */
		if (!have || numcmp(old->base.p, old->base.len, c->base, c->baselen) < 0) {
			snprintf(err, errlen, "delta CRL needs base CRL number >= its "
			    "BaseCRLNumber, with the same scope%s, which is not "
			    "held (RFC 5280 5.2.4; a scope is the IDP name, "
			    "onlyContainsUserCerts, onlyContainsCACerts and "
			    "indirectCRL, 5.2.5)", c->reasons != CRLC_REASONS_ALL ?
			    " and onlySomeReasons (5.2.5)" : "");
			return -1;
		}
		cmp = numcmp(c->number, c->numlen, held, heldlen);
		if (cmp == 0 && c->this_update == old->delta_this_update)
			return 0;
		if (cmp <= 0) {
			snprintf(err, errlen, "rollback: delta CRL number is not newer "
			    "than the one held");
			return -1;
		}
		return 1;
	}
	if (!have)
		return 1;
	/*
	 * The complete CRL held, delivered again (a server without
	 * conditional GET): with a delta applied its number is below the
	 * delta's, as complete and delta CRLs share one sequence (5.2.3).
	 */
	if (c->derlen == old->der.len && same_bytes(c->der, old->der.p,
	    c->derlen, in_map(s, old->der.p, old->der.len)))
		return 0;
	/* Unnumbered after numbered: see read_numbers() in crl.c */
	if (c->numlen == 0 && old->number.len > 0) {
		snprintf(err, errlen, "%s CRL without cRLNumber where a numbered "
		    "CRL is held (RFC 5280 5.2.3; `crlcache reset` clears the "
		    "scope)", c->p.version == 1 ? "v1" : "v2");
		return -1;
	}
	if (c->numlen > 0 && old->number.len > 0) {
		cmp = numcmp(c->number, c->numlen, held, heldlen);
		if (cmp < 0) {
			snprintf(err, errlen, "rollback: CRL number is older than the "
			    "one held");
			return -1;
		}
		if (cmp == 0 && !(old->flags & CRLC_CRL_HAS_DELTA)) {
			snprintf(err, errlen, "CRL number reused with different "
			    "content (RFC 5280 5.2.3)");
			return -1;
		}
	}
	if (c->this_update < old->this_update) {
		snprintf(err, errlen, "rollback: thisUpdate is older than the one held");
		return -1;
	}
	return 1;
}

/*
 * An earlier writer keyed a scope by IDP name and reasons only, its kind
 * a flag of the record (format.h SCOPE KINDS): the record under the key
 * of c's name and reasons without a kind may be of any kind, and c would
 * take it for its predecessor.  So before c is compared with anything, a
 * record of a kind there moves, value and "crlhash" alike (its scope
 * number, so its "rev" records, stay), to its kind's key -- or, when that
 * key already holds a CRL (this writer's, a later one), is removed with
 * its entries.  In c's transaction: undone with c's ingest.  0 or an LMDB
 * error.
 */
static int
settle_unkinded(struct store *s, MDB_txn *txn,
    const uint8_t prefix[CRLC_PREFIX_LEN], const struct crl *c)
{
	uint8_t from[CRLC_KEY_MAX], to[CRLC_KEY_MAX], *copy;
	size_t fromlen, tolen;
	struct crlc_crl_info old;
	MDB_val k, v, tk, tv;
	int rc;

	if (scope_key(prefix, c->scope, c->reasons, 0, from, &fromlen) == -1)
		return 0;	/* nothing that long is held */
	k = (MDB_val){ fromlen, from };
	if ((rc = mdb_get(txn, s->crl, &k, &v)) != 0)
		return rc == MDB_NOTFOUND ? 0 : rc;
	if (crlc_crl_decode(from, fromlen, v.mv_data, v.mv_size, &old) == -1 ||
	    (old.flags & CRLC_CRL_KIND) == 0)
		return 0;	/* the kind of the key, or ingest_txn's to judge */
	if (scope_key(prefix, c->scope, c->reasons, old.flags, to,
	    &tolen) == -1)
		tolen = 0;	/* too long with its kind: not kept */
	tk = (MDB_val){ tolen, to };
	rc = tolen == 0 ? 0 : mdb_get(txn, s->crl, &tk, &tv);
	if (rc == 0)
		return (rc = drop_scope(ONE_TXN(s, txn), prefix,
		    old.scope_no)) != 0 ? rc : del_scope(s, txn, &k);
	if (rc != MDB_NOTFOUND)
		return rc;
	/* a copy: the map's may move under the put */
	copy = xcalloc(1, v.mv_size);
	memcpy(copy, v.mv_data, v.mv_size);
	tv = (MDB_val){ v.mv_size, copy };
	(void)crlc_crl_decode(to, tolen, copy, tv.mv_size, &old); /* as above */
	if ((rc = put_crl_hash(s, txn, &tk, &old)) == 0 &&
	    (rc = mdb_put(txn, s->crl, &tk, &tv, 0)) == 0)
		rc = del_scope(s, txn, &k);
	free(copy);
	return rc;
}

/* Where a CRL goes: its scope, and the record held for it. */
struct scope_at {
	uint8_t			 key[CRLC_KEY_MAX], prefix[CRLC_PREFIX_LEN];
	size_t			 keylen;
	/*
	 * The held record is read in LMDB's map, not copied (it holds a
	 * whole signed CRL): it stays committed and unchanged, its pages
	 * in use, until the last transaction replaces it.
	 */
	struct crlc_crl_info	 old;
	int			 have;
	unsigned		 scope_no;
};

/*
 * c's scope in w, and whether c may replace what it holds: 0 to go on,
 * -1 with *res what the ingest ends with.
 */
static int
scope_find(struct store *s, struct wtxn *w, const struct crl *c,
    struct scope_at *at, int *res, char *err, size_t errlen)
{
	uint32_t id = 0, key_no = 0;
	MDB_val k, v;
	int rc, ok;

	*res = INGEST_FAILED;
	if ((rc = issuer_id(s, w->txn, c, &id)) != 0 ||
	    (rc = key_no_of(s, w->txn, id, c->issuer, &key_no)) != 0) {
		lmdb_err(err, errlen, "issuer id", rc);
		return -1;
	}
	put_prefix(at->prefix, id, key_no);
	if (scope_key(at->prefix, c->scope, c->reasons, c->idp_flags, at->key,
	    &at->keylen) == -1) {
		snprintf(err, errlen, "IDP URI too long");
		return -1;
	}
	if ((rc = settle_unkinded(s, w->txn, at->prefix, c)) != 0) {
		lmdb_err(err, errlen, "rekey scope", rc);
		return -1;
	}
	k.mv_size = at->keylen;
	k.mv_data = at->key;
	rc = mdb_get(w->txn, s->crl, &k, &v);
	if (rc != 0 && rc != MDB_NOTFOUND) {
		lmdb_err(err, errlen, "read scope", rc);
		return -1;
	}
	at->have = rc == 0;
	if (at->have && crlc_crl_decode(k.mv_data, k.mv_size, v.mv_data,
	    v.mv_size, &at->old) == -1) {
		snprintf(err, errlen, "index: stored CRL record is corrupt");
		return -1;
	}
	if ((ok = admissible(s, c, &at->old, at->have, err, errlen)) <= 0) {
		*res = ok < 0 ? INGEST_FAILED : INGEST_UNCHANGED;
		return -1;
	}
	if (at->have)
		at->scope_no = at->old.scope_no;
	else if ((rc = next_scope_no(s, w->txn, at->prefix,
	    &at->scope_no)) != 0) {
		lmdb_err(err, errlen, "scope number", rc);
		return -1;
	}
	return 0;
}

/*
 * The "crl" record c makes of at's (its source not yet set); a delta's
 * base parsed into *base.  -1 when the held base cannot be read.
 */
static int
record_of(const struct crl *c, const struct scope_at *at,
    struct crlc_crl_info *rec, struct crlc_crl *base, char *err,
    size_t errlen)
{
	const char *why;

	memset(rec, 0, sizeof(*rec));
	if (c->is_delta) {
		*rec = at->old;
		rec->flags |= CRLC_CRL_HAS_DELTA;
		rec->delta_this_update = c->this_update;
		rec->delta_next_update = c->next_update;
		rec->number.p = c->number;
		rec->number.len = c->numlen;
		rec->delta.p = c->der;
		rec->delta.len = c->derlen;
		if (crlc_crl_parse(at->old.der.p, at->old.der.len, base,
		    &why) == -1) {
			snprintf(err, errlen, "index: stored base CRL unreadable");
			return -1;
		}
	} else {
		rec->flags = c->idp_flags;
		rec->this_update = c->this_update;
		rec->next_update = c->next_update;
		rec->number.p = rec->base.p = c->number;
		rec->number.len = rec->base.len = c->numlen;
		rec->der.p = c->der;
		rec->der.len = c->derlen;
	}
	rec->scope_no = at->scope_no;
	rec->fetched_at = (int64_t)time(NULL);
	return 0;
}

/*
 * Rebuild the scope: drop what base and old delta listed, write anew;
 * the entries written to *count.  -1 with the reason in err.
 */
static int
scope_rewrite(struct wtxn *w, const struct scope_at *at, const struct crl *c,
    const struct crlc_crl *base, int64_t *count, char *err, size_t errlen)
{
	int rc = 0;

	if (at->have)
		rc = drop_scope(w, at->prefix, at->scope_no);
	if (rc == 0)
		rc = write_entries(w, at->prefix, at->scope_no,
		    c->is_delta ? base : &c->p, 0, count);
	if (rc == 0 && c->is_delta)
		rc = write_entries(w, at->prefix, at->scope_no, &c->p, 1,
		    count);
	if (rc == 0)
		return 0;
	if (rc == EINVAL)
		snprintf(err, errlen, "malformed revoked entry");
	else if (rc == E2BIG)
		snprintf(err, errlen, "indirect CRL names more than %d "
		    "certificate issuers (RFC 5280 5.3.3) not supported",
		    CERT_ISSUERS_MAX);
	else
		lmdb_err(err, errlen, "write entries", rc);
	return -1;
}

/*
 * Ingest c in w (split: struct wtxn).  Returns an enum ingest_result;
 * INGEST_CHANGED leaves the last transaction to commit.
 */
static int
ingest_txn(struct store *s, struct wtxn *w, const struct crl *c, char *err,
    size_t errlen)
{
	MDB_val k = { strlen(CRLC_META_PENDING), CRLC_META_PENDING };
	struct scope_at at;
	struct crlc_crl_info rec;
	struct crlc_crl base;
	char *source = NULL;
	int64_t count = 0;
	int rc, ret;

	if (scope_find(s, w, c, &at, &ret, err, errlen) == -1)
		return ret;
	if (record_of(c, &at, &rec, &base, err, errlen) == -1)
		return INGEST_FAILED;
	ret = INGEST_FAILED;
	/* The record is published: the source without its credentials. */
	source = redact_userinfo(c->source);
	rec.source.p = (const uint8_t *)source;
	rec.source.len = strlen(source);
	/* Marked before the first commit, which a kill may follow. */
	if (mark_dirty(s, err, errlen) == -1)
		goto done;
	w->scope_no = at.scope_no;
	w->key = at.key;
	w->keylen = at.keylen;
	if (scope_rewrite(w, &at, c, &base, &count, err, errlen) == -1)
		goto done;
	rec.entries = count < 0 ? 0 : count > UINT32_MAX ? UINT32_MAX :
	    (uint32_t)count;
	if ((rc = put_scope(s, w->txn, at.key, at.keylen, &rec,
	    w->split && !c->keep_body)) != 0 ||
	    (w->committed && (rc = mdb_del(w->txn, s->meta, &k, NULL)) != 0)) {
		lmdb_err(err, errlen, "write CRL record", rc);
		goto done;
	}
	ret = INGEST_CHANGED;
done:
	free(source);
	return ret;
}

/*
 * Ingest c in a child transaction of the batch (BATCH).  *overflow: it
 * reached INGEST_CHUNK writes, nothing was written, and it is to be
 * ingested on its own.
 */
static int
ingest_nested(struct store *s, const struct crl *c, int *overflow,
    char *err, size_t errlen)
{
	struct wtxn w = { .s = s, .nested = 1 };
	int rc, res;

	*overflow = 0;
	if ((rc = batch_begin(s)) != 0 ||
	    (rc = mdb_txn_begin(s->env, s->batch, 0, &w.txn)) != 0) {
		lmdb_err(err, errlen, "begin", rc);
		return INGEST_FAILED;
	}
	res = ingest_txn(s, &w, c, err, errlen);
	*overflow = w.overflow;
	if (res != INGEST_CHANGED) {
		mdb_txn_abort(w.txn);
		return res;
	}
	if ((rc = mdb_txn_commit(w.txn)) != 0) {
		/* The batch may be unusable after it: give it up. */
		mdb_txn_abort(s->batch);
		s->batch = NULL;
		logx(0, "index: the last CRLs and source records were not "
		    "written; the next run fetches them again");
		lmdb_err(err, errlen, "commit", rc);
		return INGEST_FAILED;
	}
	if ((rc = batch_add(s, w.writes + 1)) != 0) {
		lmdb_err(err, errlen, "commit", rc);
		return INGEST_FAILED;
	}
	return res;
}

int
store_ingest(struct store *s, const struct crl *c, char *err, size_t errlen)
{
	struct wtxn w = { .s = s, .split = 1 };
	MDB_txn *txn;
	int overflow = 1, rc, res;

	if (s->pending) {
		snprintf(err, errlen, "index: an earlier CRL is half written");
		return INGEST_FAILED;
	}
	if (c->p.nrevoked < INGEST_CHUNK &&
	    ((res = ingest_nested(s, c, &overflow, err, errlen)) !=
	    INGEST_FAILED || !overflow))
		return res;
	if ((rc = batch_end(s)) != 0 ||
	    (rc = mdb_txn_begin(s->env, NULL, 0, &w.txn)) != 0) {
		lmdb_err(err, errlen, "begin", rc);
		return INGEST_FAILED;
	}
	res = ingest_txn(s, &w, c, err, errlen);
	if (res == INGEST_CHANGED && (rc = mdb_txn_commit(w.txn)) != 0) {
		lmdb_err(err, errlen, "commit", rc);
		res = INGEST_FAILED;
	} else if (res != INGEST_CHANGED)
		mdb_txn_abort(w.txn);	/* NULL after a failed chunk commit */
	map_drop(s);
	if (res != INGEST_FAILED || !w.committed)
		return res;
	/* Chunks were committed: put the scope back as it was. */
	if ((rc = mdb_txn_begin(s->env, NULL, 0, &txn)) == 0) {
		if ((rc = recover_pending(s, txn)) == 0)
			rc = mdb_txn_commit(txn);
		else
			mdb_txn_abort(txn);
	}
	if (rc != 0) {
		s->pending = 1;
		logx(0, "index: %s left half written (%s); the next run "
		    "rebuilds it", c->source, mdb_strerror(rc));
	} else
		logx(1, "index: %s: the transactions committed are undone",
		    c->source);
	return INGEST_FAILED;
}

/*
 * Is a CRL held for the scope key?  When one is and due is not NULL,
 * *due is when what is held stops being current (crlc_crl_due(), the
 * delta's if one is held and due first); 0 when the record cannot be read.
 */
int
store_has_scope(struct store *s, const uint8_t *key, size_t keylen,
    int64_t *due)
{
	struct crlc_crl_info ci;
	MDB_txn *txn;
	MDB_val k = { keylen, (void *)key }, v;
	int64_t d;
	int found;

	if (keylen == 0 || read_begin(s, &txn) != 0)
		return 0;
	found = mdb_get(txn, s->crl, &k, &v) == 0;
	if (found && due != NULL) {
		*due = 0;
		if (crlc_crl_decode(k.mv_data, k.mv_size, v.mv_data, v.mv_size,
		    &ci) == 0) {
			*due = crlc_crl_due(ci.this_update, ci.next_update);
			d = crlc_crl_due(ci.delta_this_update,
			    ci.delta_next_update);
			if (ci.delta.len > 0 && d < *due)
				*due = d;
		}
	}
	read_end(s, txn);
	return found;
}

/*
 * crlcache reset: forget what one scope holds -- its "crl" record and the
 * entries its complete and delta CRLs listed -- in one transaction, so
 * that the rollback rule no longer binds it (and update, finding the
 * scope empty, fetches its sources unconditionally).  Returns 1 when
 * removed (what was held in *held), 0 when the scope holds nothing, -1 on
 * error.  Long: one transaction, each of its failures said apart.
 */
int
store_reset_scope(struct store *s, X509 *issuer, const char *scope,
    unsigned reasons, unsigned kind, struct store_reset *held, char *err,
    size_t errlen)
{
	uint8_t key[CRLC_KEY_MAX];
	size_t keylen;
	MDB_txn *txn;
	MDB_val k, v;
	struct crlc_crl_info old;
	uint8_t *copy;
	int rc;

	memset(held, 0, sizeof(*held));
	if (store_scope_key(s, X509_get_subject_name(issuer), issuer, scope,
	    reasons, kind, key, &keylen) == -1)
		return 0;	/* issuer never seen, or scope too long */
	if ((rc = batch_end(s)) != 0 ||
	    (rc = mdb_txn_begin(s->env, NULL, 0, &txn)) != 0) {
		lmdb_err(err, errlen, "begin", rc);
		return -1;
	}
	k.mv_size = keylen;
	k.mv_data = key;
	if ((rc = mdb_get(txn, s->crl, &k, &v)) == MDB_NOTFOUND) {
		mdb_txn_abort(txn);
		return 0;
	}
	if (rc != 0) {
		mdb_txn_abort(txn);
		lmdb_err(err, errlen, "read scope", rc);
		return -1;
	}
	copy = xcalloc(1, v.mv_size);
	memcpy(copy, v.mv_data, v.mv_size);
	if (crlc_crl_decode(key, keylen, copy, v.mv_size, &old) == -1 ||
	    old.number.len > sizeof(held->number)) {
		mdb_txn_abort(txn);
		free(copy);
		snprintf(err, errlen, "index: stored CRL record is corrupt");
		return -1;
	}
	held->entries = old.entries;
	held->this_update = old.this_update;
	memcpy(held->number, old.number.p, old.number.len);
	held->numlen = old.number.len;
	if ((rc = drop_scope(ONE_TXN(s, txn), key, old.scope_no)) != 0 ||
	    (rc = del_scope(s, txn, &k)) != 0) {
		mdb_txn_abort(txn);
		free(copy);
		lmdb_err(err, errlen, "reset scope", rc);
		return -1;
	}
	free(copy);
	if (mark_dirty(s, err, errlen) == -1) {
		mdb_txn_abort(txn);
		return -1;
	}
	if ((rc = mdb_txn_commit(txn)) != 0) {
		lmdb_err(err, errlen, "commit", rc);
		return -1;
	}
	return 1;
}
