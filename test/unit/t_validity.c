/*
 * Unit test of the CA/B Forum lifetime rules (lib/validity.c) over
 * synthetic struct crlc_tbs values at every boundary of the schedule:
 * the issuance dates (one second before / at), the period counting
 * (limit days - 1 s vs limit days), the short-lived thresholds, and the
 * scope (CA/B policy OID, not a CA).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include <crlcache/validity.h>


#define DAY	((int64_t)CRLC_DAY_SECONDS)

/* Seconds since the epoch of Y-M-D h:m:s UTC. */
static int64_t
utc(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	return (int64_t)timegm(&tm);
}

struct vcase {
	const char	*name;
	int64_t		 nb;		/* notBefore */
	int64_t		 len;		/* notAfter = notBefore + len */
	int		 cabf, ca;
	int		 applies;
	uint64_t	 days;
	uint32_t	 max;
	int		 exceeds, short_lived;
	const char	*text;		/* crlc_validity_format, or NULL */
};

static void
run_case(const struct vcase *c)
{
	struct crlc_tbs t;
	struct crlc_validity v;
	char buf[160];
	int r, n;

	memset(&t, 0, sizeof(t));
	t.not_before = c->nb;
	t.not_after = c->nb + c->len;
	t.cabf_policy = c->cabf;
	t.is_ca = c->ca;
	memset(&v, 0xa5, sizeof(v));
	r = crlc_validity_check(&t, &v);
	n = crlc_validity_format(&v, buf, sizeof(buf));
	if (r != c->applies || v.applies != c->applies || v.days != c->days ||
	    v.max_days != c->max || v.exceeds != c->exceeds ||
	    v.short_lived != c->short_lived ||
	    n <= 0 || (size_t)n >= sizeof(buf) ||
	    (c->text != NULL && strcmp(buf, c->text) != 0)) {
		fprintf(stderr, "case %s: applies=%d days=%" PRIu64
		    " max=%u exceeds=%d short=%d \"%s\"\n", c->name, v.applies,
		    v.days, v.max_days, v.exceeds, v.short_lived, buf);
		failures++;
	}
}

static void
check_cases(void)
{
	const int64_t d26m = utc(2026, 3, 14, 23, 59, 59);
	const int64_t d26 = utc(2026, 3, 15, 0, 0, 0);
	const int64_t d27m = utc(2027, 3, 14, 23, 59, 59);
	const int64_t d27 = utc(2027, 3, 15, 0, 0, 0);
	const int64_t d29m = utc(2029, 3, 14, 23, 59, 59);
	const int64_t d29 = utc(2029, 3, 15, 0, 0, 0);
	const int64_t old = utc(2025, 6, 1, 12, 0, 0);
	const struct vcase cases[] = {
	/* name			nb	len		cabf ca  app days max exc short */
	/* before 2026-03-15: 398 days */
	{ "398d-1s old",	old,	398 * DAY - 1,	1, 0,	1, 398, 398, 0, 0,
	  "validity=398d max=398d (within CA/B BR limit for notBefore < 2026-03-15)" },
	{ "398d old",		old,	398 * DAY,	1, 0,	1, 399, 398, 1, 0,
	  "validity=399d max=398d (exceeds CA/B BR limit for notBefore < 2026-03-15)" },
	{ "398d-1s last sec",	d26m,	398 * DAY - 1,	1, 0,	1, 398, 398, 0, 0, NULL },
	{ "398d last sec",	d26m,	398 * DAY,	1, 0,	1, 399, 398, 1, 0, NULL },
	{ "200d+ last sec",	d26m,	200 * DAY,	1, 0,	1, 201, 398, 0, 0, NULL },
	/* from 2026-03-15: 200 days */
	{ "200d-1s",		d26,	200 * DAY - 1,	1, 0,	1, 200, 200, 0, 0,
	  "validity=200d max=200d (within CA/B BR limit for notBefore >= 2026-03-15)" },
	{ "200d",		d26,	200 * DAY,	1, 0,	1, 201, 200, 1, 0,
	  "validity=201d max=200d (exceeds CA/B BR limit for notBefore >= 2026-03-15)" },
	{ "200d-1s 2027m",	d27m,	200 * DAY - 1,	1, 0,	1, 200, 200, 0, 0, NULL },
	{ "200d 2027m",		d27m,	200 * DAY,	1, 0,	1, 201, 200, 1, 0, NULL },
	/* from 2027-03-15: 100 days */
	{ "200d-1s 2027",	d27,	200 * DAY - 1,	1, 0,	1, 200, 100, 1, 0, NULL },
	{ "100d-1s 2027",	d27,	100 * DAY - 1,	1, 0,	1, 100, 100, 0, 0,
	  "validity=100d max=100d (within CA/B BR limit for notBefore >= 2027-03-15)" },
	{ "100d 2027",		d27,	100 * DAY,	1, 0,	1, 101, 100, 1, 0, NULL },
	{ "100d-1s 2029m",	d29m,	100 * DAY - 1,	1, 0,	1, 100, 100, 0, 0, NULL },
	{ "100d 2029m",		d29m,	100 * DAY,	1, 0,	1, 101, 100, 1, 0, NULL },
	/* from 2029-03-15: 47 days */
	{ "100d-1s 2029",	d29,	100 * DAY - 1,	1, 0,	1, 100, 47, 1, 0, NULL },
	{ "47d-1s 2029",	d29,	47 * DAY - 1,	1, 0,	1, 47, 47, 0, 0,
	  "validity=47d max=47d (within CA/B BR limit for notBefore >= 2029-03-15)" },
	{ "47d 2029",		d29,	47 * DAY,	1, 0,	1, 48, 47, 1, 0,
	  "validity=48d max=47d (exceeds CA/B BR limit for notBefore >= 2029-03-15)" },
	{ "47d far future",	utc(2100, 1, 1, 0, 0, 0), 47 * DAY, 1, 0, 1, 48, 47, 1, 0, NULL },
	/* short-lived: <= 7 days from 2026-03-15, <= 10 days before */
	{ "7d-1s",		d26,	7 * DAY - 1,	1, 0,	1, 7, 200, 0, 1,
	  "validity=7d max=200d (short-lived: <= 7d for notBefore >= 2026-03-15)" },
	{ "7d",			d26,	7 * DAY,	1, 0,	1, 8, 200, 0, 0, NULL },
	{ "8d-1s",		d26,	8 * DAY - 1,	1, 0,	1, 8, 200, 0, 0, NULL },
	{ "7d-1s 2029",		d29,	7 * DAY - 1,	1, 0,	1, 7, 47, 0, 1, NULL },
	{ "8d-1s 2029",		d29,	8 * DAY - 1,	1, 0,	1, 8, 47, 0, 0, NULL },
	{ "10d-1s before",	d26m,	10 * DAY - 1,	1, 0,	1, 10, 398, 0, 1,
	  "validity=10d max=398d (short-lived: <= 10d for notBefore < 2026-03-15)" },
	{ "10d before",		d26m,	10 * DAY,	1, 0,	1, 11, 398, 0, 0, NULL },
	{ "11d-1s before",	d26m,	11 * DAY - 1,	1, 0,	1, 11, 398, 0, 0, NULL },
	{ "10d-1s at 2026",	d26,	10 * DAY - 1,	1, 0,	1, 10, 200, 0, 0, NULL },
	/* degenerate periods */
	{ "1s",			d26,	0,		1, 0,	1, 1, 200, 0, 1, NULL },
	{ "1 day exactly",	d26,	DAY - 1,	1, 0,	1, 1, 200, 0, 1, NULL },
	{ "1 day + 1s",		d26,	DAY,		1, 0,	1, 2, 200, 0, 1, NULL },
	{ "inverted",		d26,	-1,		1, 0,	1, 0, 200, 0, 0, NULL },
	{ "inverted far",	d26,	-400 * DAY,	1, 0,	1, 0, 200, 0, 0, NULL },
	/* scope: no CA/B policy OID, or a CA certificate */
	{ "no policy",		d26,	500 * DAY,	0, 0,	0, 501, 200, 0, 0,
	  "validity=501d (CA/B BR limits do not apply)" },
	{ "no policy short",	d26,	7 * DAY - 1,	0, 0,	0, 7, 200, 0, 0, NULL },
	{ "CA cert",		d26,	3650 * DAY,	1, 1,	0, 3651, 200, 0, 0, NULL },
	{ "CA cert short",	d26,	DAY,		1, 1,	0, 2, 200, 0, 0, NULL },
	{ "CA no policy",	d26,	3650 * DAY,	0, 1,	0, 3651, 200, 0, 0, NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

/* The table: ascending, each epoch equal to its date text at 00:00:00Z. */
static void
check_schedule(void)
{
	const struct crlc_validity_rule *r;
	struct crlc_validity v;
	size_t n, i;
	int y, m, d;

	r = crlc_validity_schedule(&n);
	CHECK(n >= 4);
	CHECK(r[0].from == INT64_MIN && r[0].from_text == NULL);
	for (i = 1; i < n; i++) {
		CHECK(r[i].from > r[i - 1].from);
		CHECK(r[i].from_text != NULL);
		if (r[i].from_text == NULL)
			continue;
		CHECK(sscanf(r[i].from_text, "%4d-%2d-%2d", &y, &m, &d) == 3);
		CHECK(r[i].from == utc(y, m, d, 0, 0, 0));
		/* each row starts exactly at its date */
		crlc_validity_eval(r[i].from - 1, r[i].from, &v);
		CHECK(v.rule == &r[i - 1]);
		crlc_validity_eval(r[i].from, r[i].from, &v);
		CHECK(v.rule == &r[i] && v.days == 1);
		CHECK(v.next == (i + 1 < n ? &r[i + 1] : NULL));
	}
	/* the SC-081 values */
	CHECK(r[0].max_days == 398 && r[0].short_lived_days == 10);
	CHECK(r[1].max_days == 200 && r[1].short_lived_days == 7);
	CHECK(r[2].max_days == 100 && r[3].max_days == 47);
}

/* Extreme values must not overflow (UBSan would abort). */
static void
check_extremes(void)
{
	struct crlc_validity v;
	char buf[8];

	crlc_validity_eval(INT64_MIN, INT64_MAX, &v);
	CHECK(v.seconds == UINT64_MAX && v.exceeds && !v.short_lived);
	CHECK(v.days == UINT64_MAX / CRLC_DAY_SECONDS + 1);
	crlc_validity_eval(INT64_MAX, INT64_MIN, &v);
	CHECK(v.days == 0 && !v.exceeds && !v.short_lived);
	crlc_validity_eval(INT64_MAX, INT64_MAX, &v);
	CHECK(v.days == 1 && v.seconds == 1 && v.max_days == 47);
	/* truncation is snprintf's: a short buffer stays terminated */
	CHECK(crlc_validity_format(&v, buf, sizeof(buf)) > (int)sizeof(buf));
	CHECK(strlen(buf) == sizeof(buf) - 1);
}

int
main(void)
{
	check_cases();
	check_schedule();
	check_extremes();
	return check_result();
}
