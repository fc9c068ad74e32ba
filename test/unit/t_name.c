/*
 * Unit test of the canonical Name identity (lib/name.c) over names that
 * libcrypto encodes: the same name spelt with other string types, case or
 * white space must hash alike; a different name, RDN structure or
 * attribute type must not; malformed and truncated DER is refused without
 * reading outside the buffer (ASan).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/asn1.h>
#include <openssl/x509.h>

#include "check.h"
#include <crlcache/name.h>


/* A two-RDN name O=org, CN=cn with the given string type. */
static X509_NAME *
make_name(const char *o, const char *cn, int type, int multivalued)
{
	X509_NAME *n = X509_NAME_new();
	ASN1_STRING *s;

	X509_NAME_add_entry_by_txt(n, "O", MBSTRING_ASC,
	    (const unsigned char *)o, -1, -1, 0);
	s = ASN1_STRING_type_new(type);
	if (type == V_ASN1_BMPSTRING) {
		size_t i, len = strlen(cn);
		unsigned char *u = calloc(len, 2);

		for (i = 0; i < len; i++)
			u[2 * i + 1] = (unsigned char)cn[i];
		ASN1_STRING_set(s, u, (int)(2 * len));
		free(u);
	} else
		ASN1_STRING_set(s, cn, -1);
	X509_NAME_add_entry_by_NID(n, NID_commonName, type, ASN1_STRING_get0_data(s),
	    ASN1_STRING_length(s), -1, multivalued ? -1 : 0);
	ASN1_STRING_free(s);
	return n;
}

static int
hash_of(const X509_NAME *n, uint8_t out[CRLC_HASH_LEN])
{
	const unsigned char *der;
	size_t len;
	uint8_t *copy;
	int rc;

	X509_NAME_get0_der((X509_NAME *)n, &der, &len);
	copy = malloc(len);
	memcpy(copy, der, len);
	rc = crlc_name_canon_hash(copy, len, out);
	free(copy);
	return rc;
}

static int
same(X509_NAME *a, X509_NAME *b)
{
	uint8_t ha[CRLC_HASH_LEN], hb[CRLC_HASH_LEN];
	int r;

	CHECK(hash_of(a, ha) == 0 && hash_of(b, hb) == 0);
	r = memcmp(ha, hb, sizeof(ha)) == 0;
	X509_NAME_free(a);
	X509_NAME_free(b);
	return r;
}

static void
check_truncations(void)
{
	X509_NAME *n = make_name("Org", "Test Int", V_ASN1_UTF8STRING, 0);
	const unsigned char *der;
	uint8_t h[CRLC_HASH_LEN], *copy;
	size_t len, i;

	X509_NAME_get0_der(n, &der, &len);
	for (i = 0; i < len; i++) {
		copy = malloc(i ? i : 1);
		memcpy(copy, der, i);
		CHECK(crlc_name_canon_hash(copy, i, h) == -1);
		free(copy);
	}
	X509_NAME_free(n);
	CHECK(crlc_name_canon_hash((const uint8_t *)"\x31\x00", 2, h) == -1);
	/* the empty Name is well formed */
	CHECK(crlc_name_canon_hash((const uint8_t *)"\x30\x00", 2, h) == 0);
}

static int
same_der(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	uint8_t ha[CRLC_HASH_LEN], hb[CRLC_HASH_LEN];

	CHECK(crlc_name_canon_hash(a, alen, ha) == 0);
	CHECK(crlc_name_canon_hash(b, blen, hb) == 0);
	return memcmp(ha, hb, sizeof(ha)) == 0;
}

/* AVAs of one RDN: CN=a (UTF8String), O=b (UTF8String), O=B (Printable). */
#define AVA_CN_A	"\x30\x08\x06\x03\x55\x04\x03\x0c\x01\x61"
#define AVA_O_B		"\x30\x08\x06\x03\x55\x04\x0a\x0c\x01\x62"
#define AVA_O_B_UP	"\x30\x08\x06\x03\x55\x04\x0a\x13\x01\x42"
#define DER(s)		(const uint8_t *)(s), sizeof(s) - 1

/*
 * RFC 5280 7.1 and OpenSSL's x509_name_canon: the AVAs of a multi-valued
 * RDN compare as a set (sorted after conversion), and an empty RDN is no
 * part of the name.
 */
static void
check_rdn_sets(void)
{
	uint8_t h[CRLC_HASH_LEN];

	/* CN=a+O=b in both encoded orders, and with O spelt otherwise */
	CHECK(same_der(DER("\x30\x16\x31\x14" AVA_CN_A AVA_O_B),
	    DER("\x30\x16\x31\x14" AVA_O_B AVA_CN_A)));
	CHECK(same_der(DER("\x30\x16\x31\x14" AVA_CN_A AVA_O_B),
	    DER("\x30\x16\x31\x14" AVA_O_B_UP AVA_CN_A)));
	/* ... but not as two RDNs, in either order */
	CHECK(!same_der(DER("\x30\x16\x31\x14" AVA_CN_A AVA_O_B),
	    DER("\x30\x18\x31\x0a" AVA_CN_A "\x31\x0a" AVA_O_B)));
	CHECK(!same_der(DER("\x30\x18\x31\x0a" AVA_O_B "\x31\x0a" AVA_CN_A),
	    DER("\x30\x18\x31\x0a" AVA_CN_A "\x31\x0a" AVA_O_B)));
	/* a repeated AVA is not dropped: CN=a+CN=a is not CN=a */
	CHECK(!same_der(DER("\x30\x16\x31\x14" AVA_CN_A AVA_CN_A),
	    DER("\x30\x0c\x31\x0a" AVA_CN_A)));
	/* empty RDNs, anywhere, are dropped */
	CHECK(same_der(DER("\x30\x02\x31\x00"), DER("\x30\x00")));
	CHECK(same_der(DER("\x30\x1e\x31\x00\x31\x0a" AVA_O_B "\x31\x00"
	    "\x31\x0a" AVA_CN_A "\x31\x00"),
	    DER("\x30\x18\x31\x0a" AVA_O_B "\x31\x0a" AVA_CN_A)));
	/* NumericString is not a DirectoryString OpenSSL converts: kept raw */
	CHECK(!same_der(DER("\x30\x0f\x31\x0d\x30\x0b\x06\x03\x55\x04"
	    "\x05\x12\x04\x31\x20\x20\x32"), DER("\x30\x0f\x31\x0d\x30"
	    "\x0b\x06\x03\x55\x04\x05\x13\x04\x31\x20\x20\x32")));
	/* a RDN with more AVAs than NAME_AVA_MAX is refused, not overrun */
	{
		uint8_t big[4 + 4 + 65 * 10];
		size_t i, n = 0;

		big[n++] = 0x30; big[n++] = 0x82; big[n++] = 0x02; big[n++] = 0x92;
		big[n++] = 0x31; big[n++] = 0x82; big[n++] = 0x02; big[n++] = 0x8a;
		for (i = 0; i < 65; i++, n += 10)
			memcpy(big + n, AVA_CN_A, 10);
		CHECK(n == sizeof(big));
		CHECK(crlc_name_canon_hash(big, n, h) == -1);
	}
}

int
main(void)
{
	CHECK(same(make_name("Org", "Test Int", V_ASN1_PRINTABLESTRING, 0),
	    make_name("Org", "test int", V_ASN1_UTF8STRING, 0)));
	CHECK(same(make_name("Org", "Test Int", V_ASN1_UTF8STRING, 0),
	    make_name("org", "  TEST   Int ", V_ASN1_UTF8STRING, 0)));
	CHECK(same(make_name("Org", "Test Int", V_ASN1_UTF8STRING, 0),
	    make_name("Org", "Test Int", V_ASN1_BMPSTRING, 0)));
	CHECK(same(make_name("Org", "Test Int", V_ASN1_UTF8STRING, 0),
	    make_name("Org", "Test Int", V_ASN1_T61STRING, 0)));
	CHECK(!same(make_name("Org", "Test Int", V_ASN1_UTF8STRING, 0),
	    make_name("Org", "Test Int2", V_ASN1_UTF8STRING, 0)));
	CHECK(!same(make_name("Org", "TestInt", V_ASN1_UTF8STRING, 0),
	    make_name("Org", "Test Int", V_ASN1_UTF8STRING, 0)));
	/* O=Org + CN=x in one RDN is not O=Org, CN=x */
	CHECK(!same(make_name("Org", "Test Int", V_ASN1_UTF8STRING, 1),
	    make_name("Org", "Test Int", V_ASN1_UTF8STRING, 0)));
	check_truncations();
	check_rdn_sets();
	return check_result();
}
