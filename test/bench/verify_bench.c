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
 * the rounds' ratios so that machine noise hits both sides alike.  Two
 * ways: with one decoded leaf object reused (its key and extensions are
 * cached in it), and with the leaf decoded afresh (d2i) before each
 * verify, as a TLS client does with the certificates it receives.  Rows
 * for `make bench` are printed as
 *   ROW <tab> what <tab> plain-us <tab> crlcache-us <tab> median ratio
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
/* Verifies per side before measuring: lazy fetches and caches. */
#define WARMUP		100

struct chain {
	OSSL_LIB_CTX	*ctx;
	X509_STORE	*store;
	STACK_OF(X509)	*untrusted;
	X509		*leaf;
	unsigned char	*der;		/* the leaf, for fresh decoding */
	int		 derlen;
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
	c->der = NULL;
	if ((c->derlen = i2d_X509(c->leaf, &c->der)) <= 0)
		exit(2);
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
verify_once(const struct chain *c, int fresh)
{
	X509_STORE_CTX *v = X509_STORE_CTX_new_ex(c->ctx, NULL);
	const unsigned char *p = c->der;
	X509 *leaf = c->leaf;
	int ok;

	if (fresh) {
		leaf = X509_new_ex(c->ctx, NULL);
		if (leaf == NULL || d2i_X509(&leaf, &p, c->derlen) == NULL)
			exit(2);
	}
	X509_STORE_CTX_init(v, c->store, leaf, c->untrusted);
	ok = X509_verify_cert(v);
	if (ok != 1)
		fprintf(stderr, "verify_bench: verification failed: %s\n",
		    X509_verify_cert_error_string(X509_STORE_CTX_get_error(v)));
	X509_STORE_CTX_free(v);
	if (fresh)
		X509_free(leaf);
	ERR_clear_error();
	return ok == 1;
}

/* The chains of one row (plain, crlcache) and how the leaf is had. */
struct pair {
	const struct chain	*chain[2];
	int			 fresh;
};

static void
one(void *arg, int side)
{
	struct pair *p = arg;

	if (!verify_once(p->chain[side], p->fresh))
		exit(3);
}

static void
row(const char *what, const char *leaf, const struct chain *a,
    const struct chain *b, int fresh)
{
	struct pair p = { { a, b }, fresh };
	double ta[ROUNDS], tb[ROUNDS], ratio[ROUNDS];

	if (alternate(ROUNDS, PER_ROUND, WARMUP, one, &p, ta, tb, ratio))
		printf("ROW\tX509_verify_cert, %s, %s\t%.1f\t%.1f\t%.3f\n",
		    leaf, what, median(ta, ROUNDS) * 1e6,
		    median(tb, ROUNDS) * 1e6, median(ratio, ROUNDS));
}

int
main(int argc, char **argv)
{
	struct chain plain, prov, crlchk;
	const char *conf = getenv("OPENSSL_CONF");
	OSSL_LIB_CTX *with = OSSL_LIB_CTX_new(), *without = OSSL_LIB_CTX_new();
	int have_crl = argc > 4;

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
	row("leaf object reused", argv[3], &plain, &prov, 0);
	row("leaf decoded afresh (d2i) each time", argv[3], &plain, &prov, 1);
	if (have_crl)
		row("OpenSSL's own -crl_check (not crlcache)", argv[3], &plain,
		    &crlchk, 0);
	return 0;
}
