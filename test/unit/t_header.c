/*
 * Unit test of the response header fields a fetch keeps (fetcher/header.c,
 * built in): a field's value found by name, without case, its blanks and
 * CRLF cut, a list field's lines joined (RFC 9110 5.3), one too long
 * refused and, of Cache-Control, read as stale; and how long an answer
 * stays fresh, each case from RFC 9111: max-age (5.2.2.1) and its quoted
 * form (5.2), the first of several (4.2.1), no-cache and no-store winning
 * (4.2.1, 5.2.2.4, 5.2.2.5), an invalid max-age stale (4.2.1), s-maxage
 * not ours (5.2.2.10), Expires less Date (4.2.1) and an invalid Expires
 * in the past (5.3), Age taken off (4.2.3) and ignored when invalid
 * (5.1), and the HTTP_FRESH_MAX bound.
 */
#include <stdlib.h>

#include "check.h"
#include "../../fetcher/header.c"
#include "xcalloc.h"

#define NOW	1777636800	/* 2026-05-01T12:00:00Z */

struct fresh_case {
	const char	*cc, *expires, *date, *age;
	int64_t		 want;
};

static const struct fresh_case cases[] = {
	{ NULL, NULL, NULL, NULL, 0 },
	{ "max-age=3600", NULL, NULL, NULL, 3600 },
	{ "public, MAX-AGE=600", NULL, NULL, NULL, 600 },
	{ "max-age=\"600\"", NULL, NULL, NULL, 600 },
	{ "max-age=600, max-age=60", NULL, NULL, NULL, 600 },
	{ "max-age=3600, no-cache", NULL, NULL, NULL, 0 },
	{ "no-store, max-age=3600", NULL, NULL, NULL, 0 },
	{ "no-cache=\"Set-Cookie, x\", max-age=3600", NULL, NULL, NULL, 0 },
	{ "private=\"a,max-age=9\", max-age=60", NULL, NULL, NULL, 60 },
	{ "max-age=abc", NULL, NULL, NULL, 0 },
	{ "max-age=", NULL, NULL, NULL, 0 },
	{ "max-age=-5", NULL, NULL, NULL, 0 },
	{ "max-age = 60", NULL, NULL, NULL, 0 },	/* not the directive */
	{ "s-maxage=600", NULL, NULL, NULL, 0 },
	{ "max-age=99999999999999999999", NULL, NULL, NULL, HTTP_FRESH_MAX },
	{ "max-age=3600", NULL, NULL, "600", 3000 },
	{ "max-age=3600", NULL, NULL, "3600", 0 },
	{ "max-age=3600", NULL, NULL, "7200", 0 },
	{ "max-age=3600", NULL, NULL, "x", 3600 },
	{ "max-age=3600", NULL, NULL, "100, 200", 3500 },
	{ NULL, "Fri, 01 May 2026 13:00:00 GMT", "Fri, 01 May 2026 12:00:00 GMT",
	    NULL, 3600 },
	{ NULL, "Fri, 01 May 2026 13:00:00 GMT", NULL, NULL, 3600 },
	{ NULL, "0", "Fri, 01 May 2026 12:00:00 GMT", NULL, 0 },
	{ NULL, "Fri, 01 May 2026 11:00:00 GMT", NULL, NULL, 0 },
	{ "max-age=60", "Fri, 01 May 2026 13:00:00 GMT", NULL, NULL, 60 },
	{ "no-cache", "Fri, 01 May 2026 13:00:00 GMT", NULL, NULL, 0 },
	{ "", NULL, NULL, NULL, 0 },
	{ ",,,", NULL, NULL, NULL, 0 },
	{ "max-age=\"60", NULL, NULL, NULL, 0 },
};

/* Feed each line of a response's header to fr, as libcurl does. */
static void
feed(struct freshness *fr, const char *const *lines)
{
	for (; *lines != NULL; lines++)
		freshness_header(fr, *lines, strlen(*lines));
}

static void
check_fields(void)
{
	static const char *const split[] = {
		"HTTP/1.1 200 OK\r\n", "cache-control: public\r\n",
		"Content-Type: application/pkix-crl\r\n",
		"CACHE-CONTROL:\tmax-age=3600 \r\n", "Age: 600\r\n", "\r\n",
		NULL,
	};
	static const char *const later_no_cache[] = {
		"Cache-Control: max-age=3600\r\n", "Cache-Control: no-cache\r\n",
		NULL,
	};
	struct freshness fr = { { NULL }, 0 };
	char *etag = NULL, longline[MAX_HEADER_VALUE + 64];

	CHECK(header_value("ETag: \"a\"\r\n", 11, "ETag", 0, &etag) == 1);
	CHECK(etag != NULL && strcmp(etag, "\"a\"") == 0);
	CHECK(header_value("ETagX: b\r\n", 10, "ETag", 0, &etag) == 0);
	CHECK(header_value("ETag:\r\n", 7, "ETag", 0, &etag) == 0);
	CHECK(etag != NULL && strcmp(etag, "\"a\"") == 0);
	free(etag);

	feed(&fr, split);
	CHECK(fr.field[FRESH_CACHE_CONTROL] != NULL &&
	    strcmp(fr.field[FRESH_CACHE_CONTROL], "public, max-age=3600") == 0);
	CHECK(freshness_of(&fr, NOW) == 3000);
	freshness_forget(&fr);
	CHECK(fr.field[FRESH_CACHE_CONTROL] == NULL && freshness_of(&fr, NOW) == 0);

	feed(&fr, later_no_cache);
	CHECK(freshness_of(&fr, NOW) == 0);
	freshness_forget(&fr);

	/* Past what is kept: the rest may say no-cache, so stale. */
	freshness_header(&fr, "Cache-Control: max-age=3600\r\n", 29);
	memcpy(longline, "Cache-Control: ", 15);
	memset(longline + 15, 'x', MAX_HEADER_VALUE);
	memcpy(longline + 15 + MAX_HEADER_VALUE, "\r\n", 3);
	freshness_header(&fr, longline, strlen(longline));
	CHECK(fr.unclear && freshness_of(&fr, NOW) == 0);
	freshness_forget(&fr);
	CHECK(!fr.unclear);
}

int
main(void)
{
	size_t i;
	int64_t got;

	check_fields();

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		got = http_fresh_for(cases[i].cc, cases[i].expires,
		    cases[i].date, cases[i].age, NOW);
		if (got != cases[i].want)
			fprintf(stderr, "case %zu (%s): %lld, want %lld\n", i,
			    cases[i].cc != NULL ? cases[i].cc : "-",
			    (long long)got, (long long)cases[i].want);
		CHECK(got == cases[i].want);
	}
	return check_result();
}
