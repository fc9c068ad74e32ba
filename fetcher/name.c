/*
 * Issuer identities for the index (format.h "canon", "alias" and "key").
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * A CA may encode its name differently in its certificate and in its CRL
 * (PrintableString vs UTF8String, case).  The canonical form is computed
 * by the library the readers use too (lib/name.c), so that the fetcher and
 * the provider always agree on it.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/x509.h>

#include <crlcache/hash.h>
#include <crlcache/name.h>
#include <crlcache/point.h>

#include "fetcher.h"
#include "name.h"

int
name_canon_hash(const X509_NAME *name, uint8_t out[CRLC_HASH_LEN])
{
	const unsigned char *der;
	size_t len;

	if (!X509_NAME_get0_der((X509_NAME *)name, &der, &len))
		return -1;
	return crlc_name_canon_hash(der, len, out);
}

int
name_der_hash(const X509_NAME *name, uint8_t out[CRLC_HASH_LEN])
{
	const unsigned char *der;
	size_t len;

	if (!X509_NAME_get0_der((X509_NAME *)name, &der, &len))
		return -1;
	crlc_sha256(der, len, out);
	return 0;
}

static int
pkey_params(void *pkey, OSSL_PARAM params[])
{
	return EVP_PKEY_get_params(pkey, params);
}

/*
 * The subjectPublicKey's bits, but an EC point uncompressed whatever the
 * certificate's form: the provider sees a key object, not these bytes
 * (format.h "key").
 */
int
cert_key_hash(X509 *x, uint8_t out[CRLC_HASH_LEN])
{
	const ASN1_BIT_STRING *spk = x != NULL ? X509_get0_pubkey_bitstr(x) : NULL;
	uint8_t point[CRLC_POINT_MAX];
	EVP_PKEY *pk;
	size_t len;

	if (spk == NULL || spk->length <= 0)
		return -1;
	if ((pk = X509_get0_pubkey(x)) != NULL &&
	    (EVP_PKEY_is_a(pk, "EC") || EVP_PKEY_is_a(pk, "SM2"))) {
		if ((len = crlc_key_point(pkey_params, pk, point)) == 0)
			return -1;
		crlc_sha256(point, len, out);
		return 0;
	}
	crlc_sha256(spk->data, (size_t)spk->length, out);
	return 0;
}

void
name_text(const X509_NAME *name, char *out, size_t len)
{
	BIO *b;
	int n;

	if (len == 0 || (b = BIO_new(BIO_s_mem())) == NULL)
		return;
	if (X509_NAME_print_ex(b, name, 0, XN_FLAG_RFC2253) >= 0 &&
	    (n = BIO_read(b, out, (int)len - 1)) >= 0)
		out[n] = '\0';
	BIO_free(b);
}

/*
 * RFC 5280 4.1.2.2: a serial number is at most 20 octets; one longer is
 * shown by its first 20 and "...".
 */
#define SERIAL_SHOWN	20

void
cert_id_text(X509 *x, char *out, size_t len)
{
	char issuer[512], subject[512];
	const ASN1_INTEGER *sn = X509_get0_serialNumber(x);
	const char *neg = sn->type == V_ASN1_NEG_INTEGER ? "-" : "";
	char serial[2 * SERIAL_SHOWN + 4] = "?";

	if (sn->length > 0)	/* else "?" */
		crlc_hex_encode(sn->data, sn->length < SERIAL_SHOWN ?
		    (size_t)sn->length : SERIAL_SHOWN, serial, 1);
	if (sn->length > SERIAL_SHOWN)
		memcpy(serial + 2 * SERIAL_SHOWN, "...", 4);
	issuer[0] = subject[0] = '\0';
	name_text(X509_get_issuer_name(x), issuer, sizeof(issuer));
	name_text(X509_get_subject_name(x), subject, sizeof(subject));
	if (subject[0] != '\0')
		snprintf(out, len, "%s (serial %s%s of %s)", subject, neg,
		    serial, issuer);
	else
		snprintf(out, len, "serial %s%s of %s", neg, serial, issuer);
}

int
cert_spki_hash(X509 *x, uint8_t h[CRLC_HASH_LEN])
{
	unsigned char *der = NULL;
	int len;

	if ((len = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(x), &der)) <= 0)
		return -1;
	crlc_sha256(der, (size_t)len, h);
	OPENSSL_free(der);
	return 0;
}
