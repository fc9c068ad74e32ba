/*
 * crlcache command-line tool: what header.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_HEADER_H
#define CRLCACHE_FETCHER_HEADER_H

#include "fetcher.h"

/*
 * header.c: the response header fields a fetch keeps.  header_value:
 * the value of line if its field is name (a list field appended to what
 * out holds, RFC 9110 5.3): 1 kept, 0 another field, -1 longer than
 * MAX_HEADER_VALUE.  Freshness (RFC 9111 4.2): from the Cache-Control,
 * Expires, Date and Age fields received, 0 to HTTP_FRESH_MAX seconds
 * from now, what is unclear stale.  A hint run does not ask a URL again
 * while its last answer is fresh; the bound keeps a server from having
 * it never asked by them (the timer's runs ask regardless).
 */
#define MAX_HEADER_VALUE	512
#define HTTP_FRESH_MAX	86400
enum { FRESH_CACHE_CONTROL, FRESH_EXPIRES, FRESH_DATE, FRESH_AGE,
	FRESH_FIELDS };
struct freshness {
	char		*field[FRESH_FIELDS];	/* as received */
	int		 unclear;	/* one too long to keep: stale */
};
int	 header_value(const char *line, size_t len, const char *name,
	    int list, char **out);
void	 freshness_header(struct freshness *fr, const char *line,
	    size_t len);
int64_t	 freshness_of(const struct freshness *fr, int64_t now);
void	 freshness_forget(struct freshness *fr);

#endif /* CRLCACHE_FETCHER_HEADER_H */
