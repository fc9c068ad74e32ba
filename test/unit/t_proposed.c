/*
 * Unit test of the policy for URLs that proven certificates proposed
 * (fetcher/proposed.c, built in): whose failures count, the history of
 * failures in a row, the hint runs' back-off (hint_refetch doubled, at
 * most a day), pruning after 8 failures over a day for a URL that never
 * served a CRL, a week between the attempts of a pruned one, and a clock
 * set back.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "../../fetcher/proposed.c"

#define DAY	(24 * 3600)
#define T0	1700000000	/* the first failure */

/* A proposed URL that failed n times, the first at T0, the last at last. */
static struct source_rec
failed(uint32_t n, int64_t last)
{
	struct source_rec r;

	memset(&r, 0, sizeof(r));
	r.origin = CRLC_SRC_ORIGIN_PROPOSED;
	r.failures = n;
	r.first_failure = T0;
	r.last_attempt = last;
	return r;
}

int
main(void)
{
	struct conf conf;
	struct source_rec r;

	memset(&conf, 0, sizeof(conf));
	conf.hint_refetch = 600;

	/* Only configured URLs (and directory ones outside hint runs) count. */
	CHECK(source_origin_counts(CRLC_SRC_ORIGIN_CONFIGURED, 0));
	CHECK(source_origin_counts(CRLC_SRC_ORIGIN_CONFIGURED, 1));
	CHECK(source_origin_counts(CRLC_SRC_ORIGIN_UNKNOWN, 0));
	CHECK(source_origin_counts(CRLC_SRC_ORIGIN_DIRECTORY, 0));
	CHECK(!source_origin_counts(CRLC_SRC_ORIGIN_DIRECTORY, 1));
	CHECK(!source_origin_counts(CRLC_SRC_ORIGIN_PROPOSED, 0));
	CHECK(!source_origin_counts(CRLC_SRC_ORIGIN_PROPOSED, 1));
	CHECK(strcmp(source_origin_name(CRLC_SRC_ORIGIN_PROPOSED), "proposed") == 0);
	CHECK(strcmp(source_origin_name(99), "unknown") == 0);

	/* Failures in a row from the first; a success starts again. */
	memset(&r, 0, sizeof(r));
	r.last_attempt = T0;
	source_history(&r, 0);
	CHECK(r.failures == 1 && r.first_failure == T0);
	r.last_attempt = T0 + 600;
	source_history(&r, 0);
	CHECK(r.failures == 2 && r.first_failure == T0);
	source_history(&r, 1);
	CHECK(r.failures == 0 && r.first_failure == 0);
	r.failures = UINT32_MAX;
	r.first_failure = T0;
	source_history(&r, 0);
	CHECK(r.failures == UINT32_MAX);

	/* Pruned: 8 failures, over a day, never a CRL, proposed only. */
	r = failed(8, T0 + DAY);
	CHECK(proposed_pruned(&r));
	r = failed(7, T0 + 2 * DAY);
	CHECK(!proposed_pruned(&r));
	r = failed(100, T0 + DAY - 1);
	CHECK(!proposed_pruned(&r));
	r = failed(8, T0 + DAY);
	r.last_success = T0 - 1;
	CHECK(!proposed_pruned(&r));
	r = failed(8, T0 + DAY);
	r.origin = CRLC_SRC_ORIGIN_DIRECTORY;
	CHECK(!proposed_pruned(&r));

	/* Hint runs back off: hint_refetch << (failures - 1). */
	r = failed(1, T0);
	CHECK(proposed_waits(&conf, &r, 1, T0 + 599));
	CHECK(!proposed_waits(&conf, &r, 1, T0 + 600));
	r = failed(3, T0);
	CHECK(proposed_waits(&conf, &r, 1, T0 + 2399));
	CHECK(!proposed_waits(&conf, &r, 1, T0 + 2400));
	/* ...at most a day, however many failures (no shift overflow). */
	r = failed(7, T0);
	CHECK(!proposed_waits(&conf, &r, 1, T0 + DAY));
	r = failed(UINT32_MAX, T0);
	r.first_failure = T0;	/* not pruned: no day between */
	CHECK(proposed_waits(&conf, &r, 1, T0 + DAY - 1));
	CHECK(!proposed_waits(&conf, &r, 1, T0 + DAY));
	/* The timer's run asks it; a configured URL never waits here. */
	r = failed(3, T0);
	CHECK(!proposed_waits(&conf, &r, 0, T0 + 1));
	r.origin = CRLC_SRC_ORIGIN_CONFIGURED;
	CHECK(!proposed_waits(&conf, &r, 1, T0 + 1));
	r = failed(0, T0);
	CHECK(!proposed_waits(&conf, &r, 1, T0 + 1));

	/* Pruned: a week between attempts, in every run. */
	r = failed(8, T0 + DAY);
	CHECK(proposed_waits(&conf, &r, 0, T0 + 7 * DAY));
	CHECK(proposed_waits(&conf, &r, 1, T0 + 8 * DAY - 1));
	CHECK(!proposed_waits(&conf, &r, 0, T0 + 8 * DAY));

	/* A clock set back: an attempt ahead by less than the wait holds,
	 * one further ahead does not. */
	r = failed(8, T0 + DAY);
	CHECK(proposed_waits(&conf, &r, 0, T0 + DAY - 3600));
	CHECK(!proposed_waits(&conf, &r, 0, T0 + DAY - 7 * DAY));
	r = failed(1, T0);
	CHECK(!proposed_waits(&conf, &r, 1, T0 - 600));
	return check_result();
}
