/*
 * Index open and lookup latency over the published index, through the
 * readers' API (include/crlcache/index.h), as the provider looks up.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * usage: scale_lookup INDEX LEAF.pem ISSUER.pem CRL.der [LEAF ISSUER CRL]...
 * For each triple, the serials CRL lists are looked up (expected
 * REVOKED) alternately with random serials (expected GOOD), in the name
 * of LEAF (its issuer, distribution points) with its serial replaced,
 * the issuer's key given by its hash as the provider gives it.  Each
 * lookup is timed on its own.  Prints the open time of INDEX (median of
 * OPENS opens) and the p50, p99 and maximum of the lookups in
 * nanoseconds, the first lookups (which map what they touch) included;
 * exits 1 when a verdict is not the expected one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>

#include <crlcache/index.h>
#include <crlcache/tbs.h>

/* Revoked serials taken per CRL: as many random ones are looked up. */
#define SERIALS_PER_CRL	20000
#define TRIPLES_MAX	8
#define OPENS		21
#define SERIAL_LEN	16

struct target {
	X509		*leaf;
	unsigned char	*der;		/* the leaf's DER: t points into it */
	struct crlc_tbs	 t;
	uint8_t		 hash[32];	/* the issuer's key (format.h "key") */
	uint8_t		*crl;		/* the CRL's DER: serials point into it */
	struct crlc_span serials[SERIALS_PER_CRL];
	size_t		 nserials;
};

static void
die(const char *what)
{
	fprintf(stderr, "scale_lookup: %s\n", what);
	exit(2);
}

static int64_t
nsec(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int
cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static X509 *
pem_cert(const char *path)
{
	FILE *f = fopen(path, "r");
	X509 *x = f ? PEM_read_X509(f, NULL, NULL, NULL) : NULL;

	if (x == NULL)
		die(path);
	fclose(f);
	return x;
}

static uint8_t *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || (p = malloc((size_t)n)) == NULL ||
	    fread(p, 1, (size_t)n, f) != (size_t)n)
		die(path);
	fclose(f);
	*len = (size_t)n;
	return p;
}

static void
target_init(struct target *g, char **argv)
{
	X509 *issuer = pem_cert(argv[1]);
	const ASN1_BIT_STRING *spk = X509_get0_pubkey_bitstr(issuer);
	struct crlc_span tbs, rest;
	struct crlc_crl crl;
	struct crlc_crl_entry e;
	const char *why;
	size_t len;
	int n;

	g->leaf = pem_cert(argv[0]);
	g->der = NULL;
	if ((n = i2d_X509(g->leaf, &g->der)) <= 0 ||
	    crlc_cert_tbs(g->der, (size_t)n, &tbs) == -1 ||
	    crlc_tbs_parse(tbs.p, tbs.len, &g->t) == -1)
		die(argv[0]);
	if (spk == NULL || !EVP_Digest(spk->data, (size_t)spk->length, g->hash,
	    NULL, EVP_sha256(), NULL))
		die(argv[1]);
	X509_free(issuer);
	g->crl = slurp(argv[2], &len);
	if (crlc_crl_parse(g->crl, len, &crl, &why) == -1)
		die(why);
	rest = crl.revoked;
	for (g->nserials = 0; g->nserials < SERIALS_PER_CRL &&
	    crlc_crl_entry_next(&rest, &e, &why) == 1; g->nserials++)
		g->serials[g->nserials] = e.serial;
	if (g->nserials == 0)
		die("a CRL without entries");
}

int
main(int argc, char **argv)
{
	static struct target g[TRIPLES_MAX];
	struct crlc_index *idx = NULL;
	struct crlc_issuer_key ik;
	struct crlc_verdict v;
	struct crlc_tbs t;
	const char *detail = NULL;
	int64_t opens[OPENS], *lat, t0, now = (int64_t)time(NULL);
	uint8_t rnd[SERIAL_LEN];
	size_t ng, i, k, n = 0, total = 0, wrong = 0;
	int err;

	if (argc < 5 || (argc - 2) % 3 != 0 || (size_t)(argc - 2) / 3 > TRIPLES_MAX)
		die("usage: scale_lookup INDEX LEAF.pem ISSUER.pem CRL.der ...");
	ng = (size_t)(argc - 2) / 3;
	for (i = 0; i < ng; i++) {
		target_init(&g[i], argv + 2 + 3 * i);
		total += 2 * g[i].nserials;
	}
	for (i = 0; i < OPENS; i++) {
		t0 = nsec();
		if ((err = crlc_index_open(argv[1], &idx, &detail)) != CRLC_OK) {
			fprintf(stderr, "scale_lookup: %s: %s%s%s\n", argv[1],
			    crlc_index_strerror(err), detail ? ": " : "",
			    detail ? detail : "");
			return 2;
		}
		opens[i] = nsec() - t0;
		if (i + 1 < OPENS)
			crlc_index_close(idx);
	}
	if ((lat = malloc(total * sizeof(*lat))) == NULL)
		die("out of memory");
	for (k = 0; k < SERIALS_PER_CRL; k++)
		for (i = 0; i < ng; i++) {
			if (k >= g[i].nserials)
				continue;
			memset(&ik, 0, sizeof(ik));
			ik.hash = g[i].hash;
			t = g[i].t;
			t.serial = g[i].serials[k];
			t0 = nsec();
			if (crlc_index_lookup(idx, &t, &ik, now, 0, &v) == -1)
				die("lookup failed");
			lat[n++] = nsec() - t0;
			wrong += v.state != CRLC_REVOKED;
			if (RAND_bytes(rnd, sizeof(rnd)) != 1)
				die("RAND_bytes");
			rnd[0] = (uint8_t)((rnd[0] & 0x7f) | 0x01);
			t.serial.p = rnd;
			t.serial.len = sizeof(rnd);
			t0 = nsec();
			if (crlc_index_lookup(idx, &t, &ik, now, 0, &v) == -1)
				die("lookup failed");
			lat[n++] = nsec() - t0;
			wrong += v.state != CRLC_GOOD;
		}
	qsort(opens, OPENS, sizeof(*opens), cmp64);
	qsort(lat, n, sizeof(*lat), cmp64);
	printf("open_us %.1f\nlookups %zu\nwrong %zu\np50_ns %lld\np99_ns %lld\nmax_ns %lld\n",
	    (double)opens[OPENS / 2] / 1000, n, wrong, (long long)lat[n / 2],
	    (long long)lat[n * 99 / 100], (long long)lat[n - 1]);
	crlc_index_close(idx);
	return wrong != 0;
}
