/*
 * X509_verify_cert cost with and without crlcache, side by side.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * usage: verify_bench ROOT.pem INT.pem LEAF.pem [CRL.pem]
 * Run under `crlcache exec` so that OPENSSL_CONF enables the provider.
 * Three library contexts verify the same 3-certificate chain in
 * interleaved rounds:
 *   plain     a fresh OSSL_LIB_CTX (default provider only)
 *   crlcache  a context that loaded OPENSSL_CONF (the provider on)
 *   crl_check plain + X509_V_FLAG_CRL_CHECK with CRL.pem in the store
 *             (OpenSSL's own CRL checking, what applications can do today)
 * and prints per-verify times and the ratios to plain, each the median of
 * the rounds' ratios so that machine noise hits both sides alike.
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

#define ROUNDS		21
#define PER_ROUND	300

struct chain {
	OSSL_LIB_CTX	*ctx;
	X509_STORE	*store;
	STACK_OF(X509)	*untrusted;
	X509		*leaf;
};

static void
chain_init(struct chain *c, OSSL_LIB_CTX *ctx, char **argv, const char *crl)
{
	c->ctx = ctx;
	c->store = X509_STORE_new();
	X509_STORE_add_cert(c->store, load_cert(ctx, argv[1]));
	c->untrusted = sk_X509_new_null();
	sk_X509_push(c->untrusted, load_cert(ctx, argv[2]));
	c->leaf = load_cert(ctx, argv[3]);
	if (crl != NULL) {
		FILE *f = fopen(crl, "r");
		X509_CRL *x = f ? PEM_read_X509_CRL(f, NULL, NULL, NULL) : NULL;

		if (x == NULL || !X509_STORE_add_crl(c->store, x)) {
			fprintf(stderr, "verify_bench: %s: cannot load CRL\n", crl);
			exit(2);
		}
		X509_CRL_free(x);
		fclose(f);
		X509_STORE_set_flags(c->store, X509_V_FLAG_CRL_CHECK);
	}
}

static int
verify_once(const struct chain *c)
{
	X509_STORE_CTX *v = X509_STORE_CTX_new_ex(c->ctx, NULL);
	int ok;

	X509_STORE_CTX_init(v, c->store, c->leaf, c->untrusted);
	ok = X509_verify_cert(v);
	if (ok != 1)
		fprintf(stderr, "verify_bench: verification failed: %s\n",
		    X509_verify_cert_error_string(X509_STORE_CTX_get_error(v)));
	X509_STORE_CTX_free(v);
	ERR_clear_error();
	return ok == 1;
}

static double
timed(const struct chain *c)
{
	double t0 = now();
	int i;

	for (i = 0; i < PER_ROUND; i++)
		if (!verify_once(c))
			exit(3);
	return (now() - t0) / PER_ROUND;
}

int
main(int argc, char **argv)
{
	struct chain plain, prov, crlchk;
	double tp[ROUNDS], tc[ROUNDS], tk[ROUNDS], rc[ROUNDS], rk[ROUNDS];
	const char *conf = getenv("OPENSSL_CONF");
	OSSL_LIB_CTX *with = OSSL_LIB_CTX_new(), *without = OSSL_LIB_CTX_new();
	int r, i, have_crl = argc > 4;

	if (argc < 4 || conf == NULL) {
		fprintf(stderr, "usage: crlcache exec -- verify_bench ROOT INT LEAF [CRL]\n");
		return 2;
	}
	if (!OSSL_LIB_CTX_load_config(with, conf)) {
		ERR_print_errors_fp(stderr);
		return 2;
	}
	if (OSSL_PROVIDER_available(with, "crlcache") != 1) {
		fprintf(stderr, "verify_bench: crlcache provider not active\n");
		return 2;
	}
	chain_init(&plain, without, argv, NULL);
	chain_init(&prov, with, argv, NULL);
	chain_init(&crlchk, without, argv, have_crl ? argv[4] : NULL);
	for (i = 0; i < 100; i++)	/* warm caches and lazy fetches */
		if (!verify_once(&plain) || !verify_once(&prov) ||
		    !verify_once(&crlchk))
			return 3;
	for (r = 0; r < ROUNDS; r++) {
		tp[r] = timed(&plain);
		tc[r] = timed(&prov);
		tk[r] = timed(&crlchk);
		rc[r] = tc[r] / tp[r];
		rk[r] = tk[r] / tp[r];
	}
	printf("%-40s plain %7.1f us  crlcache %7.1f us (ratio %.3f)",
	    argv[3], median(tp, ROUNDS) * 1e6, median(tc, ROUNDS) * 1e6,
	    median(rc, ROUNDS));
	if (have_crl)
		printf("  -crl_check %7.1f us (ratio %.3f)", median(tk, ROUNDS) * 1e6,
		    median(rk, ROUNDS));
	printf("\n");
	return 0;
}
