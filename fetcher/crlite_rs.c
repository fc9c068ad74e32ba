/*
 * The Remote Settings source of CRLite (crlite.c drives it): Mozilla's
 * cert-revocations collection of the security-state bucket, verified by
 * its content signature; its filters by their signed sizes and SHA-256.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * One run (`crlite = SERVER`, e.g. https://firefox.settings.services.
 * mozilla.com/v1):
 *   1. GET SERVER/buckets/security-state/collections/cert-revocations/
 *      changeset?_expected=0, conditionally (If-None-Match and
 *      If-Modified-Since from the last run that installed a set; the
 *      changeset endpoint and its _expected cache-busting parameter are
 *      Remote Settings' client specification, "cache busting").  A 304:
 *      nothing else is asked.
 *   2. The changeset {"metadata": {"signature": {"x5u", "signature"}},
 *      "changes": [records], "timestamp": N} is read whole (json.c);
 *      its content signature is verified (contentsig.c) over the
 *      canonical JSON of {"data": records sorted by id, each without an
 *      "attachment" that is null, "last_modified": "N"}, as Firefox's
 *      RemoteSettingsClient and application-services' remote_settings
 *      (signatures.rs) serialize it, by a certificate for
 *      onecrl.content-signature.mozilla.org (Firefox's
 *      SECURITY_STATE_SIGNER, RemoteSecuritySettings.sys.mjs) chained to
 *      the pinned root (crlite_root).  A changeset with a tombstone
 *      ("deleted") is refused: a full changeset holds none.
 *   3. Of the records of the "default" channel: the newest full filter
 *      (incremental false, no parent; the greatest last_modified), then
 *      the delta whose parent is it, the delta whose parent is that one,
 *      and so on (Firefox's CRLite and upki-mirror walk the same chain).
 *      Two deltas of one parent, or a delta whose parent is not in the
 *      collection, refuse the changeset: the set would miss revocations.
 *   4. Each filter of the chain not on disk already is downloaded from
 *      the attachments' base URL (the server's root document,
 *      capabilities.attachments.base_url) joined with its location, and
 *      must have the record's size and SHA-256 and parse
 *      (crlc_clubcard_parse()) before the set is installed.
 * The x5u chain and the attachments come from URLs the network named:
 * fetched as learned URLs (public addresses only, allow_private_urls).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <crlcache/clubcard.h>

#include "contentsig.h"
#include "crlitesrc.h"
#include "json.h"

#define RS_CHANGESET_PATH "/buckets/security-state/collections/" \
	"cert-revocations/changeset?_expected=0"
#define RS_SIGNER	"onecrl.content-signature.mozilla.org"
#define RS_CHANNEL	"default"
/*
 * The changeset: about 20 KB in 2026 (a few dozen records of about 600
 * bytes); 4 MiB allows 200 times that.  Its records: at most 4096.
 */
#define RS_CHANGESET_MAX	((size_t)4 << 20)
#define RS_MAX_RECORDS		4096
/* Values in the changeset: a record holds about 30. */
#define RS_MAX_VALUES		((size_t)RS_MAX_RECORDS * 64)
/* The root document: under 2 KB. */
#define RS_ROOT_MAX		((size_t)64 << 10)
#define RS_ROOT_VALUES		4096
/* Record ids are UUIDs (36 bytes); an attachment's location a path. */
#define RS_ID_MAX		64
#define RS_LOCATION_MAX		CRLITE_PATH_MAX
#define RS_URL_MAX		CRLITE_URL_MAX
/* Signatures of one changeset: one per key while a key is rotated. */
#define RS_MAX_SIGNATURES	8

struct rs_record {
	size_t		 val;		/* the record in the changeset */
	char		 id[RS_ID_MAX + 1];
	char		 parent[RS_ID_MAX + 1];	/* "": none */
	int		 wanted;	/* of the default channel */
	int		 incremental;
	int64_t		 last_modified;
	uint8_t		 hash[CRLC_HASH_LEN];
	int64_t		 size;
	char		 location[RS_LOCATION_MAX + 1];
};

/* What a changeset gives while it is read. */
struct rs_run {
	struct crlite_run *run;
	struct json	 cs;
	struct rs_record *r;
	size_t		 nr;
};

/* A string member of at most max bytes of printable ASCII, or -1. */
static int
member_text(const struct json *j, size_t obj, const char *key, char *out,
    size_t max)
{
	size_t v = json_get(j, obj, key), i;

	if (v == 0 || json_str(j, v, out, max + 1) == -1 || out[0] == '\0')
		return -1;
	for (i = 0; out[i] != '\0'; i++)
		if (out[i] <= 0x20 || out[i] >= 0x7f)
			return -1;
	return 0;
}

/* What a record of the default channel must say of its filter. */
static int
record_filter(struct rs_run *rs, struct rs_record *rec)
{
	const struct json *j = &rs->cs;
	size_t inc = json_get(j, rec->val, "incremental");
	size_t parent = json_get(j, rec->val, "parent");
	size_t att = json_get(j, rec->val, "attachment");
	char hex[2 * CRLC_HASH_LEN + 1];

	if (inc == 0 || (j->v[inc].type != JSON_TRUE &&
	    j->v[inc].type != JSON_FALSE))
		return crlite_fail(rs->run, "record %s: no incremental flag", rec->id);
	rec->incremental = j->v[inc].type == JSON_TRUE;
	if (rec->incremental && member_text(j, rec->val, "parent",
	    rec->parent, RS_ID_MAX) == -1)
		return crlite_fail(rs->run, "record %s: a delta without a parent",
		    rec->id);
	if (!rec->incremental && parent != 0 && j->v[parent].type != JSON_NULL)
		return crlite_fail(rs->run, "record %s: a full filter with a parent",
		    rec->id);
	if (json_int(j, json_get(j, rec->val, "last_modified"),
	    &rec->last_modified) == -1)
		return crlite_fail(rs->run, "record %s: no last_modified", rec->id);
	if (att == 0 || member_text(j, att, "hash", hex, sizeof(hex) - 1) ==
	    -1 || strlen(hex) != 2 * CRLC_HASH_LEN ||
	    hex_decode(hex, strlen(hex), rec->hash, CRLC_HASH_LEN) == -1)
		return crlite_fail(rs->run, "record %s: no attachment SHA-256", rec->id);
	if (json_int(j, json_get(j, att, "size"), &rec->size) == -1 ||
	    rec->size <= 0 || (uint64_t)rec->size > CRLC_CLUBCARD_MAX_LEN)
		return crlite_fail(rs->run, "record %s: attachment size not 1 to %zu",
		    rec->id, CRLC_CLUBCARD_MAX_LEN);
	if (member_text(j, att, "location", rec->location,
	    RS_LOCATION_MAX) == -1 || !crlite_path_ok(rec->location))
		return crlite_fail(rs->run, "record %s: attachment location not a "
		    "relative path", rec->id);
	return 0;
}

static int
record_cmp(const void *a, const void *b, void *arg)
{
	const struct rs_record *x = a, *y = b;

	return json_str_cmp(arg, json_get(arg, x->val, "id"),
	    json_get(arg, y->val, "id"));
}

/* The records of the changeset, sorted by id; the default ones checked. */
static int
read_records(struct rs_run *rs, size_t changes)
{
	const struct json *j = &rs->cs;
	struct rs_record *rec;
	size_t m, k;

	if (changes == 0 || j->v[changes].type != JSON_ARRAY)
		return crlite_fail(rs->run, "changeset: no changes array");
	if (j->v[changes].n > RS_MAX_RECORDS)
		return crlite_fail(rs->run, "changeset: more than %d records",
		    RS_MAX_RECORDS);
	rs->r = xcalloc(j->v[changes].n + 1, sizeof(*rs->r));
	for (m = 0, k = json_first(j, changes); m < j->v[changes].n;
	    m++, k = json_next(j, k)) {
		rec = &rs->r[rs->nr++];
		rec->val = k;
		if (j->v[k].type != JSON_OBJECT ||
		    member_text(j, k, "id", rec->id, RS_ID_MAX) == -1)
			return crlite_fail(rs->run, "changeset: record %zu has no id", m);
		if (json_get(j, k, "deleted") != 0)
			return crlite_fail(rs->run, "changeset: record %s is a "
			    "tombstone", rec->id);
		rec->wanted = json_str_is(j, json_get(j, k, "channel"),
		    RS_CHANNEL);
		if (rec->wanted && record_filter(rs, rec) == -1)
			return -1;
	}
	qsort_r(rs->r, rs->nr, sizeof(*rs->r), record_cmp, (void *)j);
	for (m = 1; m < rs->nr; m++)
		if (strcmp(rs->r[m - 1].id, rs->r[m].id) == 0)
			return crlite_fail(rs->run, "changeset: record %s twice",
			    rs->r[m].id);
	return 0;
}

/* firefox: an attachment that is null is not part of the signed record */
static int
skip_null_attachment(const struct json *j, size_t key, size_t val)
{
	return json_str_is(j, key, "attachment") &&
	    j->v[val].type == JSON_NULL;
}

/* The bytes the collection's signature covers (without its prefix). */
static int
signed_bytes(struct rs_run *rs, int64_t timestamp, char **buf,
    size_t *len)
{
	char tail[64];
	size_t cap = 0, i;
	int n;

	*buf = NULL;
	*len = 0;
	if (json_canonical_put(buf, len, &cap, "{\"data\":[") == -1)
		return -1;
	for (i = 0; i < rs->nr; i++)
		if ((i > 0 && json_canonical_put(buf, len, &cap, ",") == -1) ||
		    json_canonical(&rs->cs, rs->r[i].val,
		    skip_null_attachment, buf, len, &cap) == -1)
			return crlite_fail(rs->run, "changeset: record %s has a value "
			    "without a canonical form (a fraction, an "
			    "exponent or a large number)", rs->r[i].id);
	n = snprintf(tail, sizeof(tail), "],\"last_modified\":\"%lld\"}",
	    (long long)timestamp);
	return json_canonical_put(buf, len, &cap, tail) == -1 || n < 0 ? -1 : 0;
}

/* One signature object {"x5u", "signature"} over data[0..len): 0 or -1. */
static int
verify_one(struct rs_run *rs, size_t sig, const char *data, size_t len)
{
	const struct json *j = &rs->cs;
	char x5u[RS_URL_MAX + 1], value[512];
	struct contentsig cs;
	struct fetch f;
	int ret = -1;

	if (member_text(j, sig, "x5u", x5u, RS_URL_MAX) == -1 ||
	    !url_usable(x5u, strlen(x5u)) ||
	    member_text(j, sig, "signature", value, sizeof(value) - 1) == -1)
		return crlite_fail(rs->run, "changeset: a signature without an x5u URL "
		    "or a value");
	memset(&f, 0, sizeof(f));
	if (crlite_get(rs->run, &f, x5u, 1, 0, CONTENTSIG_MAX_CHAIN) == 0) {
		memset(&cs, 0, sizeof(cs));
		cs.signature = value;
		cs.chain = f.body;
		cs.chainlen = f.len;
		cs.signer = RS_SIGNER;
		memcpy(cs.root, rs->run->conf->crlite_root, CRLC_HASH_LEN);
		cs.now = (int64_t)time(NULL);
		ret = contentsig_verify(&cs, (const uint8_t *)data, len,
		    rs->run->err, sizeof(rs->run->err));
	}
	fetch_free(&f);
	return ret;
}

/*
 * Step 2: the content signature over the changeset.  The server lists
 * its signatures in metadata.signatures (one per signing key while Mozilla
 * rotates one) and the first again as metadata.signature for older
 * clients (mozilla/remote-settings, signer/updater.py): one that verifies
 * is enough.
 */
static int
verify(struct rs_run *rs)
{
	const struct json *j = &rs->cs;
	size_t meta = json_get(j, 0, "metadata"), list, sig, m;
	int64_t timestamp;
	char *data = NULL;
	size_t len;
	int ret = -1;

	if (json_int(j, json_get(j, 0, "timestamp"), &timestamp) == -1 ||
	    timestamp < 0)
		return crlite_fail(rs->run, "changeset: no timestamp");
	list = meta != 0 ? json_get(j, meta, "signatures") : 0;
	sig = meta != 0 ? json_get(j, meta, "signature") : 0;
	if (list != 0 && (j->v[list].type != JSON_ARRAY || j->v[list].n == 0 ||
	    j->v[list].n > RS_MAX_SIGNATURES))
		return crlite_fail(rs->run, "changeset: metadata.signatures is not a "
		    "list of 1 to %d", RS_MAX_SIGNATURES);
	if (list == 0 && sig == 0)
		return crlite_fail(rs->run, "changeset: unsigned (no metadata."
		    "signature)");
	if (signed_bytes(rs, timestamp, &data, &len) == -1) {
		free(data);
		return rs->run->err[0] != '\0' ? -1 :
		    crlite_fail(rs->run, "out of memory");
	}
	if (list == 0)
		ret = verify_one(rs, sig, data, len);
	for (m = 0, sig = list != 0 ? json_first(j, list) : 0;
	    list != 0 && m < j->v[list].n && ret == -1;
	    m++, sig = json_next(j, sig))
		ret = verify_one(rs, sig, data, len);
	free(data);
	return ret;
}

static struct rs_record *
find_id(struct rs_run *rs, const char *id)
{
	size_t i;

	for (i = 0; i < rs->nr; i++)
		if (strcmp(rs->r[i].id, id) == 0)
			return &rs->r[i];
	return NULL;
}

/* The filter of rec is the next of the set. */
static void
want(struct rs_run *rs, const struct rs_record *rec)
{
	struct crlite_want *w = &rs->run->want[rs->run->nwant++];

	memcpy(w->hash, rec->hash, CRLC_HASH_LEN);
	w->size = (uint64_t)rec->size;
	snprintf(w->name, sizeof(w->name), "record %s", rec->id);
	snprintf(w->path, sizeof(w->path), "%s", rec->location);
}

/* Step 3: the newest full filter of the default channel and its deltas. */
static int
select_chain(struct rs_run *rs)
{
	struct rs_record *full = NULL, *cur, *next;
	size_t i;
	int ties = 0;

	for (i = 0; i < rs->nr; i++) {
		cur = &rs->r[i];
		if (!cur->wanted)
			continue;
		if (cur->incremental && find_id(rs, cur->parent) == NULL)
			return crlite_fail(rs->run, "changeset: delta %s's parent %s "
			    "is not in the collection", cur->id, cur->parent);
		if (cur->incremental)
			continue;
		if (full != NULL && cur->last_modified == full->last_modified)
			ties++;
		else if (full == NULL || cur->last_modified > full->last_modified)
			full = cur, ties = 0;
	}
	if (full == NULL)
		return crlite_fail(rs->run, "changeset: no full filter in the %s "
		    "channel", RS_CHANNEL);
	if (ties > 0)
		return crlite_fail(rs->run, "changeset: two newest full filters");
	want(rs, full);
	for (cur = full; ; cur = next) {
		next = NULL;
		for (i = 0; i < rs->nr; i++) {
			if (!rs->r[i].wanted || !rs->r[i].incremental ||
			    strcmp(rs->r[i].parent, cur->id) != 0)
				continue;
			if (next != NULL)
				return crlite_fail(rs->run, "changeset: two deltas of "
				    "%s", cur->id);
			next = &rs->r[i];
		}
		if (next == NULL)
			return 0;
		if (rs->run->nwant == CRLC_CRLITE_FILTERS_MAX)
			return crlite_fail(rs->run, "changeset: more than %u filters "
			    "in the chain", CRLC_CRLITE_FILTERS_MAX);
		want(rs, next);
	}
}


/* Steps 2 and 3 on a changeset received. */
static int
rs_plan(struct crlite_run *run, const uint8_t *body, size_t len)
{
	struct rs_run rs;
	int ret = -1;

	memset(&rs, 0, sizeof(rs));
	rs.run = run;
	if (json_parse(&rs.cs, (const char *)body, len, RS_MAX_VALUES,
	    run->err, sizeof(run->err)) == 0 &&
	    read_records(&rs, json_get(&rs.cs, 0, "changes")) == 0 &&
	    verify(&rs) == 0 && select_chain(&rs) == 0)
		ret = 0;
	json_free(&rs.cs);
	free(rs.r);
	return ret;
}

static void
rs_index_url(const struct conf *conf, char *out, size_t len)
{
	snprintf(out, len, "%s%s", conf->crlite, RS_CHANGESET_PATH);
}

/* The attachments' base URL, from the server's root document. */
static int
rs_base(struct crlite_run *run, char *out, size_t outlen)
{
	char url[RS_URL_MAX + 2];
	struct fetch f;
	struct json j;
	size_t caps;
	int ret = -1;

	memset(&f, 0, sizeof(f));
	snprintf(url, sizeof(url), "%s/", run->conf->crlite);
	if (crlite_get(run, &f, url, 0, 1, RS_ROOT_MAX) == -1)
		return -1;
	if (json_parse(&j, (const char *)f.body, f.len, RS_ROOT_VALUES,
	    run->err, sizeof(run->err)) == -1) {
		fetch_free(&f);
		return -1;
	}
	caps = json_get(&j, 0, "capabilities");
	caps = caps != 0 ? json_get(&j, caps, "attachments") : 0;
	if (caps == 0 ||
	    member_text(&j, caps, "base_url", out, outlen - 2) == -1 ||
	    !url_usable(out, strlen(out)))
		crlite_fail(run, "%s: no capabilities.attachments.base_url",
		    url);
	else {
		if (out[strlen(out) - 1] != '/')
			strcat(out, "/");
		ret = 0;
	}
	json_free(&j);
	fetch_free(&f);
	return ret;
}

const struct crlite_source crlite_remote_settings = {
	CRLC_CRLITE_SRC_REMOTE_SETTINGS, RS_CHANGESET_MAX, 1, 0, "signed record",
	rs_index_url, rs_plan, rs_base,
};
