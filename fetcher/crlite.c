/*
 * CRLite from Mozilla's Remote Settings: the cert-revocations collection
 * of the security-state bucket, verified by its content signature, its
 * filters by their signed sizes and SHA-256, installed as the set in
 * force (<crlcache/crlite.h>).
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
 * Any failure keeps the set in force, and forgets the changeset's
 * validators, so that the next run asks for the whole changeset again.
 * The x5u chain and the attachments come from URLs the network named:
 * fetched as learned URLs (public addresses only, allow_private_urls).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <crlcache/clubcard.h>
#include <crlcache/hash.h>

#include "contentsig.h"
#include "crlite.h"
#include "fetcher.h"
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
#define RS_LOCATION_MAX		512
#define RS_URL_MAX		1024
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

struct rs_run {
	const char	*state_dir;
	const struct conf *conf;
	char		 server[RS_URL_MAX];
	char		 changeset_url[RS_URL_MAX + sizeof(RS_CHANGESET_PATH)];
	struct json	 cs;
	struct rs_record *r;
	size_t		 nr;
	size_t		 chain[CRLC_CRLITE_FILTERS_MAX];
	size_t		 nchain;
	uint64_t	 bytes;		/* fetched this run */
	size_t		 fetched;	/* filters downloaded */
	char		 err[ERRLEN];
};

static int
rs_fail(struct rs_run *run, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
rs_fail(struct rs_run *run, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(run->err, sizeof(run->err), fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * One GET of url, body at most max bytes (gzip asked when decode):
 * 0 with f filled (the caller frees it), or -1 with why in run->err.
 */
static int
get(struct rs_run *run, struct fetch *f, const char *url, int guarded,
    int decode, size_t max)
{
	struct conf c = *run->conf;

	c.max_size = max;
	f->url = url;
	f->guarded = guarded;
	f->decode = decode;
	if (fetch_all(f, 1, &c) == -1 || !f->ok) {
		char *shown = safe_text(url);

		rs_fail(run, "%s: %s", shown, f->err[0] != '\0' ? f->err :
		    "fetch failed");
		free(shown);
		return -1;
	}
	run->bytes += f->len;
	return 0;
}

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

/* A relative path of unreserved characters (RFC 3986 2.3) and '/'. */
static int
location_ok(const char *s)
{
	return s[0] != '/' && strstr(s, "..") == NULL &&
	    strstr(s, "//") == NULL && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-._~/") == strlen(s);
}

/* What a record of the default channel must say of its filter. */
static int
record_filter(struct rs_run *run, struct rs_record *rec)
{
	const struct json *j = &run->cs;
	size_t inc = json_get(j, rec->val, "incremental");
	size_t parent = json_get(j, rec->val, "parent");
	size_t att = json_get(j, rec->val, "attachment");
	char hex[2 * CRLC_HASH_LEN + 1];

	if (inc == 0 || (j->v[inc].type != JSON_TRUE &&
	    j->v[inc].type != JSON_FALSE))
		return rs_fail(run, "record %s: no incremental flag", rec->id);
	rec->incremental = j->v[inc].type == JSON_TRUE;
	if (rec->incremental && member_text(j, rec->val, "parent",
	    rec->parent, RS_ID_MAX) == -1)
		return rs_fail(run, "record %s: a delta without a parent",
		    rec->id);
	if (!rec->incremental && parent != 0 && j->v[parent].type != JSON_NULL)
		return rs_fail(run, "record %s: a full filter with a parent",
		    rec->id);
	if (json_int(j, json_get(j, rec->val, "last_modified"),
	    &rec->last_modified) == -1)
		return rs_fail(run, "record %s: no last_modified", rec->id);
	if (att == 0 || member_text(j, att, "hash", hex, sizeof(hex) - 1) ==
	    -1 || strlen(hex) != 2 * CRLC_HASH_LEN ||
	    hex_decode(hex, strlen(hex), rec->hash, CRLC_HASH_LEN) == -1)
		return rs_fail(run, "record %s: no attachment SHA-256", rec->id);
	if (json_int(j, json_get(j, att, "size"), &rec->size) == -1 ||
	    rec->size <= 0 || (uint64_t)rec->size > CRLC_CLUBCARD_MAX_LEN)
		return rs_fail(run, "record %s: attachment size not 1 to %zu",
		    rec->id, CRLC_CLUBCARD_MAX_LEN);
	if (member_text(j, att, "location", rec->location,
	    RS_LOCATION_MAX) == -1 || !location_ok(rec->location))
		return rs_fail(run, "record %s: attachment location not a "
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
read_records(struct rs_run *run, size_t changes)
{
	const struct json *j = &run->cs;
	struct rs_record *rec;
	size_t m, k;

	if (changes == 0 || j->v[changes].type != JSON_ARRAY)
		return rs_fail(run, "changeset: no changes array");
	if (j->v[changes].n > RS_MAX_RECORDS)
		return rs_fail(run, "changeset: more than %d records",
		    RS_MAX_RECORDS);
	run->r = xcalloc(j->v[changes].n + 1, sizeof(*run->r));
	for (m = 0, k = json_first(j, changes); m < j->v[changes].n;
	    m++, k = json_next(j, k)) {
		rec = &run->r[run->nr++];
		rec->val = k;
		if (j->v[k].type != JSON_OBJECT ||
		    member_text(j, k, "id", rec->id, RS_ID_MAX) == -1)
			return rs_fail(run, "changeset: record %zu has no id", m);
		if (json_get(j, k, "deleted") != 0)
			return rs_fail(run, "changeset: record %s is a "
			    "tombstone", rec->id);
		rec->wanted = json_str_is(j, json_get(j, k, "channel"),
		    RS_CHANNEL);
		if (rec->wanted && record_filter(run, rec) == -1)
			return -1;
	}
	qsort_r(run->r, run->nr, sizeof(*run->r), record_cmp, (void *)j);
	for (m = 1; m < run->nr; m++)
		if (strcmp(run->r[m - 1].id, run->r[m].id) == 0)
			return rs_fail(run, "changeset: record %s twice",
			    run->r[m].id);
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
signed_bytes(struct rs_run *run, int64_t timestamp, char **buf,
    size_t *len)
{
	char tail[64];
	size_t cap = 0, i;
	int n;

	*buf = NULL;
	*len = 0;
	if (json_canonical_put(buf, len, &cap, "{\"data\":[") == -1)
		return -1;
	for (i = 0; i < run->nr; i++)
		if ((i > 0 && json_canonical_put(buf, len, &cap, ",") == -1) ||
		    json_canonical(&run->cs, run->r[i].val,
		    skip_null_attachment, buf, len, &cap) == -1)
			return rs_fail(run, "changeset: record %s has a value "
			    "without a canonical form (a fraction, an "
			    "exponent or a large number)", run->r[i].id);
	n = snprintf(tail, sizeof(tail), "],\"last_modified\":\"%lld\"}",
	    (long long)timestamp);
	return json_canonical_put(buf, len, &cap, tail) == -1 || n < 0 ? -1 : 0;
}

/* One signature object {"x5u", "signature"} over data[0..len): 0 or -1. */
static int
verify_one(struct rs_run *run, size_t sig, const char *data, size_t len)
{
	const struct json *j = &run->cs;
	char x5u[RS_URL_MAX + 1], value[512];
	struct contentsig cs;
	struct fetch f;
	int ret = -1;

	if (member_text(j, sig, "x5u", x5u, RS_URL_MAX) == -1 ||
	    !url_usable(x5u, strlen(x5u)) ||
	    member_text(j, sig, "signature", value, sizeof(value) - 1) == -1)
		return rs_fail(run, "changeset: a signature without an x5u URL "
		    "or a value");
	memset(&f, 0, sizeof(f));
	if (get(run, &f, x5u, 1, 0, CONTENTSIG_MAX_CHAIN) == 0) {
		memset(&cs, 0, sizeof(cs));
		cs.signature = value;
		cs.chain = f.body;
		cs.chainlen = f.len;
		cs.signer = RS_SIGNER;
		memcpy(cs.root, run->conf->crlite_root, CRLC_HASH_LEN);
		cs.now = (int64_t)time(NULL);
		ret = contentsig_verify(&cs, (const uint8_t *)data, len,
		    run->err, sizeof(run->err));
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
verify(struct rs_run *run)
{
	const struct json *j = &run->cs;
	size_t meta = json_get(j, 0, "metadata"), list, sig, m;
	int64_t timestamp;
	char *data = NULL;
	size_t len;
	int ret = -1;

	if (json_int(j, json_get(j, 0, "timestamp"), &timestamp) == -1 ||
	    timestamp < 0)
		return rs_fail(run, "changeset: no timestamp");
	list = meta != 0 ? json_get(j, meta, "signatures") : 0;
	sig = meta != 0 ? json_get(j, meta, "signature") : 0;
	if (list != 0 && (j->v[list].type != JSON_ARRAY || j->v[list].n == 0 ||
	    j->v[list].n > RS_MAX_SIGNATURES))
		return rs_fail(run, "changeset: metadata.signatures is not a "
		    "list of 1 to %d", RS_MAX_SIGNATURES);
	if (list == 0 && sig == 0)
		return rs_fail(run, "changeset: unsigned (no metadata."
		    "signature)");
	if (signed_bytes(run, timestamp, &data, &len) == -1) {
		free(data);
		return run->err[0] != '\0' ? -1 : rs_fail(run, "out of memory");
	}
	if (list == 0)
		ret = verify_one(run, sig, data, len);
	for (m = 0, sig = list != 0 ? json_first(j, list) : 0;
	    list != 0 && m < j->v[list].n && ret == -1;
	    m++, sig = json_next(j, sig))
		ret = verify_one(run, sig, data, len);
	free(data);
	return ret;
}

static struct rs_record *
find_id(struct rs_run *run, const char *id)
{
	size_t i;

	for (i = 0; i < run->nr; i++)
		if (strcmp(run->r[i].id, id) == 0)
			return &run->r[i];
	return NULL;
}

/* Step 3: the newest full filter of the default channel and its deltas. */
static int
select_chain(struct rs_run *run)
{
	struct rs_record *full = NULL, *cur, *next;
	size_t i;
	int ties = 0;

	for (i = 0; i < run->nr; i++) {
		cur = &run->r[i];
		if (!cur->wanted)
			continue;
		if (cur->incremental && find_id(run, cur->parent) == NULL)
			return rs_fail(run, "changeset: delta %s's parent %s "
			    "is not in the collection", cur->id, cur->parent);
		if (cur->incremental)
			continue;
		if (full != NULL && cur->last_modified == full->last_modified)
			ties++;
		else if (full == NULL || cur->last_modified > full->last_modified)
			full = cur, ties = 0;
	}
	if (full == NULL)
		return rs_fail(run, "changeset: no full filter in the %s "
		    "channel", RS_CHANNEL);
	if (ties > 0)
		return rs_fail(run, "changeset: two newest full filters");
	run->chain[run->nchain++] = (size_t)(full - run->r);
	for (cur = full; ; cur = next) {
		next = NULL;
		for (i = 0; i < run->nr; i++) {
			if (!run->r[i].wanted || !run->r[i].incremental ||
			    strcmp(run->r[i].parent, cur->id) != 0)
				continue;
			if (next != NULL)
				return rs_fail(run, "changeset: two deltas of "
				    "%s", cur->id);
			next = &run->r[i];
		}
		if (next == NULL)
			return 0;
		if (run->nchain == CRLC_CRLITE_FILTERS_MAX)
			return rs_fail(run, "changeset: more than %u filters "
			    "in the chain", CRLC_CRLITE_FILTERS_MAX);
		run->chain[run->nchain++] = (size_t)(next - run->r);
	}
}

/* The attachments' base URL, from the server's root document. */
static int
attachment_base(struct rs_run *run, char *out, size_t outlen)
{
	char url[RS_URL_MAX + 2];
	struct fetch f;
	struct json j;
	size_t caps;
	int ret = -1;

	memset(&f, 0, sizeof(f));
	snprintf(url, sizeof(url), "%s/", run->server);
	if (get(run, &f, url, 0, 1, RS_ROOT_MAX) == -1)
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
		rs_fail(run, "%s: no capabilities.attachments.base_url", url);
	else {
		if (out[strlen(out) - 1] != '/')
			strcat(out, "/");
		ret = 0;
	}
	json_free(&j);
	fetch_free(&f);
	return ret;
}

/* One downloaded attachment: the record's size, SHA-256, and it parses. */
static int
check_filter(struct rs_run *run, const struct rs_record *rec,
    const uint8_t *body, size_t len, struct crlc_clubcard_info *info)
{
	char why[CRLC_CLUBCARD_WHY_LEN];
	uint8_t hash[CRLC_HASH_LEN];
	struct crlc_clubcard *cc;

	if (len != (size_t)rec->size)
		return rs_fail(run, "record %s: attachment of %zu bytes, the "
		    "signed size is %lld", rec->id, len, (long long)rec->size);
	crlc_sha256(body, len, hash);
	if (memcmp(hash, rec->hash, CRLC_HASH_LEN) != 0)
		return rs_fail(run, "record %s: the attachment's SHA-256 is not "
		    "the signed one", rec->id);
	if (crlc_clubcard_parse(body, len, &cc, why, sizeof(why)) == -1)
		return rs_fail(run, "record %s: not a clubcard filter: %s",
		    rec->id, why);
	crlc_clubcard_info(cc, info);
	crlc_clubcard_free(cc);
	return 0;
}

/*
 * Step 4: the chain's filters into set, from disk where the file is
 * there already, else downloaded; each checked.
 */
static int
gather(struct rs_run *run, struct crlite_set *set)
{
	char base[RS_URL_MAX + 2], *url;
	struct crlc_clubcard_info info;
	struct crlite_filter *cf;
	struct rs_record *rec;
	struct fetch f;
	size_t i;
	int have_base = 0;

	for (i = 0; i < run->nchain; i++) {
		rec = &run->r[run->chain[i]];
		cf = &set->f[set->n++];
		memcpy(cf->hash, rec->hash, CRLC_HASH_LEN);
		cf->size = (uint64_t)rec->size;
		cf->kind = i == 0 ? CRLC_CRLITE_FULL : CRLC_CRLITE_DELTA;
		if (crlite_file_read(run->state_dir, cf, &cf->body) == 0) {
			if (check_filter(run, rec, cf->body, cf->size,
			    &info) == -1)
				return -1;
			free(cf->body);
			cf->body = NULL;
		} else {
			if (!have_base && attachment_base(run, base,
			    sizeof(base)) == -1)
				return -1;
			have_base = 1;
			memset(&f, 0, sizeof(f));
			if (asprintf(&url, "%s%s", base, rec->location) == -1)
				return rs_fail(run, "out of memory");
			if (get(run, &f, url, 1, 0, CRLC_CLUBCARD_MAX_LEN) == -1 ||
			    check_filter(run, rec, f.body, f.len, &info) == -1) {
				free(url);
				fetch_free(&f);
				return -1;
			}
			free(url);
			cf->body = f.body;
			f.body = NULL;
			fetch_free(&f);
			run->fetched++;
		}
		if (info.newest > set->newest)
			set->newest = info.newest;
	}
	return 0;
}

/* Is the chain the set in force already? */
static int
same_set(const struct crlite_set *a, const struct crlite_set *b)
{
	size_t i;

	if (a->n != b->n || a->source != b->source)
		return 0;
	for (i = 0; i < a->n; i++)
		if (memcmp(a->f[i].hash, b->f[i].hash, CRLC_HASH_LEN) != 0)
			return 0;
	return 1;
}

/* Steps 2 to 4 on a changeset received: 1 installed, 0 unchanged, -1. */
static int
settle_changeset(struct rs_run *run, const struct fetch *f,
    const struct crlite_set *cur, int have)
{
	struct crlite_set set;
	char why[ERRLEN];
	int ret = -1;

	memset(&set, 0, sizeof(set));
	if (json_parse(&run->cs, (const char *)f->body, f->len,
	    RS_MAX_VALUES, run->err, sizeof(run->err)) == -1 ||
	    read_records(run, json_get(&run->cs, 0, "changes")) == -1 ||
	    verify(run) == -1 || select_chain(run) == -1)
		return -1;
	set.source = CRLC_CRLITE_SRC_REMOTE_SETTINGS;
	set.installed = (int64_t)time(NULL);
	if (gather(run, &set) == -1)
		goto done;
	if (have && run->fetched == 0 && same_set(&set, cur)) {
		ret = 0;
		goto done;
	}
	if (crlite_set_install(run->state_dir, &set, why, sizeof(why)) == -1)
		rs_fail(run, "%s", why);
	else
		ret = 1;
done:
	crlite_set_free(&set);
	return ret;
}

/* The source record of the changeset URL, as a CRL URL's is kept. */
static void
record_source(struct rs_run *run, struct store *s, struct fetch *f, int ok)
{
	struct source_rec rec;

	(void)store_get_source(s, run->changeset_url, &rec);
	free(rec.error);
	rec.error = NULL;
	rec.last_attempt = (int64_t)time(NULL);
	rec.http_status = f->status;
	rec.fresh_until = 0;
	if (ok) {
		rec.last_success = rec.last_attempt;
		if (!f->not_modified) {
			free(rec.etag);
			free(rec.last_modified);
			rec.etag = f->new_etag;
			rec.last_modified = f->new_last_modified;
			f->new_etag = f->new_last_modified = NULL;
		}
	} else {
		/* The next run asks for the whole changeset. */
		free(rec.etag);
		free(rec.last_modified);
		rec.etag = rec.last_modified = NULL;
		rec.error = xstrdup(run->err);
	}
	if (store_put_source(s, run->changeset_url, &rec) == -1)
		logx(0, "%s: cannot record the source state",
		    run->changeset_url);
	source_rec_free(&rec);
}

/*
 * Is every filter of the set in force on disk as it names it?  If not,
 * the changeset is asked for whole, and the missing filters downloaded.
 */
static int
set_on_disk(const char *state_dir, const struct crlite_set *cur)
{
	uint8_t *body;
	size_t i;

	for (i = 0; i < cur->n; i++) {
		if (crlite_file_read(state_dir, &cur->f[i], &body) == -1) {
			logx(0, "crlite: filter %zu of the set in force is "
			    "missing or damaged; fetched again", i);
			return 0;
		}
		free(body);
	}
	return 1;
}

int
crlite_update(const char *state_dir, const struct conf *conf,
    struct store *s, char *what, size_t whatlen)
{
	struct rs_run run;
	struct crlite_set cur;
	struct source_rec rec;
	struct fetch f;
	char why[ERRLEN];
	int have, r = -1;

	what[0] = '\0';
	if (conf->crlite == NULL)
		return 0;
	memset(&run, 0, sizeof(run));
	memset(&f, 0, sizeof(f));
	run.state_dir = state_dir;
	run.conf = conf;
	snprintf(run.server, sizeof(run.server), "%s", conf->crlite);
	snprintf(run.changeset_url, sizeof(run.changeset_url), "%s%s",
	    run.server, RS_CHANGESET_PATH);
	if ((have = crlite_set_read(state_dir, &cur, why, sizeof(why))) == -1)
		logx(0, "crlite: %s; a new set is fetched", why);
	have = have == 0 && cur.source == CRLC_CRLITE_SRC_REMOTE_SETTINGS &&
	    set_on_disk(state_dir, &cur);
	/* Ask conditionally only when what it gave last time is installed. */
	if (store_get_source(s, run.changeset_url, &rec) == 0 && have) {
		f.etag = rec.etag;
		f.last_modified = rec.last_modified;
	}
	if (get(&run, &f, run.changeset_url, 0, 1, RS_CHANGESET_MAX) == 0)
		r = f.not_modified ? 0 : settle_changeset(&run, &f, &cur, have);
	f.etag = f.last_modified = NULL;
	source_rec_free(&rec);
	record_source(&run, s, &f, r != -1);
	crlite_tally_add(state_dir, CRLC_CRLITE_SRC_REMOTE_SETTINGS, run.bytes);
	if (r == -1) {
		logx(0, "crlite: %s; the set in force is kept", run.err);
		snprintf(what, whatlen, "crlite failed, the set in force kept");
	} else if (r == 0)
		snprintf(what, whatlen, "crlite %s (%zu filters, %llu bytes "
		    "fetched)", f.not_modified ? "not modified" : "unchanged",
		    have ? cur.n : 0, (unsigned long long)run.bytes);
	else
		snprintf(what, whatlen, "crlite: %zu filters installed (%zu "
		    "fetched, %llu bytes)", run.nchain, run.fetched,
		    (unsigned long long)run.bytes);
	fetch_free(&f);
	json_free(&run.cs);
	free(run.r);
	return r == -1 ? -1 : 0;
}
