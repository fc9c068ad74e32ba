/*
 * OneCRL from the Remote Settings server (`crlite =`): the collection
 * security-state/onecrl, verified by its content signature as the CRLite
 * collection is (rschangeset.c), installed as STATE_DIR/crlite/onecrl
 * (<crlcache/onecrl.h>).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * One run:
 *   1. GET SERVER/buckets/security-state/collections/onecrl/changeset?
 *      _expected=0, conditionally (the validators of the last run that
 *      installed the file, when the file is there and reads whole).  A
 *      304: nothing else is done.
 *   2. The changeset is read and its content signature verified: by
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
 *   4. The file is written whole and renamed into place.
 * Any failure, a signature that does not verify, or a changeset in which
 * no record is usable keeps the file in force.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <crlcache/hash.h>
#include <crlcache/onecrl.h>

#include "crlite.h"
#include "onecrl.h"
#include "rschangeset.h"

#define ONECRL_CHANGESET_PATH "/buckets/security-state/collections/" \
	"onecrl/changeset?_expected=0"
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

struct onecrl_list {
	uint8_t		*r[2];		/* issuer-serial, subject-key records */
	size_t		 n[2];
	size_t		 skipped;
	char		 first_bad[160];	/* the first skipped, and why */
};

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
read_list(struct crlite_run *run, const struct rs_changeset *c,
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
		return crlite_fail(run, "changeset: none of its %zu records "
		    "is usable (the first: %s)", c->n, l->first_bad);
	l->n[0] = sort_unique(l->r[0], l->n[0]);
	l->n[1] = sort_unique(l->r[1], l->n[1]);
	return 0;
}

/* Step 4: the file of l, written whole and renamed into place. */
static int
install(struct crlite_run *run, const struct onecrl_list *l,
    int64_t timestamp)
{
	char path[PATH_MAX], why[ERRLEN];
	size_t len = CRLC_ONECRL_HDR_LEN + (l->n[0] + l->n[1]) *
	    CRLC_ONECRL_REC_LEN + CRLC_ONECRL_TRAILER_LEN, at;
	uint8_t *buf;
	int ret = -1;

	if (crlite_dir_prepare(run->state_dir, why, sizeof(why)) == -1)
		return crlite_fail(run, "%s", why);
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
	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", run->state_dir,
	    CRLC_CRLITE_DIR, CRLC_ONECRL_NAME) >= sizeof(path))
		crlite_fail(run, "the state directory's path is too long");
	else if (replace_file(path, buf, len, 0644, (uid_t)-1, (gid_t)-1) == -1)
		crlite_fail(run, "%s: cannot be written", path);
	else
		ret = 0;
	free(buf);
	return ret;
}

/* Steps 2 to 4 on a changeset received: 0 installed, or -1. */
static int
settle(struct crlite_run *run, const struct fetch *f, size_t *listed,
    size_t *skipped)
{
	struct rs_changeset c;
	struct onecrl_list l;
	int ret = -1;

	memset(&l, 0, sizeof(l));
	if (rs_changeset_read(&c, run, f->body, f->len, ONECRL_MAX_VALUES,
	    ONECRL_MAX_RECORDS) == 0 && rs_changeset_verify(&c) == 0 &&
	    read_list(run, &c, &l) == 0 && install(run, &l, c.timestamp) == 0) {
		*listed = l.n[0] + l.n[1];
		*skipped = l.skipped;
		if (l.skipped > 0)
			logx(0, "onecrl: %zu records left out as malformed "
			    "(the first: %s)", l.skipped, l.first_bad);
		ret = 0;
	}
	rs_changeset_free(&c);
	free(l.r[0]);
	free(l.r[1]);
	return ret;
}

/* Is the file in force there and whole?  Only then is asking conditional. */
static int
installed(const char *state_dir)
{
	char dir[PATH_MAX], why[CRLC_ONECRL_WHY_LEN];
	struct crlc_onecrl *o;
	int r;

	snprintf(dir, sizeof(dir), "%s/%s", state_dir, CRLC_CRLITE_DIR);
	if ((r = crlc_onecrl_open(dir, &o, why, sizeof(why))) == -1)
		logx(0, "onecrl: %s; fetched whole", why);
	crlc_onecrl_free(o);
	return r == 0;
}

int
onecrl_update(const char *state_dir, const struct conf *conf,
    struct store *s, char *what, size_t whatlen)
{
	struct crlite_run run;
	struct source_rec rec;
	struct fetch f;
	size_t listed = 0, skipped = 0;
	int r = -1, in_force;

	what[0] = '\0';
	if (conf->crlite == NULL)
		return 0;
	memset(&run, 0, sizeof(run));
	memset(&f, 0, sizeof(f));
	run.state_dir = state_dir;
	run.conf = conf;
	snprintf(run.index_url, sizeof(run.index_url), "%s%s", conf->crlite,
	    ONECRL_CHANGESET_PATH);
	in_force = installed(state_dir);
	if (store_get_source(s, run.index_url, &rec) == 0 && in_force) {
		f.etag = rec.etag;
		f.last_modified = rec.last_modified;
	}
	if (crlite_get(&run, &f, run.index_url, 0, 1,
	    ONECRL_CHANGESET_MAX) == 0)
		r = f.not_modified ? 1 : settle(&run, &f, &listed, &skipped);
	f.etag = f.last_modified = NULL;
	source_rec_free(&rec);
	crlite_record_source(&run, s, &f, r != -1);
	if (r == -1) {
		logx(0, "onecrl: %s; %s", run.err, in_force ?
		    "the list in force is kept" : "no list in force yet");
		snprintf(what, whatlen, "onecrl failed, %s", in_force ?
		    "the list in force kept" : "no list in force yet");
	} else if (r == 1)
		snprintf(what, whatlen, "onecrl not modified");
	else
		snprintf(what, whatlen, "onecrl: %zu entries installed%s",
		    listed, skipped > 0 ? " (some records left out)" : "");
	fetch_free(&f);
	return r == -1 ? -1 : 0;
}
