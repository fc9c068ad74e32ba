/*
 * The issuer directory: the CA certificates of the Web PKI with their CRL
 * URLs, built from the CCADB's reports (report.c) and kept in
 * STATE_DIR/work/, which only the crlcache account reads.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * An entry is a root or intermediate certificate whose record is not
 * revoked and not expired ("Valid To (GMT)" and its notAfter), whose PEM
 * has the record's SHA-256, that is a CA certificate and chains to a
 * trust anchor here (a root row: is one), with at least one http(s) CRL
 * URL.  A refresh reads every report or refuses the lot: a report that
 * cannot be fetched or is refused keeps the previous directory whole.
 *
 * One file at 900 lines: the directory's text format, its build from the
 * reports and its refresh read and write the same entries; the reports'
 * parsing is report.c's.
 *
 * Files in STATE_DIR/work/, each replaced whole (replace_file):
 *
 *   directory          the last directory built, in this format (text,
 *                      LF line ends):
 *
 *        crlcache-directory 1
 *        built EPOCH
 *        entries N
 *        cert FP BASE64          N times, FP strictly ascending
 *        url URL                 1 to DIR_MAX_URLS times after each cert
 *        end
 *
 *                      FP is the SHA-256 of the certificate in 64
 *                      uppercase hex digits, BASE64 its DER on one line,
 *                      URL an http(s) URL of at most CRLC_KEY_MAX bytes.
 *                      Reading it back checks every bound, the order and
 *                      each certificate's digest; any error refuses the
 *                      whole file.
 *
 *   directory.state    the refresh state:
 *
 *        crlcache-directory-state 1
 *        attempt EPOCH           the last refresh tried
 *        built EPOCH             the directory's (0: none yet)
 *        entries N
 *        error TEXT              only when the last refresh failed
 *        report SOURCE           each report the directory was built from
 *        etag VALUE              optional, that report's validators
 *        modified VALUE
 *
 *   directory-HEX.csv  the body of report URL whose SHA-256 is HEX, as
 *                      last built from, for a 304 answer (conditional GET).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "fetcher.h"

#define DIR_NAME		"directory"
#define STATE_NAME		"directory.state"
#define DIR_FORMAT		"crlcache-directory 1"
#define STATE_FORMAT		"crlcache-directory-state 1"
/*
 * One report, from the network or a file.  The v4 records report holds
 * some 10,000 rows of 75 columns, tens of MB; a CRL's max_size would be
 * too tight for it in the years to come, and this still bounds memory.
 */
#define DIR_REPORT_MAX_SIZE	((size_t)256 << 20)
/* Reports per refresh: one records report and one PEM report per year
   since 1994 is about 35. */
#define DIR_MAX_REPORTS		256
/* Entries: the Web PKI has some 4,000 unexpired disclosed CA
   certificates; twenty-five times that. */
#define DIR_MAX_ENTRIES		100000
/* DER bytes of one certificate: CA certificates are a few KB. */
#define DIR_MAX_CERT		65536
/* The directory file: ~15 MB for the whole Web PKI. */
#define DIR_MAX_FILE		((size_t)256 << 20)
/* The state file: a few lines per report. */
#define DIR_MAX_STATE		((size_t)1 << 20)
/*
 * A failed refresh is tried again after this long (or ccadb_refresh, if
 * shorter): soon enough that an outage costs a few hours, rarely enough
 * that a report we refuse is not downloaded again every hour.
 */
#define DIR_RETRY_FAILED	(3 * 3600)

struct report {
	char		*src;		/* file name or URL */
	int		 pems;		/* a PEM report, else a records one */
	char		*etag;		/* validators of the body we hold */
	char		*modified;
	uint8_t		*body;		/* this refresh's */
	size_t		 len;
	int		 fresh;		/* body from the network: cache it */
};

struct dir_state {
	int64_t		 attempt;
	int64_t		 built;
	long long	 entries;
	char		*error;
	struct report	*r;		/* the reports of the directory */
	size_t		 n;
};

struct refresh_tally {
	size_t		 cached;	/* reports answered 304 */
	size_t		 rows;
	size_t		 refused[DIR_NREASONS];
};

/* "WHAT: WHY" into err, shortened with "..." when it does not fit. */
static void
say(char *err, size_t errlen, const char *what, const char *why)
{
	if ((size_t)snprintf(err, errlen, "%s: %s", what, why) >= errlen &&
	    errlen > 4)
		memcpy(err + errlen - 4, "...", 4);
}

static void
reports_free(struct report *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(r[i].src);
		free(r[i].etag);
		free(r[i].modified);
		free(r[i].body);
	}
	free(r);
}

static void
state_free(struct dir_state *st)
{
	free(st->error);
	reports_free(st->r, st->n);
	memset(st, 0, sizeof(*st));
}

static struct report *
report_add(struct report **r, size_t *n, const char *src, int pems)
{
	struct report *v;

	if (*n >= DIR_MAX_REPORTS ||
	    (v = reallocarray(*r, *n + 1, sizeof(*v))) == NULL)
		return NULL;
	*r = v;
	memset(&v[*n], 0, sizeof(v[*n]));
	v[*n].src = xstrdup(src);
	v[*n].pems = pems;
	return &v[(*n)++];
}

/* The configured reports, "{year}" in a PEM source expanded. */
static int
expand_sources(const struct conf *conf, int64_t now, struct report **r,
    size_t *n)
{
	char buf[PATH_MAX + 16], *y;
	time_t tt = (time_t)now;
	struct tm tm;
	size_t i;
	long year;

	gmtime_r(&tt, &tm);
	for (i = 0; i < conf->ccadb_records.n; i++)
		if (report_add(r, n, conf->ccadb_records.v[i], 0) == NULL)
			return -1;
	for (i = 0; i < conf->ccadb_pems.n; i++) {
		const char *s = conf->ccadb_pems.v[i];

		if ((y = strstr(s, "{year}")) == NULL) {
			if (report_add(r, n, s, 1) == NULL)
				return -1;
			continue;
		}
		for (year = conf->ccadb_since; year <= tm.tm_year + 1900; year++) {
			if ((size_t)snprintf(buf, sizeof(buf), "%.*s%ld%s",
			    (int)(y - s), s, year, y + 6) >= sizeof(buf) ||
			    report_add(r, n, buf, 1) == NULL)
				return -1;
		}
	}
	return 0;
}

static void
work_path(char *out, size_t len, const char *state_dir, const char *name)
{
	snprintf(out, len, "%s/%s/%s", state_dir, WORK_NAME, name);
}

/* Where the body of report URL src is kept between refreshes. */
static void
cache_path(char *out, size_t len, const char *state_dir, const char *src)
{
	uint8_t h[CRLC_HASH_LEN];
	char hex[2 * CRLC_HASH_LEN + 1], name[2 * CRLC_HASH_LEN + 32];

	EVP_Digest(src, strlen(src), h, NULL, EVP_sha256(), NULL);
	hex_encode(h, CRLC_HASH_LEN, hex, 1);
	snprintf(name, sizeof(name), DIR_NAME "-%s.csv", hex);
	work_path(out, len, state_dir, name);
}

/* A value for a state line: one line of printable characters. */
static int
printable(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

static int
state_line(struct dir_state *st, char *key, char *val)
{
	long long v;
	struct report *r = st->n > 0 ? &st->r[st->n - 1] : NULL;

	if (strcmp(key, "attempt") == 0 || strcmp(key, "built") == 0 ||
	    strcmp(key, "entries") == 0) {
		if (parse_number(val, LLONG_MAX, 0, &v) == -1)
			return -1;
		if (key[0] == 'a')
			st->attempt = v;
		else if (key[0] == 'b')
			st->built = v;
		else
			st->entries = v;
	} else if (strcmp(key, "error") == 0 && st->error == NULL)
		st->error = xstrdup(val);
	else if (strcmp(key, "report") == 0) {
		if (report_add(&st->r, &st->n, val, 0) == NULL)
			return -1;
	} else if (strcmp(key, "etag") == 0 && r != NULL && r->etag == NULL)
		r->etag = xstrdup(val);
	else if (strcmp(key, "modified") == 0 && r != NULL &&
	    r->modified == NULL)
		r->modified = xstrdup(val);
	else
		return -1;
	return 0;
}

/* Read STATE_DIR/work/directory.state; none yet is an empty state. */
static int
state_read(const char *state_dir, struct dir_state *st, char *err,
    size_t errlen)
{
	char path[PATH_MAX], why[64], *line, *next, *sp;
	uint8_t *buf;
	size_t len, lineno = 1;
	int ret = -1;

	memset(st, 0, sizeof(*st));
	work_path(path, sizeof(path), state_dir, STATE_NAME);
	if (read_state_file(path, DIR_MAX_STATE, &buf, &len, err, errlen) == -1)
		return access(path, F_OK) == -1 && errno == ENOENT ? 0 : -1;
	line = (char *)buf;
	if ((next = strchr(line, '\n')) == NULL || memchr(buf, '\0', len) ||
	    (*next++ = '\0', strcmp(line, STATE_FORMAT) != 0)) {
		say(err, errlen, path, "not a directory state file");
		goto done;
	}
	for (line = next; *line != '\0'; line = next) {
		lineno++;
		if ((next = strchr(line, '\n')) == NULL)
			break;
		*next++ = '\0';
		if ((sp = strchr(line, ' ')) == NULL ||
		    (*sp = '\0', state_line(st, line, sp + 1) == -1)) {
			snprintf(why, sizeof(why), "line %zu: malformed", lineno);
			say(err, errlen, path, why);
			goto done;
		}
	}
	ret = *line == '\0' ? 0 : -1;
	if (ret == -1)
		say(err, errlen, path, "truncated");
done:
	free(buf);
	if (ret == -1)
		state_free(st);
	return ret;
}

/* Files of the work directory: the crlcache account's only. */
static int
replace_work_file(const char *path, const void *data, size_t len)
{
	return replace_file(path, data, len, 0600, (uid_t)-1, (gid_t)-1);
}

/* A value for a state line: its control characters become '?'. */
static void
state_value(FILE *f, const char *key, const char *val)
{
	fprintf(f, "%s ", key);
	for (; *val != '\0'; val++)
		fputc((unsigned char)*val < 0x20 || *val == 0x7f ? '?' : *val, f);
	fputc('\n', f);
}

static int
state_write(const char *state_dir, const struct dir_state *st)
{
	char path[PATH_MAX], *text = NULL;
	size_t i, len = 0;
	FILE *f;
	int ret = -1;

	work_path(path, sizeof(path), state_dir, STATE_NAME);
	if ((f = open_memstream(&text, &len)) == NULL)
		return -1;
	fprintf(f, STATE_FORMAT "\nattempt %lld\nbuilt %lld\nentries %lld\n",
	    (long long)st->attempt, (long long)st->built, st->entries);
	if (st->error != NULL)
		state_value(f, "error", st->error);
	for (i = 0; i < st->n; i++) {
		state_value(f, "report", st->r[i].src);
		/* A validator is sent back as it came, or not at all. */
		if (st->r[i].etag != NULL && printable(st->r[i].etag))
			state_value(f, "etag", st->r[i].etag);
		if (st->r[i].modified != NULL && printable(st->r[i].modified))
			state_value(f, "modified", st->r[i].modified);
	}
	if (fclose(f) == 0 && replace_work_file(path, text, len) == 0)
		ret = 0;
	free(text);
	return ret;
}

static const struct report *
state_find(const struct dir_state *st, const char *src)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (strcmp(st->r[i].src, src) == 0)
			return &st->r[i];
	return NULL;
}

/* Is a refresh due: the sources changed, or the last one is old enough? */
static int
due(const struct dir_state *st, const struct report *r, size_t n,
    const struct conf *conf, const char *state_dir, int64_t now)
{
	char path[PATH_MAX];
	int64_t every = conf->ccadb_refresh;
	size_t i;

	if (st->error != NULL) {
		if (every > DIR_RETRY_FAILED)
			every = DIR_RETRY_FAILED;
	} else {
		work_path(path, sizeof(path), state_dir, DIR_NAME);
		if (st->n != n || access(path, F_OK) == -1)
			return 1;
		for (i = 0; i < n; i++)
			if (strcmp(st->r[i].src, r[i].src) != 0)
				return 1;
	}
	return now < st->attempt || now - st->attempt >= every;
}

/*
 * This refresh's body of every report: files read, URLs fetched in
 * parallel, conditionally when we hold the body we built from last time
 * (a 304 reads it back).  Every failure is logged; the first goes to err.
 */
static int
read_reports(const char *state_dir, struct report *r, size_t n,
    const struct dir_state *old, const struct conf *conf,
    struct refresh_tally *tl, char *err, size_t errlen)
{
	struct conf rconf = *conf;
	struct fetch *f = xcalloc(n + 1, sizeof(*f));
	size_t *idx = xcalloc(n + 1, sizeof(*idx)), i, k = 0;
	const struct report *h;
	char path[PATH_MAX], why[ERRLEN];
	int failed = 0;

	for (i = 0; i < n; i++) {
		if (!is_http_url(r[i].src, strlen(r[i].src))) {
			if (read_file(r[i].src, DIR_REPORT_MAX_SIZE, &r[i].body,
			    &r[i].len, why, sizeof(why)) == -1) {
				logx(0, "%s: %s", r[i].src, why);
				if (failed++ == 0)
					say(err, errlen, r[i].src, why);
			}
			continue;
		}
		idx[k] = i;
		f[k].url = r[i].src;
		cache_path(path, sizeof(path), state_dir, r[i].src);
		if ((h = state_find(old, r[i].src)) != NULL &&
		    access(path, F_OK) == 0) {
			f[k].etag = h->etag;
			f[k].last_modified = h->modified;
		}
		k++;
	}
	rconf.max_size = DIR_REPORT_MAX_SIZE;
	if (k > 0 && fetch_all(f, k, &rconf) == -1)
		logx(0, "directory: transfer engine failed");
	for (i = 0; i < k; i++) {
		struct report *rp = &r[idx[i]];

		why[0] = '\0';
		if (!f[i].ok)
			snprintf(why, sizeof(why), "%s", f[i].err[0] ? f[i].err :
			    "fetch failed");
		else if (f[i].not_modified) {
			cache_path(path, sizeof(path), state_dir, rp->src);
			if (read_state_file(path, DIR_REPORT_MAX_SIZE, &rp->body,
			    &rp->len, why, sizeof(why)) == 0) {
				rp->etag = f[i].etag ? xstrdup(f[i].etag) : NULL;
				rp->modified = f[i].last_modified ?
				    xstrdup(f[i].last_modified) : NULL;
				tl->cached++;
			}
		} else {
			rp->body = f[i].body;
			rp->len = f[i].len;
			rp->etag = f[i].new_etag;
			rp->modified = f[i].new_last_modified;
			f[i].body = NULL;
			f[i].new_etag = f[i].new_last_modified = NULL;
			rp->fresh = 1;
		}
		if (why[0] != '\0') {
			logx(0, "%s: %s", rp->src, why);
			if (failed++ == 0)
				say(err, errlen, rp->src, why);
		}
		fetch_free(&f[i]);
	}
	free(f);
	free(idx);
	return failed > 0 ? -1 : 0;
}

static void
log_refusal(const struct ccadb_record *rec, const char *why)
{
	char hex[2 * CRLC_HASH_LEN + 1];

	hex_encode(rec->fp, CRLC_HASH_LEN, hex, 1);
	logx(2, "directory: certificate %s refused: %s", hex, why);
}

/* Verify one record's certificate: DIR_KEPT or why not. */
static enum dir_reason
check_cert(X509_STORE_CTX *ctx, const struct trust *t, STACK_OF(X509) *pool,
    const struct ccadb_record *rec, int64_t now)
{
	X509 *x = rec->cert;
	int ok, err, depth;

	if (x == NULL)
		return DIR_NO_CERT;
	if (asn1_time_to_epoch(X509_get0_notAfter(x)) < now)
		return DIR_EXPIRED;
	if (X509_check_ca(x) <= 0)
		return DIR_NOT_CA;
	if (!X509_STORE_CTX_init(ctx, t->store, x, pool))
		return DIR_NO_CHAIN;
	X509_STORE_CTX_set_time(ctx, 0, (time_t)now);
	ok = X509_verify_cert(ctx) == 1;
	err = X509_STORE_CTX_get_error(ctx);
	depth = sk_X509_num(X509_STORE_CTX_get0_chain(ctx));
	X509_STORE_CTX_cleanup(ctx);
	ERR_clear_error();
	if (!ok)
		log_refusal(rec, X509_verify_cert_error_string(err));
	/* A root row's certificate must itself be the anchor. */
	if (rec->root && (!ok || depth != 1))
		return DIR_NOT_ANCHOR;
	return ok ? DIR_KEPT : DIR_NO_CHAIN;
}

/*
 * Decide every record: the certificates of all usable records and the
 * configured ones are the untrusted pool chains are built from.
 */
static int
verify_records(struct ccadb_records *rs, const struct trust *t, int64_t now)
{
	STACK_OF(X509) *pool;
	X509_STORE_CTX *ctx;
	size_t i;

	if ((pool = sk_X509_dup(t->certs)) == NULL ||
	    (ctx = X509_STORE_CTX_new()) == NULL) {
		sk_X509_free(pool);
		return -1;
	}
	for (i = 0; i < rs->n; i++)
		if (rs->v[i].cert != NULL && !sk_X509_push(pool, rs->v[i].cert))
			goto fail;
	for (i = 0; i < rs->n; i++)
		if (rs->v[i].reason == DIR_KEPT)
			rs->v[i].reason = check_cert(ctx, t, pool, &rs->v[i], now);
	X509_STORE_CTX_free(ctx);
	sk_X509_free(pool);
	return 0;
fail:
	X509_STORE_CTX_free(ctx);
	sk_X509_free(pool);
	return -1;
}

/* Parse every report, decide every record, keep the entries in d. */
static int
build(struct report *r, size_t n, const struct trust *t, int64_t now,
    struct directory *d, struct refresh_tally *tl, char *err, size_t errlen)
{
	struct ccadb_records rs;
	char why[ERRLEN], msg[ERRLEN + 16];
	size_t i, k;
	int ret = -1;

	memset(&rs, 0, sizeof(rs));
	for (i = 0; i < n; i++)
		if (!r[i].pems && records_parse(&rs, r[i].body, r[i].len, now,
		    why, sizeof(why)) == -1)
			goto refused;
	records_sort(&rs);
	for (i = 0; i < n; i++)
		if (r[i].pems && records_add_pems(&rs, r[i].body, r[i].len,
		    r[i].src, why, sizeof(why)) == -1)
			goto refused;
	if (verify_records(&rs, t, now) == -1) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	tl->rows = rs.rows;
	memcpy(tl->refused, rs.refused, sizeof(tl->refused));
	d->v = xcalloc(rs.n + 1, sizeof(*d->v));
	for (i = k = 0; i < rs.n; i++) {
		struct ccadb_record *rec = &rs.v[i];

		if (rec->reason != DIR_KEPT) {
			tl->refused[rec->reason]++;
			continue;
		}
		memcpy(d->v[k].fp, rec->fp, CRLC_HASH_LEN);
		d->v[k].cert = rec->cert;
		d->v[k].urls = rec->urls;
		rec->cert = NULL;
		memset(&rec->urls, 0, sizeof(rec->urls));
		k++;
	}
	d->n = k;
	d->built = now;
	if (d->n > DIR_MAX_ENTRIES) {
		snprintf(err, errlen, "more than %d entries", DIR_MAX_ENTRIES);
		goto done;
	}
	ret = 0;
	goto done;
refused:
	logx(0, "%s: refused: %s", r[i].src, why);
	snprintf(msg, sizeof(msg), "refused: %s", why);
	say(err, errlen, r[i].src, msg);
done:
	records_free(&rs);
	return ret;
}

static int
cert_line(FILE *f, const struct dir_entry *e)
{
	char hex[2 * CRLC_HASH_LEN + 1], *b64;

	if ((b64 = cert_to_b64(e->cert, DIR_MAX_CERT)) == NULL)
		return -1;
	hex_encode(e->fp, CRLC_HASH_LEN, hex, 1);
	fprintf(f, "cert %s %s\n", hex, b64);
	free(b64);
	return 0;
}

static int
dir_write(const char *state_dir, const struct directory *d)
{
	char path[PATH_MAX], *text = NULL;
	size_t i, j, len = 0;
	FILE *f;
	int ret = -1;

	work_path(path, sizeof(path), state_dir, DIR_NAME);
	if ((f = open_memstream(&text, &len)) == NULL)
		return -1;
	fprintf(f, DIR_FORMAT "\nbuilt %lld\nentries %zu\n", (long long)d->built,
	    d->n);
	for (i = 0; i < d->n; i++) {
		if (cert_line(f, &d->v[i]) == -1)
			break;
		for (j = 0; j < d->v[i].urls.n; j++)
			fprintf(f, "url %s\n", d->v[i].urls.v[j]);
	}
	fputs("end\n", f);
	if (fclose(f) == 0 && i == d->n && replace_work_file(path, text, len) == 0)
		ret = 0;
	free(text);
	return ret;
}

/* Keep each fresh body for the next conditional GET. */
static int
cache_bodies(const char *state_dir, const struct report *r, size_t n)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < n; i++) {
		if (!r[i].fresh)
			continue;
		cache_path(path, sizeof(path), state_dir, r[i].src);
		if (replace_work_file(path, r[i].body, r[i].len) == -1)
			return -1;
	}
	return 0;
}

/* Remove the cached bodies of reports no longer in use (all: every one). */
static void
drop_cache(const char *state_dir, const struct dir_state *old,
    const struct report *r, size_t n)
{
	char path[PATH_MAX];
	size_t i, j;

	for (i = 0; i < old->n; i++) {
		for (j = 0; j < n && strcmp(r[j].src, old->r[i].src) != 0; j++)
			;
		if (j == n && is_http_url(old->r[i].src, strlen(old->r[i].src))) {
			cache_path(path, sizeof(path), state_dir, old->r[i].src);
			(void)unlink(path);
		}
	}
}

/* No reports configured: no directory, and nothing kept for one. */
static void
remove_directory(const char *state_dir, const struct dir_state *old)
{
	char path[PATH_MAX];

	drop_cache(state_dir, old, NULL, 0);
	work_path(path, sizeof(path), state_dir, DIR_NAME);
	(void)unlink(path);
	work_path(path, sizeof(path), state_dir, STATE_NAME);
	(void)unlink(path);
}

/* One line: reports read, rows, entries kept, the others by reason. */
static void
log_refresh(size_t n, const struct refresh_tally *tl, size_t entries)
{
	char line[ERRLEN];
	const char *sep = "; not kept:";
	size_t i, off;

	off = (size_t)snprintf(line, sizeof(line), "directory: %zu reports "
	    "(%zu not modified), %zu rows, %zu entries", n, tl->cached,
	    tl->rows, entries);
	for (i = DIR_KEPT + 1; i < DIR_NREASONS && off < sizeof(line); i++) {
		if (tl->refused[i] == 0)
			continue;
		off += (size_t)snprintf(line + off, sizeof(line) - off,
		    "%s %zu %s", sep, tl->refused[i], dir_reason_name[i]);
		sep = ",";
	}
	logx(1, "%s", line);
}

int
directory_refresh(const char *state_dir, const struct conf *conf,
    const struct trust *t, int force)
{
	struct dir_state old, st;
	struct directory d = { NULL, 0, 0 };
	struct refresh_tally tl;
	struct report *r = NULL;
	char err[ERRLEN] = "";
	int64_t now = (int64_t)time(NULL);
	size_t n = 0;
	int ret = -1;

	memset(&tl, 0, sizeof(tl));
	memset(&st, 0, sizeof(st));
	if (state_read(state_dir, &old, err, sizeof(err)) == -1) {
		logx(0, "%s; starting afresh", err);
		err[0] = '\0';
	}
	if (conf->ccadb_records.n == 0) {
		if (old.n > 0 || old.built != 0)
			remove_directory(state_dir, &old);
		state_free(&old);
		return 0;
	}
	if (expand_sources(conf, now, &r, &n) == -1) {
		logx(0, "directory: more than %d CCADB reports", DIR_MAX_REPORTS);
		goto done;
	}
	if (!force && !due(&old, r, n, conf, state_dir, now)) {
		logx(2, "directory: not due (refreshed %llds ago)",
		    (long long)(now - old.attempt));
		ret = 0;
		goto done;
	}
	if (conf->ccadb_pems.n == 0)
		snprintf(err, sizeof(err), "ccadb_records without ccadb_pems: "
		    "no certificates");
	else if (read_reports(state_dir, r, n, &old, conf, &tl, err,
	    sizeof(err)) == 0 &&
	    build(r, n, t, now, &d, &tl, err, sizeof(err)) == 0 &&
	    cache_bodies(state_dir, r, n) == 0 && dir_write(state_dir, &d) == 0)
		ret = 0;
	else if (err[0] == '\0')
		snprintf(err, sizeof(err), "cannot write the directory");
	st.attempt = now;
	if (ret == 0) {
		st.built = now;
		st.entries = (long long)d.n;
		st.r = r;
		st.n = n;
		log_refresh(n, &tl, d.n);
		drop_cache(state_dir, &old, r, n);
	} else {
		/* Keep the previous directory and what it was built from. */
		st.built = old.built;
		st.entries = old.entries;
		st.r = old.r;
		st.n = old.n;
		st.error = err;
		logx(0, "directory: refresh failed: %s; keeping the directory "
		    "of %lld entries", err, old.entries);
	}
	if (state_write(state_dir, &st) == -1)
		ret = -1;
done:
	directory_free(&d);
	reports_free(r, n);
	state_free(&old);
	return ret;
}

int
directory_info(const char *state_dir, int64_t *built, long long *entries,
    char **error)
{
	struct dir_state st;
	char err[ERRLEN];

	*error = NULL;
	if (state_read(state_dir, &st, err, sizeof(err)) == -1 ||
	    (st.attempt == 0 && st.built == 0)) {
		state_free(&st);
		return -1;
	}
	*built = st.built;
	*entries = st.entries;
	*error = st.error;
	st.error = NULL;
	state_free(&st);
	return 0;
}

/* "cert FP BASE64": the entry's fingerprint and certificate, checked. */
static int
read_cert(const char *s, struct dir_entry *e)
{
	if (strlen(s) < 2 * CRLC_HASH_LEN + 2 || s[2 * CRLC_HASH_LEN] != ' ' ||
	    hex_decode(s, 2 * CRLC_HASH_LEN, e->fp, CRLC_HASH_LEN) == -1)
		return -1;
	e->cert = cert_from_b64(s + 2 * CRLC_HASH_LEN + 1, DIR_MAX_CERT, e->fp);
	return e->cert != NULL ? 0 : -1;
}

static int
read_url(const char *s, struct dir_entry *e)
{
	size_t len = strlen(s);

	if (e->urls.n >= DIR_MAX_URLS || len > CRLC_KEY_MAX ||
	    !is_http_url(s, len))
		return -1;
	return strlist_add(&e->urls, s);
}

/* Parse a directory file (NUL-terminated buf); d holds what was read. */
static int
dir_parse(char *buf, struct directory *d, size_t *lineno)
{
	char *line = buf, *next;
	long long built, entries = 0;
	struct dir_entry *e = NULL;

	*lineno = 0;
	for (;;) {
		++*lineno;
		if ((next = strchr(line, '\n')) == NULL)
			return -1;	/* truncated */
		*next++ = '\0';
		if (*lineno == 1) {
			if (strcmp(line, DIR_FORMAT) != 0)
				return -1;
		} else if (*lineno == 2) {
			if (strncmp(line, "built ", 6) != 0 ||
			    parse_number(line + 6, LLONG_MAX, 0, &built) == -1)
				return -1;
			d->built = built;
		} else if (*lineno == 3) {
			if (strncmp(line, "entries ", 8) != 0 || parse_number(line +
			    8, DIR_MAX_ENTRIES, 0, &entries) == -1)
				return -1;
			d->v = xcalloc((size_t)entries + 1, sizeof(*d->v));
		} else if (strncmp(line, "cert ", 5) == 0) {
			if ((e != NULL && e->urls.n == 0) ||
			    d->n >= (size_t)entries)
				return -1;
			e = &d->v[d->n++];
			if (read_cert(line + 5, e) == -1 || (d->n > 1 &&
			    memcmp(e[-1].fp, e->fp, CRLC_HASH_LEN) >= 0))
				return -1;
		} else if (strncmp(line, "url ", 4) == 0) {
			if (e == NULL || read_url(line + 4, e) == -1)
				return -1;
		} else if (strcmp(line, "end") == 0)
			return *next == '\0' && d->n == (size_t)entries &&
			    (e == NULL || e->urls.n > 0) ? 0 : -1;
		else
			return -1;
		line = next;
	}
}

int
directory_load(const char *state_dir, struct directory *d)
{
	char path[PATH_MAX], err[ERRLEN];
	uint8_t *buf;
	size_t len, lineno;
	int ret;

	memset(d, 0, sizeof(*d));
	work_path(path, sizeof(path), state_dir, DIR_NAME);
	if (read_state_file(path, DIR_MAX_FILE, &buf, &len, err,
	    sizeof(err)) == -1) {
		if (access(path, F_OK) == -1 && errno == ENOENT)
			return 0;
		logx(0, "%s: %s", path, err);
		return -1;
	}
	ret = memchr(buf, '\0', len) == NULL ? dir_parse((char *)buf, d,
	    &lineno) : (lineno = 0, -1);
	free(buf);
	if (ret == -1) {
		logx(0, "%s: line %zu: malformed directory; ignored until the "
		    "next refresh", path, lineno);
		directory_free(d);
	}
	return ret;
}

static int
cmp_entry(const void *a, const void *b)
{
	return memcmp(((const struct dir_entry *)a)->fp,
	    ((const struct dir_entry *)b)->fp, CRLC_HASH_LEN);
}

const struct dir_entry *
directory_find(const struct directory *d, const uint8_t fp[CRLC_HASH_LEN])
{
	struct dir_entry key;

	memcpy(key.fp, fp, CRLC_HASH_LEN);
	return d->n == 0 ? NULL :
	    bsearch(&key, d->v, d->n, sizeof(*d->v), cmp_entry);
}

void
directory_free(struct directory *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		X509_free(d->v[i].cert);
		strlist_free(&d->v[i].urls);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}
