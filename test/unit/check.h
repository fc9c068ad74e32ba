/*
 * Shared by the unit tests: a CHECK that counts failures and goes on.
 */
#ifndef CRLCACHE_TEST_CHECK_H
#define CRLCACHE_TEST_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,	\
		    __LINE__, #cond);					\
		failures++;						\
	}								\
} while (0)

/* main()'s return value: report and fail when any check failed. */
static inline int
check_result(void)
{
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}

#endif /* CRLCACHE_TEST_CHECK_H */
