/*
 * Revocation reasons as CRL scopes; see <crlcache/reasons.h>.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdio.h>
#include <string.h>

#include <crlcache/reasons.h>

#include "der.h"

/* RFC 5280 4.2.1.13 ReasonFlags, by bit. */
static const char *const flag_names[] = {
	"unused", "keyCompromise", "cACompromise", "affiliationChanged",
	"superseded", "cessationOfOperation", "certificateHold",
	"privilegeWithdrawn", "aACompromise",
};
#define FLAG_COUNT	(sizeof(flag_names) / sizeof(flag_names[0]))
/* Bits a reader keeps: up to 4 octets, unknown ones dropped. */
#define REASONS_OCTETS_MAX 4

int
crlc_reasons_parse(const uint8_t *p, size_t len, unsigned *mask)
{
	unsigned unused, m = 0;
	size_t i, bit, nbits;

	/* X.690 8.6.2: the initial octet counts unused bits, 0..7 */
	if (len < 1 || len > 1 + REASONS_OCTETS_MAX || p[0] > 7 ||
	    (len == 1 && p[0] != 0))
		return -1;
	unused = p[0];
	if (len > 1) {
		/* X.690 11.2.1: unused bits are zero; 11.2.2: a named bit
		   list has no trailing zero bit, so the last used one is 1 */
		if ((p[len - 1] & ((1u << unused) - 1)) != 0 ||
		    (p[len - 1] & (1u << unused)) == 0)
			return -1;
	}
	nbits = (len - 1) * 8 - unused;
	for (bit = 0; bit < nbits && bit < FLAG_COUNT; bit++) {
		i = 1 + bit / 8;
		if (p[i] & (0x80u >> (bit % 8)))
			m |= 1u << bit;
	}
	*mask = m & CRLC_REASONS_ALL;
	return 0;
}

/*
 * RFC 5280 5.2.5: IssuingDistributionPoint ::= SEQUENCE {
 * [0] distributionPoint, [1] onlyContainsUserCerts, [2] onlyContainsCACerts,
 * [3] onlySomeReasons ReasonFlags, [4] indirectCRL, [5] onlyContains
 * AttributeCerts }, each optional, in that order; every BOOLEAN a
 * DER one.
 */
int
crlc_idp_reasons(const uint8_t *ext, size_t len, unsigned *mask)
{
	struct der d = { ext, ext + len }, seq, v;
	unsigned tag, last = 0;
	int seen = 0;

	*mask = CRLC_REASONS_ALL;
	if (der_expect(&d, TAG_SEQUENCE, &seq) == -1 || d.p != d.end)
		return -1;
	while (seq.p < seq.end) {
		if (der_read(&seq, &tag, &v) == -1 || (tag & 0x1f) > 5 ||
		    (tag & 0xc0) != 0x80 || (seen && (tag & 0x1f) <= last))
			return -1;
		last = tag & 0x1f;
		seen = 1;
		if (last == 3 && (tag != TAG_CTX_PRIM(3) ||
		    crlc_reasons_parse(v.p, (size_t)(v.end - v.p), mask) == -1))
			return -1;
		/*
		 * [1] [2] [4] [5] BOOLEAN: X.690 11.1, DER TRUE is 0xFF and
		 * FALSE 0x00.  Any other octet (0xAB) is no DER boolean, and
		 * OpenSSL would read it as TRUE: which partition the CRL
		 * claims would be a guess, so it is refused.
		 */
		if (last != 0 && last != 3 && (tag != TAG_CTX_PRIM(last) ||
		    v.end - v.p != 1 || (v.p[0] != 0x00 && v.p[0] != 0xff)))
			return -1;
	}
	return 0;
}

unsigned
crlc_scope_reasons(const uint8_t *s, size_t len, size_t *namelen)
{
	if (len >= CRLC_REASONS_SUFFIX_LEN &&
	    s[len - CRLC_REASONS_SUFFIX_LEN] == 0) {
		*namelen = len - CRLC_REASONS_SUFFIX_LEN;
		return (unsigned)s[len - 2] << 8 | s[len - 1];
	}
	*namelen = len;
	return CRLC_REASONS_ALL;
}

size_t
crlc_scope_put_reasons(uint8_t *out, unsigned mask)
{
	if (mask == CRLC_REASONS_ALL)
		return 0;
	out[0] = 0;
	out[1] = (uint8_t)(mask >> 8);
	out[2] = (uint8_t)mask;
	return CRLC_REASONS_SUFFIX_LEN;
}

void
crlc_reasons_format(unsigned mask, char *out, size_t size)
{
	size_t bit, at = 0;
	int n;

	if (size == 0)
		return;
	out[0] = '\0';
	if ((mask & CRLC_REASONS_ALL) == 0) {
		snprintf(out, size, "none");
		return;
	}
	for (bit = 1; bit < FLAG_COUNT && at < size; bit++) {
		if (!(mask & (1u << bit)))
			continue;
		n = snprintf(out + at, size - at, "%s%s", at > 0 ? "," : "",
		    flag_names[bit]);
		if (n < 0)
			return;
		at += (size_t)n;
	}
}

int
crlc_reasons_from_text(const char *text, unsigned *mask)
{
	const char *p = text, *e;
	size_t bit, n;
	unsigned m = 0;

	if (strcmp(text, "all") == 0) {
		*mask = CRLC_REASONS_ALL;
		return 0;
	}
	while (*p != '\0') {
		e = strchr(p, ',');
		n = e != NULL ? (size_t)(e - p) : strlen(p);
		for (bit = 1; bit < FLAG_COUNT; bit++)
			if (strlen(flag_names[bit]) == n &&
			    strncmp(flag_names[bit], p, n) == 0)
				break;
		if (bit == FLAG_COUNT)
			return -1;
		m |= 1u << bit;
		p += n;
		if (*p == ',' && *++p == '\0')
			return -1;
	}
	if (m == 0)
		return -1;
	*mask = m;
	return 0;
}
