/*
 * CRL URLs from a CCADB-style CSV export ("ccadb =" in crlcache.conf).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The Common CA Database publishes, per CA certificate, the URL of its
 * full CRL ("Full CRL Issued By This CA") and a JSON array of its
 * partitioned CRLs ("JSON Array of Partitioned CRLs").  The export is
 * RFC 4180 CSV (csv.c).  The file comes from the network: every length
 * and count is bounded, and a malformed file is refused whole with the
 * line where it broke.  The issuer directory (directory.c) reads the same
 * two columns of the CCADB's own reports with ccadb_urls().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetcher.h"

#define COL_FULL	"Full CRL Issued By This CA"
#define COL_PARTS	"JSON Array of Partitioned CRLs"

static int
add_url(struct strlist *urls, const char *u, size_t len, size_t max)
{
	char buf[CRLC_KEY_MAX + 1];

	if (len == 0 || len > CRLC_KEY_MAX || memchr(u, '\0', len) != NULL ||
	    !is_http_url(u, len))
		return 0;
	if (urls->n >= max)
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
add_json_urls(struct strlist *urls, const char *s, size_t max)
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
		if (!bad && add_url(urls, buf, n, max) == -1)
			return -1;
		s++;
	}
	return 0;
}

int
ccadb_urls(const char *full, size_t fulllen, const char *parts,
    struct strlist *urls, size_t max)
{
	if (add_url(urls, full, fulllen, max) == -1 ||
	    add_json_urls(urls, parts, max) == -1)
		return -1;
	return 0;
}

int
ccadb_parse(const uint8_t *buf, size_t len, const char *source,
    struct strlist *urls)
{
	struct csv c;
	const char *full;
	size_t before = urls->n, flen, plen;
	int fcol, pcol, rc, ret = -1;

	csv_init(&c, buf, len);
	if (csv_row(&c) == -1) {
		logx(0, "%s: line %zu: malformed CSV header: %s", source,
		    c.err_line, c.why);
		goto done;
	}
	fcol = csv_column(&c, COL_FULL);
	pcol = csv_column(&c, COL_PARTS);
	if (fcol == -1 && pcol == -1) {
		logx(0, "%s: no \"" COL_FULL "\" or \"" COL_PARTS "\" column",
		    source);
		goto done;
	}
	while ((rc = csv_row(&c)) == 1) {
		full = csv_get(&c, fcol, &flen);
		if (ccadb_urls(full, flen, csv_get(&c, pcol, &plen), urls,
		    MAX_SOURCES) == -1) {
			logx(0, "%s: more than %d CRL URLs; the rest is ignored",
			    source, MAX_SOURCES);
			ret = 0;
			goto done;
		}
	}
	if (rc == -1) {
		logx(0, "%s: line %zu: malformed CSV: %s", source, c.err_line,
		    c.why);
		goto done;
	}
	logx(2, "%s: %zu CRL URLs", source, urls->n - before);
	ret = 0;
done:
	csv_free(&c);
	return ret;
}
