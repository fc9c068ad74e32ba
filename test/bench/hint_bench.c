/*
 * What a hint costs: the first verify of a certificate no CRL covers
 * (the provider writes the hint then) against a covered one, side by
 * side in one process.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * usage: hint_bench ON.cnf OFF.cnf ROOT.pem INTS.pem COVERED.pem UNC.pem...
 * ON.cnf and OFF.cnf enable the provider with hints = on and off.  Each
 * UNC.pem is a leaf of its own uncovered intermediate, so each one's
 * first verify is the first of its issuer in this process.  Per issuer,
 * in one round:
 *   covered   a covered leaf (the steady hot path), hints on
 *   off-1st   the leaf's first verify in a hints = off context
 *   on-1st    its first verify in a hints = on context: the hint is written
 *   on-2nd    its second verify there: the issuer is known, no hint
 * Each X509 is verified as a fresh object in the first verify of both
 * contexts, so on-1st - off-1st is the hint alone (which context meets
 * the issuer first alternates, for the index pages both lookups share).  Printed: the medians
 * over the issuers and the medians of the per-round ratios.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/provider.h>
#include <openssl/x509_vfy.h>

#include "bench.h"

/* Verifies of the covered leaf before measuring: lazy fetches, caches. */
#define WARMUP		200
#define MAX_UNC		256

struct ctx {
	OSSL_LIB_CTX	*lib;
	X509_STORE	*store;
	STACK_OF(X509)	*untrusted;
};

static OSSL_LIB_CTX *
with_conf(const char *path)
{
	OSSL_LIB_CTX *lib = OSSL_LIB_CTX_new();

	if (lib == NULL || !OSSL_LIB_CTX_load_config(lib, path) ||
	    OSSL_PROVIDER_available(lib, "crlcache") != 1) {
		ERR_print_errors_fp(stderr);
		fprintf(stderr, "hint_bench: %s: crlcache not active\n", path);
		exit(2);
	}
	return lib;
}

static void
ctx_init(struct ctx *c, const char *conf, const char *root, const char *ints)
{
	FILE *f = fopen(ints, "r");
	X509 *x;

	c->lib = with_conf(conf);
	c->store = X509_STORE_new();
	X509_STORE_add_cert(c->store, load_cert(c->lib, root));
	c->untrusted = sk_X509_new_null();
	if (f == NULL)
		exit(2);
	while ((x = X509_new_ex(c->lib, NULL)) != NULL &&
	    PEM_read_X509(f, &x, NULL, NULL) != NULL)
		sk_X509_push(c->untrusted, x);
	X509_free(x);
	ERR_clear_error();
	fclose(f);
}

/* Seconds one X509_verify_cert of leaf takes; exits when it fails. */
static double
verify(const struct ctx *c, X509 *leaf)
{
	X509_STORE_CTX *v = X509_STORE_CTX_new_ex(c->lib, NULL);
	double t0;
	int ok;

	X509_STORE_CTX_init(v, c->store, leaf, c->untrusted);
	t0 = now();
	ok = X509_verify_cert(v);
	t0 = now() - t0;
	if (ok != 1) {
		fprintf(stderr, "hint_bench: verification failed: %s\n",
		    X509_verify_cert_error_string(X509_STORE_CTX_get_error(v)));
		exit(3);
	}
	X509_STORE_CTX_free(v);
	return t0;
}

int
main(int argc, char **argv)
{
	static double cov[MAX_UNC], off1[MAX_UNC], on1[MAX_UNC], on2[MAX_UNC];
	static double r_on1[MAX_UNC], r_off1[MAX_UNC], r_on2[MAX_UNC],
	    d_hint[MAX_UNC], r_hint[MAX_UNC];
	struct ctx on, off;
	X509 *cov_leaf;
	int i, n = argc - 6;

	if (argc < 7 || n > MAX_UNC) {
		fprintf(stderr, "usage: hint_bench ON.cnf OFF.cnf ROOT INTS "
		    "COVERED UNC... (at most %d)\n", MAX_UNC);
		return 2;
	}
	ctx_init(&on, argv[1], argv[3], argv[4]);
	ctx_init(&off, argv[2], argv[3], argv[4]);
	cov_leaf = load_cert(on.lib, argv[5]);
	for (i = 0; i < WARMUP; i++) {
		verify(&on, cov_leaf);
		verify(&off, cov_leaf);
	}
	for (i = 0; i < n; i++) {
		X509 *a = load_cert(off.lib, argv[6 + i]);
		X509 *b = load_cert(on.lib, argv[6 + i]);

		cov[i] = verify(&on, cov_leaf);
		/* Alternate which context meets the issuer first. */
		if (i % 2 == 0)
			off1[i] = verify(&off, a);
		on1[i] = verify(&on, b);
		on2[i] = verify(&on, b);
		if (i % 2 == 1)
			off1[i] = verify(&off, a);
		r_on1[i] = on1[i] / cov[i];
		r_off1[i] = off1[i] / cov[i];
		r_on2[i] = on2[i] / cov[i];
		d_hint[i] = on1[i] - off1[i];
		r_hint[i] = on1[i] / off1[i];
		X509_free(a);
		X509_free(b);
	}
	printf("%d uncovered issuers; medians per verify of a 3-certificate "
	    "chain:\n", n);
	printf("  covered               %7.1f us\n", median(cov, n) * 1e6);
	printf("  uncovered, hints off  %7.1f us  (ratio to covered %.3f)\n",
	    median(off1, n) * 1e6, median(r_off1, n));
	printf("  uncovered, 1st: hint  %7.1f us  (ratio to covered %.3f)\n",
	    median(on1, n) * 1e6, median(r_on1, n));
	printf("  uncovered, 2nd        %7.1f us  (ratio to covered %.3f)\n",
	    median(on2, n) * 1e6, median(r_on2, n));
	printf("  the hint alone (1st minus hints off, median) %.1f us\n",
	    median(d_hint, n) * 1e6);
	/* A row for `make bench` (test/bench/common.sh: bench_rows). */
	printf("ROW\tfirst verify of a certificate no CRL covers, hints on vs "
	    "off\t%.1f\t%.1f\t%.3f\n", median(off1, n) * 1e6,
	    median(on1, n) * 1e6, median(r_hint, n));
	return 0;
}
