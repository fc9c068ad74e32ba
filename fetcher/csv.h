/*
 * crlcache command-line tool: what csv.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_CSV_H
#define CRLCACHE_FETCHER_CSV_H

#include "fetcher.h"

/*
 * csv.c: RFC 4180 CSV, one row at a time; columns are found by the name
 * in the header row (csv_column), never by position.
 */
/* Columns per row: the CCADB's widest report has about 75. */
#define CSV_MAX_COLUMNS		512
/* Bytes per field: a PEM certificate is a few KB, a JSON array of
   partitioned CRLs (128 URLs for Let's Encrypt) about 8 KB. */
#define CSV_MAX_FIELD		1048576
/* Bytes per row, all its fields together. */
#define CSV_MAX_ROW		4194304
/* Rows per file: the CCADB listed about 10,000 certificates in 2025. */
#define CSV_MAX_ROWS		1000000
#define CSV_STR(n)		CSV_STR2(n)
#define CSV_STR2(n)		#n
/* Why a row was read leniently; CSV_SKIP_QUOTE rows are still used. */
enum csv_skip {
	CSV_SKIP_WIDTH,		/* not as wide as the header (the caller's) */
	CSV_SKIP_LONG,		/* a field, the row or its width over a bound */
	CSV_SKIP_QUOTE,		/* a bare quote, taken as text (LazyQuotes) */
	CSV_NSKIP,
	CSV_SKIP_NONE = CSV_NSKIP
};
extern const char *const csv_skip_name[CSV_NSKIP];
struct csv {
	const char	*p, *end;	/* what is left to read */
	enum csv_skip	 skip;		/* the current row's, or CSV_SKIP_NONE */
	int		 cut;		/* the input ended in the row, no line
					   end: maybe a truncated download */
	size_t		 line;		/* line of p, from 1 */
	size_t		 row_line;	/* where the current row began */
	size_t		 err_line;	/* where the last field began: after
					   an error, where it broke */
	const char	*why;		/* after an error: what was wrong */
	size_t		 rows;		/* rows read, the header included */
	char		*buf;		/* the current row's fields, each
					   NUL-terminated (a field may hold
					   NULs: use its length) */
	size_t		 len, cap;
	size_t		 off[CSV_MAX_COLUMNS + 1];	/* field i is at
					   buf + off[i] */
	size_t		 nfields;
};
/* buf must outlive the reader; a byte order mark is skipped. */
void	 csv_init(struct csv *c, const uint8_t *buf, size_t len);
/*
 * The next row: 1 (see skip: a CSV_SKIP_LONG row holds only some of its
 * fields), 0 at the end of the input, -1 when unreadable past it (why).
 */
int	 csv_row(struct csv *c);
/* The column of the current row (the header) named name; -1: none. */
int	 csv_column(const struct csv *c, const char *name);
/* Field col of the current row; "" when col is -1 or past the row. */
const char *csv_get(const struct csv *c, int col, size_t *len);
void	 csv_free(struct csv *c);

#endif /* CRLCACHE_FETCHER_CSV_H */
