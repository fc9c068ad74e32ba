/*
 * Source records of the working index (format.h "source"): what the last
 * fetch of each URL gave (validators, status, error, the scope it fed)
 * and its history (where the URL came from, its failures in a row),
 * keyed by the URL without its userinfo.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lmdb.h>

#include <crlcache/index.h>

#include "fetch.h"
#include "fetcher.h"
#include "proposed.h"
#include "source.h"
#include "state.h"
#include "store_int.h"

static char *
dup_span(const uint8_t *p, size_t len)
{
	char *s;

	if (len == 0)
		return NULL;
	s = xcalloc(1, len + 1);
	memcpy(s, p, len);
	return s;
}

/* Decode a "source" record (format.h) into rec, which the caller frees. */
static int
source_decode(const MDB_val *v, struct source_rec *rec)
{
	const uint8_t *h = v->mv_data, *p;
	size_t e, m, r, kl, total;

	memset(rec, 0, sizeof(*rec));
	if (v->mv_size < CRLC_SRC_HDR_LEN)
		return -1;
	e = crlc_get_u32(h + 20);
	m = crlc_get_u32(h + 24);
	r = crlc_get_u32(h + 28);
	kl = crlc_get_u32(h + 32);
	if (kl > CRLC_KEY_MAX)
		return -1;
	/* u32 lengths: their sum in a size_t does not wrap. */
	total = CRLC_SRC_HDR_LEN + e + m + r + kl;
	if (total + CRLC_SRC_FRESH_LEN + CRLC_SRC_HIST_LEN == v->mv_size) {
		p = h + total + CRLC_SRC_FRESH_LEN;
		if (p[0] > CRLC_SRC_ORIGIN_PROPOSED)
			return -1;
		rec->origin = p[0];
		rec->failures = crlc_get_u32(p + 4);
		rec->first_failure = crlc_get_i64(p + 8);
	} else if (total + CRLC_SRC_FRESH_LEN != v->mv_size &&
	    total != v->mv_size)
		return -1;
	if (total != v->mv_size)
		rec->fresh_until = crlc_get_i64(h + total);
	rec->last_attempt = crlc_get_i64(h);
	rec->last_success = crlc_get_i64(h + 8);
	rec->http_status = crlc_get_u32(h + 16);
	h += CRLC_SRC_HDR_LEN;
	rec->etag = dup_span(h, e);
	rec->last_modified = dup_span(h + e, m);
	rec->error = dup_span(h + e + m, r);
	if (kl > 0) {
		rec->scope_key = xcalloc(1, kl);
		memcpy(rec->scope_key, h + e + m + r, kl);
		rec->scope_keylen = kl;
	}
	return 0;
}

/*
 * Source records are keyed by the URL without its userinfo
 * (redact_userinfo): two URLs that differ only in their credentials share
 * one record.
 */
int
store_get_source(struct store *s, const char *url, struct source_rec *rec)
{
	char *key = redact_userinfo(url);
	MDB_txn *txn;
	MDB_val k = { strlen(key), key }, v;
	int ret = -1;

	memset(rec, 0, sizeof(*rec));
	if (k.mv_size == 0 || k.mv_size > CRLC_KEY_MAX ||
	    read_begin(s, &txn) != 0) {
		free(key);
		return -1;
	}
	if (mdb_get(txn, s->source, &k, &v) == 0)
		ret = source_decode(&v, rec);
	read_end(s, txn);
	free(key);
	return ret;
}

/*
 * Walk the source records of the working environment read-only, without
 * the update lock (LMDB's own reader lock keeps the view consistent).
 * Needs write access to STATE_DIR/work/lock.mdb, as an administrator or
 * the crlcache user has.  Returns 0, fn's non-zero value, or -1.
 */
int
store_foreach_source(struct state *st,
    int (*fn)(const char *url, const struct source_rec *, void *), void *arg)
{
	char path[PATH_MAX], url[CRLC_KEY_MAX + 1], *shown;
	struct source_rec rec;
	MDB_env *env = NULL;
	MDB_txn *txn = NULL;
	MDB_cursor *cur = NULL;
	MDB_dbi dbi;
	MDB_val k, v;
	int rc, ret = -1;

	/* LMDB takes nothing but a path (state.h). */
	if (state_file_path(st, WORK_NAME, path, sizeof(path)) == -1)
		return -1;
	if (mdb_env_create(&env) != 0 || mdb_env_set_maxdbs(env, CRLC_NUM_DBS) != 0 ||
	    mdb_env_open(env, path, MDB_RDONLY, 0600) != 0 ||
	    mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) != 0 ||
	    mdb_dbi_open(txn, CRLC_DB_SOURCE, 0, &dbi) != 0 ||
	    mdb_cursor_open(txn, dbi, &cur) != 0)
		goto done;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size > CRLC_KEY_MAX || source_decode(&v, &rec) == -1)
			continue;
		memcpy(url, k.mv_data, k.mv_size);
		url[k.mv_size] = '\0';
		/* Records older versions wrote may hold credentials. */
		shown = redact_userinfo(url);
		if (rec.error != NULL) {
			char *e = redact_userinfo(rec.error);

			free(rec.error);
			rec.error = e;
		}
		ret = fn(shown, &rec, arg);
		free(shown);
		source_rec_free(&rec);
		if (ret != 0)
			goto done;
	}
	ret = rc == MDB_NOTFOUND ? 0 : -1;
done:
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	if (env != NULL)
		mdb_env_close(env);
	return ret;
}

/* One record of store_tend_sources(): counted, or its key to remove. */
static void
tend_one(const char *key, const struct source_rec *rec,
    const struct strlist *listed, const struct strlist *asked,
    struct strlist *gone, struct source_count *c)
{
	enum source_state st = source_state(rec);
	int in_list = strlist_listed(listed, key);
	int beside = !in_list && strlist_listed(asked, key);

	if (!in_list && !beside) {
		if (st != SOURCE_PRUNED)
			strlist_add(gone, key);
		return;
	}
	if (st == SOURCE_PRUNED)
		return;
	c->n++;
	c->failing += st == SOURCE_FAILING;
	c->retrying += st == SOURCE_RETRYING;
	if (beside && st != SOURCE_OK)
		c->beside_failed++;
	else if (beside && rec->http_status == 304)
		c->beside_same++;
	else if (beside)
		c->beside_changed++;
}

int
store_tend_sources(struct store *s, const struct strlist *listed, int prune,
    struct source_count *c)
{
	struct strlist gone = { NULL, 0 };
	char key[CRLC_KEY_MAX + 1];
	struct source_rec rec;
	MDB_cursor *cur = NULL;
	MDB_txn *txn;
	MDB_val k, v;
	size_t i;
	int rc;

	memset(c, 0, sizeof(*c));
	strlist_uniq(&s->asked);
	if (read_begin(s, &txn) != 0)
		return -1;
	if ((rc = mdb_cursor_open(txn, s->source, &cur)) == 0)
		for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
		    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
			if (k.mv_size > CRLC_KEY_MAX ||
			    source_decode(&v, &rec) == -1)
				continue;
			memcpy(key, k.mv_data, k.mv_size);
			key[k.mv_size] = '\0';
			tend_one(key, &rec, listed, &s->asked, &gone, c);
			source_rec_free(&rec);
		}
	mdb_cursor_close(cur);
	read_end(s, txn);
	rc = rc == MDB_NOTFOUND ? 0 : -1;
	/* Removed after the walk: a batch commit ends its cursor. */
	for (i = 0; rc == 0 && prune && i < gone.n; i++) {
		k.mv_size = strlen(gone.v[i]);
		k.mv_data = gone.v[i];
		if (batch_begin(s) != 0 ||
		    mdb_del(s->batch, s->source, &k, NULL) != 0 ||
		    batch_add(s, 1) != 0)
			rc = -1;
		else
			c->removed++;
	}
	strlist_free(&gone);
	return rc;
}

int
store_put_source(struct store *s, const char *url, const struct source_rec *rec)
{
	char *key = redact_userinfo(url);
	char *error = rec->error != NULL ? redact_userinfo(rec->error) : NULL;
	size_t e = rec->etag ? strlen(rec->etag) : 0;
	size_t m = rec->last_modified ? strlen(rec->last_modified) : 0;
	size_t r = error ? strlen(error) : 0;
	size_t kl = rec->scope_keylen;
	MDB_val k = { strlen(key), key }, v;
	uint8_t *h, *p;
	int rc;

	if (k.mv_size == 0 || k.mv_size > CRLC_KEY_MAX) {
		free(key);
		free(error);
		return -1;
	}
	v.mv_size = CRLC_SRC_HDR_LEN + e + m + r + kl + CRLC_SRC_FRESH_LEN +
	    CRLC_SRC_HIST_LEN;
	h = xcalloc(1, v.mv_size);
	crlc_put_i64(h, rec->last_attempt);
	crlc_put_i64(h + 8, rec->last_success);
	crlc_put_u32(h + 16, (uint32_t)rec->http_status);
	crlc_put_u32(h + 20, (uint32_t)e);
	crlc_put_u32(h + 24, (uint32_t)m);
	crlc_put_u32(h + 28, (uint32_t)r);
	crlc_put_u32(h + 32, (uint32_t)kl);
	/* Absent parts are NULL: memcpy from NULL is undefined, even of 0. */
	if (e > 0)
		memcpy(h + CRLC_SRC_HDR_LEN, rec->etag, e);
	if (m > 0)
		memcpy(h + CRLC_SRC_HDR_LEN + e, rec->last_modified, m);
	if (r > 0)
		memcpy(h + CRLC_SRC_HDR_LEN + e + m, error, r);
	if (kl > 0)
		memcpy(h + CRLC_SRC_HDR_LEN + e + m + r, rec->scope_key, kl);
	p = h + CRLC_SRC_HDR_LEN + e + m + r + kl;
	crlc_put_i64(p, rec->fresh_until);
	p += CRLC_SRC_FRESH_LEN;
	p[0] = (uint8_t)rec->origin;
	crlc_put_u32(p + 4, rec->failures);
	crlc_put_i64(p + 8, rec->first_failure);
	v.mv_data = h;
	/* In the batch (BATCH), with the CRLs of the run. */
	if ((rc = batch_begin(s)) == 0 &&
	    (rc = mdb_put(s->batch, s->source, &k, &v, 0)) == 0)
		rc = batch_add(s, 1);
	/* The put read the record's pages in the map (fault-around). */
	map_read(s);
	if (rc == 0)
		strlist_add(&s->asked, key);
	free(h);
	free(key);
	free(error);
	return rc == 0 ? 0 : -1;
}

void
source_rec_free(struct source_rec *rec)
{
	free(rec->etag);
	free(rec->last_modified);
	free(rec->error);
	free(rec->scope_key);
	memset(rec, 0, sizeof(*rec));
}

void
source_note(struct store *s, const char *key, struct fetch *f, long status,
    const char *err)
{
	struct source_rec rec;

	(void)store_get_source(s, key, &rec);
	free(rec.error);
	rec.error = NULL;
	rec.last_attempt = (int64_t)time(NULL);
	rec.http_status = status;
	rec.fresh_until = 0;
	/* The configuration names it: its failure is the run's (status). */
	rec.origin = CRLC_SRC_ORIGIN_CONFIGURED;
	source_history(&rec, err == NULL);
	if (err == NULL)
		rec.last_success = rec.last_attempt;
	if (err == NULL && f != NULL && !f->not_modified) {
		free(rec.etag);
		free(rec.last_modified);
		rec.etag = f->new_etag;
		rec.last_modified = f->new_last_modified;
		f->new_etag = f->new_last_modified = NULL;
	} else if (err != NULL || f == NULL) {
		free(rec.etag);
		free(rec.last_modified);
		rec.etag = rec.last_modified = NULL;
		rec.error = err != NULL ? xstrdup(err) : NULL;
	}
	if (store_put_source(s, key, &rec) == -1)
		logx(0, "%s: cannot record the source state", key);
	source_rec_free(&rec);
}
