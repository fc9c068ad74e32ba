/*
 * Unit test of the CRLite certificate inputs (lib/sct.c), under
 * ASan+UBSan: on the real leaf and issuer certificates of
 * test/data/crlite/sites the serial, SubjectPublicKeyInfo and embedded
 * SCTs read are OpenSSL's (X509_get0_serialNumber, X509_get_X509_PUBKEY,
 * its CT API's SCT list); every truncation of a real SCT list is refused;
 * SCT lists built here with one field wrong each are refused, 16 SCTs
 * are read and 17 refused; certificates without the extension or with it
 * twice (made with libcrypto) read as none and are refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/ct.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "check.h"
#include <crlcache/sct.h>

static const char *const sites[] = {
	"comodo-ecc", "digicert-p384-g5", "emsign-c1", "gts-root-r1",
	"gts-root-r3", "isrg-root-x1", "isrg-root-x2", "secom-rootca2",
};

static uint8_t *
slurp(const char *path, size_t *len)
{
	static uint8_t tmp[64 * 1024];
	uint8_t *out;
	FILE *f;

	if ((f = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(2);
	}
	*len = fread(tmp, 1, sizeof(tmp), f);
	fclose(f);
	if (*len == 0 || *len == sizeof(tmp) || (out = malloc(*len)) == NULL)
		exit(2);
	memcpy(out, tmp, *len);
	return out;
}

/* Our reading of a DER certificate; -1 with why on stderr. */
static int
inputs(const uint8_t *der, size_t len, struct crlc_crlite_cert *c,
    struct crlc_sct *scts, size_t *n)
{
	struct crlc_span tbs;
	struct crlc_tbs t;
	const char *why = "not a Certificate";

	*n = 0;
	if (crlc_cert_tbs(der, len, &tbs) != 0 ||
	    crlc_crlite_cert(tbs.p, tbs.len, c, &why) != 0 ||
	    (c->sct_list.len != 0 && crlc_sct_list(c->sct_list.p,
	    c->sct_list.len, scts, n, &why) != 0)) {
		fprintf(stderr, "refused: %s\n", why);
		return -1;
	}
	/* the provider's one walk of the extensions finds the same list */
	CHECK(crlc_tbs_parse(tbs.p, tbs.len, &t) == 0 &&
	    t.sct_list.p == c->sct_list.p && t.sct_list.len == c->sct_list.len);
	return 0;
}

/* The inputs equal what OpenSSL reads from the same certificate. */
static void
check_against_openssl(const uint8_t *der, size_t len, int want_scts)
{
	const unsigned char *p = der;
	unsigned char *id, *spki = NULL, *serial = NULL;
	struct crlc_sct scts[CRLC_SCT_MAX];
	struct crlc_crlite_cert c;
	STACK_OF(SCT) *list;
	size_t n, i;
	int spki_len, serial_len;
	X509 *x;

	CHECK((x = d2i_X509(NULL, &p, (long)len)) != NULL);
	if (x == NULL || inputs(der, len, &c, scts, &n) != 0) {
		CHECK(0);
		X509_free(x);
		return;
	}
	spki_len = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(x), &spki);
	CHECK(spki_len > 0 && (size_t)spki_len == c.spki.len &&
	    memcmp(spki, c.spki.p, c.spki.len) == 0);
	/* the INTEGER's DER: 02, a one-octet length, the content octets */
	serial_len = i2d_ASN1_INTEGER(X509_get0_serialNumber(x), &serial);
	CHECK(serial_len > 2 && (size_t)serial_len == c.serial.len + 2 &&
	    memcmp(serial + 2, c.serial.p, c.serial.len) == 0);
	list = X509_get_ext_d2i(x, NID_ct_precert_scts, NULL, NULL);
	CHECK((list != NULL) == want_scts);
	CHECK(n == (list ? (size_t)sk_SCT_num(list) : 0) && (n > 0) == want_scts);
	for (i = 0; list != NULL && i < n; i++) {
		SCT *s = sk_SCT_value(list, (int)i);

		CHECK(SCT_get0_log_id(s, &id) == CRLC_SCT_HASH_LEN &&
		    memcmp(id, scts[i].log_id, CRLC_SCT_HASH_LEN) == 0);
		CHECK(SCT_get_timestamp(s) == scts[i].timestamp);
	}
	SCT_LIST_free(list);
	OPENSSL_free(spki);
	OPENSSL_free(serial);
	X509_free(x);
}

static void
check_truncations(const struct crlc_span *list)
{
	struct crlc_sct scts[CRLC_SCT_MAX];
	const char *why;
	uint8_t *copy;
	size_t k, n;

	for (k = 0; k < list->len; k++) {
		if ((copy = malloc(k ? k : 1)) == NULL)
			exit(2);
		memcpy(copy, list->p, k);
		CHECK(crlc_sct_list(copy, k, scts, &n, &why) == -1 && n == 0);
		free(copy);
	}
}

static void
check_sites(void)
{
	struct crlc_sct scts[CRLC_SCT_MAX];
	struct crlc_crlite_cert c;
	char path[300];
	uint8_t *der;
	size_t i, len, n;

	for (i = 0; i < sizeof(sites) / sizeof(sites[0]); i++) {
		snprintf(path, sizeof(path), "test/data/crlite/sites/%s.leaf.der",
		    sites[i]);
		der = slurp(path, &len);
		check_against_openssl(der, len, 1);
		if (inputs(der, len, &c, scts, &n) == 0)
			check_truncations(&c.sct_list);
		free(der);
		snprintf(path, sizeof(path),
		    "test/data/crlite/sites/%s.issuer.der", sites[i]);
		der = slurp(path, &len);
		check_against_openssl(der, len, 0);
		free(der);
	}
}

/* The OCTET STRING of an SCT list of nscts SCTs, one field spoilt. */
enum spoil { GOOD, VERSION1, EXT_PAST_END, SIG_SHORT, TRAILING, LIST_LEN,
	EMPTY_LIST, NOT_OCTETS };
static size_t
sct_list_make(uint8_t *out, size_t nscts, enum spoil spoil)
{
	uint8_t body[8192], *p = body + 2;
	size_t i, list, len, h = 0;
	int k;

	for (i = 0; i < nscts; i++) {
		uint8_t *sct = p;

		p += 2;
		*p++ = spoil == VERSION1 && i == 1 ? 1 : 0;
		memset(p, (int)i + 1, CRLC_SCT_HASH_LEN);
		p += CRLC_SCT_HASH_LEN;
		for (k = 7; k >= 0; k--)
			*p++ = (uint8_t)((1700000000000ULL + i) >> (8 * k));
		*p++ = 0;		/* extensions: 3 bytes, or past the end */
		*p++ = spoil == EXT_PAST_END ? 0xff : 3;
		memcpy(p, "ext", 3);
		p += 3;
		*p++ = 4;		/* SHA-256 */
		*p++ = 3;		/* ECDSA */
		*p++ = 0;
		*p++ = 8;
		memset(p, 0x5a, 8);
		p += spoil == SIG_SHORT ? 7 : 8;
		sct[0] = (uint8_t)((p - sct - 2) >> 8);
		sct[1] = (uint8_t)(p - sct - 2);
	}
	if (spoil == TRAILING)
		*p++ = 0;
	len = (size_t)(p - body);
	list = len - 2 - (spoil == LIST_LEN);
	body[0] = (uint8_t)(list >> 8);
	body[1] = (uint8_t)list;
	/* DER: the shortest length form (X.690 10.1) */
	out[h++] = spoil == NOT_OCTETS ? 0x03 : 0x04;
	if (len >= 256) {
		out[h++] = 0x82;
		out[h++] = (uint8_t)(len >> 8);
	} else if (len >= 128)
		out[h++] = 0x81;
	out[h++] = (uint8_t)len;
	memcpy(out + h, body, len);
	return h + len;
}

static void
check_built(void)
{
	static const enum spoil bad[] = { VERSION1, EXT_PAST_END, SIG_SHORT,
	    TRAILING, LIST_LEN, NOT_OCTETS };
	struct crlc_sct scts[CRLC_SCT_MAX];
	uint8_t buf[8200];
	const char *why;
	size_t len, n, i;

	len = sct_list_make(buf, 3, GOOD);
	CHECK(crlc_sct_list(buf, len, scts, &n, &why) == 0 && n == 3);
	CHECK(scts[2].log_id[0] == 3 && scts[2].timestamp == 1700000000002ULL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		len = sct_list_make(buf, 3, bad[i]);
		why = NULL;
		CHECK(crlc_sct_list(buf, len, scts, &n, &why) == -1 && n == 0 &&
		    why != NULL);
	}
	len = sct_list_make(buf, 0, EMPTY_LIST);
	CHECK(crlc_sct_list(buf, len, scts, &n, &why) == -1);
	CHECK(strstr(why, "empty") != NULL);
	len = sct_list_make(buf, CRLC_SCT_MAX, GOOD);
	CHECK(crlc_sct_list(buf, len, scts, &n, &why) == 0 &&
	    n == CRLC_SCT_MAX);
	len = sct_list_make(buf, CRLC_SCT_MAX + 1, GOOD);
	CHECK(crlc_sct_list(buf, len, scts, &n, &why) == -1);
	CHECK(strstr(why, "CRLC_SCT_MAX") != NULL);
}

/* A certificate with the SCT list extension value given (twice: twice). */
static size_t
cert_make(EVP_PKEY *key, const uint8_t *ext, size_t extlen, int copies,
    uint8_t *out, size_t max)
{
	ASN1_OCTET_STRING *os = ASN1_OCTET_STRING_new();
	ASN1_OBJECT *obj = OBJ_nid2obj(NID_ct_precert_scts);
	X509_EXTENSION *e;
	X509_NAME *name = X509_NAME_new();
	unsigned char *p = out;
	X509 *x = X509_new();
	int i, len;

	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 0x80);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
	    (const unsigned char *)"sct test", -1, -1, 0);
	X509_set_issuer_name(x, name);
	X509_set_subject_name(x, name);
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_gmtime_adj(X509_getm_notAfter(x), 86400);
	X509_set_pubkey(x, key);
	ASN1_OCTET_STRING_set(os, ext, (int)extlen);
	e = X509_EXTENSION_create_by_OBJ(NULL, obj, 0, os);
	for (i = 0; i < copies; i++)
		X509_add_ext(x, e, -1);
	X509_sign(x, key, EVP_sha256());
	len = i2d_X509(x, NULL);
	CHECK(len > 0 && (size_t)len <= max);
	i2d_X509(x, &p);
	X509_EXTENSION_free(e);
	ASN1_OCTET_STRING_free(os);
	X509_NAME_free(name);
	X509_free(x);
	return (size_t)len;
}

static void
check_made(void)
{
	struct crlc_sct scts[CRLC_SCT_MAX];
	struct crlc_crlite_cert c;
	uint8_t list[1024], der[4096];
	EVP_PKEY *key = EVP_EC_gen("P-256");
	struct crlc_span tbs;
	const char *why;
	size_t len, n;

	len = sct_list_make(list, 2, GOOD);
	n = cert_make(key, list, len, 1, der, sizeof(der));
	check_against_openssl(der, n, 1);
	/* serial 0x80: its DER content is 00 80, the 0x00 kept */
	CHECK(crlc_cert_tbs(der, n, &tbs) == 0 &&
	    crlc_crlite_cert(tbs.p, tbs.len, &c, &why) == 0 &&
	    c.serial.len == 2 && c.serial.p[0] == 0 && c.serial.p[1] == 0x80);
	n = cert_make(key, list, len, 0, der, sizeof(der));
	check_against_openssl(der, n, 0);
	CHECK(inputs(der, n, &c, scts, &len) == 0 && c.sct_list.len == 0);
	len = sct_list_make(list, 2, GOOD);
	n = cert_make(key, list, len, 2, der, sizeof(der));
	CHECK(crlc_cert_tbs(der, n, &tbs) == 0 &&
	    crlc_crlite_cert(tbs.p, tbs.len, &c, &why) == -1);
	CHECK(strstr(why, "twice") != NULL);
	EVP_PKEY_free(key);
}

int
main(void)
{
	check_sites();
	check_built();
	check_made();
	return check_result();
}
