/*
 * Test helper: the fetcher's xcalloc (fetcher/util.c), for a unit test
 * that builds one fetcher file in without the rest of the fetcher;
 * included after that file, whose fetcher.h declares it.
 */
#ifndef CRLCACHE_TEST_XCALLOC_H
#define CRLCACHE_TEST_XCALLOC_H

#include <stdlib.h>

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (p == NULL)
		abort();
	return p;
}

#endif /* CRLCACHE_TEST_XCALLOC_H */
