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
 * preparation before comparing names; this is the common simplification:
 * for each AVA, in order, the hash takes
 *	u32 RDN index, u32 length + the attribute type OID content octets,
 *	u32 length + the value
 * where a DirectoryString value (UTF8String, PrintableString, IA5String,
 * VisibleString, NumericString, TeletexString read as Latin-1,
 * BMPString, UniversalString) is converted to UTF-8, ASCII letters
 * folded to lower case, leading and trailing white space dropped and
 * inner runs of white space folded to one space; any other value type
 * contributes its tag byte and content octets unchanged.  Integers are
 * big-endian.  Returns 0, or -1 when der is not a well-formed Name or a
 * value is longer than CRLC_NAME_VALUE_MAX.
 */
int	crlc_name_canon_hash(const uint8_t *der, size_t len,
	    uint8_t out[CRLC_HASH_LEN]);

#endif /* CRLCACHE_NAME_H */
