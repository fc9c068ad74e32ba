/*
 * Proleptic Gregorian calendar arithmetic; see include/crlcache/civil.h.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <crlcache/civil.h>

/* Months in a year, and the days of each in a common year. */
#define MONTHS	12
static const int month_days[MONTHS] = {
	31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
};

int
crlc_leap_year(int64_t y)
{
	return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

int
crlc_month_days(int64_t y, int mo)
{
	if (mo < 1 || mo > MONTHS)
		return 0;
	return mo == 2 && crlc_leap_year(y) ? 29 : month_days[mo - 1];
}

/*
 * Counted in 400-year eras from 0000-03-01, so that February, and with it
 * the leap day, ends each counted year.
 */
int64_t
crlc_days_from_civil(int64_t y, int mo, int d)
{
	int64_t era, yoe, doy, doe;

	y -= mo <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}
