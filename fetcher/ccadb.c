/*
 * CRL URLs from a CCADB-style CSV export ("ccadb =" in crlcache.conf),
 * and the URL fields of the CCADB's reports.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The Common CA Database publishes, per CA certificate, "JSON Array of
 * All Full CRL URLs" (every distinct full CRL of the CA's time-valid
 * certificates), "JSON Array of Partitioned CRLs" and, in the older
 * reports, "Full CRL Issued By This CA" (one URL).  The export is CSV
 * (csv.c).  Real fields are not always what their names say: white
 * space, CR LF and zero-width characters around URLs, [""] for a CA that
 * has not issued, and arrays that are not JSON ([http://a/1.crl,
 * http://a/2.crl]).  Every URL is trimmed and judged on its own
 * (url_usable); a field it cannot make sense of yields nothing, never a
 * refused file.  The file comes from the network: every length and count
 * is bounded.  The issuer directory (directory.c) reads the same columns
 * of the CCADB's reports with ccadb_urls().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccadb.h"
#include "csv.h"
#include "fetcher.h"

const char *const ccadb_url_columns[CCADB_URL_COLUMNS] = {
	"JSON Array of All Full CRL URLs",
	"Full CRL Issued By This CA",
	"JSON Array of Partitioned CRLs",
};

/*
 * One URL element may carry this much junk around it (spaces, quotes,
 * zero-width characters, JSON escapes) beyond the longest URL we keep.
 */
#define ELEMENT_MAX	(CRLC_KEY_MAX + 128)

/*
 * The length of the junk at s that may surround a URL: ASCII white
 * space, and in UTF-8 NO-BREAK SPACE, ZERO WIDTH SPACE, (NON-)JOINER,
 * WORD JOINER and the BYTE ORDER MARK (U+00A0, U+200B..D, U+2060,
 * U+FEFF).  0: none.
 */
static size_t
junk(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	if (len >= 1 && (u[0] == ' ' || u[0] == '\t' || u[0] == '\r' ||
	    u[0] == '\n' || u[0] == '\v' || u[0] == '\f'))
		return 1;
	if (len >= 2 && u[0] == 0xc2 && u[1] == 0xa0)
		return 2;
	if (len >= 3 && u[0] == 0xe2 && u[1] == 0x80 && u[2] >= 0x8b &&
	    u[2] <= 0x8d)
		return 3;
	if (len >= 3 && u[0] == 0xe2 && u[1] == 0x81 && u[2] == 0xa0)
		return 3;
	if (len >= 3 && u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf)
		return 3;
	return 0;
}

/* The junk at the end of s..s+len: 0 or its length. */
static size_t
junk_at_end(const char *s, size_t len)
{
	size_t k;

	for (k = 1; k <= 3 && k <= len; k++)
		if (junk(s + len - k, k) == k)
			return k;
	return 0;
}

/* s..*len without the junk around it. */
static const char *
trim(const char *s, size_t *len)
{
	size_t k;

	while (*len > 0 && (k = junk(s, *len)) > 0) {
		s += k;
		*len -= k;
	}
	while (*len > 0 && (k = junk_at_end(s, *len)) > 0)
		*len -= k;
	return s;
}

/* One code point as UTF-8 into out (room for 3); its length. */
static size_t
utf8(unsigned cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	out[0] = (char)(0xe0 | cp >> 12);
	out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[2] = (char)(0x80 | (cp & 0x3f));
	return 3;
}

/*
 * The body of a JSON string (RFC 8259 7) into out: escapes decoded (a
 * \u200B becomes the junk trim() removes; what is left that is not ASCII
 * fails url_usable).  Its length, or -1 when malformed or too long.
 */
static long
unescape(const char *s, size_t len, char *out, size_t outlen)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	size_t i, o = 0;
	unsigned cp;

	for (i = 0; i < len; i++) {
		if (o + 3 > outlen)
			return -1;
		if (s[i] != '\\') {
			out[o++] = s[i];
			continue;
		}
		if (++i == len)
			return -1;
		if ((e = strchr(from, s[i])) != NULL && s[i] != '\0') {
			out[o++] = to[e - from];
			continue;
		}
		if (s[i] != 'u' || len - i < 5 ||
		    strspn(s + i + 1, "0123456789abcdefABCDEF") < 4 ||
		    sscanf(s + i + 1, "%4x", &cp) != 1)
			return -1;
		o += utf8(cp, out + o);
		i += 4;
	}
	return (long)o;
}

/* One element of a URL field: trimmed, unquoted, unescaped, judged. */
static int
add_element(struct strlist *urls, const char *s, size_t len, size_t max,
    size_t *bad)
{
	char buf[ELEMENT_MAX + 1];
	const char *u;
	long n;

	s = trim(s, &len);
	if (len >= 2 && s[0] == '"' && s[len - 1] == '"') {
		if ((n = unescape(s + 1, len - 2, buf, sizeof(buf) - 1)) == -1) {
			++*bad;
			return 0;
		}
		len = (size_t)n;
		u = trim(buf, &len);
	} else if (len > ELEMENT_MAX) {
		++*bad;
		return 0;
	} else
		u = s;
	if (len == 0)
		return 0;		/* [""]: a CA that has not issued */
	if (!url_usable(u, len)) {
		/* ldap:// and the like are no error; junk is. */
		if (memchr(u, ':', len) == NULL || is_http_url(u, len))
			++*bad;
		return 0;
	}
	if (urls->n >= max)
		return -1;
	memmove(buf, u, len);	/* u may lie in buf */
	buf[len] = '\0';
	return strlist_add(urls, buf);
}

int
ccadb_urls(const char *field, size_t len, struct strlist *urls, size_t max,
    size_t *bad)
{
	size_t i, start;
	int quoted = 0;

	field = trim(field, &len);
	if (len >= 2 && field[0] == '[' && field[len - 1] == ']') {
		field++;
		len -= 2;
	}
	/* Elements end at a comma outside a JSON string. */
	for (i = start = 0; i <= len; i++) {
		if (i < len && field[i] == '\\' && quoted) {
			i++;
			continue;
		}
		if (i < len && field[i] == '"')
			quoted = !quoted;
		if (i < len && (field[i] != ',' || quoted))
			continue;
		if (add_element(urls, field + start, i - start, max, bad) == -1)
			return -1;
		start = i + 1;
	}
	return 0;
}

int
ccadb_parse(const uint8_t *buf, size_t len, const char *source,
    struct strlist *urls)
{
	struct csv c;
	const char *v;
	size_t before = urls->n, bad = 0, vlen, i;
	int col[CCADB_URL_COLUMNS], any = 0, rc, ret = -1;

	csv_init(&c, buf, len);
	if (csv_row(&c) == -1) {
		logx(0, "%s: line %zu: malformed CSV header: %s", source,
		    c.err_line, c.why);
		goto done;
	}
	for (i = 0; i < CCADB_URL_COLUMNS; i++)
		any |= (col[i] = csv_column(&c, ccadb_url_columns[i])) != -1;
	if (!any) {
		logx(0, "%s: no CRL URL column (\"%s\", \"%s\" or \"%s\")",
		    source, ccadb_url_columns[0], ccadb_url_columns[1],
		    ccadb_url_columns[2]);
		goto done;
	}
	while ((rc = csv_row(&c)) == 1) {
		if (c.skip == CSV_SKIP_LONG)
			continue;	/* costs this row only */
		for (i = 0; i < CCADB_URL_COLUMNS; i++) {
			v = csv_get(&c, col[i], &vlen);
			if (ccadb_urls(v, vlen, urls, MAX_SOURCES, &bad) == -1) {
				logx(0, "%s: more than %d CRL URLs; the rest is "
				    "ignored", source, MAX_SOURCES);
				ret = 0;
				goto done;
			}
		}
	}
	if (rc == -1) {
		logx(0, "%s: line %zu: malformed CSV: %s", source, c.err_line,
		    c.why);
		goto done;
	}
	logx(2, "%s: %zu CRL URLs, %zu unusable", source, urls->n - before,
	    bad);
	ret = 0;
done:
	csv_free(&c);
	return ret;
}
