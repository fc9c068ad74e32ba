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

#include <crlcache/civil.h>

#include "at.h"
#include "fetcher.h"

/*
 * Years --at accepts: what a time_t, the index's i64 times and ASN.1
 * GeneralizedTime (four digits) all hold.
 */
#define AT_YEAR_MIN	1950
#define AT_YEAR_MAX	9999
/* Seconds since the epoch of 9999-12-31T23:59:59Z: AT_YEAR_MAX in seconds. */
#define AT_SECONDS_MAX	253402300799LL
/*
 * Digits of a fraction of a second (RFC 3339 5.6 time-secfrac, dropped
 * here): nanoseconds, finer than any clock that stamps a certificate or
 * a CRL; a longer run is a typing error, not a time.
 */
#define AT_FRAC_DIGITS_MAX	9
/* RFC 3339 5.6 time-numoffset: time-hour ":" time-minute, 00:00-23:59. */
#define AT_OFFSET_HOUR_MAX	23
#define AT_OFFSET_MINUTE_MAX	59

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
 * RFC 3339 5.7: time-second 60 only at the end of a month with a leap
 * second, at the same instant around the globe: 23:59:60 UTC on the last
 * day of June or December (the only months used to date, and those
 * ITU-R TF.460 prefers).  utc is the instant with the second read as 59.
 */
static int
leap_second_ok(int64_t utc)
{
	time_t t = (time_t)utc;
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL)
		return 0;
	return tm.tm_hour == 23 && tm.tm_min == 59 &&
	    (tm.tm_mon == 5 || tm.tm_mon == 11) &&
	    tm.tm_mday == crlc_month_days(tm.tm_year + 1900, tm.tm_mon + 1);
}

/* The fields of an RFC 3339 date-time as read, before any range check. */
struct at_fields {
	int	y, mo, d, h, mi, sec;
	int	sign, oh, om;	/* the offset; sign 0 for Z and a bare date */
};

/* Seconds since the epoch, all digits: 0, or -1 past AT_SECONDS_MAX. */
static int
at_epoch(const char *s, int64_t *out, const char **why)
{
	long long v;
	char *end;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > AT_SECONDS_MAX) {
		*why = "seconds since the epoch past year 9999";
		return -1;
	}
	*out = (int64_t)v;
	return 0;
}

/* RFC 3339 time-secfrac at *p if there is one: '.', 1 to 9 digits. */
static int
at_fraction(const char **p, const char **why)
{
	const char *frac;

	if (**p != '.')
		return 0;
	for (frac = ++*p; isdigit((unsigned char)**p); (*p)++)
		;
	if (*p == frac) {
		*why = "a fraction of a second without digits";
		return -1;
	}
	if (*p - frac > AT_FRAC_DIGITS_MAX) {
		*why = "a fraction of a second longer than 9 digits";
		return -1;
	}
	return 0;
}

/* RFC 3339 time-offset at *p: "Z", "z", "+hh:mm" or "-hh:mm". */
static int
at_offset(const char **p, struct at_fields *f, const char **why)
{
	if (**p == 'Z' || **p == 'z') {
		(*p)++;
		return 0;
	}
	if (**p != '+' && **p != '-') {
		*why = "no time zone (Z or +hh:mm / -hh:mm)";
		return -1;
	}
	f->sign = *(*p)++ == '+' ? 1 : -1;
	if (digits(p, 2, &f->oh) == -1 || *(*p)++ != ':' ||
	    digits(p, 2, &f->om) == -1)
		return -1;
	if (f->oh > AT_OFFSET_HOUR_MAX) {
		*why = "offset hour out of range (00-23)";
		return -1;
	}
	if (f->om > AT_OFFSET_MINUTE_MAX) {
		*why = "offset minute out of range (00-59)";
		return -1;
	}
	return 0;
}

/* What follows a full-date at *p: the time, its fraction and offset. */
static int
at_time(const char *p, struct at_fields *f, const char **why)
{
	/* RFC 3339 5.6 "T" or "t"; its NOTE allows a space. */
	if ((*p != 'T' && *p != 't' && *p != ' ') || (p++, 0) ||
	    digits(&p, 2, &f->h) == -1 || *p++ != ':' ||
	    digits(&p, 2, &f->mi) == -1 || *p++ != ':' ||
	    digits(&p, 2, &f->sec) == -1)
		return -1;
	if (at_fraction(&p, why) == -1 || at_offset(&p, f, why) == -1 ||
	    *p != '\0')
		return -1;
	return 0;
}

/* RFC 3339 5.7 Restrictions, one field at a time. */
static int
at_check(const struct at_fields *f, const char **why)
{
	if (f->y < AT_YEAR_MIN || f->y > AT_YEAR_MAX)
		*why = "year out of range (1950-9999)";
	else if (f->mo < 1 || f->mo > 12)
		*why = "month out of range (01-12)";
	else if (f->d < 1 || f->d > crlc_month_days(f->y, f->mo))
		*why = "day out of range for its month";
	else if (f->h > 23)
		*why = "hour out of range (00-23)";
	else if (f->mi > 59)
		*why = "minute out of range (00-59)";
	else if (f->sec > 60)
		*why = "second out of range (00-60)";
	else
		*why = NULL;
	return *why != NULL ? -1 : 0;
}

/* The instant of checked fields, a leap second read as the next second. */
static int
at_instant(const struct at_fields *f, int64_t *out, const char **why)
{
	struct tm tm;
	int64_t t;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = f->y - 1900;
	tm.tm_mon = f->mo - 1;
	tm.tm_mday = f->d;
	tm.tm_hour = f->h;
	tm.tm_min = f->mi;
	tm.tm_sec = f->sec == 60 ? 59 : f->sec;
	t = (int64_t)timegm(&tm) - f->sign * (f->oh * 3600 + f->om * 60);
	if (f->sec == 60) {
		if (!leap_second_ok(t)) {
			*why = "second 60 outside a leap second (23:59:60 UTC "
			    "on 30 June or 31 December)";
			return -1;
		}
		t++;
	}
	*out = t;
	return 0;
}

/*
 * RFC 3339 date-time (2026-05-01T12:00:00Z, a fraction of a second is
 * dropped, an offset +hh:mm / -hh:mm is applied), a bare full-date
 * (2026-05-01: its midnight UTC), or seconds since the epoch, each
 * field checked against RFC 3339 5.7 (month lengths: lib/civil.c, as for
 * certificate and CRL times).  0, or -1 with *why naming the field that
 * is wrong.
 */
static int
at_parse(const char *s, int64_t *out, const char **why)
{
	struct at_fields f = { 0 };
	const char *p = s;

	*why = "not an RFC 3339 time or seconds since the epoch";
	if (*s != '\0' && strspn(s, "0123456789") == strlen(s))
		return at_epoch(s, out, why);
	if (digits(&p, 4, &f.y) == -1 || *p++ != '-' ||
	    digits(&p, 2, &f.mo) == -1 || *p++ != '-' ||
	    digits(&p, 2, &f.d) == -1)
		return -1;
	if ((*p != '\0' && at_time(p, &f, why) == -1) ||
	    at_check(&f, why) == -1)
		return -1;
	return at_instant(&f, out, why);
}

/* The --at option of command cmd: 0, or -1 (logged) when arg is no time. */
int
at_option(const char *cmd, const char *arg, int64_t *at)
{
	const char *why;

	if (at_parse(arg, at, &why) == -1) {
		logx(0, "%s: --at %s: %s", cmd, arg, why);
		return -1;
	}
	/* 0 stands for "no --at" (at_or_now): the epoch cannot be asked. */
	if (*at == 0) {
		logx(0, "%s: --at %s: the epoch itself (0) is not accepted",
		    cmd, arg);
		return -1;
	}
	return 0;
}

/* The instant to evaluate at: at when --at gave one (non-zero), else now. */
int64_t
at_or_now(int64_t at)
{
	return at != 0 ? at : (int64_t)time(NULL);
}
