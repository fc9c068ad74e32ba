/*
 * Full TLS handshakes with and without crlcache, side by side.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * usage: handshake_bench CONF ROOT.pem NAME CHAIN.pem KEY.pem [NAME CHAIN KEY]...
 * CONF enables the provider (what `crlcache exec` writes).  CHAIN.pem is
 * a server's leaf followed by its intermediate; the client trusts ROOT.pem
 * and verifies the 2-certificate chain the server sends.  Client and
 * server run in this process over a BIO pair; no session cache, no
 * tickets, so every handshake is full and decodes the peer's
 * certificates afresh.  The server always runs in a plain library
 * context; the client in one of two:
 *   plain     a fresh OSSL_LIB_CTX (default provider only)
 *   crlcache  a context that loaded CONF (the provider on)
 * in alternating batches.  Per server and TLS version, one line:
 *   ROW <tab> what <tab> plain-us <tab> crlcache-us <tab> median ratio
 * the ratio being the median of the batches' ratios, so that machine
 * noise hits both sides alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/provider.h>
#include <openssl/ssl.h>

#include "bench.h"

/* Batches per side and handshakes per batch: about 10 s for 4 rows. */
#define ROUNDS		15
#define PER_ROUND	25
/* Handshakes per side before measuring: lazy fetches, caches. */
#define WARMUP		20
/* Flights of a full handshake are 2-3 per side; more means a hang. */
#define MAX_STEPS	64

static SSL_CTX *
client_ctx(OSSL_LIB_CTX *lib, const char *root, int version)
{
	SSL_CTX *c = SSL_CTX_new_ex(lib, NULL, TLS_client_method());

	if (c == NULL || !SSL_CTX_load_verify_file(c, root)) {
		ERR_print_errors_fp(stderr);
		exit(2);
	}
	SSL_CTX_set_verify(c, SSL_VERIFY_PEER, NULL);
	SSL_CTX_set_min_proto_version(c, version);
	SSL_CTX_set_max_proto_version(c, version);
	SSL_CTX_set_session_cache_mode(c, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_options(c, SSL_OP_NO_TICKET);
	return c;
}

static SSL_CTX *
server_ctx(OSSL_LIB_CTX *lib, const char *chain, const char *key)
{
	SSL_CTX *s = SSL_CTX_new_ex(lib, NULL, TLS_server_method());

	if (s == NULL || !SSL_CTX_use_certificate_chain_file(s, chain) ||
	    !SSL_CTX_use_PrivateKey_file(s, key, SSL_FILETYPE_PEM)) {
		ERR_print_errors_fp(stderr);
		exit(2);
	}
	SSL_CTX_set_session_cache_mode(s, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_options(s, SSL_OP_NO_TICKET);
	SSL_CTX_set_num_tickets(s, 0);
	return s;
}

/* One full handshake; exits when it fails. */
static void
handshake(SSL_CTX *cctx, SSL_CTX *sctx)
{
	SSL *c = SSL_new(cctx), *s = SSL_new(sctx);
	BIO *cb = NULL, *sb = NULL;
	int i, cdone = 0, sdone = 0, r;

	if (c == NULL || s == NULL || !BIO_new_bio_pair(&cb, 0, &sb, 0))
		exit(2);
	SSL_set_bio(c, cb, cb);
	SSL_set_bio(s, sb, sb);
	SSL_set_connect_state(c);
	SSL_set_accept_state(s);
	for (i = 0; i < MAX_STEPS && !(cdone && sdone); i++) {
		if (!cdone && (r = SSL_do_handshake(c)) == 1)
			cdone = 1;
		else if (!cdone && SSL_get_error(c, r) != SSL_ERROR_WANT_READ)
			break;
		if (!sdone && (r = SSL_do_handshake(s)) == 1)
			sdone = 1;
		else if (!sdone && SSL_get_error(s, r) != SSL_ERROR_WANT_READ)
			break;
	}
	if (!(cdone && sdone) || SSL_get_verify_result(c) != X509_V_OK ||
	    SSL_session_reused(c)) {
		fprintf(stderr, "handshake_bench: handshake failed (verify: %s)\n",
		    X509_verify_cert_error_string(SSL_get_verify_result(c)));
		ERR_print_errors_fp(stderr);
		exit(3);
	}
	SSL_free(c);
	SSL_free(s);
	ERR_clear_error();
}

/* The client contexts of one row (plain, crlcache) and the server. */
struct pair {
	SSL_CTX	*client[2];
	SSL_CTX	*server;
};

static void
one(void *arg, int side)
{
	struct pair *p = arg;

	handshake(p->client[side], p->server);
}

static void
row(const char *name, const char *ver, struct pair *p)
{
	double tp[ROUNDS], tc[ROUNDS], ratio[ROUNDS];

	if (alternate(ROUNDS, PER_ROUND, WARMUP, one, p, tp, tc, ratio))
		printf("ROW\tfull %s handshake, %s server, 2-certificate "
		    "chain\t%.1f\t%.1f\t%.3f\n", ver, name,
		    median(tp, ROUNDS) * 1e6, median(tc, ROUNDS) * 1e6,
		    median(ratio, ROUNDS));
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int version;
	} vers[] = { { "TLS 1.3", TLS1_3_VERSION }, { "TLS 1.2", TLS1_2_VERSION } };
	OSSL_LIB_CTX *with = OSSL_LIB_CTX_new(), *without = OSSL_LIB_CTX_new();
	OSSL_LIB_CTX *srvlib = OSSL_LIB_CTX_new();
	struct pair p;
	int a;
	size_t v;

	if (argc < 6 || (argc - 3) % 3 != 0) {
		fprintf(stderr, "usage: handshake_bench CONF ROOT.pem "
		    "NAME CHAIN.pem KEY.pem...\n");
		return 2;
	}
	if (!OSSL_LIB_CTX_load_config(with, argv[1]) ||
	    OSSL_PROVIDER_available(with, "crlcache") != 1) {
		ERR_print_errors_fp(stderr);
		fprintf(stderr, "handshake_bench: crlcache provider not active\n");
		return 2;
	}
	for (a = 3; a < argc; a += 3) {
		p.server = server_ctx(srvlib, argv[a + 1], argv[a + 2]);
		for (v = 0; v < sizeof(vers) / sizeof(vers[0]); v++) {
			p.client[0] = client_ctx(without, argv[2], vers[v].version);
			p.client[1] = client_ctx(with, argv[2], vers[v].version);
			row(argv[a], vers[v].name, &p);
			SSL_CTX_free(p.client[0]);
			SSL_CTX_free(p.client[1]);
		}
		SSL_CTX_free(p.server);
	}
	return 0;
}
