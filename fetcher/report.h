/*
 * crlcache command-line tool: what report.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_REPORT_H
#define CRLCACHE_FETCHER_REPORT_H

#include "csv.h"
#include "fetcher.h"

/*
 * report.c: the CCADB's public reports, AllCertificateRecordsCSVFormatv4
 * (one row per root and intermediate certificate) and
 * AllCertificatePEMsCSVFormat (the certificates).  Columns are found by
 * name.  A report that is not well-formed CSV, lacks a column or has a
 * row of the wrong width is refused whole (-1, logged with its line);
 * a row whose values are unusable only refuses its certificate.
 */
/* CRL URLs of one directory entry: eight times the 128 partitioned CRLs
   Let's Encrypt publishes per intermediate. */
#define DIR_MAX_URLS		1024
/* Why a record is not a directory entry (DIR_KEPT: it is). */
enum dir_reason {
	DIR_KEPT,
	DIR_MALFORMED,		/* a value the row needs is unusable */
	DIR_REVOKED,		/* "Revocation Status" not "Not Revoked" */
	DIR_EXPIRED,		/* "Valid To (GMT)" or notAfter has passed */
	DIR_MANY_URLS,		/* more than DIR_MAX_URLS CRL URLs */
	DIR_NO_URL,		/* no http(s) CRL URL (still a chain link) */
	DIR_NO_CERT,		/* no certificate in the PEM reports */
	DIR_MISMATCH,		/* its PEM's SHA-256 is not its fingerprint */
	DIR_NOT_CA,		/* not a CA certificate */
	DIR_NO_CHAIN,		/* does not chain to a trust anchor here */
	DIR_NOT_ANCHOR,		/* a root row that is not a trust anchor here */
	DIR_NREASONS
};
extern const char *const dir_reason_name[DIR_NREASONS];
extern const char *const dir_reason_key[DIR_NREASONS];
struct ccadb_record {
	uint8_t		 fp[CRLC_HASH_LEN];	/* "SHA-256 Fingerprint" */
	int		 root;		/* "Root Certificate", else intermediate */
	int64_t		 valid_to;	/* the end of the "Valid To (GMT)" day */
	struct strlist	 urls;		/* full CRL and partitions, http(s) */
	X509		*cert;		/* from a PEM report, SHA-256 checked */
	enum dir_reason	 reason;
};
struct ccadb_records {
	struct ccadb_record *v;	/* only rows that may still be used: KEPT or
				   NO_URL; sorted by fp after records_sort() */
	size_t		 n, cap;
	size_t		 rows;		/* data rows read */
	size_t		 refused[DIR_NREASONS];	/* rows not kept in v, by why */
	size_t		 skipped[CSV_NSKIP];	/* rows read leniently, by why */
};
/*
 * Add the rows of one records report; now decides what has expired.
 * A refused report: -1 and why in err (rows already added stay).
 */
int	 records_parse(struct ccadb_records *r, const uint8_t *buf, size_t len,
	    int64_t now, char *err, size_t errlen);
/* Sort by fingerprint; rows repeating one are merged (URLs united). */
void	 records_sort(struct ccadb_records *r);
/*
 * Attach the certificates of one PEM report to the sorted records; a
 * certificate refused is logged naming source and its fingerprint.  A
 * refused report: -1 and why in err.
 */
int	 records_add_pems(struct ccadb_records *r, const uint8_t *buf,
	    size_t len, const char *source, char *err, size_t errlen);
void	 records_free(struct ccadb_records *r);
/* 64 hex digits (either case) to 32 bytes; 0 or -1. */

#endif /* CRLCACHE_FETCHER_REPORT_H */
