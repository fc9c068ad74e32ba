/*
 * Issuer name identities for the index (format.h "canon" and "alias").
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * A CA may encode its name differently in its certificate and in its CRL
 * (PrintableString vs UTF8String, case).  RFC 5280 7.1 asks relying
 * parties to compare names after RFC 4518 string preparation; we use the
 * common simplification (UTF-8, ASCII case folding, white space folding)
 * to decide that two encodings are one issuer.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/x509.h>

#include <crlcache/hash.h>

#include "fetcher.h"

/* RFC 5280 4.1.2.4 bounds nothing; real names stay far below this. */
#define MAX_NAME_BYTES	65536

struct buf {
	uint8_t	*p;
	size_t	 len;
	size_t	 cap;
};

static int
buf_add(struct buf *b, const void *data, size_t len)
{
	uint8_t *p;

	if (b->len + len > MAX_NAME_BYTES)
		return -1;
	if (b->len + len > b->cap) {
		size_t cap = (b->len + len) * 2;

		if ((p = realloc(b->p, cap)) == NULL)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
	return 0;
}

static int
buf_add_u32(struct buf *b, uint32_t v)
{
	uint8_t be[4];

	crlc_put_u32(be, v);
	return buf_add(b, be, sizeof(be));
}

/* Fold one UTF-8 attribute value: trim, squeeze white space, lower ASCII. */
static int
fold_value(struct buf *b, const unsigned char *s, size_t len)
{
	size_t i, start = b->len;
	int space = 0;
	uint8_t c;

	for (i = 0; i < len; i++) {
		c = s[i];
		if (isspace(c)) {
			space = 1;
			continue;
		}
		if (space && b->len > start && buf_add(b, " ", 1) == -1)
			return -1;
		space = 0;
		c = (uint8_t)tolower(c);
		if (buf_add(b, &c, 1) == -1)
			return -1;
	}
	return 0;
}

int
name_canon_hash(const X509_NAME *name, uint8_t out[CRLC_HASH_LEN])
{
	struct buf b = { NULL, 0, 0 };
	const X509_NAME_ENTRY *e;
	unsigned char *utf8 = NULL, *oid = NULL;
	int i, n, ulen, olen, ret = -1;
	size_t lenpos;

	n = X509_NAME_entry_count(name);
	for (i = 0; i < n; i++) {
		e = X509_NAME_get_entry(name, i);
		olen = i2d_ASN1_OBJECT(X509_NAME_ENTRY_get_object(e), &oid);
		ulen = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(e));
		if (olen <= 0 || ulen < 0)
			goto done;
		if (buf_add_u32(&b, (uint32_t)X509_NAME_ENTRY_set(e)) == -1 ||
		    buf_add_u32(&b, (uint32_t)olen) == -1 ||
		    buf_add(&b, oid, (size_t)olen) == -1)
			goto done;
		lenpos = b.len;
		if (buf_add_u32(&b, 0) == -1 ||
		    fold_value(&b, utf8, (size_t)ulen) == -1)
			goto done;
		crlc_put_u32(b.p + lenpos, (uint32_t)(b.len - lenpos - 4));
		OPENSSL_free(oid);
		OPENSSL_free(utf8);
		oid = utf8 = NULL;
	}
	crlc_sha256(b.p != NULL ? b.p : (const uint8_t *)"", b.len, out);
	ret = 0;
done:
	OPENSSL_free(oid);
	OPENSSL_free(utf8);
	free(b.p);
	return ret;
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
