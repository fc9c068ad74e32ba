/*
 * --at TIME: the instant check, import and status evaluate at, for
 * archived CRLs and forensic questions ("was it revoked on 2026-05-01?").
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fetcher.h"

/*
 * Years --at accepts: what a time_t, the index's i64 times and ASN.1
 * GeneralizedTime (four digits) all hold.
 */
#define AT_YEAR_MIN	1950
#define AT_YEAR_MAX	9999

/* n decimal digits at *p into *v, advancing *p; -1 if they are not there. */
static int
digits(const char **p, int n, int *v)
{
	int i;

	for (*v = 0, i = 0; i < n; i++, (*p)++) {
		if (!isdigit((unsigned char)**p))
			return -1;
		*v = *v * 10 + (**p - '0');
	}
	return 0;
}

/*
 * RFC 3339 date-time (2026-05-01T12:00:00Z, a fraction of a second is
 * dropped, an offset +hh:mm / -hh:mm is applied), a bare full-date
 * (2026-05-01: its midnight UTC), or seconds since the epoch.  0, or -1
 * when s is none of them.
 */
static int
parse_at(const char *s, int64_t *out)
{
	const char *p = s;
	struct tm tm;
	int y, mo, d, h = 0, mi = 0, sec = 0, oh = 0, om = 0, sign = 0;
	long long v;
	char *end;

	if (*s != '\0' && strspn(s, "0123456789") == strlen(s)) {
		errno = 0;
		v = strtoll(s, &end, 10);
		if (errno != 0 || *end != '\0')
			return -1;
		*out = (int64_t)v;
		return 0;
	}
	if (digits(&p, 4, &y) == -1 || *p++ != '-' || digits(&p, 2, &mo) == -1 ||
	    *p++ != '-' || digits(&p, 2, &d) == -1)
		return -1;
	if (*p != '\0') {
		if ((*p != 'T' && *p != 't' && *p != ' ') || (p++, 0) ||
		    digits(&p, 2, &h) == -1 || *p++ != ':' ||
		    digits(&p, 2, &mi) == -1 || *p++ != ':' ||
		    digits(&p, 2, &sec) == -1)
			return -1;
		if (*p == '.')
			for (p++; isdigit((unsigned char)*p); p++)
				;
		if (*p == 'Z' || *p == 'z')
			p++;
		else if (*p == '+' || *p == '-') {
			sign = *p++ == '+' ? 1 : -1;
			if (digits(&p, 2, &oh) == -1 || *p++ != ':' ||
			    digits(&p, 2, &om) == -1 || oh > 23 || om > 59)
				return -1;
		} else
			return -1;
		if (*p != '\0')
			return -1;
	}
	/* RFC 3339 5.7; a leap second (60) is read as the next second. */
	if (y < AT_YEAR_MIN || y > AT_YEAR_MAX || mo < 1 || mo > 12 || d < 1 ||
	    d > 31 || h > 23 || mi > 59 || sec > 60)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	*out = (int64_t)timegm(&tm) - sign * (oh * 3600 + om * 60);
	return 0;
}

/* The --at option of command cmd: 0, or -1 (logged) when arg is no time. */
int
at_option(const char *cmd, const char *arg, int64_t *at)
{
	if (parse_at(arg, at) == 0)
		return 0;
	logx(0, "%s: --at %s: not an RFC 3339 time or seconds since the "
	    "epoch", cmd, arg);
	return -1;
}

/* The instant to evaluate at: at when --at gave one (non-zero), else now. */
int64_t
at_or_now(int64_t at)
{
	return at != 0 ? at : (int64_t)time(NULL);
}
