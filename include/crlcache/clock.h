/*
 * A monotonic millisecond clock for timeouts and rate limits.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_CLOCK_H
#define CRLCACHE_CLOCK_H

#include <time.h>

/*
 * Milliseconds on CLOCK_MONOTONIC_COARSE: served by the vDSO without a
 * system call (the provider reads it on every lookup), a few milliseconds
 * of resolution, which is all rate limits and retry backoff need.
 */
static inline long long
crlc_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif /* CRLCACHE_CLOCK_H */
