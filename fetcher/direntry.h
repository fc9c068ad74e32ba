/*
 * crlcache command-line tool: what direntry.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_DIRENTRY_H
#define CRLCACHE_FETCHER_DIRENTRY_H

#include "csv.h"
#include "fetcher.h"
#include "report.h"

/*
 * The issuer directory (directory.c on disk, dirbuild.c its entries,
 * dirrefresh.c the refresh from the CCADB reports ccadb_records,
 * ccadb_records_fallback and ccadb_pems), kept in STATE_DIR/work/.
 * Every entry is a CA certificate that is disclosed, not revoked, not
 * expired, whose PEM matched its record's SHA-256 and that chains to a
 * trust anchor, with at least one http(s) CRL URL.
 */
/* Its files, by their names in the state directory (state.h). */
#define DIR_FILE		WORK_NAME "/directory"
#define DIR_FORMAT		"crlcache-directory 2"	/* its first line */
#define DIR_STATE_FILE		WORK_NAME "/directory.state"
#define REFUSED_FILE		WORK_NAME "/directory.refused"
#define DIR_INDEX_FILE		WORK_NAME "/directory.index"
/* Entries: the Web PKI has some 4,000 unexpired disclosed CA
   certificates; twenty-five times that. */
#define DIR_MAX_ENTRIES		100000
/* DER bytes of one certificate: CA certificates are a few KB. */
#define DIR_MAX_CERT		65536
/* The directory file: ~15 MB for the whole Web PKI. */
#define DIR_MAX_FILE		((size_t)256 << 20)
/* Reports per refresh: one records report and one PEM report per year
   since 1994 is about 35. */
#define DIR_MAX_REPORTS		256
struct dir_entry {
	uint8_t		 fp[CRLC_HASH_LEN];	/* SHA-256 of the certificate */
	X509		*cert;
	struct strlist	 urls;		/* full CRLs and partitions */
};
struct directory {
	struct dir_entry *v;		/* sorted by fp */
	size_t		  n;
	int64_t		  built;	/* when it was built; 0: none yet */
};
struct dir_report {
	char		*src;		/* file name or URL */
	int		 kind;		/* dirrefresh.c's */
	int		 used;		/* the directory was built from it */
	int		 fresh;		/* a body came this refresh (not 304) */
	char		*etag;		/* validators of the body we hold */
	char		*modified;
};
/* STATE_DIR/work/directory.state (format in directory.c). */
struct dir_state {
	int64_t		 attempt;
	int64_t		 built;
	long long	 entries;
	long long	 rows;
	long long	 skipped[CSV_NSKIP];
	long long	 refused[DIR_NREASONS];	/* records not kept, by why */
	int64_t		 expires;	/* an entry's notAfter passes: rebuild */
	char		*inputs;	/* digest of the certificates it was
					   built with (dirrefresh.c) */
	char		*error;
	struct dir_report *r;		/* the reports of the directory */
	size_t		 n;
};
/* Fingerprints, sorted by fpset_sort() before a search. */
struct fpset {
	uint8_t		(*v)[CRLC_HASH_LEN];
	size_t		  n;
};
/*
 * direntry.c: one entry of the directory file, below its two readers
 * (directory.c whole, dirindex.c by the index).  Accepts an empty or
 * already freed directory.
 */
void	 directory_free(struct directory *d);
/* "cert FP BASE64" at s: the entry's fingerprint, into fp. */
int	 dir_entry_fp(const char *s, uint8_t fp[CRLC_HASH_LEN]);
/* "LEN URL" at s added to e's URLs: where the next line starts, or NULL. */
char	*dir_entry_url(char *s, struct dir_entry *e);
/*
 * One entry's lines (NUL-terminated buf, "cert FP ..." then its "url"
 * lines, as the directory file holds them) into e: the entry of fp,
 * with its certificate when with_cert.  0, or -1 when they are not.
 */
int	 dir_entry_parse(char *buf, const uint8_t fp[CRLC_HASH_LEN],
	    int with_cert, struct dir_entry *e);

#endif /* CRLCACHE_FETCHER_DIRENTRY_H */
