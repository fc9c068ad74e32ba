/*
 * The CCADB's public reports, parsed for the issuer directory.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The certificate records reports (AllCertificateRecordsCSVFormatV5,
 * and the older v4, v4a, v4b) have one row per disclosed root and
 * intermediate certificate, some 75 to 90 columns; we read them by name
 * and need only "SHA-256 Fingerprint", "Certificate Record Type" and one
 * CRL URL column (ccadb_url_columns: V5 has "JSON Array of All Full CRL
 * URLs", V4 "Full CRL Issued By This CA"); "Revocation Status" and
 * "Valid To (GMT)" (YYYY.MM.DD, or YYYY-MM-DD as crt.sh's copy writes
 * it) are read when present.  AllCertificatePEMsCSVFormat (by
 * NotBeforeYear or NotBeforeDecade) has "SHA-256 Fingerprint" and
 * "X.509 Certificate (PEM)", the PEM in a quoted field that spans lines.
 *
 * Both come from the network.  The CSV layer (csv.c) bounds every field,
 * row and row count and reads leniently; a row that is not as wide as
 * the header, or holds an oversized field, costs that row only and is
 * counted by reason (skipped[]).  A report that is empty (no header),
 * lacks the columns, cannot be read to its end or whose rows are mostly
 * bad is refused whole.  A row whose values are unusable refuses only
 * its own certificate, and a certificate is attached to its record only
 * when the SHA-256 of its DER is the record's fingerprint.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <crlcache/hash.h>

#include "ccadb.h"
#include "fetcher.h"
#include "report.h"

#define COL_FP		"SHA-256 Fingerprint"
#define COL_TYPE	"Certificate Record Type"
#define COL_REVOKED	"Revocation Status"
#define COL_VALID_TO	"Valid To (GMT)"
#define COL_PEM		"X.509 Certificate (PEM)"

#define TYPE_ROOT	"Root Certificate"
#define TYPE_INT	"Intermediate Certificate"
#define NOT_REVOKED	"Not Revoked"

const char *const dir_reason_name[DIR_NREASONS] = {
	"kept", "malformed", "revoked", "expired",
	"too many URLs", "no CRL URL", "no certificate",
	"fingerprint mismatch", "not a CA", "no chain to an anchor",
	"root not an anchor",
};
/* The same, as one word for state files and machines. */
const char *const dir_reason_key[DIR_NREASONS] = {
	"kept", "malformed", "revoked", "expired", "many_urls", "no_url",
	"no_cert", "mismatch", "not_ca", "no_chain", "not_anchor",
};

/*
 * "2027.05.31" or "2027-05-31": the last second of that day (UTC); -1
 * when malformed.
 */
static int64_t
valid_to(const char *s, size_t len)
{
	struct tm tm;
	int y, m, d;

	if (len != 10 || (s[4] != '.' && s[4] != '-') || s[7] != s[4] ||
	    strspn(s, "0123456789") != 4 || strspn(s + 5, "0123456789") != 2 ||
	    strspn(s + 8, "0123456789") != 2 ||
	    sscanf(s, "%4d%*c%2d%*c%2d", &y, &m, &d) != 3 ||
	    y < 1900 || m < 1 || m > 12 || d < 1 || d > 31)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	tm.tm_hour = 23;
	tm.tm_min = 59;
	tm.tm_sec = 59;
	return (int64_t)timegm(&tm);
}

/*
 * More than this share of bad rows (in 1/N) and a report is refused
 * whole: a report that is mostly broken is not the CCADB's.
 */
#define BAD_ROWS_SHARE		2

/*
 * Start reading a report: the header must name every column in need
 * (their positions go to cols, -1 for a column of want it lacks).
 * Returns the header's width, 0 when the report is refused (why in err).
 */
static size_t
open_report(struct csv *c, const uint8_t *buf, size_t len,
    const char *const *names, int *cols, size_t need, size_t want,
    char *err, size_t errlen)
{
	size_t i;

	csv_init(c, buf, len);
	if (csv_row(c) != 1 || c->skip == CSV_SKIP_LONG) {
		if (c->why == NULL && c->nfields == 0)
			snprintf(err, errlen, "empty report");
		else
			snprintf(err, errlen, "line %zu: malformed CSV header: "
			    "%s", c->err_line, c->why != NULL ? c->why :
			    "too long");
		return 0;
	}
	for (i = 0; i < want; i++)
		if ((cols[i] = csv_column(c, names[i])) == -1 && i < need) {
			snprintf(err, errlen, "no \"%s\" column", names[i]);
			return 0;
		}
	return c->nfields;
}

/*
 * The next usable data row: blank lines are skipped, and so are rows
 * that are not as wide as the header or too long (counted in skipped).
 * 1, 0 at the end, -1 when the report cannot be read on (why in err).
 */
static int
data_row(struct csv *c, size_t width, size_t *rows, size_t *skipped,
    char *err, size_t errlen)
{
	size_t len;
	int rc;

	while ((rc = csv_row(c)) == 1) {
		if (c->nfields == 1 && (csv_get(c, 0, &len), len == 0) &&
		    c->skip == CSV_SKIP_NONE)
			continue;
		++*rows;
		if (c->skip == CSV_SKIP_LONG)
			skipped[CSV_SKIP_LONG]++;
		else if (c->nfields != width && c->cut) {
			snprintf(err, errlen, "line %zu: %zu fields where the "
			    "header has %zu, at the end: truncated", c->row_line,
			    c->nfields, width);
			return -1;
		} else if (c->nfields != width)
			skipped[CSV_SKIP_WIDTH]++;
		else {
			if (c->skip == CSV_SKIP_QUOTE)
				skipped[CSV_SKIP_QUOTE]++;
			return 1;
		}
	}
	if (rc == -1)
		snprintf(err, errlen, "line %zu: malformed CSV: %s", c->err_line,
		    c->why);
	return rc;
}

/* At the end of a report: refuse one that is mostly broken. */
static int
close_report(size_t rows, const size_t *skipped, char *err, size_t errlen)
{
	size_t bad = skipped[CSV_SKIP_WIDTH] + skipped[CSV_SKIP_LONG];

	if (bad * BAD_ROWS_SHARE > rows) {
		snprintf(err, errlen, "%zu of %zu rows malformed", bad, rows);
		return -1;
	}
	return 0;
}

enum { R_FP, R_TYPE, R_REVOKED, R_VALID_TO, R_URL0,
    R_NCOLS = R_URL0 + CCADB_URL_COLUMNS };

/* One records row into rec; its reason says whether it may be used. */
static void
record_row(const struct csv *c, const int *col, int64_t now,
    struct ccadb_record *rec)
{
	const char *v;
	size_t len, i, bad = 0;

	memset(rec, 0, sizeof(*rec));
	v = csv_get(c, col[R_TYPE], &len);
	rec->root = strcmp(v, TYPE_ROOT) == 0;
	v = csv_get(c, col[R_FP], &len);
	if (crlc_hex_decode(v, len, rec->fp, CRLC_HASH_LEN) == -1) {
		rec->reason = DIR_MALFORMED;
		return;
	}
	v = csv_get(c, col[R_REVOKED], &len);
	if (len > 0 && strcmp(v, NOT_REVOKED) != 0) {
		rec->reason = DIR_REVOKED;
		return;
	}
	/* Without the column, the certificate's notAfter decides. */
	v = csv_get(c, col[R_VALID_TO], &len);
	if (col[R_VALID_TO] != -1 &&
	    (rec->valid_to = valid_to(v, len)) == -1) {
		rec->reason = DIR_MALFORMED;
		return;
	}
	if (col[R_VALID_TO] != -1 && rec->valid_to < now) {
		rec->reason = DIR_EXPIRED;
		return;
	}
	for (i = 0; i < CCADB_URL_COLUMNS; i++) {
		v = csv_get(c, col[R_URL0 + i], &len);
		if (ccadb_urls(v, len, &rec->urls, DIR_MAX_URLS, &bad) == -1) {
			strlist_free(&rec->urls);
			rec->reason = DIR_MANY_URLS;
			return;
		}
	}
	rec->reason = rec->urls.n > 0 ? DIR_KEPT : DIR_NO_URL;
}

int
records_parse(struct ccadb_records *r, const uint8_t *buf, size_t len,
    int64_t now, char *err, size_t errlen)
{
	const char *names[R_NCOLS] = { COL_FP, COL_TYPE, COL_REVOKED,
	    COL_VALID_TO };
	struct ccadb_record rec, *v;
	struct csv c;
	const char *type;
	size_t width, tlen, i, rows = 0, skipped[CSV_NSKIP] = { 0 };
	int col[R_NCOLS], rc, ret = -1, any = 0;

	for (i = 0; i < CCADB_URL_COLUMNS; i++)
		names[R_URL0 + i] = ccadb_url_columns[i];
	if ((width = open_report(&c, buf, len, names, col, R_REVOKED, R_NCOLS,
	    err, errlen)) == 0)
		goto done;
	for (i = 0; i < CCADB_URL_COLUMNS; i++)
		any |= col[R_URL0 + i] != -1;
	if (!any) {
		snprintf(err, errlen, "no CRL URL column (\"%s\" or \"%s\")",
		    ccadb_url_columns[0], ccadb_url_columns[1]);
		goto done;
	}
	while ((rc = data_row(&c, width, &rows, skipped, err, errlen)) == 1) {
		type = csv_get(&c, col[R_TYPE], &tlen);
		if (strcmp(type, TYPE_ROOT) != 0 && strcmp(type, TYPE_INT) != 0)
			continue;	/* not a CA certificate record */
		record_row(&c, col, now, &rec);
		if (rec.reason != DIR_KEPT && rec.reason != DIR_NO_URL) {
			r->refused[rec.reason]++;
			continue;
		}
		if (r->n == r->cap) {
			r->cap = r->cap ? r->cap * 2 : 1024;
			if ((v = reallocarray(r->v, r->cap, sizeof(*v))) == NULL) {
				strlist_free(&rec.urls);
				snprintf(err, errlen, "out of memory");
				goto done;
			}
			r->v = v;
		}
		r->v[r->n++] = rec;
	}
	if (rc == 0 && close_report(rows, skipped, err, errlen) == 0)
		ret = 0;
	r->rows += rows;
	for (i = 0; i < CSV_NSKIP; i++)
		r->skipped[i] += skipped[i];
done:
	csv_free(&c);
	return ret;
}

static int
cmp_record(const void *a, const void *b)
{
	return memcmp(((const struct ccadb_record *)a)->fp,
	    ((const struct ccadb_record *)b)->fp, CRLC_HASH_LEN);
}

/*
 * Two records of one certificate: the CCADB has a few (a certificate
 * disclosed twice).  Its CRLs are those of both, as directory_build's
 * union over a subject and key already says; a record the row itself
 * refused never gets here.
 */
static void
merge_record(struct ccadb_record *into, struct ccadb_record *dup)
{
	size_t i;

	for (i = 0; i < dup->urls.n && into->urls.n < 2 * DIR_MAX_URLS; i++)
		strlist_add(&into->urls, dup->urls.v[i]);
	into->root |= dup->root;
	strlist_free(&dup->urls);
}

void
records_sort(struct ccadb_records *r)
{
	size_t i, n = 0;

	if (r->n == 0)
		return;
	qsort(r->v, r->n, sizeof(*r->v), cmp_record);
	for (i = 1; i < r->n; i++) {
		if (memcmp(r->v[i].fp, r->v[n].fp, CRLC_HASH_LEN) == 0)
			merge_record(&r->v[n], &r->v[i]);
		else
			r->v[++n] = r->v[i];
	}
	r->n = n + 1;
	for (i = 0; i < r->n; i++)
		strlist_uniq(&r->v[i].urls);
}

static struct ccadb_record *
records_find(const struct ccadb_records *r, const uint8_t fp[CRLC_HASH_LEN])
{
	struct ccadb_record key;

	memcpy(key.fp, fp, CRLC_HASH_LEN);
	return r->n == 0 ? NULL :
	    bsearch(&key, r->v, r->n, sizeof(*r->v), cmp_record);
}

#define PEM_BEGIN	"-----BEGIN CERTIFICATE-----"
#define PEM_END		"-----END CERTIFICATE-----"
/* DER bytes of one CA certificate: a few KB; sixteen times the largest. */
#define PEM_MAX_DER	65536

/*
 * The certificate in a PEM field, when the SHA-256 of its DER is fp:
 * NULL otherwise, with why (and the digest it had, for the log).  The
 * base64 between the markers is read as RFC 7468 3 lets a parser read
 * it, white space anywhere: the CCADB holds certificates with a blank
 * line after the BEGIN line (Amazon's 2025 CAs), which OpenSSL's PEM
 * reader refuses; the fingerprint still decides whether it is the
 * record's certificate.
 */
static X509 *
pem_cert(const char *pem, size_t len, const uint8_t fp[CRLC_HASH_LEN],
    enum dir_reason *why, uint8_t got[CRLC_HASH_LEN])
{
	const char *b, *e;
	uint8_t *der = NULL;
	const unsigned char *p;
	size_t dlen = 0;
	X509 *x = NULL;

	*why = DIR_MALFORMED;
	memset(got, 0, CRLC_HASH_LEN);
	if ((b = memmem(pem, len, PEM_BEGIN, strlen(PEM_BEGIN))) == NULL)
		return NULL;
	b += strlen(PEM_BEGIN);
	if ((e = memmem(b, len - (size_t)(b - pem), PEM_END,
	    strlen(PEM_END))) == NULL ||
	    b64_decode_loose(b, (size_t)(e - b), PEM_MAX_DER, &der, &dlen) == -1)
		return NULL;
	crlc_sha256(der, dlen, got);
	p = der;
	if (memcmp(got, fp, CRLC_HASH_LEN) != 0)
		*why = DIR_MISMATCH;
	else if ((x = d2i_X509(NULL, &p, (long)dlen)) != NULL &&
	    p != der + dlen) {
		X509_free(x);	/* bytes after the certificate */
		x = NULL;
	}
	free(der);
	ERR_clear_error();
	return x;
}

enum { P_FP, P_PEM, P_NCOLS };

int
records_add_pems(struct ccadb_records *r, const uint8_t *buf, size_t len,
    const char *source, char *err, size_t errlen)
{
	static const char *const names[P_NCOLS] = { COL_FP, COL_PEM };
	size_t rows = 0, skipped[CSV_NSKIP] = { 0 };
	char want[2 * CRLC_HASH_LEN + 1], had[2 * CRLC_HASH_LEN + 1];
	uint8_t fp[CRLC_HASH_LEN], got[CRLC_HASH_LEN];
	struct ccadb_record *rec;
	enum dir_reason why;
	struct csv c;
	const char *v;
	size_t width, vlen, i;
	int col[P_NCOLS], rc, ret = -1;

	if ((width = open_report(&c, buf, len, names, col, P_NCOLS, P_NCOLS,
	    err, errlen)) == 0)
		goto done;
	while ((rc = data_row(&c, width, &rows, skipped, err, errlen)) == 1) {
		v = csv_get(&c, col[P_FP], &vlen);
		if (crlc_hex_decode(v, vlen, fp, CRLC_HASH_LEN) == -1 ||
		    (rec = records_find(r, fp)) == NULL || rec->cert != NULL ||
		    (rec->reason != DIR_KEPT && rec->reason != DIR_NO_URL))
			continue;
		v = csv_get(&c, col[P_PEM], &vlen);
		if ((rec->cert = pem_cert(v, vlen, fp, &why, got)) != NULL)
			continue;
		rec->reason = why;
		crlc_hex_encode(fp, CRLC_HASH_LEN, want, 1);
		crlc_hex_encode(got, CRLC_HASH_LEN, had, 1);
		if (why == DIR_MISMATCH)
			logx(0, "%s: line %zu: certificate %s refused: the SHA-256 "
			    "of its PEM is %s", source, c.row_line, want, had);
		else
			logx(0, "%s: line %zu: certificate %s refused: not a PEM "
			    "certificate", source, c.row_line, want);
	}
	if (rc == 0 && close_report(rows, skipped, err, errlen) == 0)
		ret = 0;
	for (i = 0; i < CSV_NSKIP; i++)
		r->skipped[i] += skipped[i];
done:
	csv_free(&c);
	return ret;
}

void
records_free(struct ccadb_records *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		strlist_free(&r->v[i].urls);
		X509_free(r->v[i].cert);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}
