/*
 * CRL URLs from a CCADB-style CSV export ("ccadb =" in crlcache.conf).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The Common CA Database publishes, per CA certificate, the URL of its
 * full CRL ("Full CRL Issued By This CA") and a JSON array of its
 * partitioned CRLs ("JSON Array of Partitioned CRLs").  The export is
 * RFC 4180 CSV: comma separated, fields optionally in double quotes, a
 * quote inside a quoted field doubled, quoted fields may span lines.
 * The file comes from the network: every length and count is bounded,
 * and a malformed file is refused whole with the line where it broke.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetcher.h"

#define COL_FULL	"Full CRL Issued By This CA"
#define COL_PARTS	"JSON Array of Partitioned CRLs"
/* Columns per row and bytes per field: the export has ~40 short ones. */
#define MAX_COLUMNS	512
#define MAX_FIELD	(1 << 20)

struct csv {
	const char	*p, *end;
	size_t		 line;
	size_t		 field_line;	/* where the current field began */
	char		*field;		/* the current field, unquoted */
	size_t		 len, cap;
};

static int
field_add(struct csv *c, char ch)
{
	char *f;

	if (c->len + 1 >= c->cap) {
		if (c->cap >= MAX_FIELD)
			return -1;
		c->cap = c->cap ? c->cap * 2 : 256;
		if ((f = realloc(c->field, c->cap)) == NULL)
			return -1;
		c->field = f;
	}
	c->field[c->len++] = ch;
	c->field[c->len] = '\0';
	return 0;
}

/*
 * Read one field into c->field.  Returns 1 when a comma follows (more
 * fields in this row), 0 at the end of the row or of the file, -1 when
 * the CSV is malformed.
 */
static int
csv_field(struct csv *c)
{
	if (c->cap == 0) {
		if ((c->field = malloc(256)) == NULL)
			return -1;
		c->cap = 256;
	}
	c->len = 0;
	c->field[0] = '\0';
	c->field_line = c->line;
	if (c->p < c->end && *c->p == '"') {
		for (c->p++;; c->p++) {
			if (c->p >= c->end)
				return -1;	/* unterminated quote */
			if (*c->p == '"') {
				if (c->p + 1 < c->end && c->p[1] == '"') {
					c->p++;
				} else {
					c->p++;
					break;
				}
			} else if (*c->p == '\n')
				c->line++;
			if (field_add(c, *c->p) == -1)
				return -1;
		}
	} else {
		for (; c->p < c->end && *c->p != ',' && *c->p != '\n' &&
		    *c->p != '\r'; c->p++) {
			if (*c->p == '"' || field_add(c, *c->p) == -1)
				return -1;
		}
	}
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
	return c->p >= c->end ? 0 : -1;
}

static int
add_url(struct strlist *urls, const char *u, size_t len)
{
	char buf[CRLC_KEY_MAX + 1];

	if (len == 0 || len > CRLC_KEY_MAX || memchr(u, '\0', len) != NULL)
		return 0;
	if (!(len > 7 && strncmp(u, "http://", 7) == 0) &&
	    !(len > 8 && strncmp(u, "https://", 8) == 0))
		return 0;
	if (urls->n >= MAX_SOURCES)
		return -1;
	memcpy(buf, u, len);
	buf[len] = '\0';
	return strlist_add(urls, buf);
}

/*
 * The JSON array of partitioned CRLs: ["http://a/1.crl", "http://a/2.crl"].
 * Only string elements are taken; JSON escapes other than \/ do not occur
 * in URLs and make the element unusable (skipped).
 */
static int
add_json_urls(struct strlist *urls, const char *s)
{
	char buf[CRLC_KEY_MAX + 1];
	size_t n;
	int bad;

	while ((s = strchr(s, '"')) != NULL) {
		for (s++, n = 0, bad = 0; *s != '\0' && *s != '"'; s++) {
			if (*s == '\\') {
				if (s[1] != '/') {
					bad = 1;
					if (s[1] == '\0')
						break;
				}
				s++;
			}
			if (n < sizeof(buf) - 1)
				buf[n++] = *s;
			else
				bad = 1;
		}
		if (*s != '"')
			return 0;	/* unterminated string: nothing more */
		if (!bad && add_url(urls, buf, n) == -1)
			return -1;
		s++;
	}
	return 0;
}

/* Find the two URL columns in the header row (-1: absent). */
static int
header(struct csv *c, int *full, int *parts)
{
	int col = 0, more;

	*full = *parts = -1;
	do {
		if ((more = csv_field(c)) == -1 || col >= MAX_COLUMNS)
			return -1;
		if (strcmp(c->field, COL_FULL) == 0)
			*full = col;
		else if (strcmp(c->field, COL_PARTS) == 0)
			*parts = col;
		col++;
	} while (more);
	return 0;
}

int
ccadb_parse(const uint8_t *buf, size_t len, const char *source,
    struct strlist *urls)
{
	struct csv c = { (const char *)buf, (const char *)buf + len, 1, 1, NULL,
	    0, 0 };
	size_t before = urls->n;
	int full, parts, col, more, ret = -1;

	/* A UTF-8 byte order mark may precede the header. */
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		c.p += 3;
	if (header(&c, &full, &parts) == -1) {
		logx(0, "%s: line %zu: malformed CSV header", source,
		    c.field_line);
		goto done;
	}
	if (full == -1 && parts == -1) {
		logx(0, "%s: no \"" COL_FULL "\" or \"" COL_PARTS "\" column",
		    source);
		goto done;
	}
	while (c.p < c.end) {
		col = 0;
		do {
			if ((more = csv_field(&c)) == -1 || col >= MAX_COLUMNS) {
				logx(0, "%s: line %zu: malformed CSV", source,
				    c.field_line);
				goto done;
			}
			if ((col == full && add_url(urls, c.field, c.len) == -1) ||
			    (col == parts && add_json_urls(urls, c.field) == -1)) {
				logx(0, "%s: more than %d CRL URLs; the rest is "
				    "ignored", source, MAX_SOURCES);
				ret = 0;
				goto done;
			}
			col++;
		} while (more);
	}
	logx(2, "%s: %zu CRL URLs", source, urls->n - before);
	ret = 0;
done:
	free(c.field);
	return ret;
}
