/*
 * The response header fields a fetch keeps: its validators (ETag,
 * Last-Modified: header_value) and how long the server says the answer
 * stays fresh (RFC 9111 4.2), which a hint run need not ask again.
 * Freshness is read as a private cache reads it, and conservatively:
 * anything unclear is stale, since stale only means asked again.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <ctype.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "fetcher.h"
#include "header.h"

/* The fields that say how long an answer stays fresh. */
static const char *const fresh_field[FRESH_FIELDS] = {
	"Cache-Control", "Expires", "Date", "Age",
};

/*
 * Keep the value of "Name: value" if the header is name; of a list
 * field (RFC 9110 5.3), append it to what is kept.  1: kept, 0: another
 * header, -1: this one, but longer than we keep.
 */
int
header_value(const char *line, size_t len, const char *name, int list,
    char **out)
{
	size_t nl = strlen(name), had;
	char *v;

	if (len <= nl + 1 || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
		return 0;
	line += nl + 1;
	len -= nl + 1;
	while (len > 0 && (*line == ' ' || *line == '\t'))
		line++, len--;
	while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == '\n' ||
	    line[len - 1] == ' '))
		len--;
	if (len == 0 || memchr(line, '\0', len))
		return 0;
	had = list && *out != NULL ? strlen(*out) : 0;
	if (had + len > MAX_HEADER_VALUE)
		return -1;
	v = xcalloc(1, had + 2 + len + 1);
	if (had > 0)
		memcpy(v, *out, had);
	memcpy(v + had, ", ", had > 0 ? 2 : 0);
	memcpy(v + had + (had > 0 ? 2 : 0), line, len);
	free(*out);
	*out = v;
	return 1;
}

/*
 * delta-seconds (RFC 9111 1.2.2): 1*DIGIT, a value past what we keep
 * read as the greatest; -1 if not digits.
 */
static int64_t
delta_seconds(const char *s, size_t len)
{
	int64_t v = 0;
	size_t i;

	if (len == 0)
		return -1;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		if (v < HTTP_FRESH_MAX)
			v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* Is the directive at d (of length len, up to '=' or the end) name? */
static int
directive_is(const char *d, size_t len, const char *name)
{
	return len == strlen(name) && strncasecmp(d, name, len) == 0;
}

/*
 * The freshness lifetime in Cache-Control (RFC 9111 5.2): max-age
 * (5.2.2.1), the first one if several (4.2.1); 0 for no-cache or
 * no-store (5.2.2.4, 5.2.2.5: the most restrictive wins, 4.2.1) or a
 * max-age that is not delta-seconds (4.2.1: invalid is stale); -1 if it
 * names none.  The argument may be a quoted-string (5.2); s-maxage is for
 * shared caches only (5.2.2.10).
 */
static int64_t
cache_control_lifetime(const char *cc)
{
	int64_t lifetime = -1, v;
	const char *p = cc, *end, *eq, *arg;
	size_t len, nlen, alen;
	int stale = 0, quoted;

	while (*p != '\0') {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == '\0')
			break;
		/* A directive ends at a comma outside a quoted-string. */
		for (end = p, quoted = 0; *end != '\0'; end++) {
			if (quoted && *end == '\\' && end[1] != '\0')
				end++;
			else if (*end == '"')
				quoted = !quoted;
			else if (!quoted && *end == ',')
				break;
		}
		len = (size_t)(end - p);
		while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		eq = memchr(p, '=', len);
		nlen = eq != NULL ? (size_t)(eq - p) : len;
		if (directive_is(p, nlen, "no-cache") ||
		    directive_is(p, nlen, "no-store"))
			stale = 1;
		else if (eq != NULL && directive_is(p, nlen, "max-age") &&
		    lifetime == -1) {
			arg = eq + 1;
			alen = len - (size_t)(arg - p);
			if (alen >= 2 && arg[0] == '"' && arg[alen - 1] == '"') {
				arg++;
				alen -= 2;
			}
			v = delta_seconds(arg, alen);
			if (v < 0)
				stale = 1;
			else
				lifetime = v;
		}
		p = end;
	}
	return stale ? 0 : lifetime;
}

/*
 * Seconds the answer stays fresh from now, 0 to HTTP_FRESH_MAX: the
 * freshness lifetime (RFC 9111 4.2.1: max-age, else Expires less Date)
 * less the answer's age (4.2.3: its Age field, 5.1).  Any argument may
 * be NULL (the field was not sent).
 */
static int64_t
http_fresh_for(const char *cache_control, const char *expires,
    const char *date, const char *age, int64_t now)
{
	int64_t lifetime = -1, a = 0, when, sent;

	if (cache_control != NULL)
		lifetime = cache_control_lifetime(cache_control);
	if (lifetime == -1 && expires != NULL) {
		/* 5.3: an invalid date, "0" above all, is in the past. */
		when = (int64_t)curl_getdate(expires, NULL);
		sent = date != NULL ? (int64_t)curl_getdate(date, NULL) : -1;
		if (sent == -1)
			sent = now;	/* RFC 9110 6.6.1: no Date, when it came */
		lifetime = when == -1 || when <= sent ? 0 : when - sent;
	}
	/* 5.1: the first member of a list; one not delta-seconds ignored. */
	if (age != NULL && (a = delta_seconds(age, strcspn(age, ", \t"))) < 0)
		a = 0;
	if (lifetime <= a)
		return 0;
	lifetime -= a;
	return lifetime < HTTP_FRESH_MAX ? lifetime : HTTP_FRESH_MAX;
}

/* Keep what a response header line says of freshness. */
void
freshness_header(struct freshness *fr, const char *line, size_t len)
{
	size_t i;

	for (i = 0; i < FRESH_FIELDS; i++)
		if (header_value(line, len, fresh_field[i],
		    i == FRESH_CACHE_CONTROL, &fr->field[i]) == -1)
			fr->unclear = 1;	/* what is lost may restrict */
}

int64_t
freshness_of(const struct freshness *fr, int64_t now)
{
	if (fr->unclear)
		return 0;
	return http_fresh_for(fr->field[FRESH_CACHE_CONTROL],
	    fr->field[FRESH_EXPIRES], fr->field[FRESH_DATE],
	    fr->field[FRESH_AGE], now);
}

/* Forget the fields received (of a redirect, a failed attempt). */
void
freshness_forget(struct freshness *fr)
{
	size_t i;

	for (i = 0; i < FRESH_FIELDS; i++) {
		free(fr->field[i]);
		fr->field[i] = NULL;
	}
	fr->unclear = 0;
}
