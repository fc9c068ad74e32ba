/*
 * Unit test of distribution point names as scopes (lib/dpname.c) and of
 * their collection from a certificate (lib/tbs.c): a directoryName and a
 * nameRelativeToCRLIssuer naming the same full name give the same scope,
 * the same one the fetcher computes from OpenSSL's own expansion
 * (DIST_POINT_set_dpname), names match in their canonical form, a
 * relative name under a cRLIssuer is not collected among the issuer's
 * own names but among the indirect ones (relative to the cRLIssuer), as
 * are the names of every distribution point with a cRLIssuer, and a URI
 * posing as a directoryName scope matches nothing.  A scope key's kind
 * component (format.h SCOPE KINDS) reads back before and after a reasons
 * suffix, and sorts after the bare name's reason partitions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "check.h"
#include <crlcache/dpname.h>
#include <crlcache/reasons.h>
#include <crlcache/tbs.h>

static X509_NAME *
issuer_name(void)
{
	X509_NAME *n = X509_NAME_new();

	X509_NAME_add_entry_by_txt(n, "C", MBSTRING_ASC,
	    (const unsigned char *)"US", -1, -1, 0);
	X509_NAME_add_entry_by_txt(n, "O", MBSTRING_ASC,
	    (const unsigned char *)"Test Certificates 2011", -1, -1, 0);
	return n;
}

static X509_NAME_ENTRY *
cn(const char *v)
{
	return X509_NAME_ENTRY_create_by_txt(NULL, "CN", MBSTRING_ASC,
	    (const unsigned char *)v, -1);
}

/* issuer + CN=cnv, as a DER-encoded Name; *len its length. */
static unsigned char *
full_der(const char *cnv, int *len)
{
	X509_NAME *n = issuer_name();
	unsigned char *der = NULL;

	X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_UTF8,
	    (const unsigned char *)cnv, -1, -1, 0);
	*len = i2d_X509_NAME(n, &der);
	X509_NAME_free(n);
	return der;
}

static DIST_POINT *
dp_full(const char *uri, const char *dircn)
{
	DIST_POINT *dp = DIST_POINT_new();
	GENERAL_NAME *gn;
	X509_NAME *n;

	dp->distpoint = DIST_POINT_NAME_new();
	dp->distpoint->type = 0;
	dp->distpoint->name.fullname = sk_GENERAL_NAME_new_null();
	gn = GENERAL_NAME_new();
	gn->type = GEN_URI;
	gn->d.uniformResourceIdentifier = ASN1_IA5STRING_new();
	ASN1_STRING_set(gn->d.uniformResourceIdentifier, uri, -1);
	sk_GENERAL_NAME_push(dp->distpoint->name.fullname, gn);
	n = issuer_name();
	X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC,
	    (const unsigned char *)dircn, -1, -1, 0);
	gn = GENERAL_NAME_new();
	gn->type = GEN_DIRNAME;
	gn->d.directoryName = n;
	sk_GENERAL_NAME_push(dp->distpoint->name.fullname, gn);
	return dp;
}

static DIST_POINT *
dp_relative(const char *rdncn, int crl_issuer)
{
	DIST_POINT *dp = DIST_POINT_new();
	GENERAL_NAME *gn;

	dp->distpoint = DIST_POINT_NAME_new();
	dp->distpoint->type = 1;
	dp->distpoint->name.relativename = sk_X509_NAME_ENTRY_new_null();
	sk_X509_NAME_ENTRY_push(dp->distpoint->name.relativename, cn(rdncn));
	if (crl_issuer) {
		dp->CRLissuer = sk_GENERAL_NAME_new_null();
		gn = GENERAL_NAME_new();
		gn->type = GEN_DIRNAME;
		gn->d.directoryName = issuer_name();
		sk_GENERAL_NAME_push(dp->CRLissuer, gn);
	}
	return dp;
}

/* A cRLIssuer of issuer + CN=cnv onto dp. */
static DIST_POINT *
with_crl_issuer(DIST_POINT *dp, const char *cnv)
{
	GENERAL_NAME *gn = GENERAL_NAME_new();
	X509_NAME *n = issuer_name();

	X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC,
	    (const unsigned char *)cnv, -1, -1, 0);
	/* a URI first: the directoryName is what names the CRL issuer */
	dp->CRLissuer = sk_GENERAL_NAME_new_null();
	gn->type = GEN_URI;
	gn->d.uniformResourceIdentifier = ASN1_IA5STRING_new();
	ASN1_STRING_set(gn->d.uniformResourceIdentifier, "http://x/", -1);
	sk_GENERAL_NAME_push(dp->CRLissuer, gn);
	gn = GENERAL_NAME_new();
	gn->type = GEN_DIRNAME;
	gn->d.directoryName = n;
	sk_GENERAL_NAME_push(dp->CRLissuer, gn);
	return dp;
}

static X509 *
sign_with_dps(EVP_PKEY *key, STACK_OF(DIST_POINT) *dps)
{
	X509 *x = X509_new();
	X509_NAME *n = issuer_name();

	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 7);
	X509_set_issuer_name(x, n);
	X509_set_subject_name(x, n);
	X509_NAME_free(n);
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_gmtime_adj(X509_getm_notAfter(x), 86400);
	X509_set_pubkey(x, key);
	if (!X509_add1_ext_i2d(x, NID_crl_distribution_points, dps, 0,
	    X509V3_ADD_DEFAULT) || !X509_sign(x, key, EVP_sha256())) {
		fprintf(stderr, "cannot build the certificate\n");
		exit(2);
	}
	sk_DIST_POINT_pop_free(dps, DIST_POINT_free);
	return x;
}

/*
 * Distribution points with a cRLIssuer (RFC 5280 4.2.1.13): kept apart
 * (ind), never among the issuer's own names; the CRL issuer is the
 * cRLIssuer's directoryName; a relative name is relative to it.
 */
static void
test_indirect(EVP_PKEY *key)
{
	STACK_OF(DIST_POINT) *dps = sk_DIST_POINT_new_null();
	char want[CRLC_SCOPE_DIRNAME_LEN + 1], rel[CRLC_SCOPE_DIRNAME_LEN + 1];
	uint8_t got[CRLC_SCOPE_URI_MAX];
	unsigned char *der = NULL, *name;
	DIST_POINT *bare = DIST_POINT_new();
	struct crlc_span tbs, rdn;
	struct crlc_tbs t;
	size_t len;
	X509 *x;
	int n;

	sk_DIST_POINT_push(dps, with_crl_issuer(dp_full("http://ind/a.crl",
	    "IND"), "Other"));
	sk_DIST_POINT_push(dps, with_crl_issuer(dp_relative("Part", 0),
	    "Other"));
	sk_DIST_POINT_push(dps, with_crl_issuer(bare, "Other"));
	x = sign_with_dps(key, dps);
	n = i2d_X509(x, &der);
	CHECK(n > 0 && crlc_cert_tbs(der, (size_t)n, &tbs) == 0);
	CHECK(crlc_tbs_parse(tbs.p, tbs.len, &t) == 0);
	CHECK(t.ndp == 0 && t.ndpdir == 0 && t.ndprel == 0);
	CHECK(crlc_dp_count(&t) == 0);
	CHECK(t.dp_indirect_only == 1);
	CHECK(t.nind == 4);
	CHECK(t.ind[0].kind == CRLC_DPN_URI && t.ind[1].kind == CRLC_DPN_DIR &&
	    t.ind[2].kind == CRLC_DPN_REL && t.ind[3].kind == CRLC_DPN_NONE);
	/* the CRL issuer: issuer + CN=Other */
	name = full_der("Other", &n);
	CHECK(t.ind[0].crl_issuer.len == (size_t)n &&
	    memcmp(t.ind[0].crl_issuer.p, name, (size_t)n) == 0);
	CHECK(t.ind[3].crl_issuer.len == (size_t)n);
	/* the relative name is relative to the cRLIssuer */
	rdn = t.ind[2].name;
	CHECK(crlc_scope_relative(&t.ind[2].crl_issuer, &rdn, want) == 0);
	CHECK(crlc_ind_scope(&t.ind[2], got, sizeof(got), &len) == 0 &&
	    len == CRLC_SCOPE_DIRNAME_LEN && memcmp(got, want, len) == 0);
	CHECK(crlc_scope_relative(&t.issuer, &rdn, rel) == 0 &&
	    strcmp(rel, want) != 0);
	OPENSSL_free(name);
	CHECK(crlc_ind_scope(&t.ind[0], got, sizeof(got), &len) == 0 &&
	    len == 16 && memcmp(got, "http://ind/a.crl", 16) == 0);
	name = full_der("IND", &n);
	CHECK(crlc_scope_dirname(name, (size_t)n, want) == 0);
	CHECK(crlc_ind_scope(&t.ind[1], got, sizeof(got), &len) == 0 &&
	    len == CRLC_SCOPE_DIRNAME_LEN && memcmp(got, want, len) == 0);
	OPENSSL_free(name);
	CHECK(crlc_ind_scope(&t.ind[3], got, sizeof(got), &len) == 0 &&
	    len == 0);
	OPENSSL_free(der);
	X509_free(x);
}

static X509 *
make_cert(EVP_PKEY *key)
{
	STACK_OF(DIST_POINT) *dps = sk_DIST_POINT_new_null();

	sk_DIST_POINT_push(dps, dp_full("#dirName:0000", "CRL1"));
	sk_DIST_POINT_push(dps, dp_relative("crl1", 0));
	sk_DIST_POINT_push(dps, dp_relative("CRL2", 1));
	return sign_with_dps(key, dps);
}

/* The fetcher's way (fetcher/idp.c): OpenSSL makes the relative name full. */
static void
openssl_relative_scope(const char *rdncn, char out[CRLC_SCOPE_DIRNAME_LEN + 1])
{
	DIST_POINT *dp = dp_relative(rdncn, 0);
	X509_NAME *iss = issuer_name();
	unsigned char *der = NULL;
	int len;

	if (!DIST_POINT_set_dpname(dp->distpoint, iss) ||
	    (len = i2d_X509_NAME(dp->distpoint->dpname, &der)) <= 0 ||
	    crlc_scope_dirname(der, (size_t)len, out) == -1) {
		fprintf(stderr, "cannot expand the relative name\n");
		exit(2);
	}
	OPENSSL_free(der);
	X509_NAME_free(iss);
	DIST_POINT_free(dp);
}

static void
test_kind(void)
{
	uint8_t key[64], part[64];
	size_t n, m, namelen;

	memcpy(key, "http://x/a.crl", 14);
	CHECK(crlc_scope_put_kind(key + 14, 0) == 0);
	CHECK(crlc_scope_put_kind(key + 14, CRLC_CRL_HAS_DELTA) == 0);
	CHECK(crlc_scope_kind(key, 14, &namelen) == 0 && namelen == 14);
	n = 14 + crlc_scope_put_kind(key + 14, CRLC_CRL_CA_ONLY |
	    CRLC_CRL_HAS_DELTA);
	CHECK(n == 16 && key[14] == 0 && key[15] == (0x80 | CRLC_CRL_CA_ONLY));
	CHECK(crlc_scope_kind(key, n, &namelen) == CRLC_CRL_CA_ONLY &&
	    namelen == 14);
	/* then a reasons suffix: each read from the end in turn */
	n += crlc_scope_put_reasons(key + n, 0x0102);
	CHECK(crlc_scope_reasons(key, n, &m) == 0x0102 && m == 16);
	CHECK(crlc_scope_kind(key, m, &namelen) == CRLC_CRL_CA_ONLY &&
	    namelen == 14);
	/* the bare name's partition with the highest first mask byte sorts
	   before the kind */
	memcpy(part, key, 14);
	m = 14 + crlc_scope_put_reasons(part + 14, 0x01fc);
	CHECK(memcmp(part, key, 16) < 0 && m == 17);
	/* the complete CRL's name is empty */
	n = crlc_scope_put_kind(key, CRLC_CRL_USER_ONLY | CRLC_CRL_INDIRECT);
	CHECK(crlc_scope_kind(key, n, &namelen) == (CRLC_CRL_USER_ONLY |
	    CRLC_CRL_INDIRECT) && namelen == 0);
	n += crlc_scope_put_reasons(key + n, 0x0002);
	CHECK(crlc_scope_reasons(key, n, &m) == 0x0002 && m == 2 &&
	    crlc_scope_kind(key, m, &namelen) != 0 && namelen == 0);
	/* a name and a reasons suffix hold no kind */
	memcpy(key, "http://x/a.crl", 14);
	n = 14 + crlc_scope_put_reasons(key + 14, 0x0080);
	CHECK(crlc_scope_reasons(key, n, &m) == 0x0080 &&
	    crlc_scope_kind(key, m, &namelen) == 0 && namelen == 14);
}

int
main(void)
{
	char want[CRLC_SCOPE_DIRNAME_LEN + 1], other[CRLC_SCOPE_DIRNAME_LEN + 1];
	uint8_t got[CRLC_SCOPE_URI_MAX];
	EVP_PKEY *key = EVP_EC_gen("P-256");
	unsigned char *der = NULL, *name;
	struct crlc_span tbs;
	struct crlc_tbs t;
	size_t len;
	X509 *x;
	int n;

	if (key == NULL)
		return 2;
	x = make_cert(key);
	n = i2d_X509(x, &der);
	CHECK(n > 0 && crlc_cert_tbs(der, (size_t)n, &tbs) == 0);
	CHECK(crlc_tbs_parse(tbs.p, tbs.len, &t) == 0);
	CHECK(t.ndp == 1 && t.ndpdir == 1 && t.ndprel == 1);
	CHECK(crlc_dp_count(&t) == 3);
	/* the relative name under a cRLIssuer: an indirect one */
	CHECK(t.nind == 1 && t.ind[0].kind == CRLC_DPN_REL &&
	    t.dp_indirect_only == 0);

	/* A URI that poses as a directoryName scope is no scope. */
	CHECK(crlc_dp_scope(&t, 0, got, sizeof(got), &len) == -1 ||
	    !crlc_scope_is_dirname(got, len));

	name = full_der("CRL1", &n);
	CHECK(crlc_scope_dirname(name, (size_t)n, want) == 0);
	CHECK(crlc_scope_is_dirname((const uint8_t *)want, strlen(want)));
	OPENSSL_free(name);
	/* the directoryName, and the relative name "crl1" (case folded) */
	CHECK(crlc_dp_scope(&t, 1, got, sizeof(got), &len) == 0 &&
	    len == CRLC_SCOPE_DIRNAME_LEN && memcmp(got, want, len) == 0);
	CHECK(crlc_dp_scope(&t, 2, got, sizeof(got), &len) == 0 &&
	    len == CRLC_SCOPE_DIRNAME_LEN && memcmp(got, want, len) == 0);
	CHECK(crlc_dp_scope(&t, 3, got, sizeof(got), &len) == -1);
	/* the fetcher's expansion of the same relative name agrees */
	openssl_relative_scope("CRL1", other);
	CHECK(strcmp(other, want) == 0);
	openssl_relative_scope("CRL2", other);
	CHECK(strcmp(other, want) != 0);
	/* too small an output buffer is refused, not overrun */
	CHECK(crlc_dp_scope(&t, 1, got, CRLC_SCOPE_DIRNAME_LEN - 1, &len) == -1);
	/* a malformed RDN or issuer is refused */
	{
		const struct crlc_span bad = { (const uint8_t *)"\x30", 1 };
		const struct crlc_span rdn = { t.dprel[0].p, t.dprel[0].len };

		CHECK(crlc_scope_relative(&bad, &rdn, other) == -1);
		CHECK(crlc_scope_relative(&t.issuer, &bad, other) == -1);
	}

	OPENSSL_free(der);
	X509_free(x);
	test_indirect(key);
	test_kind();
	EVP_PKEY_free(key);
	return check_result();
}
