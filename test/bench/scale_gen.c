/*
 * Signed CRLs by the million, fast: the data set of test/bench/scale.sh.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * usage: scale_gen PLAN
 * Each line of PLAN makes one CRL:
 *   OUT ISSUER.pem ISSUER.key ENTRIES SEED NUMBER THIS NEXT IDP
 * OUT gets a DER CertificateList (RFC 5280 5.1, version 2) issued by the
 * subject of ISSUER.pem, signed with ISSUER.key (RSA: sha256WithRSA-
 * Encryption, EC: ecdsa-with-SHA256), with thisUpdate THIS and nextUpdate
 * NEXT (seconds since the epoch), a cRLNumber NUMBER, the issuer's
 * subjectKeyIdentifier as authorityKeyIdentifier and, unless IDP is "-",
 * a critical issuingDistributionPoint naming the URI IDP (a partition).
 * ENTRIES revoked serials of 16 bytes (as Let's Encrypt's) come from a
 * generator seeded with SEED: the same seed with more entries gives the
 * same first entries, which is how a CRL "changes" by a few entries.
 * Every fourth entry has reasonCode keyCompromise.  The `openssl ca`
 * route (a text database, X509_REVOKED objects) takes minutes for the
 * 8,000,000 entries of the data set; this writes the DER directly.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

/* A plan line: its path and URI fields fit; longer ones are refused. */
#define LINE_MAX_LEN	4096
/* One CRL of the data set at most (20M entries is crlcache's own bound). */
#define ENTRIES_MAX	20000000UL
#define SERIAL_LEN	16
/* Entries are revoked over the month before thisUpdate. */
#define REVOKED_SPAN	(30 * 86400)

struct buf {
	uint8_t	*p;
	size_t	 len, cap;
};

static void
die(const char *what)
{
	fprintf(stderr, "scale_gen: %s\n", what);
	exit(1);
}

static void
put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		if ((b->p = realloc(b->p, b->cap)) == NULL)
			die("out of memory");
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void
put1(struct buf *b, uint8_t c)
{
	put(b, &c, 1);
}

/* A DER tag and definite length (X.690 8.1.3). */
static void
put_hdr(struct buf *b, uint8_t tag, size_t len)
{
	uint8_t l[9];
	int n = 0, i;

	put1(b, tag);
	if (len < 0x80) {
		put1(b, (uint8_t)len);
		return;
	}
	for (; len > 0; len >>= 8)
		l[n++] = (uint8_t)len;
	put1(b, (uint8_t)(0x80 | n));
	for (i = n - 1; i >= 0; i--)
		put1(b, l[i]);
}

/* b gets TAG { inner }; inner is emptied. */
static void
wrap(struct buf *b, uint8_t tag, struct buf *inner)
{
	put_hdr(b, tag, inner->len);
	put(b, inner->p, inner->len);
	inner->len = 0;
}

/* UTCTime YYMMDDHHMMSSZ (RFC 5280 4.1.2.5.1: years 1950..2049). */
static void
put_time(struct buf *b, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char s[16];

	gmtime_r(&tt, &tm);
	if (tm.tm_year + 1900 >= 2050 ||
	    strftime(s, sizeof(s), "%y%m%d%H%M%SZ", &tm) != 13)
		die("time out of UTCTime range");
	put_hdr(b, 0x17, 13);
	put(b, s, 13);
}

/* splitmix64: small, fast, and the same sequence for the same seed. */
static uint64_t
next64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void
put_oid_ext(struct buf *b, const uint8_t *oid, size_t oidlen, int critical,
    const struct buf *value)
{
	struct buf e = { 0 };

	put(&e, oid, oidlen);
	if (critical)
		put(&e, "\x01\x01\xff", 3);
	put_hdr(&e, 0x04, value->len);
	put(&e, value->p, value->len);
	wrap(b, 0x30, &e);
	free(e.p);
}

static void
make_crl(const char *out, X509 *issuer, EVP_PKEY *key, unsigned long n,
    uint64_t seed, unsigned long number, int64_t this, int64_t next,
    const char *idp)
{
	static const uint8_t rsa_alg[] = { 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86,
	    0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b, 0x05, 0x00 };
	static const uint8_t ec_alg[] = { 0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86,
	    0x48, 0xce, 0x3d, 0x04, 0x03, 0x02 };
	static const uint8_t oid_aki[] = { 0x06, 0x03, 0x55, 0x1d, 0x23 };
	static const uint8_t oid_num[] = { 0x06, 0x03, 0x55, 0x1d, 0x14 };
	static const uint8_t oid_idp[] = { 0x06, 0x03, 0x55, 0x1d, 0x1c };
	/* SEQUENCE { SEQUENCE { reasonCode, OCTET STRING { ENUMERATED 1 } } } */
	static const uint8_t reason[] = { 0x30, 0x0c, 0x30, 0x0a, 0x06, 0x03,
	    0x55, 0x1d, 0x15, 0x04, 0x03, 0x0a, 0x01, 0x01 };
	struct buf tbs = { 0 }, t = { 0 }, revs = { 0 }, ent = { 0 },
	    exts = { 0 }, v = { 0 }, crl = { 0 };
	const ASN1_OCTET_STRING *ski = X509_get0_subject_key_id(issuer);
	const uint8_t *alg = EVP_PKEY_get_base_id(key) == EVP_PKEY_EC ?
	    ec_alg : rsa_alg;
	size_t alglen = alg == ec_alg ? sizeof(ec_alg) : sizeof(rsa_alg);
	unsigned char *name = NULL, *sig = NULL;
	uint8_t serial[SERIAL_LEN];
	uint64_t s = seed, r;
	unsigned long i;
	size_t siglen;
	EVP_MD_CTX *md;
	FILE *f;
	int namelen, j;

	if (ski == NULL)
		die("issuer has no subjectKeyIdentifier");
	put(&t, "\x02\x01\x01", 3);			/* version v2 */
	put(&t, alg, alglen);
	if ((namelen = i2d_X509_NAME(X509_get_subject_name(issuer), &name)) <= 0)
		die("issuer name");
	put(&t, name, (size_t)namelen);
	put_time(&t, this);
	put_time(&t, next);
	for (i = 0; i < n; i++) {
		for (j = 0; j < SERIAL_LEN; j += 8) {
			r = next64(&s);
			memcpy(serial + j, &r, 8);
		}
		serial[0] = (uint8_t)((serial[0] & 0x7f) | 0x01); /* positive, minimal */
		put_hdr(&ent, 0x02, SERIAL_LEN);
		put(&ent, serial, SERIAL_LEN);
		put_time(&ent, this - (int64_t)(next64(&s) % REVOKED_SPAN));
		if (i % 4 == 3)
			put(&ent, reason, sizeof(reason));
		wrap(&revs, 0x30, &ent);
	}
	if (n > 0)
		wrap(&t, 0x30, &revs);
	/* authorityKeyIdentifier: SEQUENCE { [0] keyIdentifier } */
	put_hdr(&v, 0x30, (size_t)ski->length + 2);
	put_hdr(&v, 0x80, (size_t)ski->length);
	put(&v, ski->data, (size_t)ski->length);
	put_oid_ext(&exts, oid_aki, sizeof(oid_aki), 0, &v);
	v.len = 0;
	for (j = 7; j > 0 && (number >> (8 * j)) == 0; j--)
		;
	if ((number >> (8 * j)) & 0x80)
		j++;
	put_hdr(&v, 0x02, (size_t)j + 1);
	for (; j >= 0; j--)
		put1(&v, j >= 8 ? 0 : (uint8_t)(number >> (8 * j)));
	put_oid_ext(&exts, oid_num, sizeof(oid_num), 0, &v);
	v.len = 0;
	if (strcmp(idp, "-") != 0) {
		/* SEQUENCE { [0] { [0] { [6] URI } } } (RFC 5280 5.2.5) */
		size_t u = strlen(idp);
		struct buf x = { 0 };

		put_hdr(&x, 0x86, u);
		put(&x, idp, u);
		put_hdr(&v, 0xa0, x.len);		/* fullName */
		put(&v, x.p, x.len);
		x.len = 0;
		put_hdr(&x, 0xa0, v.len);		/* distributionPoint */
		put(&x, v.p, v.len);
		v.len = 0;
		wrap(&v, 0x30, &x);
		put_oid_ext(&exts, oid_idp, sizeof(oid_idp), 1, &v);
		v.len = 0;
		free(x.p);
	}
	wrap(&v, 0x30, &exts);
	wrap(&t, 0xa0, &v);				/* crlExtensions */
	wrap(&tbs, 0x30, &t);

	if ((md = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, key) != 1 ||
	    EVP_DigestSign(md, NULL, &siglen, tbs.p, tbs.len) != 1 ||
	    (sig = malloc(siglen)) == NULL ||
	    EVP_DigestSign(md, sig, &siglen, tbs.p, tbs.len) != 1)
		die("signing failed");
	EVP_MD_CTX_free(md);
	put(&t, tbs.p, tbs.len);
	put(&t, alg, alglen);
	put_hdr(&t, 0x03, siglen + 1);
	put1(&t, 0);
	put(&t, sig, siglen);
	wrap(&crl, 0x30, &t);
	if ((f = fopen(out, "wb")) == NULL ||
	    fwrite(crl.p, 1, crl.len, f) != crl.len || fclose(f) != 0)
		die(out);
	free(crl.p); free(t.p); free(tbs.p); free(revs.p); free(ent.p);
	free(exts.p); free(v.p); free(sig);
	OPENSSL_free(name);
}

int
main(int argc, char **argv)
{
	char line[LINE_MAX_LEN], out[LINE_MAX_LEN], cert[LINE_MAX_LEN],
	    keyp[LINE_MAX_LEN], idp[LINE_MAX_LEN], lastcert[LINE_MAX_LEN] = "";
	unsigned long n, number;
	unsigned long long seed;
	long long this, next;
	X509 *issuer = NULL;
	EVP_PKEY *key = NULL;
	FILE *plan, *f;

	if (argc != 2 || (plan = fopen(argv[1], "r")) == NULL)
		die("usage: scale_gen PLAN");
	while (fgets(line, sizeof(line), plan) != NULL) {
		if (sscanf(line, "%4095s %4095s %4095s %lu %llu %lu %lld %lld %4095s",
		    out, cert, keyp, &n, &seed, &number, &this, &next, idp) != 9 ||
		    n > ENTRIES_MAX)
			die("bad plan line");
		if (strcmp(cert, lastcert) != 0) {
			X509_free(issuer);
			EVP_PKEY_free(key);
			if ((f = fopen(cert, "r")) == NULL ||
			    (issuer = PEM_read_X509(f, NULL, NULL, NULL)) == NULL)
				die(cert);
			fclose(f);
			if ((f = fopen(keyp, "r")) == NULL ||
			    (key = PEM_read_PrivateKey(f, NULL, NULL, NULL)) == NULL)
				die(keyp);
			fclose(f);
			strcpy(lastcert, cert);
		}
		make_crl(out, issuer, key, n, seed, number, this, next, idp);
	}
	fclose(plan);
	X509_free(issuer);
	EVP_PKEY_free(key);
	return 0;
}
