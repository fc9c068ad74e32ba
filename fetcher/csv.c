/*
 * RFC 4180 CSV, read one row at a time: the CCADB exports and reports
 * (ccadb.c, report.c).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Comma separated fields, optionally in double quotes; a quote inside a
 * quoted field is doubled; quoted fields may span lines; rows end with
 * CRLF or LF.  A UTF-8 byte order mark may precede the first row.  The
 * bytes come from the network: every field, row and row count is bounded
 * (the constants in fetcher.h).
 *
 * Real exports are not always RFC 4180, and one bad row must not cost a
 * whole report.  Like Go's encoding/csv with LazyQuotes (which crt.sh's
 * copy of the CCADB is read with), a quote in an unquoted field, or one
 * in a quoted field that neither doubles nor closes it, is taken as text
 * (the row is marked CSV_SKIP_QUOTE, and used).  A row with a field
 * longer than CSV_MAX_FIELD, longer than CSV_MAX_ROW or wider than
 * CSV_MAX_COLUMNS is read to its end and marked (CSV_SKIP_LONG) for the
 * caller to skip.  Only an unterminated quoted field and too many rows
 * stop the reader, with the line where it happened and why.
 */
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "fetcher.h"

const char *const csv_skip_name[CSV_NSKIP] = { "width", "long", "quote" };

void
csv_init(struct csv *c, const uint8_t *buf, size_t len)
{
	memset(c, 0, sizeof(*c));
	c->p = (const char *)buf;
	c->end = c->p + len;
	c->line = 1;
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		c->p += 3;
}

void
csv_free(struct csv *c)
{
	free(c->buf);
	c->buf = NULL;
	c->cap = c->len = 0;
}

static int
fail(struct csv *c, const char *why)
{
	c->why = why;
	return -1;
}

/* The row is too big to keep: read on to its end, keep nothing more. */
static int
too_long(struct csv *c)
{
	c->skip = CSV_SKIP_LONG;
	return 0;
}

/* Append one byte to the row; the field being read began at off[nfields]. */
static int
put(struct csv *c, char ch)
{
	char *b;
	size_t cap;

	if (c->skip == CSV_SKIP_LONG)
		return 0;
	if (c->len >= CSV_MAX_ROW)
		return too_long(c);
	if (c->len >= c->cap) {
		cap = c->cap ? c->cap * 2 : 256;
		if ((b = realloc(c->buf, cap)) == NULL)
			return fail(c, "out of memory");
		c->buf = b;
		c->cap = cap;
	}
	c->buf[c->len++] = ch;
	return 0;
}

static int
put_content(struct csv *c, char ch)
{
	if (c->skip != CSV_SKIP_LONG &&
	    c->len - c->off[c->nfields] >= CSV_MAX_FIELD)
		return too_long(c);
	return put(c, ch);
}

/* A quoted field, from its opening quote to its closing one. */
static int
quoted(struct csv *c)
{
	for (c->p++;; c->p++) {
		if (c->p >= c->end)
			return fail(c, "unterminated quoted field");
		if (*c->p == '"') {
			if (c->p + 1 >= c->end || c->p[1] == ',' ||
			    c->p[1] == '\n' || c->p[1] == '\r') {
				c->p++;
				return 0;
			}
			if (c->p[1] == '"')
				c->p++;
			else if (c->skip == CSV_SKIP_NONE)
				c->skip = CSV_SKIP_QUOTE;	/* lazy */
		} else if (*c->p == '\n')
			c->line++;
		if (put_content(c, *c->p) == -1)
			return -1;
	}
}

/*
 * Read one field into the row.  Returns 1 when a comma follows (more
 * fields in this row), 0 at the end of the row or of the input, -1 when
 * malformed.
 */
static int
field(struct csv *c)
{
	if (c->nfields >= CSV_MAX_COLUMNS)
		too_long(c);
	c->err_line = c->line;
	c->off[c->nfields] = c->len;
	if (c->p < c->end && *c->p == '"') {
		if (quoted(c) == -1)
			return -1;
	} else {
		for (; c->p < c->end && *c->p != ',' && *c->p != '\n' &&
		    *c->p != '\r'; c->p++) {
			if (*c->p == '"' && c->skip == CSV_SKIP_NONE)
				c->skip = CSV_SKIP_QUOTE;	/* lazy */
			if (put_content(c, *c->p) == -1)
				return -1;
		}
	}
	if (put(c, '\0') == -1)
		return -1;
	if (c->skip != CSV_SKIP_LONG)
		c->off[++c->nfields] = c->len;
	if (c->p < c->end && *c->p == ',') {
		c->p++;
		return 1;
	}
	if (c->p < c->end && *c->p == '\r')
		c->p++;
	if (c->p < c->end && *c->p == '\n') {
		c->p++;
		c->line++;
		return 0;
	}
	c->cut = c->p >= c->end && c->p[-1] != '\n' && c->p[-1] != '\r';
	return 0;
}

int
csv_row(struct csv *c)
{
	int more;

	c->nfields = 0;
	c->len = 0;
	c->skip = CSV_SKIP_NONE;
	c->cut = 0;
	if (c->p >= c->end)
		return 0;
	if (c->rows >= CSV_MAX_ROWS) {
		c->err_line = c->line;
		return fail(c, "more than " CSV_STR(CSV_MAX_ROWS) " rows");
	}
	c->row_line = c->line;
	do {
		if ((more = field(c)) == -1)
			return -1;
	} while (more);
	c->rows++;
	return 1;
}

int
csv_column(const struct csv *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nfields; i++)
		if (strcmp(c->buf + c->off[i], name) == 0)
			return (int)i;
	return -1;
}

const char *
csv_get(const struct csv *c, int col, size_t *len)
{
	if (col < 0 || (size_t)col >= c->nfields) {
		*len = 0;
		return "";
	}
	*len = c->off[col + 1] - c->off[col] - 1;
	return c->buf + c->off[col];
}
