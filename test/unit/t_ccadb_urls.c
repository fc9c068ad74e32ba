/*
 * Unit test of the URL fields of CCADB reports and exports
 * (fetcher/ccadb.c ccadb_urls, built in with csv.c and util.c): each URL
 * trimmed of white space and zero-width characters and judged on its
 * own (url_usable), [""] as no URL, arrays that are not JSON, JSON
 * escapes; and of safe_text, the escaping of network text for output.
 */
#include <string.h>

#include "check.h"
#include "../../fetcher/util.c"
#include "../../fetcher/csv.c"
#include "../../fetcher/ccadb.c"

/* The URLs of field, joined by '|'; bad gets the unusable count. */
static const char *
urls_of(const char *field, size_t *bad)
{
	static char out[4096];
	struct strlist l = { NULL, 0 };
	size_t i;

	*bad = 0;
	out[0] = '\0';
	if (ccadb_urls(field, strlen(field), &l, 16, bad) == -1)
		snprintf(out, sizeof(out), "OVERFLOW");
	for (i = 0; i < l.n; i++) {
		strcat(out, i ? "|" : "");
		strcat(out, l.v[i]);
	}
	strlist_free(&l);
	return out;
}

struct c {
	const char	*field;
	const char	*want;
	size_t		 bad;
};

static const struct c cases[] = {
	{ "http://a/1.crl", "http://a/1.crl", 0 },
	{ "  http://a/1.crl\t", "http://a/1.crl", 0 },
	{ "[\"http://a/1.crl\", \"http://a/2.crl\"]",
	    "http://a/1.crl|http://a/2.crl", 0 },
	{ "[\"\"]", "", 0 },
	{ "[]", "", 0 },
	{ "", "", 0 },
	{ "[http://a/1.crl, http://a/2.crl]", "http://a/1.crl|http://a/2.crl", 0 },
	{ "[\" http://a/1.crl\xe2\x80\x8b \", \"\xef\xbb\xbfhttp://a/2.crl\r\n\"]",
	    "http://a/1.crl|http://a/2.crl", 0 },
	{ "\xc2\xa0http://a/1.crl\xe2\x81\xa0", "http://a/1.crl", 0 },
	{ "[\"http:\\/\\/a\\/1.crl\\u200b\"]", "http://a/1.crl", 0 },
	{ "[\"http://a/1\r\n.crl\", \"http://a/2.crl\"]", "http://a/2.crl", 1 },
	{ "[\"http://a/\x1b]2;x\x07.crl\"]", "", 1 },
	{ "[\"http://a/\\u001b.crl\"]", "", 1 },
	{ "[\"http://a/b c.crl\"]", "", 1 },
	{ "[\"http://a/\xc3\xa9.crl\"]", "", 1 },
	{ "[\"ldap://a/x\", \"ftp://a/y\"]", "", 0 },
	{ "[\"http://a/1.crl\\\", \"http://a/2.crl\"]", "", 1 },
	{ "[\"http://a/1,2.crl\"]", "http://a/1,2.crl", 0 },
	{ "http://", "", 0 },
};

int
main(void)
{
	char big[700];
	size_t i, bad;
	char *s;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = urls_of(cases[i].field, &bad);

		if (strcmp(got, cases[i].want) != 0 || bad != cases[i].bad) {
			fprintf(stderr, "case %zu: got \"%s\" (%zu bad), want "
			    "\"%s\" (%zu bad)\n", i, got, bad, cases[i].want,
			    cases[i].bad);
			failures++;
		}
	}
	/* Longer than an LMDB key: unusable. */
	memcpy(big, "http://a/", 9);
	memset(big + 9, 'x', sizeof(big) - 10);
	big[sizeof(big) - 1] = '\0';
	CHECK(strcmp(urls_of(big, &bad), "") == 0 && bad == 1);

	s = safe_text("http://u:p@a/\x1b[31m\r\n\xc3\xa9\\x");
	CHECK(strcmp(s, "http://***@a/\\x1b[31m\\x0d\\x0a\\xc3\\xa9\\x") == 0);
	free(s);
	CHECK(url_usable("https://a/b.crl", 15));
	CHECK(!url_usable("https://a/b\".crl", 16));
	CHECK(!url_usable("file:///etc/passwd", 18));
	return check_result();
}
