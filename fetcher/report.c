/*
 * The CCADB's public reports, parsed for the issuer directory.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * AllCertificateRecordsCSVFormatv4 has one row per disclosed root and
 * intermediate certificate (about 75 columns); we read six of them by
 * name.  AllCertificatePEMsCSVFormat?NotBeforeYear=YYYY has two
 * columns, "SHA-256 Fingerprint" and "X.509 Certificate (PEM)", the PEM
 * in a quoted field that spans lines.  Both come from the network: the
 * CSV layer (csv.c) bounds every field, row and row count; a report that
 * is not well-formed, lacks a column or has a row whose width differs
 * from its header's is refused whole.  A row whose values are unusable
 * refuses only its own certificate, and a certificate is attached to its
 * record only when the SHA-256 of its DER is the record's fingerprint.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "fetcher.h"

#define COL_FP		"SHA-256 Fingerprint"
#define COL_TYPE	"Certificate Record Type"
#define COL_REVOKED	"Revocation Status"
#define COL_VALID_TO	"Valid To (GMT)"
#define COL_FULL	"Full CRL Issued By This CA"
#define COL_PARTS	"JSON Array of Partitioned CRLs"
#define COL_PEM		"X.509 Certificate (PEM)"

#define TYPE_ROOT	"Root Certificate"
#define TYPE_INT	"Intermediate Certificate"
#define NOT_REVOKED	"Not Revoked"

const char *const dir_reason_name[DIR_NREASONS] = {
	"kept", "malformed", "duplicate", "revoked", "expired",
	"too many URLs", "no CRL URL", "no certificate",
	"fingerprint mismatch", "not a CA", "no chain to an anchor",
	"root not an anchor",
};

/* "2027.05.31": the last second of that day (UTC); -1 when malformed. */
static int64_t
valid_to(const char *s, size_t len)
{
	struct tm tm;
	int y, m, d;

	if (len != 10 || s[4] != '.' || s[7] != '.' ||
	    sscanf(s, "%4d.%2d.%2d", &y, &m, &d) != 3 ||
	    strspn(s, "0123456789.") != len ||
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
 * Start reading a report: the header must name every column in names
 * (their positions go to cols).  Returns the header's width, 0 when the
 * report is refused (why in err).
 */
static size_t
open_report(struct csv *c, const uint8_t *buf, size_t len,
    const char *const *names, int *cols, size_t n, char *err, size_t errlen)
{
	size_t i;

	csv_init(c, buf, len);
	if (csv_row(c) != 1) {
		snprintf(err, errlen, "line %zu: malformed CSV header: %s",
		    c->err_line, c->why != NULL ? c->why : "empty report");
		return 0;
	}
	for (i = 0; i < n; i++)
		if ((cols[i] = csv_column(c, names[i])) == -1) {
			snprintf(err, errlen, "no \"%s\" column", names[i]);
			return 0;
		}
	return c->nfields;
}

/*
 * The next data row, as wide as the header (a narrower one is where a
 * truncated report ends).  Blank lines are skipped.  1, 0 at the end, -1.
 */
static int
data_row(struct csv *c, size_t width, char *err, size_t errlen)
{
	size_t len;
	int rc;

	while ((rc = csv_row(c)) == 1 && c->nfields == 1 &&
	    (csv_get(c, 0, &len), len == 0))
		;
	if (rc == 1 && c->nfields != width) {
		snprintf(err, errlen, "line %zu: %zu fields where the header "
		    "has %zu", c->row_line, c->nfields, width);
		return -1;
	}
	if (rc == -1)
		snprintf(err, errlen, "line %zu: malformed CSV: %s", c->err_line,
		    c->why);
	return rc;
}

enum { R_FP, R_TYPE, R_REVOKED, R_VALID_TO, R_FULL, R_PARTS, R_NCOLS };

/* One records row into rec; its reason says whether it may be used. */
static void
record_row(const struct csv *c, const int *col, int64_t now,
    struct ccadb_record *rec)
{
	const char *v, *full;
	size_t len, flen;

	memset(rec, 0, sizeof(*rec));
	v = csv_get(c, col[R_TYPE], &len);
	rec->root = strcmp(v, TYPE_ROOT) == 0;
	v = csv_get(c, col[R_FP], &len);
	if (hex_decode(v, len, rec->fp, CRLC_HASH_LEN) == -1) {
		rec->reason = DIR_MALFORMED;
		return;
	}
	v = csv_get(c, col[R_REVOKED], &len);
	if (len > 0 && strcmp(v, NOT_REVOKED) != 0) {
		rec->reason = DIR_REVOKED;
		return;
	}
	v = csv_get(c, col[R_VALID_TO], &len);
	if ((rec->valid_to = valid_to(v, len)) == -1) {
		rec->reason = DIR_MALFORMED;
		return;
	}
	if (rec->valid_to < now) {
		rec->reason = DIR_EXPIRED;
		return;
	}
	full = csv_get(c, col[R_FULL], &flen);
	if (ccadb_urls(full, flen, csv_get(c, col[R_PARTS], &len), &rec->urls,
	    DIR_MAX_URLS) == -1) {
		strlist_free(&rec->urls);
		rec->reason = DIR_MANY_URLS;
		return;
	}
	rec->reason = rec->urls.n > 0 ? DIR_KEPT : DIR_NO_URL;
}

int
records_parse(struct ccadb_records *r, const uint8_t *buf, size_t len,
    int64_t now, char *err, size_t errlen)
{
	static const char *const names[R_NCOLS] = { COL_FP, COL_TYPE,
	    COL_REVOKED, COL_VALID_TO, COL_FULL, COL_PARTS };
	struct ccadb_record rec, *v;
	struct csv c;
	const char *type;
	size_t width, tlen;
	int col[R_NCOLS], rc, ret = -1;

	if ((width = open_report(&c, buf, len, names, col, R_NCOLS, err,
	    errlen)) == 0)
		goto done;
	while ((rc = data_row(&c, width, err, errlen)) == 1) {
		r->rows++;
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
	ret = rc == 0 ? 0 : -1;
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

void
records_sort(struct ccadb_records *r)
{
	size_t i, n = 0;

	if (r->n == 0)
		return;
	qsort(r->v, r->n, sizeof(*r->v), cmp_record);
	for (i = 1; i < r->n; i++) {
		if (memcmp(r->v[i].fp, r->v[n].fp, CRLC_HASH_LEN) == 0) {
			strlist_free(&r->v[i].urls);
			r->refused[DIR_DUPLICATE]++;
		} else
			r->v[++n] = r->v[i];
	}
	r->n = n + 1;
}

struct ccadb_record *
records_find(const struct ccadb_records *r, const uint8_t fp[CRLC_HASH_LEN])
{
	struct ccadb_record key;

	memcpy(key.fp, fp, CRLC_HASH_LEN);
	return r->n == 0 ? NULL :
	    bsearch(&key, r->v, r->n, sizeof(*r->v), cmp_record);
}

/*
 * The certificate in a PEM field, when the SHA-256 of its DER is fp:
 * NULL otherwise, with why (and the digest it had, for the log).
 */
static X509 *
pem_cert(const char *pem, size_t len, const uint8_t fp[CRLC_HASH_LEN],
    enum dir_reason *why, uint8_t got[CRLC_HASH_LEN])
{
	char *name = NULL, *header = NULL;
	unsigned char *der = NULL;
	const unsigned char *p;
	long dlen = 0;
	X509 *x = NULL;
	BIO *bio;

	*why = DIR_MALFORMED;
	memset(got, 0, CRLC_HASH_LEN);
	if ((bio = BIO_new_mem_buf(pem, (int)len)) == NULL)
		return NULL;
	if (PEM_read_bio(bio, &name, &header, &der, &dlen) == 1 &&
	    strcmp(name, PEM_STRING_X509) == 0 && dlen > 0 &&
	    EVP_Digest(der, (size_t)dlen, got, NULL, EVP_sha256(), NULL)) {
		p = der;
		if (memcmp(got, fp, CRLC_HASH_LEN) != 0)
			*why = DIR_MISMATCH;
		else if ((x = d2i_X509(NULL, &p, dlen)) != NULL &&
		    p != der + dlen) {
			X509_free(x);	/* bytes after the certificate */
			x = NULL;
		}
	}
	BIO_free(bio);
	OPENSSL_free(name);
	OPENSSL_free(header);
	OPENSSL_free(der);
	ERR_clear_error();
	return x;
}

enum { P_FP, P_PEM, P_NCOLS };

int
records_add_pems(struct ccadb_records *r, const uint8_t *buf, size_t len,
    const char *source, char *err, size_t errlen)
{
	static const char *const names[P_NCOLS] = { COL_FP, COL_PEM };
	char want[2 * CRLC_HASH_LEN + 1], had[2 * CRLC_HASH_LEN + 1];
	uint8_t fp[CRLC_HASH_LEN], got[CRLC_HASH_LEN];
	struct ccadb_record *rec;
	enum dir_reason why;
	struct csv c;
	const char *v;
	size_t width, vlen;
	int col[P_NCOLS], rc, ret = -1;

	if ((width = open_report(&c, buf, len, names, col, P_NCOLS, err,
	    errlen)) == 0)
		goto done;
	while ((rc = data_row(&c, width, err, errlen)) == 1) {
		v = csv_get(&c, col[P_FP], &vlen);
		if (hex_decode(v, vlen, fp, CRLC_HASH_LEN) == -1 ||
		    (rec = records_find(r, fp)) == NULL || rec->cert != NULL ||
		    (rec->reason != DIR_KEPT && rec->reason != DIR_NO_URL))
			continue;
		v = csv_get(&c, col[P_PEM], &vlen);
		if ((rec->cert = pem_cert(v, vlen, fp, &why, got)) != NULL)
			continue;
		rec->reason = why;
		hex_encode(fp, CRLC_HASH_LEN, want, 1);
		hex_encode(got, CRLC_HASH_LEN, had, 1);
		if (why == DIR_MISMATCH)
			logx(0, "%s: line %zu: certificate %s refused: the SHA-256 "
			    "of its PEM is %s", source, c.row_line, want, had);
		else
			logx(0, "%s: line %zu: certificate %s refused: not a PEM "
			    "certificate", source, c.row_line, want);
	}
	ret = rc == 0 ? 0 : -1;
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
