/*
 * The Remote Settings source of CRLite (crlite.c drives it): Mozilla's
 * cert-revocations collection of the security-state bucket, verified by
 * its content signature; its filters by their signed sizes and SHA-256.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * One run (`crlite = SERVER`, e.g. https://firefox.settings.services.
 * mozilla.com/v1):
 *   1. The collection cert-revocations of the bucket security-state,
 *      asked only when monitor/changes lists it changed, with _since the
 *      changeset held, and merged with it (rsclient.c); a changeset
 *      older than the one in force is refused.  Without a set of this
 *      source whole on disk it is asked whole.
 *   2. The changeset {"metadata": {"signature": {"x5u", "signature"}},
 *      "changes": [records], "timestamp": N}, merged, is read whole
 *      (json.c); its content signature is verified (contentsig.c) over the
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
 * The merged changeset is kept (CRLC_CRLITE_RS_HELD) once the set is
 * installed (crlite.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <crlcache/clubcard.h>

#include "budget.h"
#include "crlitesrc.h"
#include "fetcher.h"

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
/* An attachment's location: a path. */
#define RS_LOCATION_MAX		CRLITE_PATH_MAX

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
	const struct rs_changeset *c;	/* verified */
	struct rs_record *r;
	size_t		 nr;
};

/* What a record of the default channel must say of its filter. */
static int
record_filter(struct rs_run *rs, struct rs_record *rec)
{
	const struct json *j = &rs->c->cs;
	size_t inc = json_get(j, rec->val, "incremental");
	size_t parent = json_get(j, rec->val, "parent");
	size_t att = json_get(j, rec->val, "attachment");
	char hex[2 * CRLC_HASH_LEN + 1];

	if (inc == 0 || (j->v[inc].type != JSON_TRUE &&
	    j->v[inc].type != JSON_FALSE))
		return fetch_budget_fail(&rs->run->b, "record %s: no "
		    "incremental flag", rec->id);
	rec->incremental = j->v[inc].type == JSON_TRUE;
	if (rec->incremental && rs_member_text(j, rec->val, "parent",
	    rec->parent, RS_ID_MAX) == -1)
		return fetch_budget_fail(&rs->run->b, "record %s: a delta "
		    "without a parent", rec->id);
	if (!rec->incremental && parent != 0 && j->v[parent].type != JSON_NULL)
		return fetch_budget_fail(&rs->run->b, "record %s: a full "
		    "filter with a parent", rec->id);
	if (json_int(j, json_get(j, rec->val, "last_modified"),
	    &rec->last_modified) == -1)
		return fetch_budget_fail(&rs->run->b, "record %s: no "
		    "last_modified", rec->id);
	if (att == 0 || rs_member_text(j, att, "hash", hex, sizeof(hex) - 1) ==
	    -1 || strlen(hex) != 2 * CRLC_HASH_LEN ||
	    crlc_hex_decode(hex, strlen(hex), rec->hash, CRLC_HASH_LEN) == -1)
		return fetch_budget_fail(&rs->run->b, "record %s: no "
		    "attachment SHA-256", rec->id);
	if (json_int(j, json_get(j, att, "size"), &rec->size) == -1 ||
	    rec->size <= 0 || (uint64_t)rec->size > CRLC_CLUBCARD_MAX_LEN)
		return fetch_budget_fail(&rs->run->b, "record %s: attachment "
		    "size not 1 to %zu", rec->id, CRLC_CLUBCARD_MAX_LEN);
	if (rs_member_text(j, att, "location", rec->location,
	    RS_LOCATION_MAX) == -1 || !crlite_path_ok(rec->location))
		return fetch_budget_fail(&rs->run->b, "record %s: attachment "
		    "location not a relative path", rec->id);
	return 0;
}

/* The records of the changeset, sorted by id; the default ones checked. */
static int
read_records(struct rs_run *rs)
{
	const struct json *j = &rs->c->cs;
	struct rs_record *rec;
	size_t m;

	rs->r = xcalloc(rs->c->n + 1, sizeof(*rs->r));
	for (m = 0; m < rs->c->n; m++) {
		rec = &rs->r[rs->nr++];
		rec->val = rs->c->rec[m];
		(void)rs_member_text(j, rec->val, "id", rec->id, RS_ID_MAX);
		rec->wanted = json_str_is(j, json_get(j, rec->val, "channel"),
		    RS_CHANNEL);
		if (rec->wanted && record_filter(rs, rec) == -1)
			return -1;
	}
	return 0;
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
			return fetch_budget_fail(&rs->run->b, "changeset: "
			    "delta %s's parent %s is not in the collection",
			    cur->id, cur->parent);
		if (cur->incremental)
			continue;
		if (full != NULL && cur->last_modified == full->last_modified)
			ties++;
		else if (full == NULL || cur->last_modified > full->last_modified)
			full = cur, ties = 0;
	}
	if (full == NULL)
		return fetch_budget_fail(&rs->run->b, "changeset: no full "
		    "filter in the %s channel", RS_CHANNEL);
	if (ties > 0)
		return fetch_budget_fail(&rs->run->b, "changeset: two newest "
		    "full filters");
	want(rs, full);
	for (cur = full; ; cur = next) {
		next = NULL;
		for (i = 0; i < rs->nr; i++) {
			if (!rs->r[i].wanted || !rs->r[i].incremental ||
			    strcmp(rs->r[i].parent, cur->id) != 0)
				continue;
			if (next != NULL)
				return fetch_budget_fail(&rs->run->b,
				    "changeset: two deltas of %s", cur->id);
			next = &rs->r[i];
		}
		if (next == NULL)
			return 0;
		if (rs->run->nwant == CRLC_CRLITE_FILTERS_MAX)
			return fetch_budget_fail(&rs->run->b, "changeset: more "
			    "than %u filters in the chain",
			    CRLC_CRLITE_FILTERS_MAX);
		want(rs, next);
	}
}


/*
 * Steps 1 to 3: the collection asked when it changed (rsclient.c),
 * verified, and its chain selected: 1, 0 unchanged, -1.
 */
static int
rs_index(struct crlite_run *run)
{
	struct rs_client rc;
	struct rs_run rs;
	int r;

	rc.b = run->b;		/* the run's budget, spent by the client */
	rc.st = run->st;
	run->col.which = RS_CERT_REVOCATIONS;
	run->col.max_len = RS_CHANGESET_MAX;
	run->col.max_values = RS_MAX_VALUES;
	run->col.max_records = RS_MAX_RECORDS;
	run->col.whole = !run->have;
	r = rs_collection_fetch(&rc, run->mon, &run->col);
	run->b = rc.b;
	if (r != 1)
		return r;
	memset(&rs, 0, sizeof(rs));
	rs.run = run;
	rs.c = &run->col.cs;
	r = read_records(&rs) == 0 && select_chain(&rs) == 0 ? 1 : -1;
	free(rs.r);
	return r;
}

static void
rs_index_url(const struct conf *conf, char *out, size_t len)
{
	rs_collection_url(conf, RS_CERT_REVOCATIONS, out, len);
}

/* The attachments' base URL, from the server's root document. */
static int
rs_base(struct crlite_run *run, char *out, size_t outlen)
{
	char url[CRLITE_URL_MAX + 2];
	struct fetch f;
	struct json j;
	size_t caps;
	int ret = -1;

	memset(&f, 0, sizeof(f));
	snprintf(url, sizeof(url), "%s/", run->b.conf->crlite);
	if (fetch_budget_get(&run->b, &f, url, 0, 1, RS_ROOT_MAX) == -1)
		return -1;
	if (json_parse(&j, (const char *)f.body, f.len, RS_ROOT_VALUES,
	    run->b.err, sizeof(run->b.err)) == -1) {
		fetch_free(&f);
		return -1;
	}
	caps = json_get(&j, 0, "capabilities");
	caps = caps != 0 ? json_get(&j, caps, "attachments") : 0;
	if (caps == 0 ||
	    rs_member_text(&j, caps, "base_url", out, outlen - 2) == -1 ||
	    !url_usable(out, strlen(out)))
		fetch_budget_fail(&run->b,
		    "%s: no capabilities.attachments.base_url", url);
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
	rs_index_url, NULL, rs_base, rs_index,
};
