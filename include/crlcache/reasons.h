/*
 * Revocation reasons as CRL scopes (RFC 5280 4.2.1.13, 5.2.5, 6.3.3):
 * the ReasonFlags a CRL's issuingDistributionPoint onlySomeReasons
 * limits it to, and those a certificate's distribution point names.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * A reasons MASK holds ReasonFlags bit i (RFC 5280 4.2.1.13: 1
 * keyCompromise .. 8 aACompromise) as 1 << i.  Bit 0 (unused) and bits
 * past 8 name no reason and are dropped: they add no coverage.  A scope
 * key (format.h "crl", SCOPE) of a CRL limited to some reasons is its
 * distribution point name followed by CRLC_REASONS_SUFFIX_LEN bytes, 00
 * || u16 mask; a CRL for all reasons has no suffix (scope names never
 * hold a 00 byte: URIs and directoryName scopes are text).
 */
#ifndef CRLCACHE_REASONS_H
#define CRLCACHE_REASONS_H

#include <stddef.h>
#include <stdint.h>

/* keyCompromise (1) .. aACompromise (8) */
#define CRLC_REASONS_ALL	0x01feu
#define CRLC_REASONS_SUFFIX_LEN	3
/* "keyCompromise,cACompromise,...": every name, commas, a NUL */
#define CRLC_REASONS_TEXT_MAX	160

/*
 * ReasonFlags from the content octets of its BIT STRING (the implicit
 * tag's, RFC 5280 4.2.1.13) p[0..len): DER strictly (X.690 11.2: unused
 * bits count 0..7 and zero, no trailing zero bit of a named bit list, at
 * most 4 octets of bits).  0 and *mask (unknown bits dropped), or -1.
 */
int	crlc_reasons_parse(const uint8_t *p, size_t len, unsigned *mask);
/*
 * The onlySomeReasons of an issuingDistributionPoint extension value
 * (RFC 5280 5.2.5, the DER of the SEQUENCE) ext[0..len): 0 and *mask,
 * CRLC_REASONS_ALL when absent; -1 when the IDP is malformed, a BOOLEAN
 * among them not DER (X.690 11.1: 0x00 or 0xFF).
 */
int	crlc_idp_reasons(const uint8_t *ext, size_t len, unsigned *mask);
/*
 * The reasons of scope key part s[0..len) (format.h): the suffix's
 * mask and *namelen the name's length, or CRLC_REASONS_ALL and len.
 */
unsigned crlc_scope_reasons(const uint8_t *s, size_t len, size_t *namelen);
/* Append the suffix of mask to out (nothing for all reasons): its length. */
size_t	crlc_scope_put_reasons(uint8_t *out, unsigned mask);
/*
 * The names of mask's reasons, comma-separated ("none" for an empty
 * mask), into out[0..size).  Or by name: 0 and *mask from such a list
 * (also "all"), -1 on an unknown name.
 */
void	crlc_reasons_format(unsigned mask, char *out, size_t size);
int	crlc_reasons_from_text(const char *text, unsigned *mask);

#endif /* CRLCACHE_REASONS_H */
