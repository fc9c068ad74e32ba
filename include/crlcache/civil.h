/*
 * The proleptic Gregorian calendar of every time crlcache reads: the
 * UTCTime and GeneralizedTime of certificates and CRLs (lib/tbs.c, RFC
 * 5280 4.1.2.5) and the --at option (fetcher/at.c, RFC 3339 5.7).  One
 * rule for the length of a month, so that no reader accepts a day
 * another refuses.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Pure arithmetic: no allocation, no locale, no time zone, safe to call
 * from the provider on every verification.
 */
#ifndef CRLCACHE_CIVIL_H
#define CRLCACHE_CIVIL_H

#include <stdint.h>

/* 1 if y is a leap year (RFC 3339 Appendix C), else 0. */
int	crlc_leap_year(int64_t y);

/*
 * The last day of month mo (1-12) of year y: 28 to 31.  0 for a month
 * out of range, so that "d < 1 || d > crlc_month_days(y, mo)" refuses
 * every impossible date.
 */
int	crlc_month_days(int64_t y, int mo);

/*
 * Days from 1970-01-01 to y-mo-d (negative before it), for a date
 * crlc_month_days accepts.
 */
int64_t	crlc_days_from_civil(int64_t y, int mo, int d);

#endif /* CRLCACHE_CIVIL_H */
