/*
 * Unit test of revocation reasons (lib/reasons.c): ReasonFlags read
 * strictly as DER (RFC 5280 4.2.1.13, X.690 11.2), the onlySomeReasons of
 * an issuingDistributionPoint (5.2.5), the reasons suffix of a scope key
 * (format.h "crl") and the reason names of `crlcache reset --reasons`.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include <crlcache/reasons.h>

#define PARSE(...) parse((const uint8_t[]){ __VA_ARGS__ }, \
	sizeof((const uint8_t[]){ __VA_ARGS__ }))

static unsigned got;

static int
parse(const uint8_t *p, size_t len)
{
	got = 0xffff;
	return crlc_reasons_parse(p, len, &got);
}

static void
test_parse(void)
{
	/* keyCompromise, cACompromise: bits 1, 2 -> 0x60, 5 unused bits */
	CHECK(PARSE(0x05, 0x60) == 0 && got == 0x0006);
	/* PKITS "other reasons": unused + bits 3..8 (bit 0 adds nothing) */
	CHECK(PARSE(0x07, 0x9f, 0x80) == 0 && got == 0x01f8);
	/* every reason, bits 1..8 */
	CHECK(PARSE(0x07, 0x7f, 0x80) == 0 && got == CRLC_REASONS_ALL);
	/* aACompromise alone */
	CHECK(PARSE(0x07, 0x00, 0x80) == 0 && got == 0x0100);
	/* the empty bit string: no reason */
	CHECK(PARSE(0x00) == 0 && got == 0);
	/* unused alone: no reason */
	CHECK(PARSE(0x07, 0x80) == 0 && got == 0);
	/* unknown bits past aACompromise add no reasons */
	CHECK(PARSE(0x00, 0x40, 0x7f) == 0 && got == 0x0002);
	/* refused: no octet, unused count above 7, unused bits with no
	   octet, a set unused bit, a trailing zero bit, too long */
	CHECK(parse(NULL, 0) == -1);
	CHECK(PARSE(0x08, 0x80) == -1);
	CHECK(PARSE(0x01) == -1);
	CHECK(PARSE(0x05, 0x61) == -1);
	CHECK(PARSE(0x04, 0x60) == -1);
	CHECK(PARSE(0x00, 0x00) == -1);
	CHECK(PARSE(0x07, 0x00, 0x00, 0x00, 0x00, 0x80) == -1);
}

#define IDP(...) idp((const uint8_t[]){ __VA_ARGS__ }, \
	sizeof((const uint8_t[]){ __VA_ARGS__ }))

static int
idp(const uint8_t *p, size_t len)
{
	got = 0xffff;
	return crlc_idp_reasons(p, len, &got);
}

static void
test_idp(void)
{
	/* no onlySomeReasons: all reasons */
	CHECK(IDP(0x30, 0x00) == 0 && got == CRLC_REASONS_ALL);
	CHECK(IDP(0x30, 0x03, 0x81, 0x01, 0xff) == 0 &&
	    got == CRLC_REASONS_ALL);
	/* [3] keyCompromise, cACompromise */
	CHECK(IDP(0x30, 0x04, 0x83, 0x02, 0x05, 0x60) == 0 && got == 0x0006);
	/* after a [0] distributionPoint, before [4] indirectCRL */
	CHECK(IDP(0x30, 0x0b, 0xa0, 0x02, 0xa0, 0x00, 0x83, 0x02, 0x05, 0x60,
	    0x84, 0x01, 0xff) == 0 && got == 0x0006);
	/* refused: constructed [3], malformed reasons, fields out of order,
	   twice, trailing bytes, not a SEQUENCE, an unknown field */
	CHECK(IDP(0x30, 0x04, 0xa3, 0x02, 0x05, 0x60) == -1);
	CHECK(IDP(0x30, 0x04, 0x83, 0x02, 0x04, 0x60) == -1);
	CHECK(IDP(0x30, 0x07, 0x83, 0x02, 0x05, 0x60, 0x81, 0x01, 0xff) == -1);
	CHECK(IDP(0x30, 0x08, 0x83, 0x02, 0x05, 0x60, 0x83, 0x02, 0x05,
	    0x60) == -1);
	CHECK(IDP(0x30, 0x00, 0x00) == -1);
	CHECK(IDP(0x31, 0x00) == -1);
	CHECK(IDP(0x30, 0x03, 0x86, 0x01, 0xff) == -1);
	CHECK(idp(NULL, 0) == -1);
}

static void
test_suffix(void)
{
	uint8_t key[64];
	size_t n, namelen;

	memcpy(key, "http://x/a.crl", 14);
	n = 14 + crlc_scope_put_reasons(key + 14, CRLC_REASONS_ALL);
	CHECK(n == 14);
	CHECK(crlc_scope_reasons(key, n, &namelen) == CRLC_REASONS_ALL &&
	    namelen == 14);
	n = 14 + crlc_scope_put_reasons(key + 14, 0x0006);
	CHECK(n == 17 && key[14] == 0 && key[15] == 0 && key[16] == 6);
	CHECK(crlc_scope_reasons(key, n, &namelen) == 0x0006 && namelen == 14);
	/* the complete CRL's scope: the empty name and a suffix */
	n = crlc_scope_put_reasons(key, 0x01f8);
	CHECK(crlc_scope_reasons(key, n, &namelen) == 0x01f8 && namelen == 0);
	CHECK(crlc_scope_reasons(key, 0, &namelen) == CRLC_REASONS_ALL &&
	    namelen == 0);
}

static void
test_text(void)
{
	char buf[CRLC_REASONS_TEXT_MAX];
	unsigned m;

	crlc_reasons_format(0x0006, buf, sizeof(buf));
	CHECK(strcmp(buf, "keyCompromise,cACompromise") == 0);
	crlc_reasons_format(CRLC_REASONS_ALL, buf, sizeof(buf));
	CHECK(strlen(buf) < sizeof(buf) - 1 &&
	    strncmp(buf, "keyCompromise,", 14) == 0);
	CHECK(crlc_reasons_from_text(buf, &m) == 0 && m == CRLC_REASONS_ALL);
	crlc_reasons_format(0, buf, sizeof(buf));
	CHECK(strcmp(buf, "none") == 0);
	crlc_reasons_format(0x0006, buf, 8);
	CHECK(strlen(buf) == 7);
	CHECK(crlc_reasons_from_text("all", &m) == 0 && m == CRLC_REASONS_ALL);
	CHECK(crlc_reasons_from_text("superseded,certificateHold", &m) == 0 &&
	    m == 0x0050);
	CHECK(crlc_reasons_from_text("", &m) == -1);
	CHECK(crlc_reasons_from_text("unused", &m) == -1);
	CHECK(crlc_reasons_from_text("keyCompromise,", &m) == -1);
	CHECK(crlc_reasons_from_text("keyCompromise,,superseded", &m) == -1);
	CHECK(crlc_reasons_from_text("keycompromise", &m) == -1);
}

int
main(void)
{
	test_parse();
	test_idp();
	test_suffix();
	test_text();
	return check_result();
}
