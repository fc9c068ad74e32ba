/*
 * Unit test of the TBSCertificate recogniser (lib/tbs.c) over objects
 * that libcrypto builds and signs: certificates of several shapes must be
 * read exactly as OpenSSL reads them; CRLs, CSRs, every truncation and
 * every single-byte corruption must be refused or read without touching
 * a byte outside the buffer (run under ASan).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/conf.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "check.h"
#include <crlcache/tbs.h>


static EVP_PKEY *
ec_key(void)
{
	return EVP_EC_gen("P-256");
}

static void
add_ext(X509 *x, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *e;
	CONF *conf = NCONF_new(NULL);	/* certificatePolicies wants one */

	X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
	X509V3_set_nconf(&ctx, conf);
	e = X509V3_EXT_nconf_nid(conf, &ctx, nid, value);
	NCONF_free(conf);
	if (e == NULL || !X509_add_ext(x, e, -1)) {
		fprintf(stderr, "cannot add extension %s\n", value);
		exit(2);
	}
	X509_EXTENSION_free(e);
}

struct shape {
	const char	*name;
	long		 version;	/* 0 = v1, 2 = v3 */
	const char	*serial_hex;
	int		 is_ca;
	const char	*dp;		/* crlDistributionPoints value */
	const char	*policy;	/* certificatePolicies value */
	long		 days;		/* validity from now */
	int		 want_ndp;
	int		 want_cabf;	/* a CA/B TLS policy OID is present */
};

static X509 *
make_cert(const struct shape *s, EVP_PKEY *key)
{
	X509 *x = X509_new();
	X509_NAME *n = X509_NAME_new();
	BIGNUM *bn = NULL;
	ASN1_INTEGER *serial;

	X509_set_version(x, s->version);
	BN_hex2bn(&bn, s->serial_hex);
	serial = BN_to_ASN1_INTEGER(bn, NULL);
	X509_set_serialNumber(x, serial);
	ASN1_INTEGER_free(serial);
	BN_free(bn);
	X509_NAME_add_entry_by_txt(n, "O", MBSTRING_ASC,
	    (const unsigned char *)"Test Org", -1, -1, 0);
	X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_UTF8,
	    (const unsigned char *)"Test Issuer", -1, -1, 0);
	X509_set_issuer_name(x, n);
	X509_set_subject_name(x, n);
	X509_NAME_free(n);
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_time_adj_ex(X509_getm_notAfter(x), (int)s->days, 0, NULL);
	X509_set_pubkey(x, key);
	if (s->version == 2) {
		add_ext(x, NID_basic_constraints, s->is_ca ? "critical,CA:TRUE" :
		    "critical,CA:FALSE");
		if (s->dp != NULL)
			add_ext(x, NID_crl_distribution_points, s->dp);
		if (s->policy != NULL)
			add_ext(x, NID_certificate_policies, s->policy);
	}
	if (!X509_sign(x, key, EVP_sha256())) {
		fprintf(stderr, "cannot sign\n");
		exit(2);
	}
	return x;
}

static int64_t
epoch(const ASN1_TIME *t)
{
	struct tm tm;

	ASN1_TIME_to_tm(t, &tm);
	return (int64_t)timegm(&tm);
}

/* Copy into an exact-size heap buffer so ASan sees any over-read. */
static uint8_t *
exact_copy(const uint8_t *p, size_t len)
{
	uint8_t *q = malloc(len ? len : 1);

	memcpy(q, p, len);
	return q;
}

static void
check_shape(const struct shape *s, EVP_PKEY *key)
{
	X509 *x = make_cert(s, key);
	unsigned char *der = NULL, *sder = NULL, *ader = NULL, *kder, *sp;
	const unsigned char *iname;
	size_t ilen;
	struct crlc_span tbs;
	struct crlc_tbs t;
	uint8_t *copy;
	int len, slen, alen, klen;

	fprintf(stderr, "shape %s\n", s->name);
	len = i2d_X509(x, &der);
	CHECK(crlc_cert_tbs(der, (size_t)len, &tbs) == 0);
	copy = exact_copy(tbs.p, tbs.len);
	CHECK(crlc_tbs_parse(copy, tbs.len, &t) == 0);

	/* serial: INTEGER content octets as encoded */
	slen = i2d_ASN1_INTEGER(X509_get0_serialNumber(x), NULL);
	sp = sder = malloc((size_t)slen);
	i2d_ASN1_INTEGER(X509_get0_serialNumber(x), &sp);
	CHECK(t.serial.len == (size_t)slen - 2);
	CHECK(memcmp(t.serial.p, sder + 2, t.serial.len) == 0);

	/* sigalg: the TBS's AlgorithmIdentifier, equal to the outer one */
	alen = i2d_X509_ALGOR(X509_get0_tbs_sigalg(x), &ader);
	CHECK(t.sigalg.len == (size_t)alen &&
	    memcmp(t.sigalg.p, ader, t.sigalg.len) == 0);
	CHECK(t.sigalg.p > copy && t.sigalg.p + t.sigalg.len < copy + tbs.len);
	/* the Certificate's signatureAlgorithm follows the TBS */
	CHECK(memcmp(tbs.p + tbs.len, ader, (size_t)alen) == 0);

	X509_NAME_get0_der(X509_get_issuer_name(x), &iname, &ilen);
	CHECK(t.issuer.len == ilen && memcmp(t.issuer.p, iname, ilen) == 0);
	CHECK(t.not_before == epoch(X509_get0_notBefore(x)));
	CHECK(t.not_after == epoch(X509_get0_notAfter(x)));
	/* spki: the whole SubjectPublicKeyInfo TLV, as OpenSSL encodes it */
	kder = NULL;
	klen = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(x), &kder);
	CHECK(klen > 0 && t.spki.len == (size_t)klen &&
	    memcmp(t.spki.p, kder, t.spki.len) == 0);
	CHECK(t.spk.p > t.spki.p && t.spk.p + t.spk.len == t.spki.p + t.spki.len);
	OPENSSL_free(kder);
	CHECK(t.is_ca == s->is_ca);
	CHECK((size_t)s->want_ndp == t.ndp);
	if (s->dp != NULL && t.ndp > 0)
		CHECK(t.dp[0].len == strlen("http://127.0.0.1/a.crl") &&
		    memcmp(t.dp[0].p, "http://127.0.0.1/a.crl", t.dp[0].len) == 0);
	CHECK(t.cabf_policy == s->want_cabf);

	/* The whole Certificate is not a TBSCertificate. */
	CHECK(crlc_tbs_parse(der, (size_t)len, &t) == -1);
	free(copy);
	free(sder);
	OPENSSL_free(ader);
	OPENSSL_free(der);
	X509_free(x);
}

/* Every prefix is refused; every single-byte change stays in bounds. */
static void
check_mutations(EVP_PKEY *key)
{
	static const struct shape s = { "mut", 2, "0A1B2C", 0,
	    "URI:http://127.0.0.1/a.crl", "2.23.140.1.2.1", 90, 1, 1 };
	X509 *x = make_cert(&s, key);
	unsigned char *der = NULL;
	struct crlc_span tbs;
	struct crlc_tbs t;
	uint8_t *copy;
	size_t i, accepted = 0;
	int len, b;

	len = i2d_X509(x, &der);
	crlc_cert_tbs(der, (size_t)len, &tbs);
	for (i = 0; i < tbs.len; i++) {
		copy = exact_copy(tbs.p, i);
		CHECK(crlc_tbs_parse(copy, i, &t) == -1);
		free(copy);
	}
	copy = malloc(tbs.len + 1);
	memcpy(copy, tbs.p, tbs.len);
	copy[tbs.len] = 0;
	CHECK(crlc_tbs_parse(copy, tbs.len + 1, &t) == -1);	/* trailing byte */
	free(copy);
	for (i = 0; i < tbs.len; i++) {
		for (b = 0; b < 8; b++) {
			copy = exact_copy(tbs.p, tbs.len);
			copy[i] ^= (uint8_t)(1u << b);
			accepted += crlc_tbs_parse(copy, tbs.len, &t) == 0;
			free(copy);
		}
	}
	fprintf(stderr, "bit flips accepted: %zu of %zu\n", accepted, tbs.len * 8);
	OPENSSL_free(der);
	X509_free(x);
}

/* TBSCertList and CertificationRequestInfo must not look like a cert. */
static void
check_other_objects(EVP_PKEY *key)
{
	X509_CRL *crl = X509_CRL_new();
	X509_REQ *req = X509_REQ_new();
	X509_REVOKED *r = X509_REVOKED_new();
	X509_NAME *n = X509_NAME_new();
	ASN1_TIME *t = ASN1_TIME_new();
	ASN1_INTEGER *serial = ASN1_INTEGER_new();
	unsigned char *der = NULL;
	struct crlc_tbs tb;
	int len;

	X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC,
	    (const unsigned char *)"Test Issuer", -1, -1, 0);
	X509_CRL_set_version(crl, 1);
	X509_CRL_set_issuer_name(crl, n);
	X509_gmtime_adj(t, 0);
	X509_CRL_set1_lastUpdate(crl, t);
	X509_CRL_set1_nextUpdate(crl, t);
	ASN1_INTEGER_set(serial, 7);
	X509_REVOKED_set_serialNumber(r, serial);
	X509_REVOKED_set_revocationDate(r, t);
	X509_CRL_add0_revoked(crl, r);
	X509_CRL_sign(crl, key, EVP_sha256());
	len = i2d_re_X509_CRL_tbs(crl, &der);
	CHECK(len > 0 && crlc_tbs_parse(der, (size_t)len, &tb) == -1);
	OPENSSL_free(der);
	der = NULL;

	X509_REQ_set_subject_name(req, n);
	X509_REQ_set_pubkey(req, key);
	X509_REQ_sign(req, key, EVP_sha256());
	len = i2d_re_X509_REQ_tbs(req, &der);
	CHECK(len > 0 && crlc_tbs_parse(der, (size_t)len, &tb) == -1);
	OPENSSL_free(der);

	CHECK(crlc_tbs_parse(NULL, 0, &tb) == -1);
	CHECK(crlc_tbs_parse((const uint8_t *)"\x30\x00", 2, &tb) == -1);
	/* indefinite length is not DER */
	CHECK(crlc_tbs_parse((const uint8_t *)"\x30\x80\x00\x00", 4, &tb) == -1);

	ASN1_INTEGER_free(serial);
	ASN1_TIME_free(t);
	X509_NAME_free(n);
	X509_REQ_free(req);
	X509_CRL_free(crl);
}

int
main(void)
{
	static const struct shape shapes[] = {
		{ "v3 leaf with DP", 2, "01", 0, "URI:http://127.0.0.1/a.crl",
		    NULL, 90, 1, 0 },
		{ "v3 leaf, leading 00 serial", 2, "80FF", 0, NULL, NULL, 90, 0, 0 },
		{ "v3 leaf, 20-octet serial", 2,
		    "7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", 0, NULL, NULL, 90, 0, 0 },
		{ "v3 CA", 2, "02", 1, NULL, NULL, 3650, 0, 0 },
		{ "v3 leaf, two DPs, CA/B OV policy", 2, "03", 0,
		    "URI:http://127.0.0.1/a.crl,URI:http://[::1]/b.crl",
		    "2.23.140.1.2.2", 90, 2, 1 },
		{ "v3 leaf, other policy", 2, "04", 0, NULL, "1.3.6.1.4.1.1.1", 90, 0, 0 },
		{ "v3 leaf, CA/B S/MIME policy", 2, "06", 0, NULL, "2.23.140.1.5.1.1",
		    90, 0, 0 },
		{ "v3 leaf, CA/B EV policy", 2, "07", 0, NULL, "2.23.140.1.1", 90, 0, 1 },
		{ "v1, GeneralizedTime notAfter", 0, "05", 0, NULL, NULL,
		    365L * 40, 0, 0 },
	};
	EVP_PKEY *key = ec_key();
	size_t i;

	if (key == NULL)
		return 2;
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		check_shape(&shapes[i], key);
	check_mutations(key);
	check_other_objects(key);
	EVP_PKEY_free(key);
	return check_result();
}
