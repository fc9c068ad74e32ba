/*
 * Unit test of the --at TIME parser (fetcher/at.c, built in): every
 * RFC 3339 5.7 restriction (day per month and leap year, hour, minute,
 * second 60 only at a leap second, offsets), fraction length, seconds
 * since the epoch, and the error naming the field that is wrong.
 */
#include <stdarg.h>

#include "check.h"
#include "../../fetcher/at.c"

/* The last message at_option logged (the fetcher's logx, captured). */
static char logged[256];

void
logx(int level, const char *fmt, ...)
{
	va_list ap;

	(void)level;
	va_start(ap, fmt);
	vsnprintf(logged, sizeof(logged), fmt, ap);
	va_end(ap);
}

struct good {
	const char	*in;
	int64_t		 want;
};

struct bad {
	const char	*in;
	const char	*why;	/* a part of the logged error */
};

static const struct good goods[] = {
	{ "1777636800", 1777636800 },
	{ "2026-05-01", 1777593600 },
	{ "2026-05-01T12:00:00Z", 1777636800 },
	{ "2026-05-01t12:00:00z", 1777636800 },
	{ "2026-05-01 12:00:00Z", 1777636800 },
	{ "2026-05-01T12:00:00.5Z", 1777636800 },
	{ "2026-05-01T12:00:00.123456789Z", 1777636800 },
	{ "2026-05-01T14:00:00+02:00", 1777636800 },
	{ "2026-05-01T04:30:00-07:30", 1777636800 },
	{ "2026-05-01T12:00:00-00:00", 1777636800 },
	{ "2026-05-02T11:59:00+23:59", 1777636800 },
	{ "2026-01-31", 1769817600 },
	{ "2026-02-28", 1772236800 },
	{ "2024-02-29", 1709164800 },		/* leap year */
	{ "2000-02-29", 951782400 },		/* divisible by 400 */
	{ "2026-04-30", 1777507200 },
	{ "2026-12-31T23:59:59Z", 1798761599 },
	/* Leap seconds (RFC 3339 5.7, Appendix D): read as the next second. */
	{ "2016-12-31T23:59:60Z", 1483228800 },
	{ "2015-06-30T23:59:60Z", 1435708800 },
	{ "1990-12-31T15:59:60-08:00", 662688000 },	/* RFC 3339 5.8 */
	{ "2017-01-01T00:59:60+01:00", 1483228800 },
	{ "1950-01-01T00:00:00Z", -631152000 },
	{ "9999-12-31T23:59:59Z", 253402300799LL },
	{ "253402300799", 253402300799LL },
};

static const struct bad bads[] = {
	{ "2026-02-31", "day out of range" },
	{ "2026-02-29", "day out of range" },	/* not a leap year */
	{ "2100-02-29T00:00:00Z", "day out of range" },	/* not leap */
	{ "2026-04-31", "day out of range" },
	{ "2026-06-31", "day out of range" },
	{ "2026-09-31", "day out of range" },
	{ "2026-11-31", "day out of range" },
	{ "2026-01-32", "day out of range" },
	{ "2026-01-00", "day out of range" },
	{ "2026-00-10", "month out of range" },
	{ "2026-13-01", "month out of range" },
	{ "1949-12-31", "year out of range" },
	{ "2026-05-01T24:00:00Z", "hour out of range" },
	{ "2026-05-01T12:60:00Z", "minute out of range" },
	{ "2026-05-01T12:00:61Z", "second out of range" },
	{ "2026-05-01T12:00:99Z", "second out of range" },
	{ "2026-05-01T23:59:60Z", "second 60 outside a leap second" },
	{ "2016-12-31T23:58:60Z", "second 60 outside a leap second" },
	{ "2016-12-31T23:59:60+01:00", "second 60 outside a leap second" },
	{ "2026-03-31T23:59:60Z", "second 60 outside a leap second" },
	{ "2026-05-01T12:00:00+24:00", "offset hour out of range" },
	{ "2026-05-01T12:00:00+99:00", "offset hour out of range" },
	{ "2026-05-01T12:00:00-01:60", "offset minute out of range" },
	{ "2026-05-01T12:00:00.Z", "fraction of a second without digits" },
	{ "2026-05-01T12:00:00.1234567890Z",
	    "fraction of a second longer than 9 digits" },
	{ "2026-05-01T12:00:00", "no time zone" },
	{ "2026-05-01T12:00:00+0200", "not an RFC 3339 time" },
	{ "2026-05-01T12:00Z", "not an RFC 3339 time" },
	{ "2026-5-1", "not an RFC 3339 time" },
	{ "2026-05-01T12:00:00Zjunk", "not an RFC 3339 time" },
	{ "", "not an RFC 3339 time" },
	{ "bogus", "not an RFC 3339 time" },
	{ "-5", "not an RFC 3339 time" },
	{ "253402300800", "past year 9999" },
	{ "99999999999999999999999", "past year 9999" },
	{ "0", "the epoch itself" },
	{ "1970-01-01T00:00:00Z", "the epoch itself" },
};

int
main(void)
{
	size_t i;
	int64_t at;

	for (i = 0; i < sizeof(goods) / sizeof(goods[0]); i++) {
		at = 0;
		logged[0] = '\0';
		if (at_option("check", goods[i].in, &at) != 0 ||
		    at != goods[i].want) {
			fprintf(stderr, "%s: got %lld (%s), want %lld\n",
			    goods[i].in, (long long)at, logged,
			    (long long)goods[i].want);
			failures++;
		}
	}
	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		logged[0] = '\0';
		if (at_option("check", bads[i].in, &at) != -1 ||
		    strstr(logged, bads[i].why) == NULL) {
			fprintf(stderr, "%s: accepted or wrong error \"%s\", "
			    "want \"%s\"\n", bads[i].in, logged, bads[i].why);
			failures++;
		}
	}
	CHECK(at_or_now(5) == 5);
	CHECK(at_or_now(0) >= 1777636800);
	return check_result();
}
