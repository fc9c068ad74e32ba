/*
 * OneCRL from the Remote Settings server (`crlite =`): the collection
 * security-state/onecrl, verified by its content signature as the CRLite
 * collection is (rschangeset.c), installed as STATE_DIR/crlite/onecrl
 * (<crlcache/onecrl.h>).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * One run, its transfers without the state lock (onecrl.h):
 *   1. The collection, asked only when monitor/changes lists it changed,
 *      with _since the changeset held, and merged with it (rsclient.c); a
 *      changeset older than the one in force (this file's timestamp, or
 *      the held changeset's) is refused.
 *   2. The changeset's content signature is verified (rschangeset.c): by
 *      onecrl.content-signature.mozilla.org under crlite_root, the signer
 *      Firefox's RemoteSecuritySettings.sys.mjs names for this collection
 *      and for cert-revocations alike (SECURITY_STATE_SIGNER).
 *   3. Each record gives issuerName + serialNumber (base64 of the issuer
 *      Name DER and of the serial's INTEGER content octets) or subject +
 *      pubKeyHash (base64 of the subject Name DER and of the SHA-256 of
 *      the SubjectPublicKeyInfo DER).  Firefox enforces every such record
 *      whatever its "enabled" says: updateCertBlocklist()
 *      (RemoteSecuritySettings.sys.mjs) gives each one
 *      nsICertStorage.STATE_ENFORCE and never reads "enabled", and the
 *      client's only filter (jexlFilterFunc, services/settings) reads
 *      filter_expression, which OneCRL records do not carry.  So does
 *      this.  A record with neither pair, or a value that does not
 *      decode, is left out alone (counted, said once): the others still
 *      stand.
 *   4. Under the lock, unless a run installed a newer one meanwhile: the
 *      file is written whole and renamed into place, then the merged
 *      changeset kept beside it (CRLC_ONECRL_RS_HELD).
 * Any failure, a signature that does not verify, or a changeset in which
 * no record is usable keeps the file in force.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <crlcache/hash.h>
#include <crlcache/onecrl.h>

#include "budget.h"
#include "crlitedir.h"
#include "fetcher.h"
#include "onecrl.h"
#include "source.h"
#include "state.h"

/* The file in force, by its name in the state directory. */
#define ONECRL_FILE		CRLC_CRLITE_DIR "/" CRLC_ONECRL_NAME
/*
 * The changeset: Firefox's dump of OneCRL held 1,959 records in 1.1 MB
 * (2026); JSON_MAX_DOC (8 MiB) is 7 times that.  Records: at most 16384,
 * 8 times as many; values: a record holds about 30.
 */
#define ONECRL_CHANGESET_MAX	JSON_MAX_DOC
#define ONECRL_MAX_RECORDS	16384
#define ONECRL_MAX_VALUES	((size_t)ONECRL_MAX_RECORDS * 64)
/*
 * A record's values: a DER Name is under 1 KB (RFC 5280 A.1's upper
 * bounds), 4 KiB leaves room; a serial is at most 20 octets (RFC 5280
 * 4.1.2.2), 64 allows the non-conforming ones CAs issued; the key hash
 * is a SHA-256.  The base64 text: 4/3 of that and a little.
 */
#define ONECRL_NAME_MAX		4096
#define ONECRL_SERIAL_MAX	64
#define ONECRL_B64_MAX		(ONECRL_NAME_MAX / 3 * 4 + 8)

/* A base64 member into a buffer of at most max bytes: its length, or -1. */
static long
member_b64(const struct json *j, size_t obj, const char *key, size_t max,
    uint8_t **out)
{
	char text[ONECRL_B64_MAX + 1];
	size_t len;

	*out = NULL;
	if (rs_member_text(j, obj, key, text, ONECRL_B64_MAX) == -1 ||
	    b64_decode_loose(text, strlen(text), max, out, &len) == -1)
		return -1;
	return (long)len;
}

/*
 * One record to the list: its kind's 64 bytes, or a reason it is left
 * out (NULL when it is taken).
 */
static const char *
take_record(const struct json *j, size_t rec, struct onecrl_list *l)
{
	uint8_t *a = NULL, *b = NULL, *slot;
	long alen, blen;
	const char *why = NULL;
	int kind;

	if (json_get(j, rec, "issuerName") != 0 ||
	    json_get(j, rec, "serialNumber") != 0) {
		kind = 0;
		if ((alen = member_b64(j, rec, "issuerName", ONECRL_NAME_MAX,
		    &a)) <= 0)
			why = "issuerName is not base64 of 1 to "
			    "4096 bytes";
		else if ((blen = member_b64(j, rec, "serialNumber",
		    ONECRL_SERIAL_MAX, &b)) <= 0)
			why = "serialNumber is not base64 of 1 to 64 bytes";
	} else if (json_get(j, rec, "subject") != 0 ||
	    json_get(j, rec, "pubKeyHash") != 0) {
		kind = 1;
		if ((alen = member_b64(j, rec, "subject", ONECRL_NAME_MAX,
		    &a)) <= 0)
			why = "subject is not base64 of 1 to 4096 bytes";
		else if ((blen = member_b64(j, rec, "pubKeyHash",
		    CRLC_HASH_LEN, &b)) != CRLC_HASH_LEN)
			why = "pubKeyHash is not base64 of a SHA-256";
	} else
		why = "neither issuerName and serialNumber nor subject and "
		    "pubKeyHash";
	if (why == NULL) {
		slot = l->r[kind] + l->n[kind]++ * CRLC_ONECRL_REC_LEN;
		crlc_sha256(a, (size_t)alen, slot);
		if (kind == 0)
			crlc_sha256(b, (size_t)blen, slot + CRLC_ONECRL_KEY_LEN);
		else
			memcpy(slot + CRLC_ONECRL_KEY_LEN, b, CRLC_HASH_LEN);
	}
	free(a);
	free(b);
	return why;
}

static int
rec_cmp(const void *a, const void *b)
{
	return memcmp(a, b, CRLC_ONECRL_REC_LEN);
}

/* Sort the n records at r and drop repeats: how many are left. */
static size_t
sort_unique(uint8_t *r, size_t n)
{
	size_t i, k = 0;

	qsort(r, n, CRLC_ONECRL_REC_LEN, rec_cmp);
	for (i = 0; i < n; i++)
		if (k == 0 || memcmp(r + (k - 1) * CRLC_ONECRL_REC_LEN,
		    r + i * CRLC_ONECRL_REC_LEN, CRLC_ONECRL_REC_LEN) != 0)
			memmove(r + k++ * CRLC_ONECRL_REC_LEN,
			    r + i * CRLC_ONECRL_REC_LEN, CRLC_ONECRL_REC_LEN);
	return k;
}

/* Step 3: the records of a verified changeset into l. */
static int
read_list(struct rs_client *rc, const struct rs_changeset *c,
    struct onecrl_list *l)
{
	char id[RS_ID_MAX + 1];
	const char *why;
	size_t i;

	l->r[0] = xcalloc(c->n + 1, CRLC_ONECRL_REC_LEN);
	l->r[1] = xcalloc(c->n + 1, CRLC_ONECRL_REC_LEN);
	for (i = 0; i < c->n; i++) {
		if ((why = take_record(&c->cs, c->rec[i], l)) == NULL)
			continue;
		if (l->skipped++ == 0) {
			(void)rs_member_text(&c->cs, c->rec[i], "id", id,
			    RS_ID_MAX);
			snprintf(l->first_bad, sizeof(l->first_bad),
			    "record %s: %s", id, why);
		}
	}
	if (c->n > 0 && l->n[0] + l->n[1] == 0)
		return fetch_budget_fail(&rc->b, "changeset: none of its %zu "
		    "records is usable (the first: %s)", c->n, l->first_bad);
	l->n[0] = sort_unique(l->r[0], l->n[0]);
	l->n[1] = sort_unique(l->r[1], l->n[1]);
	return 0;
}

/* Step 4: the file of l, written whole and renamed into place. */
static int
install(struct rs_client *rc, const struct onecrl_list *l,
    int64_t timestamp)
{
	char why[ERRLEN];
	size_t len = CRLC_ONECRL_HDR_LEN + (l->n[0] + l->n[1]) *
	    CRLC_ONECRL_REC_LEN + CRLC_ONECRL_TRAILER_LEN, at;
	uint8_t *buf;
	int ret = -1;

	if (crlite_dir_prepare(rc->st, why, sizeof(why)) == -1)
		return fetch_budget_fail(&rc->b, "%s", why);
	buf = xcalloc(1, len);
	memcpy(buf, CRLC_ONECRL_MAGIC, CRLC_ONECRL_MAGIC_LEN);
	crlc_put_u32(buf + 8, CRLC_ONECRL_VERSION);
	crlc_put_u32(buf + 12, (uint32_t)l->n[0]);
	crlc_put_u32(buf + 16, (uint32_t)l->n[1]);
	crlc_put_u32(buf + 20, (uint32_t)l->skipped);
	crlc_put_u64(buf + 24, (uint64_t)time(NULL));
	crlc_put_u64(buf + 32, (uint64_t)timestamp);
	at = CRLC_ONECRL_HDR_LEN;
	memcpy(buf + at, l->r[0], l->n[0] * CRLC_ONECRL_REC_LEN);
	at += l->n[0] * CRLC_ONECRL_REC_LEN;
	memcpy(buf + at, l->r[1], l->n[1] * CRLC_ONECRL_REC_LEN);
	at += l->n[1] * CRLC_ONECRL_REC_LEN;
	crlc_put_u64(buf + at, crlc_sum64(buf, at));
	/* readers of every account read it */
	if (state_replace(rc->st, ONECRL_FILE, buf, len, 0644) == -1)
		fetch_budget_fail(&rc->b, "%s/%s: cannot be written",
		    state_path(rc->st), ONECRL_FILE);
	else
		ret = 0;
	free(buf);
	return ret;
}

/* The timestamp of the file in force (ms), 0 when none reads whole. */
static int64_t
in_force(struct state *st)
{
	char why[CRLC_ONECRL_WHY_LEN];
	struct crlc_onecrl_info info;
	struct crlc_onecrl *o;
	int r;

	if ((r = crlite_onecrl_open(st, &o, why, sizeof(why))) == -1)
		logx(0, "onecrl: %s; fetched whole", why);
	if (r != 0)
		return 0;
	crlc_onecrl_info(o, &info);
	crlc_onecrl_free(o);
	return info.timestamp;
}

int
onecrl_begin(struct onecrl_run *o, struct state *st,
    const struct conf *conf, const struct rs_monitor *mon)
{
	memset(o, 0, sizeof(*o));
	if (conf->crlite == NULL)
		return 0;
	o->st = st;
	o->conf = conf;
	o->mon = mon;
	return 1;
}

void
onecrl_fetch(struct onecrl_run *o)
{
	if (o->conf == NULL)
		return;
	fetch_budget_start(&o->rc.b, o->conf);
	o->rc.st = o->st;
	o->col.which = RS_ONECRL;
	o->col.max_len = ONECRL_CHANGESET_MAX;
	o->col.max_values = ONECRL_MAX_VALUES;
	o->col.max_records = ONECRL_MAX_RECORDS;
	o->col.in_force = in_force(o->st);
	if ((o->r = rs_collection_fetch(&o->rc, o->mon, &o->col)) == 1 &&
	    read_list(&o->rc, &o->col.cs, &o->l) == -1)
		o->r = -1;
}

/* Under the lock: installed, unless another run installed a newer one. */
static int
settle(struct onecrl_run *o)
{
	o->col.in_force = in_force(o->st);
	if (rs_collection_recheck(&o->rc, &o->col) == -1 ||
	    install(&o->rc, &o->l, o->col.cs.timestamp) == -1 ||
	    rs_collection_keep(&o->rc, &o->col) == -1)
		return -1;
	if (o->l.skipped > 0)
		logx(0, "onecrl: %zu records left out as malformed (the "
		    "first: %s)", o->l.skipped, o->l.first_bad);
	return 1;
}

int
onecrl_finish(struct onecrl_run *o, struct store *s, char *what,
    size_t whatlen)
{
	char key[RS_URL_MAX];

	what[0] = '\0';
	if (o->conf == NULL)
		return 0;
	if (o->r == 1)
		o->r = settle(o);
	rs_collection_url(o->conf, RS_ONECRL, key, sizeof(key));
	source_note(s, key, NULL, o->r == 0 ? 304 : 200, o->r == -1 ?
	    o->rc.b.err : NULL);
	if (o->r == -1) {
		logx(0, "onecrl: %s; %s", o->rc.b.err, o->col.in_force != 0 ?
		    "the list in force is kept" : "no list in force yet");
		snprintf(what, whatlen, "onecrl failed, %s", o->col.in_force !=
		    0 ? "the list in force kept" : "no list in force yet");
	} else if (o->r == 0)
		snprintf(what, whatlen, "onecrl unchanged");
	else
		snprintf(what, whatlen, "onecrl: %zu entries installed%s",
		    o->l.n[0] + o->l.n[1], o->l.skipped > 0 ?
		    " (some records left out)" : "");
	onecrl_free(o);
	return o->r == -1 ? -1 : 0;
}

void
onecrl_free(struct onecrl_run *o)
{
	rs_collection_free(&o->col);
	free(o->l.r[0]);
	free(o->l.r[1]);
	o->l.r[0] = o->l.r[1] = NULL;
}
