/*
 * A client of a Remote Settings server for the security-state bucket
 * (rsclient.h): monitor/changes polled, a changed collection asked with
 * _since and merged with the records held, no rollback.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <crlcache/crlite.h>
#include <crlcache/onecrl.h>

#include "budget.h"
#include "crlitedir.h"
#include "fetcher.h"
#include "rsclient.h"
#include "state.h"

#define RS_MONITOR_PATH	"/buckets/monitor/collections/changes/changeset"
/*
 * monitor/changes lists every collection of the server, about 170 bytes
 * each (about 150 collections in 2026: 25 KB); with _since, those
 * changed since.  1 MiB is 40 times the whole list; a value per byte
 * of its entries' 10 or so is far below its 16 per entry.
 */
#define RS_MONITOR_MAX		((size_t)1 << 20)
#define RS_MONITOR_VALUES	((size_t)1 << 16)
/* STATE_DIR/RS_CURSOR_FILE: the poll's cursor, decimal, a newline. */
#define RS_CURSOR_FILE		WORK_NAME "/rs.monitor"
#define RS_CURSOR_MAX		32

static const char *const cids[RS_COLLECTIONS] = {
	"cert-revocations", "onecrl",
};
/* Each collection's held changeset, by its name in the state. */
static const char *const held_names[RS_COLLECTIONS] = {
	CRLC_CRLITE_DIR "/" CRLC_CRLITE_RS_HELD,
	CRLC_CRLITE_DIR "/" CRLC_ONECRL_RS_HELD,
};

/* The held changeset of a collection: the last one verified. */
struct held {
	uint8_t		*doc;
	size_t		 len;
	struct json	 j;
	int64_t		 ts;
	int		 ok;		/* read, parsed, with a timestamp */
};

/* A record of a changeset being merged. */
struct entry {
	const struct json *j;
	size_t		 v;
	char		 id[RS_ID_MAX + 1];
	int		 answer;	/* of the answer (1) or held (0) */
};

void
rs_collection_url(const struct conf *conf, unsigned which, char *out,
    size_t len)
{
	snprintf(out, len, "%s/buckets/%s/collections/%s/changeset",
	    conf->crlite, RS_BUCKET, cids[which]);
}

/* The cursor of the last poll that settled every collection, or 0. */
static int64_t
cursor_read(struct state *st)
{
	char why[ERRLEN], text[RS_CURSOR_MAX + 1], *end;
	uint8_t *buf;
	size_t len;
	long long v;

	if (state_read(st, RS_CURSOR_FILE, RS_CURSOR_MAX, &buf, &len, why,
	    sizeof(why)) == -1)
		return 0;
	memcpy(text, buf, len);
	text[len] = '\0';
	free(buf);
	v = strtoll(text, &end, 10);
	return end != text && *end == '\n' && v > 0 ? (int64_t)v : 0;
}

void
rs_poll_done(struct state *st, const struct rs_monitor *m)
{
	char line[RS_CURSOR_MAX];
	int n;

	if (!m->answered || m->timestamp <= m->since)
		return;
	n = snprintf(line, sizeof(line), "%lld\n", (long long)m->timestamp);
	if (state_replace(st, RS_CURSOR_FILE, line, (size_t)n, 0600) == -1)
		logx(0, "%s/%s: cannot be written", state_path(st),
		    RS_CURSOR_FILE);
}

int
rs_poll(struct rs_client *rc, struct rs_monitor *m)
{
	char url[RS_URL_MAX];
	struct fetch f;
	struct json j;
	size_t ch, k, i;
	unsigned w;
	int64_t ts;
	int ret = -1;

	memset(m, 0, sizeof(*m));
	memset(&f, 0, sizeof(f));
	memset(&j, 0, sizeof(j));
	m->since = cursor_read(rc->st);
	if (m->since > 0)
		snprintf(url, sizeof(url), "%s%s?_expected=0&_since=%lld",
		    rc->b.conf->crlite, RS_MONITOR_PATH, (long long)m->since);
	else
		snprintf(url, sizeof(url), "%s%s?_expected=0",
		    rc->b.conf->crlite, RS_MONITOR_PATH);
	if (fetch_budget_get(&rc->b, &f, url, 0, 1, RS_MONITOR_MAX) == -1 ||
	    json_parse(&j, (const char *)f.body, f.len, RS_MONITOR_VALUES,
	    rc->b.err, sizeof(rc->b.err)) == -1)
		goto done;
	ch = json_get(&j, 0, "changes");
	if (json_int(&j, json_get(&j, 0, "timestamp"), &m->timestamp) == -1 ||
	    ch == 0 || j.v[ch].type != JSON_ARRAY) {
		fetch_budget_fail(&rc->b, "monitor/changes: no timestamp or no "
		    "changes");
		goto done;
	}
	for (i = 0, k = json_first(&j, ch); i < j.v[ch].n;
	    i++, k = json_next(&j, k))
		for (w = 0; w < RS_COLLECTIONS; w++)
			if (json_str_is(&j, json_get(&j, k, "bucket"),
			    RS_BUCKET) && json_str_is(&j, json_get(&j, k,
			    "collection"), cids[w]) && json_int(&j,
			    json_get(&j, k, "last_modified"), &ts) == 0 &&
			    ts > m->listed[w])
				m->listed[w] = ts;
	m->answered = 1;
	ret = 0;
done:
	json_free(&j);
	fetch_free(&f);
	return ret;
}

static void
held_free(struct held *h)
{
	json_free(&h->j);
	free(h->doc);
	memset(h, 0, sizeof(*h));
}

/* The held changeset, when it is there and reads: h->ok. */
static void
held_read(struct rs_client *rc, const struct rs_collection *col,
    struct held *h)
{
	char why[ERRLEN] = "no changes array";
	size_t ch;

	memset(h, 0, sizeof(*h));
	if (state_read(rc->st, held_names[col->which], JSON_MAX_DOC, &h->doc,
	    &h->len, why, sizeof(why)) == -1)
		return;
	if (json_parse(&h->j, (const char *)h->doc, h->len, col->max_values,
	    why, sizeof(why)) == -1 || json_int(&h->j, json_get(&h->j, 0,
	    "timestamp"), &h->ts) == -1 || (ch = json_get(&h->j, 0,
	    "changes")) == 0 || h->j.v[ch].type != JSON_ARRAY) {
		logx(0, "%s/%s: not a changeset (%s); the collection is asked "
		    "whole", state_path(rc->st), held_names[col->which], why);
		return;
	}
	h->ok = 1;
}

/* A changeset older than the one in force: refused, both said. */
static int
older(struct rs_client *rc, unsigned which, const char *what, int64_t ts,
    int64_t in_force)
{
	char a[32], b[32];

	format_time(ts / 1000, a, sizeof(a));
	format_time(in_force / 1000, b, sizeof(b));
	return fetch_budget_fail(&rc->b, "%s: %s %lld (%s), older than the one "
	    "in force, %lld (%s): refused, the newer data stays in force (a "
	    "replay or a stale cache on the way?)", cids[which], what,
	    (long long)ts, a, (long long)in_force, b);
}

/* The records of j's "changes" to e[*n..]: 0, or -1 (rc->b.err). */
static int
entries(struct rs_client *rc, const struct json *j, int answer,
    struct entry *e, size_t *n)
{
	size_t ch = json_get(j, 0, "changes"), k, i;

	for (i = 0, k = json_first(j, ch); i < j->v[ch].n;
	    i++, k = json_next(j, k)) {
		if (j->v[k].type != JSON_OBJECT || rs_member_text(j, k, "id",
		    e[*n].id, RS_ID_MAX) == -1)
			return fetch_budget_fail(&rc->b, "changeset: record "
			    "%zu has no id", i);
		e[*n].j = j;
		e[*n].v = k;
		e[(*n)++].answer = answer;
	}
	return 0;
}

static int
entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	return c != 0 ? c : x->answer - y->answer;
}

static int
is_tombstone(const struct entry *e)
{
	size_t d = json_get(e->j, e->v, "deleted");

	return d != 0 && e->j->v[d].type == JSON_TRUE;
}

/* A member of the answer's metadata into the merged one. */
static int
put_meta(const struct json *ans, const char *key, int *first, char **buf,
    size_t *len, size_t *cap)
{
	size_t meta = json_get(ans, 0, "metadata");
	size_t v = meta != 0 ? json_get(ans, meta, key) : 0;
	char name[32];

	if (v == 0)
		return 0;
	snprintf(name, sizeof(name), "%s\"%s\":", *first ? "" : ",", key);
	*first = 0;
	return json_canonical_put(buf, len, cap, name) == -1 ||
	    json_canonical(ans, v, NULL, buf, len, cap) == -1 ? -1 : 0;
}

/*
 * The records held and those of the answer merged into col->doc, a
 * changeset {"changes", "metadata": the answer's signatures, "timestamp":
 * the answer's}: a record of the answer replaces the held one of its id,
 * a tombstone removes it (Kinto's _since semantics).  0, or -1 (rc->b.err).
 * Over 60 lines: one walk writing the document, each part in its order.
 */
static int
merge(struct rs_client *rc, struct rs_collection *col,
    const struct json *held, const struct json *ans, int64_t ts)
{
	size_t ach = json_get(ans, 0, "changes"), n = 0, i, kept = 0, cap = 0;
	struct entry *e;
	char tail[64];
	int first = 1, ret = -1;

	if (ach == 0 || ans->v[ach].type != JSON_ARRAY)
		return fetch_budget_fail(&rc->b, "changeset: no changes array");
	if (ans->v[ach].n > col->max_records)
		return fetch_budget_fail(&rc->b, "changeset: more than %zu "
		    "records", col->max_records);
	e = xcalloc(ans->v[ach].n + (held != NULL ? held->v[json_get(held, 0,
	    "changes")].n : 0) + 1, sizeof(*e));
	if ((held != NULL && entries(rc, held, 0, e, &n) == -1) ||
	    entries(rc, ans, 1, e, &n) == -1)
		goto done;
	qsort(e, n, sizeof(*e), entry_cmp);
	if (json_canonical_put(&col->doc, &col->len, &cap, "{\"changes\":[") ==
	    -1)
		goto done;
	for (i = 0; i < n; i++) {
		if (i + 1 < n && strcmp(e[i].id, e[i + 1].id) == 0) {
			if (e[i].answer == e[i + 1].answer) {
				fetch_budget_fail(&rc->b, "changeset: record "
				    "%s twice", e[i].id);
				goto done;
			}
			continue;	/* the answer's replaces it */
		}
		if (is_tombstone(&e[i])) {
			if (held == NULL) {
				fetch_budget_fail(&rc->b, "changeset: record "
				    "%s is a tombstone in a whole changeset",
				    e[i].id);
				goto done;
			}
			continue;
		}
		if (++kept > col->max_records) {
			fetch_budget_fail(&rc->b, "changeset: more than %zu "
			    "records merged", col->max_records);
			goto done;
		}
		if ((kept > 1 && json_canonical_put(&col->doc, &col->len, &cap,
		    ",") == -1) || json_canonical(e[i].j, e[i].v, NULL,
		    &col->doc, &col->len, &cap) == -1) {
			fetch_budget_fail(&rc->b, "changeset: record %s has a "
			    "value without a canonical form", e[i].id);
			goto done;
		}
	}
	snprintf(tail, sizeof(tail), "},\"timestamp\":%lld}", (long long)ts);
	if (json_canonical_put(&col->doc, &col->len, &cap, "],\"metadata\":{") ==
	    -1 || put_meta(ans, "signature", &first, &col->doc, &col->len,
	    &cap) == -1 || put_meta(ans, "signatures", &first, &col->doc,
	    &col->len, &cap) == -1 || json_canonical_put(&col->doc, &col->len,
	    &cap, tail) == -1)
		fetch_budget_fail(&rc->b, "changeset: metadata without a "
		    "canonical form");
	else
		ret = 0;
done:
	free(e);
	return ret;
}

/*
 * One changeset asked (with _since when h is given) and merged with h,
 * verified: 1, 0 the one held, -1 (rc->b.err; *unverified when only its
 * signature failed).
 */
static int
ask(struct rs_client *rc, struct rs_collection *col, int64_t expected,
    const struct held *h, int64_t in_force, int *unverified)
{
	char url[RS_URL_MAX];
	struct fetch f;
	struct json ans;
	int64_t ts;
	int ret = -1;

	memset(&f, 0, sizeof(f));
	memset(&ans, 0, sizeof(ans));
	rs_collection_free(col);
	rs_collection_url(rc->b.conf, col->which, url, sizeof(url));
	snprintf(url + strlen(url), sizeof(url) - strlen(url),
	    "?_expected=%lld", (long long)expected);
	if (h != NULL)
		snprintf(url + strlen(url), sizeof(url) - strlen(url),
		    "&_since=%lld", (long long)h->ts);
	if (fetch_budget_get(&rc->b, &f, url, 0, 1, col->max_len) == -1 ||
	    json_parse(&ans, (const char *)f.body, f.len, col->max_values,
	    rc->b.err, sizeof(rc->b.err)) == -1)
		goto done;
	if (json_int(&ans, json_get(&ans, 0, "timestamp"), &ts) == -1 ||
	    ts < 0)
		fetch_budget_fail(&rc->b, "changeset: no timestamp");
	else if (ts < in_force)
		older(rc, col->which, "the changeset's timestamp is", ts,
		    in_force);
	else if (ts == in_force && h != NULL)
		ret = 0;
	else if (merge(rc, col, h != NULL ? &h->j : NULL, &ans, ts) == 0 &&
	    rs_changeset_read(&col->cs, &rc->b, (const uint8_t *)col->doc,
	    col->len, col->max_values, col->max_records) == 0) {
		if (rs_changeset_verify(&col->cs) == 0)
			ret = 1;
		else
			*unverified = 1;
	}
done:
	json_free(&ans);
	fetch_free(&f);
	if (ret != 1)
		rs_collection_free(col);
	return ret;
}

int
rs_collection_fetch(struct rs_client *rc, const struct rs_monitor *m,
    struct rs_collection *col)
{
	int64_t listed = m->answered ? m->listed[col->which] : 0, in_force;
	struct held h;
	int r, unverified = 0;

	held_read(rc, col, &h);
	in_force = h.ok && h.ts > col->in_force ? h.ts : col->in_force;
	h.ok = h.ok && !col->whole;
	if (listed > 0 && listed < in_force)
		r = older(rc, col->which, "monitor/changes lists it at", listed,
		    in_force);
	else if (m->answered && h.ok && listed <= h.ts)
		r = 0;		/* not listed: unchanged since the cursor */
	else if ((r = ask(rc, col, listed, h.ok ? &h : NULL, in_force,
	    &unverified)) == -1 && unverified && h.ok) {
		/* The records held may be what is wrong: all of it, once. */
		logx(1, "%s: %s; asked whole", cids[col->which], rc->b.err);
		r = ask(rc, col, listed, NULL, in_force, &unverified);
	}
	col->behind = r != -1 && listed > (r == 1 ? col->cs.timestamp :
	    in_force);
	held_free(&h);
	return r;
}

int
rs_collection_recheck(struct rs_client *rc, struct rs_collection *col)
{
	struct held h;
	int64_t in_force;

	held_read(rc, col, &h);
	in_force = h.ok && h.ts > col->in_force ? h.ts : col->in_force;
	held_free(&h);
	if (col->cs.timestamp < in_force)
		return older(rc, col->which, "the changeset's timestamp is",
		    col->cs.timestamp, in_force);
	return 0;
}

int
rs_collection_keep(struct rs_client *rc, const struct rs_collection *col)
{
	char why[ERRLEN];

	if (crlite_dir_prepare(rc->st, why, sizeof(why)) == -1)
		return fetch_budget_fail(&rc->b, "%s", why);
	if (state_replace(rc->st, held_names[col->which], col->doc, col->len,
	    0644) == -1)
		return fetch_budget_fail(&rc->b, "%s/%s: cannot be written",
		    state_path(rc->st), held_names[col->which]);
	return 0;
}

void
rs_collection_free(struct rs_collection *col)
{
	rs_changeset_free(&col->cs);
	free(col->doc);
	col->doc = NULL;
	col->len = 0;
}
