/*
 * Unit test of the transfer scheduler (fetcher/hostq.c, built in): hosts
 * grouped by scheme, host and port without case or userinfo; no host
 * past its budget (https its own); the hosts take turns, each one's
 * transfers in the order given; a finished transfer makes room.
 */
#include <stdlib.h>

#include "check.h"
#include "../../fetcher/hostq.c"
#include "xcalloc.h"

static const char *const urls[] = {
	"http://a.example/1.crl",		/* 0: a */
	"http://a.example/2.crl",		/* 1: a */
	"http://A.EXAMPLE/3.crl",		/* 2: a, case */
	"http://user@a.example/4.crl",		/* 3: a, userinfo */
	"http://b.example/1.crl",		/* 4: b */
	"http://a.example:8080/1.crl",		/* 5: another port */
	"https://a.example/1.crl",		/* 6: https */
	"https://a.example/2.crl",		/* 7: https */
	"http://b.example/2.crl",		/* 8: b */
};
#define N	(sizeof(urls) / sizeof(urls[0]))

int
main(void)
{
	struct hostq *q;
	size_t got[N], i, n = 0, t;
	int seen[N] = { 0 };

	q = hostq_new(urls, N, 1, 2);
	/* Budget 1: one of a, a:8080, b; 2 of https a. */
	while (hostq_next(q, &t) == 0 && n < N)
		got[n++] = t;
	CHECK(n == 5);
	for (i = 0; i < n; i++)
		seen[got[i]]++;
	CHECK(seen[0] == 1 && seen[4] == 1 && seen[5] == 1);
	CHECK(seen[6] == 1 && seen[7] == 1);
	CHECK(seen[1] == 0 && seen[2] == 0 && seen[3] == 0 && seen[8] == 0);
	/* a's first transfer done: its next in the order given. */
	hostq_done(q, 0);
	CHECK(hostq_next(q, &t) == 0 && t == 1);
	CHECK(hostq_next(q, &t) == -1);
	hostq_done(q, 4);
	CHECK(hostq_next(q, &t) == 0 && t == 8);
	hostq_done(q, 1);
	CHECK(hostq_next(q, &t) == 0 && t == 2);
	hostq_done(q, 2);
	CHECK(hostq_next(q, &t) == 0 && t == 3);
	CHECK(hostq_next(q, &t) == -1);
	hostq_free(q);

	/* Taking turns: 2 hosts, budget 100: a, b, a, b... */
	q = hostq_new((const char *const[]){ "http://a/1", "http://a/2",
	    "http://a/3", "http://b/1", "http://b/2" }, 5, 100, 100);
	n = 0;
	while (hostq_next(q, &t) == 0 && n < N)
		got[n++] = t;
	CHECK(n == 5);
	CHECK(got[0] == 0 && got[1] == 3 && got[2] == 1 && got[3] == 4 &&
	    got[4] == 2);
	hostq_free(q);

	/* Nothing to fetch. */
	q = hostq_new(urls, 0, 8, 8);
	CHECK(hostq_next(q, &t) == -1);
	hostq_free(q);
	hostq_free(NULL);
	return check_result();
}
