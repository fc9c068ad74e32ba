/*
 * Helpers shared by the benchmark programs of test/bench/ (each built on
 * its own by its script): certificate loading, a monotonic clock and the
 * median the ratios are taken of.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_BENCH_H
#define CRLCACHE_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <openssl/pem.h>
#include <openssl/x509.h>

/* A PEM certificate for library context lib; exits when it cannot. */
static X509 *
load_cert(OSSL_LIB_CTX *lib, const char *path)
{
	FILE *f = fopen(path, "r");
	X509 *x = X509_new_ex(lib, NULL);

	if (f == NULL || x == NULL || PEM_read_X509(f, &x, NULL, NULL) == NULL) {
		fprintf(stderr, "%s: cannot load\n", path);
		exit(2);
	}
	fclose(f);
	return x;
}

/* Seconds on the monotonic clock. */
static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of v[0..n), n > 0; sorts v. */
static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif /* CRLCACHE_BENCH_H */
