/*
 * Refreshing the issuer directory from the CCADB's reports.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * An entry is a root or intermediate certificate whose record is not
 * revoked and not expired ("Valid To (GMT)" and its notAfter), whose PEM
 * has the record's SHA-256, that is a CA certificate and chains to a
 * trust anchor here (a root row: is one), with at least one http(s) CRL
 * URL.  Its URLs are the union of those of every record of the same
 * subject and key (cross-signs, re-issues: the same CA signs the same
 * CRLs), a record whose own chain reaches no anchor here included.
 *
 * Reports are read one at a time, records reports first, and each body
 * is freed once parsed: the memory of a refresh is one report and the
 * records, whatever the number of reports.  A refresh reads every
 * report or refuses the lot: one that cannot be fetched or is refused
 * keeps the previous directory whole.  When the records reports are
 * refused or empty, the fallback ones (ccadb_records_fallback) are read
 * instead.  Bodies fetched anew are cached beside the directory (format
 * in directory.c) for conditional GET, as ".new" files until the
 * directory they built is written.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <crlcache/crliteset.h>
#include <crlcache/hash.h>
#include <crlcache/version.h>

#include "crlitedir.h"
#include "dirbuild.h"
#include "directory.h"
#include "direntry.h"
#include "dirindex.h"
#include "dirrefresh.h"
#include "fetch.h"
#include "fetchall.h"
#include "fetcher.h"
#include "state.h"
#include "trust.h"

/*
 * One report, from the network or a file.  The records report holds
 * some 10,000 rows of 90 columns, tens of MB; a CRL's max_size would be
 * too tight for it in the years to come, and this still bounds memory
 * (one report is held at a time).
 */
#define DIR_REPORT_MAX_SIZE	((size_t)256 << 20)
/*
 * A failed refresh is tried again after this long (or ccadb_refresh, if
 * shorter): soon enough that an outage costs a few hours, rarely enough
 * that a report we refuse is not downloaded again every hour.
 */
#define DIR_RETRY_FAILED	(3 * 3600)
/*
 * A refresh whose reports all answer 304 builds nothing (unchanged()),
 * but not for longer than this: the system trust store, when no anchor
 * is configured, is looked up lazily and so is not in the inputs digest.
 */
#define DIR_REBUILD_MAX		(7 * 86400)

/* What kind of report a source is (dir_report.kind). */
enum { REP_RECORDS, REP_FALLBACK, REP_PEMS };

struct refresh_tally {
	size_t		 cached;	/* reports answered 304 */
	size_t		 read;		/* reports read */
};

/* Add s with "{year}" or "{decade}" expanded from since to now. */
static int
expand(struct dir_report **r, size_t *n, const char *s, int kind, long since,
    long now_year)
{
	char buf[PATH_MAX + 16];
	const char *y;
	size_t plen;
	long v, step;

	if ((y = strstr(s, "{year}")) != NULL) {
		plen = 6;
		step = 1;
	} else if ((y = strstr(s, "{decade}")) != NULL) {
		plen = 8;
		step = 10;
		since -= since % 10;
	} else
		return dir_report_add(r, n, s, kind) == NULL ? -1 : 0;
	for (v = since; v <= now_year; v += step)
		if ((size_t)snprintf(buf, sizeof(buf), "%.*s%ld%s", (int)(y - s),
		    s, v, y + plen) >= sizeof(buf) ||
		    dir_report_add(r, n, buf, kind) == NULL)
			return -1;
	return 0;
}

/* The configured reports: records, fallback records, then PEMs. */
static int
expand_sources(const struct conf *conf, int64_t now, struct dir_report **r,
    size_t *n)
{
	const struct strlist *lists[] = { &conf->ccadb_records,
	    &conf->ccadb_records_fallback, &conf->ccadb_pems };
	const int kinds[] = { REP_RECORDS, REP_FALLBACK, REP_PEMS };
	time_t tt = (time_t)now;
	struct tm tm;
	size_t i, k;

	gmtime_r(&tt, &tm);
	for (k = 0; k < 3; k++)
		for (i = 0; i < lists[k]->n; i++)
			if (expand(r, n, lists[k]->v[i], kinds[k],
			    conf->ccadb_since, tm.tm_year + 1900L) == -1)
				return -1;
	return 0;
}

/* The name of a report's cached body: a hash and a suffix. */
#define CACHE_NAME_MAX	(sizeof(DIR_FILE) + 2 * CRLC_HASH_LEN + 16)

/* Where the body of report URL src is kept between refreshes. */
static void
cache_name(char *out, size_t len, const char *src, const char *suffix)
{
	uint8_t h[CRLC_HASH_LEN];
	char hex[2 * CRLC_HASH_LEN + 1];

	EVP_Digest(src, strlen(src), h, NULL, EVP_sha256(), NULL);
	crlc_hex_encode(h, CRLC_HASH_LEN, hex, 1);
	snprintf(out, len, DIR_FILE "-%s.csv%s", hex, suffix);
}

static const struct dir_report *
state_find(const struct dir_state *ds, const char *src)
{
	size_t i;

	for (i = 0; i < ds->n; i++)
		if (strcmp(ds->r[i].src, src) == 0)
			return &ds->r[i];
	return NULL;
}

/*
 * Time between refreshes when ccadb_refresh is not set.  A refresh costs
 * what changed of some 35 MB of reports (13.6 MB gzip-coded), and the
 * records report changes daily.  While a fresh CRLite set is in force
 * and a CRLite source configured, the directory's partition lists serve only
 * the CAs the filters do not cover (crlite_cover.c), its certificates prove
 * hints, which a new CA's caIssuers URLs do too (aia.c), and its new
 * intermediates' revocations come from their issuers' CRLs: a month
 * keeps the directory near 0.45 MB a day.
 */
#define DIR_REFRESH_DEFAULT	86400
#define DIR_REFRESH_CRLITE	(30 * 86400)

static int64_t
refresh_every(const struct conf *conf, struct state *st)
{
	struct crlite_set s;
	char err[ERRLEN];
	int stale;

	if (conf->ccadb_refresh != 0)
		return conf->ccadb_refresh;
	if ((conf->crlite == NULL && conf->crlite_mirror == NULL &&
	    conf->crlite_upki_dir == NULL) ||
	    crlite_set_read(st, &s, err, sizeof(err)) != 0)
		return DIR_REFRESH_DEFAULT;
	/* a stale set covers no CA (<crlcache/crlite.h> FRESHNESS) */
	stale = (int64_t)time(NULL) >= crlc_crlite_stale_at(s.installed,
	    s.newest);
	crlite_set_free(&s);
	return stale ? DIR_REFRESH_DEFAULT : DIR_REFRESH_CRLITE;
}

/* Is a refresh due: the sources changed, or the last one is old enough? */
static int
due(const struct dir_state *ds, const struct dir_report *r, size_t n,
    const struct conf *conf, struct state *st, int64_t now)
{
	int64_t every = refresh_every(conf, st);
	int held[REP_PEMS + 1] = { 1, 1, 1 }, seen[REP_PEMS + 1] = { 0 };
	size_t i, j;

	if (ds->error != NULL) {
		if (every > DIR_RETRY_FAILED)
			every = DIR_RETRY_FAILED;
	} else {
		if (!directory_current(st))
			return 1;
		/* Built from every PEM report and the records or fallback. */
		for (i = 0; i < n; i++) {
			seen[r[i].kind] = 1;
			if (state_find(ds, r[i].src) == NULL)
				held[r[i].kind] = 0;
		}
		if (!held[REP_PEMS] || (!held[REP_RECORDS] &&
		    !(seen[REP_FALLBACK] && held[REP_FALLBACK])))
			return 1;
		/* ...and from no report no longer configured. */
		for (j = 0; j < ds->n; j++) {
			for (i = 0; i < n && strcmp(r[i].src, ds->r[j].src); i++)
				;
			if (i == n)
				return 1;
		}
	}
	return now < ds->attempt || now - ds->attempt >= every;
}

/*
 * Ask for one report URL, conditionally when we hold the body we built
 * from last time; a body fetched anew (gzip-coded if the server likes,
 * DIR_REPORT_MAX_SIZE decoded) is cached as ".new" and not kept in
 * memory.  -1 with why in err.
 */
static int
fetch_report(struct state *st, struct dir_report *rp,
    const struct dir_state *old, const struct conf *conf,
    struct refresh_tally *tl, char *err, size_t errlen)
{
	struct conf rconf = *conf;
	const struct dir_report *h;
	struct fetch f;
	char name[CACHE_NAME_MAX], why[ERRLEN];
	int ret = -1;

	memset(&f, 0, sizeof(f));
	f.url = rp->src;
	f.decode = 1;
	cache_name(name, sizeof(name), rp->src, "");
	if ((h = state_find(old, rp->src)) != NULL &&
	    state_exists(st, name) == 1) {
		f.etag = h->etag;
		f.last_modified = h->modified;
	}
	rconf.max_size = DIR_REPORT_MAX_SIZE;
	if (fetch_all(&f, 1, &rconf) == -1 || !f.ok)
		snprintf(why, sizeof(why), "%s", f.err[0] ? f.err :
		    "fetch failed");
	else if (f.not_modified) {
		rp->etag = f.etag ? xstrdup(f.etag) : NULL;
		rp->modified = f.last_modified ? xstrdup(f.last_modified) : NULL;
		tl->cached++;
		ret = 0;
	} else {
		rp->etag = f.new_etag;
		rp->modified = f.new_last_modified;
		f.new_etag = f.new_last_modified = NULL;
		rp->fresh = 1;
		cache_name(name, sizeof(name), rp->src, ".new");
		/* the crlcache account's only, as the directory */
		if (state_replace(st, name, f.body, f.len, 0600) == -1)
			snprintf(why, sizeof(why), "cannot cache the report");
		else
			ret = 0;
	}
	fetch_free(&f);
	if (ret == -1) {
		logx(0, "%s: %s", rp->src, why);
		dir_say(err, errlen, rp->src, why);
	}
	tl->read++;
	return ret;
}

/* Ask for every report URL of one kind (fetch_report), none parsed yet. */
static int
fetch_reports(struct state *st, struct dir_report *r, size_t n,
    int kind, const struct dir_state *old, const struct conf *conf,
    struct refresh_tally *tl, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (r[i].kind == kind && is_http_url(r[i].src, strlen(r[i].src)) &&
		    fetch_report(st, &r[i], old, conf, tl, err,
		    errlen) == -1)
			return -1;
	return 0;
}

/*
 * The body of one report: a file read, or what fetch_report() got (the
 * ".new" file, or after a 304 the one we built from).  -1 with why in err.
 */
static int
read_report(struct state *st, struct dir_report *rp,
    struct refresh_tally *tl, uint8_t **body, size_t *len, char *err,
    size_t errlen)
{
	char name[CACHE_NAME_MAX], why[ERRLEN];
	int rc;

	why[0] = '\0';
	if (!is_http_url(rp->src, strlen(rp->src))) {
		rc = read_file(rp->src, DIR_REPORT_MAX_SIZE, body, len, why,
		    sizeof(why));
		tl->read++;
	} else {
		cache_name(name, sizeof(name), rp->src, rp->fresh ? ".new" :
		    "");
		rc = state_read(st, name, DIR_REPORT_MAX_SIZE, body, len, why,
		    sizeof(why));
	}
	if (rc == -1) {
		*body = NULL;
		logx(0, "%s: %s", rp->src, why);
		dir_say(err, errlen, rp->src, why);
	}
	return rc;
}

/* Read and parse every report of one kind, one body at a time. */
static int
parse_reports(struct state *st, struct dir_report *r, size_t n,
    int kind, struct ccadb_records *rs, int64_t now, struct refresh_tally *tl,
    char *err, size_t errlen)
{
	char why[ERRLEN], msg[ERRLEN + 16];
	uint8_t *body;
	size_t i, len;
	int rc;

	for (i = 0; i < n; i++) {
		if (r[i].kind != kind)
			continue;
		if (read_report(st, &r[i], tl, &body, &len, err,
		    errlen) == -1)
			return -1;
		rc = kind == REP_PEMS ? records_add_pems(rs, body, len,
		    r[i].src, why, sizeof(why)) : records_parse(rs, body, len,
		    now, why, sizeof(why));
		free(body);
		if (rc == -1) {
			logx(0, "%s: refused: %s", r[i].src, why);
			snprintf(msg, sizeof(msg), "refused: %s", why);
			dir_say(err, errlen, r[i].src, msg);
			return -1;
		}
		r[i].used = 1;
	}
	return 0;
}

/*
 * The records: those of the records reports, else, when one could not
 * be fetched, is refused or has no rows, those of the fallback reports.
 */
static int
parse_records(struct state *st, struct dir_report *r, size_t n,
    int fetched, const struct dir_state *old, const struct conf *conf,
    struct ccadb_records *rs, int64_t now, struct refresh_tally *tl,
    char *err, size_t errlen)
{
	size_t i;

	if (fetched && parse_reports(st, r, n, REP_RECORDS, rs, now, tl,
	    err, errlen) == 0)
		return 0;
	if (conf->ccadb_records_fallback.n == 0)
		return -1;
	logx(0, "directory: %s; reading the fallback reports", err);
	records_free(rs);
	for (i = 0; i < n; i++)
		r[i].used = 0;
	err[0] = '\0';
	return fetch_reports(st, r, n, REP_FALLBACK, old, conf, tl, err,
	    errlen) == -1 ? -1 : parse_reports(st, r, n, REP_FALLBACK,
	    rs, now, tl, err, errlen);
}

/* Keep each fresh body for the next conditional GET, or drop them all. */
static void
settle_cache(struct state *st, const struct dir_report *r, size_t n,
    int keep)
{
	char name[CACHE_NAME_MAX], fresh[CACHE_NAME_MAX];
	size_t i;

	for (i = 0; i < n; i++) {
		if (!is_http_url(r[i].src, strlen(r[i].src)))
			continue;
		cache_name(fresh, sizeof(fresh), r[i].src, ".new");
		cache_name(name, sizeof(name), r[i].src, "");
		if (!keep || !r[i].used || state_rename(st, fresh, name) == -1)
			(void)state_remove(st, fresh, 0);
	}
}

/* Remove the cached bodies of reports no longer in use. */
static void
drop_cache(struct state *st, const struct dir_state *old,
    const struct dir_report *r, size_t n)
{
	char name[CACHE_NAME_MAX];
	size_t i, j;

	for (i = 0; i < old->n; i++) {
		for (j = 0; j < n && (!r[j].used ||
		    strcmp(r[j].src, old->r[i].src) != 0); j++)
			;
		if (j == n && is_http_url(old->r[i].src, strlen(old->r[i].src))) {
			cache_name(name, sizeof(name), old->r[i].src, "");
			(void)state_remove(st, name, 0);
		}
	}
}

/*
 * No directory, and nothing kept for one: its file, its state (a failed
 * refresh's error with it, whether or not one was ever built), the
 * records it refused and the cached reports.
 */
void
directory_forget(struct state *st)
{
	static const char *const files[] = { DIR_FILE, DIR_STATE_FILE,
	    REFUSED_FILE, DIR_INDEX_FILE };
	struct dir_state old;
	char err[ERRLEN];
	size_t i;

	/* A state that cannot be read names no cached report to drop. */
	if (dir_state_read(st, &old, err, sizeof(err)) == 0)
		drop_cache(st, &old, NULL, 0);
	dir_state_free(&old);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		(void)state_remove(st, files[i], 0);
}

/* One line: reports read, rows, entries kept, the others by reason. */
static void
log_refresh(const struct refresh_tally *tl, const struct ccadb_records *rs,
    size_t entries)
{
	char line[ERRLEN];
	const char *sep = "; not kept:";
	size_t i, off;

	off = (size_t)snprintf(line, sizeof(line), "directory: %zu reports "
	    "(%zu not modified), %zu rows, %zu entries", tl->read, tl->cached,
	    rs->rows, entries);
	for (i = DIR_KEPT + 1; i < DIR_NREASONS && off < sizeof(line); i++) {
		if (rs->refused[i] == 0)
			continue;
		off += (size_t)snprintf(line + off, sizeof(line) - off,
		    "%s %zu %s", sep, rs->refused[i], dir_reason_name[i]);
		sep = ",";
	}
	for (i = 0; i < CSV_NSKIP && off < sizeof(line); i++)
		if (rs->skipped[i] > 0)
			off += (size_t)snprintf(line + off, sizeof(line) - off,
			    "; %zu rows %s", rs->skipped[i], i == CSV_SKIP_QUOTE ?
			    "with a bare quote, read as text" : i ==
			    CSV_SKIP_WIDTH ? "skipped (width)" :
			    "skipped (too long)");
	logx(1, "%s", line);
}

/* The reports used, for the state: only those the directory was built from. */
static void
used_reports(struct dir_state *ds, struct dir_report *r, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (r[i].used) {
			r[k++] = r[i];
			continue;
		}
		free(r[i].src);
		free(r[i].etag);
		free(r[i].modified);
	}
	ds->r = r;
	ds->n = k;
}

static int
cmp_fp(const void *a, const void *b)
{
	return memcmp(a, b, CRLC_HASH_LEN);
}

/*
 * What the directory is built from besides the reports: the anchors, the
 * configured issuer candidates and the program that decides (a release
 * may judge chains otherwise), as the SHA-256 of the version and their
 * sorted fingerprints in hex.
 */
static int
inputs_digest(const struct trust *t, char *hex)
{
	STACK_OF(X509) *all;
	uint8_t *fps = NULL, h[CRLC_HASH_LEN];
	size_t n, i, k = 0;
	int ret = -1;

	if ((all = X509_STORE_get1_all_certs(t->store)) == NULL)
		return -1;
	n = (size_t)sk_X509_num(all) + (size_t)sk_X509_num(t->certs);
	fps = xcalloc(n + 2, CRLC_HASH_LEN);
	for (i = 0; i < n; i++)
		if (X509_digest(i < (size_t)sk_X509_num(all) ?
		    sk_X509_value(all, (int)i) : sk_X509_value(t->certs,
		    (int)(i - (size_t)sk_X509_num(all))), EVP_sha256(),
		    fps + k * CRLC_HASH_LEN, NULL))
			k++;
	if (k == n) {
		qsort(fps, n, CRLC_HASH_LEN, cmp_fp);
		/* after them, not sorted with them: the version's digest */
		crlc_sha256(CRLCACHE_VERSION, strlen(CRLCACHE_VERSION),
		    fps + n * CRLC_HASH_LEN);
		EVP_Digest(fps, (n + 1) * CRLC_HASH_LEN, h, NULL, EVP_sha256(),
		    NULL);
		crlc_hex_encode(h, CRLC_HASH_LEN, hex, 0);
		ret = 0;
	}
	free(fps);
	sk_X509_pop_free(all, X509_free);
	return ret;
}

/* When the directory must be built again though no report changed. */
static int64_t
expiry(const struct directory *d, int64_t now)
{
	int64_t first = now + DIR_REBUILD_MAX, t;
	struct tm tm;
	size_t i;

	for (i = 0; i < d->n; i++)
		if (ASN1_TIME_to_tm(X509_get0_notAfter(d->v[i].cert), &tm) &&
		    (t = (int64_t)timegm(&tm)) < first)
			first = t;
	return first;
}

/*
 * Nothing to build: every report the directory was built from answered
 * 304, no other is configured, and its inputs and entries still hold,
 * and its index describes it (a directory written before there was an
 * index, or a crash between the two writes: this build writes both).
 */
static int
unchanged(const struct dir_state *old, const struct dir_report *r, size_t n,
    const char *inputs, struct state *st, int64_t now)
{
	size_t i, k = 0;

	if (old->built == 0 || old->inputs == NULL ||
	    strcmp(old->inputs, inputs) != 0 || now >= old->expires ||
	    !directory_current(st) || !dir_index_current(st))
		return 0;
	for (i = 0; i < n; i++) {
		if (r[i].kind == REP_FALLBACK)
			continue;
		if (!is_http_url(r[i].src, strlen(r[i].src)) || r[i].fresh ||
		    state_find(old, r[i].src) == NULL)
			return 0;
		k++;
	}
	return k == old->n;
}

/* Not due: the last refresh's outcome stands, as status says. */
static int
not_due(const struct dir_state *old, int64_t now)
{
	if (old->error != NULL)
		logx(1, "directory: the refresh of %llds ago failed (%s); it "
		    "is tried again later, at once with --refresh-directory",
		    (long long)(now - old->attempt), old->error);
	else
		logx(2, "directory: not due (refreshed %llds ago)",
		    (long long)(now - old->attempt));
	return old->error != NULL ? -1 : 0;
}

/* The new state of a refresh that built d from rs and inputs. */
static void
state_built(struct dir_state *ns, const struct directory *d,
    const struct ccadb_records *rs, const char *inputs, int64_t now)
{
	size_t i;

	ns->built = now;
	ns->expires = expiry(d, now);
	ns->inputs = xstrdup(inputs);
	ns->entries = (long long)d->n;
	ns->rows = (long long)rs->rows;
	for (i = 0; i < CSV_NSKIP; i++)
		ns->skipped[i] = (long long)rs->skipped[i];
	for (i = 0; i < DIR_NREASONS; i++)
		ns->refused[i] = (long long)rs->refused[i];
}

/* The new state of a refresh that failed with err: old's, kept (moved). */
static void
state_failed(struct dir_state *ns, struct dir_state *old, const char *err)
{
	ns->built = old->built;
	ns->expires = old->expires;
	ns->inputs = old->inputs;
	old->inputs = NULL;
	ns->entries = old->entries;
	ns->rows = old->rows;
	memcpy(ns->skipped, old->skipped, sizeof(ns->skipped));
	memcpy(ns->refused, old->refused, sizeof(ns->refused));
	ns->r = old->r;
	ns->n = old->n;
	old->r = NULL;
	old->n = 0;
	ns->error = xstrdup(err);
	if (old->built != 0)
		logx(0, "directory: refresh failed: %s; keeping the "
		    "directory of %lld entries", err, old->entries);
	else
		logx(0, "directory: refresh failed: %s; none built yet", err);
}

/* Over 60 lines: the refresh's steps in order, each outcome recorded. */
int
directory_refresh(struct state *st, const struct conf *conf,
    const struct trust *t, int force)
{
	struct dir_state old, ns;
	struct directory d = { NULL, 0, 0 };
	struct ccadb_records rs;
	struct refresh_tally tl;
	struct dir_report *r = NULL;
	char err[ERRLEN] = "", inputs[2 * CRLC_HASH_LEN + 1];
	int64_t now = (int64_t)time(NULL);
	size_t n = 0;
	int ret = -1, fetched;

	memset(&tl, 0, sizeof(tl));
	memset(&ns, 0, sizeof(ns));
	memset(&rs, 0, sizeof(rs));
	if (dir_state_read(st, &old, err, sizeof(err)) == -1) {
		logx(0, "%s; starting afresh", err);
		err[0] = '\0';
	}
	if (conf->ccadb_records.n == 0) {
		dir_state_free(&old);
		directory_forget(st);
		return 0;
	}
	if (expand_sources(conf, now, &r, &n) == -1) {
		logx(0, "directory: more than %d CCADB reports", DIR_MAX_REPORTS);
		goto done;
	}
	if (!force && !due(&old, r, n, conf, st, now)) {
		ret = not_due(&old, now);
		goto done;
	}
	if (inputs_digest(t, inputs) == -1) {
		logx(0, "directory: out of memory");
		goto done;
	}
	/* Fetched, not yet read: a refresh of nothing but 304s reads none. */
	fetched = conf->ccadb_pems.n > 0 && fetch_reports(st, r, n,
	    REP_RECORDS, &old, conf, &tl, err, sizeof(err)) == 0;
	if (conf->ccadb_pems.n == 0)
		snprintf(err, sizeof(err), "ccadb_records without ccadb_pems: "
		    "no certificates");
	else if (fetch_reports(st, r, n, REP_PEMS, &old, conf, &tl, err,
	    sizeof(err)) == -1)
		;
	else if (fetched && unchanged(&old, r, n, inputs, st, now)) {
		logx(1, "directory: %zu reports not modified; the directory of "
		    "%lld entries stands", tl.cached, old.entries);
		free(old.error);
		old.error = NULL;
		old.attempt = now;
		ret = dir_state_write(st, &old);
		goto done;
	} else if (parse_records(st, r, n, fetched, &old, conf, &rs, now,
	    &tl, err, sizeof(err)) == 0 && (records_sort(&rs), 1) &&
	    parse_reports(st, r, n, REP_PEMS, &rs, now, &tl, err,
	    sizeof(err)) == 0 &&
	    directory_build(&rs, t, now, &d, err, sizeof(err)) == 0 &&
	    directory_write(st, &d) == 0 &&
	    dir_refused_write(st, &rs) == 0)
		ret = 0;
	else if (err[0] == '\0')
		snprintf(err, sizeof(err), "cannot write the directory");
	settle_cache(st, r, n, ret == 0);
	ns.attempt = now;
	if (ret == 0) {
		state_built(&ns, &d, &rs, inputs, now);
		log_refresh(&tl, &rs, d.n);
		used_reports(&ns, r, n);
		drop_cache(st, &old, ns.r, ns.n);
		r = NULL;
		n = 0;
	} else
		/* Keep the previous directory and what it was built from. */
		state_failed(&ns, &old, err);
	if (dir_state_write(st, &ns) == -1)
		ret = -1;
	dir_state_free(&ns);
done:
	records_free(&rs);
	directory_free(&d);
	dir_reports_free(r, n);
	dir_state_free(&old);
	return ret;
}
