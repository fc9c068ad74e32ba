/*
 * A changeset of the security-state bucket, read and verified
 * (rschangeset.h).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The content signature (contentsig.c) is over the canonical JSON of
 * {"data": records sorted by id, each without an "attachment" that is
 * null, "last_modified": "N"}, as Firefox's RemoteSettingsClient and
 * application-services' remote_settings (signatures.rs) serialize it, by
 * a certificate for RS_SIGNER chained to the pinned root (crlite_root).
 * The x5u chain comes from a URL the network named: fetched as a learned
 * URL (public addresses only, allow_private_urls).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "budget.h"
#include "contentsig.h"
#include "fetcher.h"
#include "rschangeset.h"

/* An x5u URL: the attachments' host and a path. */
#define RS_X5U_MAX		1024
/* Signatures of one changeset: one per key while a key is rotated. */
#define RS_MAX_SIGNATURES	8

int
rs_member_text(const struct json *j, size_t obj, const char *key, char *out,
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

static int
record_cmp(const void *a, const void *b, void *arg)
{
	const size_t *x = a, *y = b;

	return json_str_cmp(arg, json_get(arg, *x, "id"),
	    json_get(arg, *y, "id"));
}

int
rs_changeset_read(struct rs_changeset *c, struct fetch_budget *b,
    const uint8_t *body, size_t len, size_t max_values, size_t max_records)
{
	const struct json *j = &c->cs;
	char id[RS_ID_MAX + 1];
	size_t changes, m, k;

	memset(c, 0, sizeof(*c));
	c->b = b;
	if (json_parse(&c->cs, (const char *)body, len, max_values, b->err,
	    sizeof(b->err)) == -1)
		return -1;
	if (json_int(j, json_get(j, 0, "timestamp"), &c->timestamp) == -1 ||
	    c->timestamp < 0)
		return fetch_budget_fail(b, "changeset: no timestamp");
	changes = json_get(j, 0, "changes");
	if (changes == 0 || j->v[changes].type != JSON_ARRAY)
		return fetch_budget_fail(b, "changeset: no changes array");
	if (j->v[changes].n > max_records)
		return fetch_budget_fail(b, "changeset: more than %zu records",
		    max_records);
	c->rec = xcalloc(j->v[changes].n + 1, sizeof(*c->rec));
	for (m = 0, k = json_first(j, changes); m < j->v[changes].n;
	    m++, k = json_next(j, k)) {
		if (j->v[k].type != JSON_OBJECT ||
		    rs_member_text(j, k, "id", id, RS_ID_MAX) == -1)
			return fetch_budget_fail(b, "changeset: record %zu has "
			    "no id", m);
		if (json_get(j, k, "deleted") != 0)
			return fetch_budget_fail(b, "changeset: record %s is a "
			    "tombstone", id);
		c->rec[c->n++] = k;
	}
	qsort_r(c->rec, c->n, sizeof(*c->rec), record_cmp, (void *)j);
	for (m = 1; m < c->n; m++)
		if (record_cmp(&c->rec[m - 1], &c->rec[m], (void *)j) == 0) {
			(void)rs_member_text(j, c->rec[m], "id", id, RS_ID_MAX);
			return fetch_budget_fail(b, "changeset: record %s "
			    "twice", id);
		}
	return 0;
}

void
rs_changeset_free(struct rs_changeset *c)
{
	json_free(&c->cs);
	free(c->rec);
	c->rec = NULL;
	c->n = 0;
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
signed_bytes(struct rs_changeset *c, char **buf, size_t *len)
{
	char tail[64], id[RS_ID_MAX + 1];
	size_t cap = 0, i;
	int n;

	*buf = NULL;
	*len = 0;
	if (json_canonical_put(buf, len, &cap, "{\"data\":[") == -1)
		return -1;
	for (i = 0; i < c->n; i++)
		if ((i > 0 && json_canonical_put(buf, len, &cap, ",") == -1) ||
		    json_canonical(&c->cs, c->rec[i], skip_null_attachment,
		    buf, len, &cap) == -1) {
			(void)rs_member_text(&c->cs, c->rec[i], "id", id,
			    RS_ID_MAX);
			return fetch_budget_fail(c->b, "changeset: record %s "
			    "has a value without a canonical form (a fraction, "
			    "an exponent or a large number)", id);
		}
	n = snprintf(tail, sizeof(tail), "],\"last_modified\":\"%lld\"}",
	    (long long)c->timestamp);
	return json_canonical_put(buf, len, &cap, tail) == -1 || n < 0 ? -1 : 0;
}

/* One signature object {"x5u", "signature"} over data[0..len): 0 or -1. */
static int
verify_one(struct rs_changeset *c, size_t sig, const char *data, size_t len)
{
	const struct json *j = &c->cs;
	char x5u[RS_X5U_MAX + 1], value[512];
	struct contentsig cs;
	struct fetch f;
	int ret = -1;

	if (rs_member_text(j, sig, "x5u", x5u, RS_X5U_MAX) == -1 ||
	    !url_usable(x5u, strlen(x5u)) ||
	    rs_member_text(j, sig, "signature", value, sizeof(value) - 1) == -1)
		return fetch_budget_fail(c->b, "changeset: a signature without "
		    "an x5u URL or a value");
	memset(&f, 0, sizeof(f));
	if (fetch_budget_get(c->b, &f, x5u, 1, 0, CONTENTSIG_MAX_CHAIN) == 0) {
		memset(&cs, 0, sizeof(cs));
		cs.signature = value;
		cs.chain = f.body;
		cs.chainlen = f.len;
		cs.signer = RS_SIGNER;
		memcpy(cs.root, c->b->conf->crlite_root, CRLC_HASH_LEN);
		cs.now = (int64_t)time(NULL);
		ret = contentsig_verify(&cs, (const uint8_t *)data, len,
		    c->b->err, sizeof(c->b->err));
	}
	fetch_free(&f);
	return ret;
}

/*
 * The server lists its signatures in metadata.signatures (one per
 * signing key while Mozilla rotates one) and the first again as
 * metadata.signature for older clients (mozilla/remote-settings,
 * signer/updater.py): one that verifies is enough.
 */
int
rs_changeset_verify(struct rs_changeset *c)
{
	const struct json *j = &c->cs;
	size_t meta = json_get(j, 0, "metadata"), list, sig, m;
	char *data = NULL;
	size_t len;
	int ret = -1;

	list = meta != 0 ? json_get(j, meta, "signatures") : 0;
	sig = meta != 0 ? json_get(j, meta, "signature") : 0;
	if (list != 0 && (j->v[list].type != JSON_ARRAY || j->v[list].n == 0 ||
	    j->v[list].n > RS_MAX_SIGNATURES))
		return fetch_budget_fail(c->b, "changeset: metadata.signatures "
		    "is not a list of 1 to %d", RS_MAX_SIGNATURES);
	if (list == 0 && sig == 0)
		return fetch_budget_fail(c->b, "changeset: unsigned (no "
		    "metadata.signature)");
	if (signed_bytes(c, &data, &len) == -1) {
		free(data);
		return c->b->err[0] != '\0' ? -1 :
		    fetch_budget_fail(c->b, "out of memory");
	}
	if (list == 0)
		ret = verify_one(c, sig, data, len);
	for (m = 0, sig = list != 0 ? json_first(j, list) : 0;
	    list != 0 && m < j->v[list].n && m < RS_X5U_TRIES && ret == -1;
	    m++, sig = json_next(j, sig))
		ret = verify_one(c, sig, data, len);
	free(data);
	return ret;
}
