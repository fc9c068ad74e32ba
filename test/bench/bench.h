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

/*
 * Seconds per operation of n runs of op(arg, side).  Never inlined:
 * instruction counts are taken of it (callgrind --toggle-collect=batch*).
 */
__attribute__((noinline)) static double
batch(int n, void (*op)(void *arg, int side), void *arg, int side)
{
	double t0 = now();
	int i;

	for (i = 0; i < n; i++)
		op(arg, side);
	return (now() - t0) / n;
}

/*
 * Side by side: batches of n operations of side 0 (without crlcache) and
 * side 1 (with it) alternately, which side goes first alternating too, so
 * that machine noise hits both alike, after warm operations of each side
 * (lazy fetches, caches).  a[], b[] get the seconds per operation of each
 * round, ratio[] b / a.  Returns 1 to print the row.
 *
 * With BENCH_COUNT="ROW SIDE N" in the environment it measures nothing
 * and returns 0; the ROW-th call (from 0) runs a short warm-up and one
 * batch of N operations of SIDE, for callgrind to count
 * (common.sh: bench_count).
 */
#define COUNT_WARM	4
static int
alternate(int rounds, int n, int warm, void (*op)(void *arg, int side),
    void *arg, double *a, double *b, double *ratio)
{
	static int row;
	const char *count = getenv("BENCH_COUNT");
	int r, side, ops;

	if (count != NULL) {
		if (sscanf(count, "%d %d %d", &r, &side, &ops) == 3 &&
		    r == row && (side == 0 || side == 1) && ops > 0) {
			for (r = 0; r < COUNT_WARM; r++)
				op(arg, side);
			batch(ops, op, arg, side);
		}
		row++;
		return 0;
	}
	for (r = 0; r < warm; r++) {
		op(arg, 0);
		op(arg, 1);
	}
	for (r = 0; r < rounds; r++) {
		if (r % 2 == 0) {
			a[r] = batch(n, op, arg, 0);
			b[r] = batch(n, op, arg, 1);
		} else {
			b[r] = batch(n, op, arg, 1);
			a[r] = batch(n, op, arg, 0);
		}
		ratio[r] = b[r] / a[r];
	}
	return 1;
}

#endif /* CRLCACHE_BENCH_H */
