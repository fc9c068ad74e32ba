/*
 * Canonical identity of an X.501 Name, allocation-free.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_NAME_H
#define CRLCACHE_NAME_H

#include <stddef.h>
#include <stdint.h>

#include <crlcache/format.h>

/* Longest attribute value, in UTF-8 bytes after conversion, we canonicalise. */
#define CRLC_NAME_VALUE_MAX	1024

/*
 * out = SHA-256 of the canonical form of the DER Name der[0..len)
 * (the "canon" key of format.h).  RFC 5280 7.1 asks for RFC 4518 string
 * preparation before comparing names; this is the simplification OpenSSL's
 * x509_name_canon (crypto/x509/x_name.c) makes, so that two names OpenSSL
 * matches are one issuer here too.  Each AVA becomes
 *	u32 RDN index, u32 length + the attribute type OID content octets,
 *	u32 length + the value
 * where a DirectoryString value (UTF8String, PrintableString, IA5String,
 * VisibleString, TeletexString read as Latin-1, BMPString,
 * UniversalString: OpenSSL's ASN1_MASK_CANON) is converted to UTF-8,
 * ASCII letters folded to lower case, leading and trailing white space
 * dropped and inner runs of white space folded to one space; any other
 * value type (NumericString included) contributes its tag byte and content
 * octets unchanged.  Empty RDNs are dropped and the RDN index counts the
 * others; the AVAs of a multi-valued RDN (a SET) are sorted by these bytes
 * (memcmp order, the shorter first on a tie), so their encoded order does
 * not matter.  The hash is over the concatenation, RDN by RDN.  Integers
 * are big-endian.  Returns 0, or -1 when der is not a well-formed Name, a
 * value is longer than CRLC_NAME_VALUE_MAX or the name has more than 64
 * AVAs.
 */
int	crlc_name_canon_hash(const uint8_t *der, size_t len,
	    uint8_t out[CRLC_HASH_LEN]);

#endif /* CRLCACHE_NAME_H */
