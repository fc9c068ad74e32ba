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
	CHECK(crlc_name_canon_hash((const uint8_t *)"\x30\x02\x31\x00", 4, h) == -1);
	/* the empty Name is well formed */
	CHECK(crlc_name_canon_hash((const uint8_t *)"\x30\x00", 2, h) == 0);
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
	return check_result();
}
