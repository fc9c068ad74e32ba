/*
 * Unit tests for crlc_crl_parse / crlc_crl_entry_next (lib/tbs.c): CRLs
 * built here byte by byte, so that each DER rule can be broken alone;
 * then every truncation and every single-byte change of a good CRL (run
 * under ASan: no read outside the buffer).  Then real CRLs from
 * test/data/crlquirks/ and webpki-crls/ (SOURCES.md): their issuers'
 * certificates are not public, so only the parser is exercised here
 * (test/t_webpki_crls.sh signs webpki's again to take them further).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <crlcache/reasons.h>
#include <crlcache/tbs.h>

#include "check.h"
#include "derbuf.h"

static const uint8_t ecdsa_sha256[] = { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04,
    0x03, 0x02 };
static const uint8_t cn[] = { 0x55, 0x04, 0x03 };
static const uint8_t reason_oid[] = { 0x55, 0x1d, 0x15 };
static const uint8_t crlnum_oid[] = { 0x55, 0x1d, 0x14 };
static const uint8_t cert_issuer_oid[] = { 0x55, 0x1d, 0x1d };
static const uint8_t unknown_oid[] = { 0x2a, 0x03, 0x04 };

/* thisUpdate as build() writes it: a UTCTime's content */
static const char *this_update = "260102030405Z";

/* What to break in build(). */
enum flaw {
	NONE, SERIAL_PADDED, REASON_BIG, REASON_TWICE, UNUSED_BITS,
	VERSION_1, TRAILING, CERT_ISSUER, UNKNOWN_CRITICAL, BAD_DATE,
	EMPTY_ENTRY_EXTS, LAX_ENTRY_TIME, CI_EMPTY, CI_NO_DIRNAME, CI_TWO_DIRNAMES,
	CI_NOT_CRITICAL, CI_UNIVERSAL, CI_BAD_DIRNAME, CI_NOT_SEQUENCE, NFLAWS
};

static void
extension(struct buf *b, const uint8_t *oid, size_t oidlen, int critical,
    const struct buf *value)
{
	struct buf e;
	static const uint8_t t = 0xff;

	e.len = 0;
	tlv_raw(&e, 0x06, oid, oidlen);
	if (critical)
		tlv_raw(&e, 0x01, &t, 1);
	tlv(&e, 0x04, value);
	tlv(b, 0x30, &e);
}

/*
 * A certificateIssuer (RFC 5280 5.3.3) into exts: GeneralNames of a URI
 * and the directoryName CN=Other CA, or broken as f says.
 */
static void
cert_issuer(struct buf *exts, enum flaw f)
{
	struct buf gns, val, dn, rdn, atv, dir;

	gns.len = val.len = dn.len = rdn.len = atv.len = dir.len = 0;
	tlv_raw(&atv, 0x06, cn, sizeof(cn));
	tlv_raw(&atv, 0x0c, "Other CA", 8);
	tlv(&rdn, 0x30, &atv);
	tlv(&dn, 0x31, &rdn);
	tlv(&dir, 0x30, &dn);
	if (f == CI_BAD_DIRNAME)
		put(&dir, "\x05\x00", 2);	/* [4] holds more than a Name */
	tlv_raw(&gns, 0x86, "http://x/", 9);
	if (f != CI_NO_DIRNAME)
		tlv(&gns, 0xa4, &dir);
	if (f == CI_TWO_DIRNAMES)
		tlv(&gns, 0xa4, &dir);
	if (f == CI_UNIVERSAL)
		tlv_raw(&gns, 0x05, "", 0);
	if (f == CI_EMPTY)
		gns.len = 0;
	tlv(&val, f == CI_NOT_SEQUENCE ? 0x31 : 0x30, &gns);
	extension(exts, cert_issuer_oid, sizeof(cert_issuer_oid),
	    f != CI_NOT_CRITICAL, &val);
}

/* One revoked entry: serial, UTCTime, optional reasonCode. */
static void
entry(struct buf *b, const uint8_t *serial, size_t slen, int reason,
    enum flaw f)
{
	struct buf e, exts, val, val2;
	uint8_t r;

	e.len = exts.len = val.len = val2.len = 0;
	tlv_raw(&e, 0x02, serial, slen);
	if (f == LAX_ENTRY_TIME)	/* X.680 form, RFC 5280 4.1.2.5.1 not */
		tlv_raw(&e, 0x17, "2601010000+0000", 15);
	else
		tlv_raw(&e, 0x17, f == BAD_DATE ? "260101250000Z" :
		    "260101000000Z", 13);
	if (reason >= 0) {
		r = (uint8_t)reason;
		tlv_raw(&val, 0x0a, &r, 1);
		extension(&exts, reason_oid, sizeof(reason_oid), 0, &val);
		if (f == REASON_TWICE)
			extension(&exts, reason_oid, sizeof(reason_oid), 0, &val);
	}
	if (f == CERT_ISSUER || (f >= CI_EMPTY && f <= CI_NOT_SEQUENCE))
		cert_issuer(&exts, f);
	if (f == UNKNOWN_CRITICAL) {
		tlv_raw(&val2, 0x05, "", 0);
		extension(&exts, unknown_oid, sizeof(unknown_oid), 1, &val2);
	}
	if (f == EMPTY_ENTRY_EXTS)
		exts.len = 0;	/* SIZE (1..MAX): an empty one is malformed */
	if (exts.len > 0 || f == EMPTY_ENTRY_EXTS)
		tlv(&e, 0x30, &exts);
	tlv(b, 0x30, &e);
}

static void
build(struct buf *out, enum flaw f)
{
	static const uint8_t s1[] = { 0x01 }, s2[] = { 0x00, 0x80 },
	    s3[] = { 0x7f, 0x01, 0x02 }, padded[] = { 0x00, 0x01 };
	struct buf alg, name, rdn, atv, tbs, revs, exts, x0, val, cl, sig;
	uint8_t v = f == VERSION_1 ? 0 : 1, num = 5;

	alg.len = name.len = rdn.len = atv.len = tbs.len = revs.len = 0;
	exts.len = x0.len = val.len = cl.len = sig.len = out->len = 0;
	tlv_raw(&alg, 0x06, ecdsa_sha256, sizeof(ecdsa_sha256));
	tlv_raw(&atv, 0x06, cn, sizeof(cn));
	tlv_raw(&atv, 0x0c, "Unit CA", 7);
	tlv(&rdn, 0x30, &atv);
	tlv(&name, 0x31, &rdn);

	tlv_raw(&tbs, 0x02, &v, 1);
	tlv(&tbs, 0x30, &alg);
	tlv(&tbs, 0x30, &name);
	tlv_raw(&tbs, 0x17, this_update, strlen(this_update));
	tlv_raw(&tbs, 0x18, "20260109030405Z", 15);
	entry(&revs, f == SERIAL_PADDED ? padded : s1, f == SERIAL_PADDED ?
	    sizeof(padded) : sizeof(s1), 1, NONE);
	entry(&revs, s2, sizeof(s2), f == REASON_BIG ? 11 : -1, NONE);
	entry(&revs, s3, sizeof(s3), 6, f);
	tlv(&tbs, 0x30, &revs);
	tlv_raw(&val, 0x02, &num, 1);
	extension(&exts, crlnum_oid, sizeof(crlnum_oid), 0, &val);
	tlv(&x0, 0x30, &exts);
	tlv(&tbs, 0xa0, &x0);

	tlv(&cl, 0x30, &tbs);
	tlv(&cl, 0x30, &alg);
	put(&sig, f == UNUSED_BITS ? "\x01" : "\x00", 1);
	put(&sig, "\x30\x06\x02\x01\x01\x02\x01\x01", 8);
	tlv(&cl, 0x03, &sig);
	tlv(out, 0x30, &cl);
	if (f == TRAILING)
		put(out, "", 1);
}

static void
test_good(void)
{
	struct buf b;
	struct crlc_crl c;
	struct crlc_crl_entry e;
	struct crlc_span rest;
	const char *why = NULL;

	build(&b, NONE);
	CHECK(crlc_crl_parse(b.p, b.len, &c, &why) == 0);
	CHECK(c.version == 2);
	CHECK(c.nrevoked == 3);
	CHECK(c.this_update == 1767323045);	/* 2026-01-02T03:04:05Z */
	CHECK(c.next_update == 1767927845);	/* 2026-01-09T03:04:05Z */
	CHECK(c.sigalg.len == c.outer_sigalg.len &&
	    memcmp(c.sigalg.p, c.outer_sigalg.p, c.sigalg.len) == 0);
	CHECK(c.signature.len == 8 && c.signature.p[0] == 0x30);
	CHECK(c.issuer.len > 0 && c.issuer.p[0] == 0x30);
	CHECK(c.extensions.len > 0 && c.extensions.p[0] == 0x30);
	CHECK(c.tbs.p > b.p && c.tbs.p[0] == 0x30 &&
	    c.tbs.p + c.tbs.len < b.p + b.len);
	CHECK(!c.entry_cert_issuer && c.entry_unknown_critical.len == 0);
	rest = c.revoked;
	CHECK(crlc_crl_entry_next(&rest, &e, &why) == 1);
	CHECK(e.serial.len == 1 && e.serial.p[0] == 0x01 && e.reason == 1);
	CHECK(e.revoked_at == 1767225600);	/* 2026-01-01T00:00:00Z */
	CHECK(crlc_crl_entry_next(&rest, &e, &why) == 1);
	CHECK(e.serial.len == 2 && e.reason == CRLC_CRL_REASON_NONE);
	CHECK(crlc_crl_entry_next(&rest, &e, &why) == 1);
	CHECK(e.serial.len == 3 && e.reason == 6);
	CHECK(crlc_crl_entry_next(&rest, &e, &why) == 0);
}

/* The third entry's certificateIssuer names CN=Other CA: its Name TLV. */
static void
test_cert_issuer_entry(const struct crlc_crl *c)
{
	static const uint8_t other[] = { 0x30, 0x13, 0x31, 0x11, 0x30, 0x0f,
	    0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x08, 'O', 't', 'h', 'e', 'r',
	    ' ', 'C', 'A' };
	struct crlc_span rest = c->revoked;
	struct crlc_crl_entry e;
	const char *why;

	CHECK(crlc_crl_entry_next(&rest, &e, &why) == 1 &&
	    e.cert_issuer.len == 0);
	CHECK(crlc_crl_entry_next(&rest, &e, &why) == 1 &&
	    e.cert_issuer.len == 0);
	CHECK(crlc_crl_entry_next(&rest, &e, &why) == 1);
	CHECK(e.cert_issuer.len == sizeof(other) &&
	    memcmp(e.cert_issuer.p, other, sizeof(other)) == 0);
}

static void
test_flaws(void)
{
	struct buf b;
	struct crlc_crl c;
	struct crlc_crl_entry e;
	struct crlc_span rest;
	const char *why;
	int f;

	for (f = NONE + 1; f < NFLAWS; f++) {
		build(&b, (enum flaw)f);
		why = NULL;
		if (f == CERT_ISSUER) {
			/* well formed: the caller decides (an indirect CRL) */
			CHECK(crlc_crl_parse(b.p, b.len, &c, &why) == 0);
			CHECK(c.entry_cert_issuer);
			test_cert_issuer_entry(&c);
		} else if (f == EMPTY_ENTRY_EXTS) {
			/* tolerated: read as absent, and said */
			CHECK(crlc_crl_parse(b.p, b.len, &c, &why) == 0);
			CHECK(c.quirks == CRLC_CRL_QUIRK_EMPTY_ENTRY_EXTS);
		} else if (f == REASON_BIG) {
			/* an undefined reason: revoked, read as unspecified */
			CHECK(crlc_crl_parse(b.p, b.len, &c, &why) == 0);
			CHECK(c.quirks == CRLC_CRL_QUIRK_UNDEFINED_REASON);
			rest = c.revoked;
			CHECK(crlc_crl_entry_next(&rest, &e, &why) == 1);
			CHECK(crlc_crl_entry_next(&rest, &e, &why) == 1);
			CHECK(e.reason == 0 && e.undefined_reason);
		} else if (f == LAX_ENTRY_TIME) {
			CHECK(crlc_crl_parse(b.p, b.len, &c, &why) == 0);
			CHECK(c.quirks == CRLC_CRL_QUIRK_LAX_TIME);
		} else if (f == UNKNOWN_CRITICAL) {
			CHECK(crlc_crl_parse(b.p, b.len, &c, &why) == 0);
			CHECK(c.entry_unknown_critical.len == 5 &&
			    c.entry_unknown_critical.p[0] == 0x06);
		} else {
			if (crlc_crl_parse(b.p, b.len, &c, &why) != -1)
				fprintf(stderr, "flaw %d accepted\n", f);
			CHECK(crlc_crl_parse(b.p, b.len, &c, &why) == -1);
			CHECK(why != NULL);
		}
	}
}

/*
 * UTCTime forms X.680 allows and RFC 5280 4.1.2.5.1 does not: read, at
 * the instant they name, and said; anything else still refused.
 */
static void
test_lax_times(void)
{
	static const struct {
		const char *text;
		int ok;
		int64_t at;
	} t[] = {
		{ "260102030405Z", 1, 1767323045 },	/* the DER form */
		{ "2601020304Z", 1, 1767323040 },	/* no seconds */
		{ "260102030405+0100", 1, 1767323045 - 3600 },
		{ "2601020304-0130", 1, 1767323040 + 5400 },
		{ "260102030405+2400", 0, 0 },		/* no such offset */
		{ "260102030405+0160", 0, 0 },
		{ "260102030405+01", 0, 0 },
		{ "260102030405.5Z", 0, 0 },		/* no fraction */
		{ "260102030405", 0, 0 },		/* local time: which? */
		{ "2601020304+0100Z", 0, 0 },
		{ "26010203Z", 0, 0 },
	};
	struct buf b;
	struct crlc_crl c;
	const char *why;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		this_update = t[i].text;
		build(&b, NONE);
		if (t[i].ok) {
			CHECK(crlc_crl_parse(b.p, b.len, &c, &why) == 0);
			CHECK(c.this_update == t[i].at);
			CHECK(c.quirks == (i == 0 ? 0 : CRLC_CRL_QUIRK_LAX_TIME));
		} else
			CHECK(crlc_crl_parse(b.p, b.len, &c, &why) == -1);
	}
	this_update = "260102030405Z";
}

/* Every prefix fails; every byte change parses or fails without harm. */
static void
test_mutations(void)
{
	struct buf b;
	struct crlc_crl c;
	struct crlc_crl_entry e;
	struct crlc_span rest;
	const char *why;
	uint8_t *copy;
	size_t i, n;
	int bit;

	build(&b, NONE);
	for (n = 0; n < b.len; n++) {
		copy = malloc(n + 1);	/* exact size: ASan sees overreads */
		memcpy(copy, b.p, n);
		CHECK(crlc_crl_parse(n ? copy : NULL, n, &c, &why) == -1);
		free(copy);
	}
	for (i = 0; i < b.len; i++) {
		for (bit = 0; bit < 8; bit++) {
			copy = malloc(b.len);
			memcpy(copy, b.p, b.len);
			copy[i] ^= (uint8_t)(1u << bit);
			if (crlc_crl_parse(copy, b.len, &c, &why) == 0) {
				rest = c.revoked;
				while (crlc_crl_entry_next(&rest, &e, &why) == 1)
					CHECK(e.serial.p >= copy &&
					    e.serial.p + e.serial.len <= copy + b.len);
			}
			free(copy);
		}
	}
}

/* The whole of test/data/NAME into *len bytes (malloc). */
static uint8_t *
vector(const char *name, size_t *len)
{
	static uint8_t buf[64 * 1024];
	char path[256];
	uint8_t *out;
	FILE *f;

	snprintf(path, sizeof(path), "test/data/%s", name);
	if ((f = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(1);
	}
	*len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	CHECK(*len > 0 && *len < sizeof(buf));
	if ((out = malloc(*len)) == NULL)
		exit(1);
	memcpy(out, buf, *len);
	return out;
}

/* The IDP extension value (OCTET STRING content) of a parsed CRL. */
static int
idp_value(const struct crlc_crl *c, const uint8_t **v, size_t *vlen)
{
	static const uint8_t idp_oid[] = { 0x06, 0x03, 0x55, 0x1d, 0x1c };
	const uint8_t *p = c->extensions.p, *end = p + c->extensions.len;

	for (; p + sizeof(idp_oid) < end; p++)
		if (memcmp(p, idp_oid, sizeof(idp_oid)) == 0) {
			p += sizeof(idp_oid);
			if (p[0] == 0x01)	/* critical */
				p += 3;
			if (p[0] != 0x04 || p[1] >= 0x80)
				return -1;
			*vlen = p[1];
			*v = p + 2;
			return 0;
		}
	return -1;
}

static void
test_real(void)
{
	struct crlc_crl c;
	const char *why;
	const uint8_t *v;
	uint8_t *der;
	size_t len, vlen;
	unsigned mask;

	/* T-Systems TeleSec Business CA 1: one entry's crlEntryExtensions
	   is an empty SEQUENCE; main refused the whole CRL */
	der = vector("webpki-crls/crl.entry.empty.ext.seq.der", &len);
	CHECK(crlc_crl_parse(der, len, &c, &why) == 0);
	CHECK(c.quirks == CRLC_CRL_QUIRK_EMPTY_ENTRY_EXTS);
	CHECK(c.nrevoked > 0);
	free(der);
	/* PKI FINMECCANICA: 88 entries, each with an empty SEQUENCE */
	der = vector("crlquirks/go-finmeccanica.crl", &len);
	CHECK(crlc_crl_parse(der, len, &c, &why) == 0);
	CHECK(c.nrevoked == 88);
	CHECK(c.quirks == CRLC_CRL_QUIRK_EMPTY_ENTRY_EXTS);
	free(der);
	/* thisUpdate in year 0001: no CA issued it, refused */
	der = vector("webpki-crls/crl.invalid.this.update.time.der", &len);
	why = NULL;
	CHECK(crlc_crl_parse(der, len, &c, &why) == -1);
	CHECK(why != NULL && strstr(why, "thisUpdate") != NULL);
	free(der);
	/* IDP onlyContainsCACerts encoded 0xAB: no DER BOOLEAN, refused */
	der = vector("webpki-crls/crl.idp.invalid.bool.der", &len);
	CHECK(crlc_crl_parse(der, len, &c, &why) == 0);
	CHECK(idp_value(&c, &v, &vlen) == 0);
	CHECK(crlc_idp_reasons(v, vlen, &mask) == -1);
	free(der);
}

/* X.690 11.1: an IDP BOOLEAN is 0xFF or 0x00, nothing else. */
static void
test_idp_booleans(void)
{
	/* SEQUENCE { [2] onlyContainsCACerts } */
	uint8_t idp[] = { 0x30, 0x03, 0x82, 0x01, 0xff };
	unsigned mask;

	CHECK(crlc_idp_reasons(idp, sizeof(idp), &mask) == 0);
	idp[4] = 0x00;
	CHECK(crlc_idp_reasons(idp, sizeof(idp), &mask) == 0);
	idp[4] = 0xab;
	CHECK(crlc_idp_reasons(idp, sizeof(idp), &mask) == -1);
	idp[4] = 0x01;
	CHECK(crlc_idp_reasons(idp, sizeof(idp), &mask) == -1);
}

int
main(void)
{
	test_good();
	test_real();
	test_idp_booleans();
	test_lax_times();
	test_flaws();
	test_mutations();
	return check_result();
}
