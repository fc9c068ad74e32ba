/*
 * Unit tests of the calendar (lib/civil.c) and of the times that
 * certificates and CRLs carry (RFC 5280 4.1.2.5, 5.1.2.4-5.1.2.6), each
 * time checked through the public parse entry points: as notBefore and
 * notAfter of a TBSCertificate (crlc_tbs_parse) and as thisUpdate,
 * nextUpdate and revocationDate of a CRL (crlc_crl_parse), built here
 * byte by byte and copied to exact-size heap buffers (run under ASan).
 */
#include <stdlib.h>
#include <string.h>

#include <crlcache/civil.h>
#include <crlcache/tbs.h>

#include "check.h"
#include "derbuf.h"

#define UTC	0x17	/* UTCTime */
#define GEN	0x18	/* GeneralizedTime */
#define BAD	INT64_MIN	/* expected: refused */

struct tcase {
	uint8_t		 tag;
	const char	*text;
	int64_t		 want;	/* seconds since the epoch, or BAD */
};

static const struct tcase cases[] = {
	/* possible dates */
	{ UTC, "240229000000Z", 1709164800 },	/* leap year */
	{ GEN, "20000229000000Z", 951782400 },	/* divisible by 400 */
	{ UTC, "261231235959Z", 1798761599 },	/* Dec 31, 23:59:59 */
	{ UTC, "241231235959Z", 1735689599 },
	{ UTC, "260430000000Z", 1777507200 },	/* Apr 30 */
	{ GEN, "21000228120000Z", 4107499200 },
	{ UTC, "260102030405Z", 1767323045 },
	{ UTC, "500101000000Z", -631152000 },	/* UTCTime YY 50 is 1950 */
	{ UTC, "491231235959Z", 2524607999 },	/* ... YY 49 is 2049 */
	/* GeneralizedTime before 2050: read (tbs.c der_time) */
	{ GEN, "20491231235959Z", 2524607999 },
	{ GEN, "20500101000000Z", 2524608000 },
	{ GEN, "99991231235959Z", 253402300799LL },
	/* impossible dates: a day past its month's end */
	{ UTC, "230229000000Z", BAD },		/* 2023 is no leap year */
	{ GEN, "21000229000000Z", BAD },	/* 2100: divisible by 100 */
	{ GEN, "19000229000000Z", BAD },
	{ UTC, "240230000000Z", BAD },
	{ UTC, "260231000000Z", BAD },
	{ UTC, "260431000000Z", BAD },
	{ UTC, "260631000000Z", BAD },
	{ UTC, "260931000000Z", BAD },
	{ GEN, "20261131000000Z", BAD },
	{ UTC, "260132000000Z", BAD },
	{ UTC, "260100000000Z", BAD },		/* day 0 */
	{ UTC, "261301000000Z", BAD },		/* month 13 */
	{ UTC, "260001000000Z", BAD },		/* month 0 */
	/* impossible times */
	{ UTC, "260101240000Z", BAD },		/* hour 24 */
	{ UTC, "260101006000Z", BAD },		/* minute 60 */
	{ UTC, "260101000060Z", BAD },		/* second 60 */
	{ UTC, "161231235960Z", BAD },		/* even at a leap second */
	/* not the RFC 5280 / DER form */
	{ GEN, "20260101000000.5Z", BAD },	/* fraction of a second */
	{ GEN, "20260101000000.0Z", BAD },
	{ UTC, "260101000000", BAD },		/* no Z */
	{ UTC, "260101000000z", BAD },
	{ UTC, "260101000000+00", BAD },	/* half an offset */
	{ UTC, "260101000000+2400", BAD },	/* no such offset */
	{ UTC, "2601010000Z0", BAD },
	{ GEN, "20260101000000+0100", BAD },
	{ UTC, "20260101000000Z", BAD },	/* four-digit year in UTCTime */
	{ GEN, "260101000000Z", BAD },		/* two-digit year in GeneralizedTime */
	{ UTC, "26010100000 Z", BAD },
	{ UTC, "2601-1000000Z", BAD },
};

#define NCASES	(sizeof(cases) / sizeof(cases[0]))

static void
time_tlv(struct buf *b, uint8_t tag, const char *text)
{
	tlv_raw(b, tag, text, strlen(text));
}

static const uint8_t alg[] = { 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d,
    0x04, 0x03, 0x02 };	/* ecdsa-with-SHA256 */
static const char good[] = "260101000000Z";

/* A v1 TBSCertificate with notBefore nb, notAfter na. */
static void
tbs_build(struct buf *out, uint8_t nbtag, const char *nb, uint8_t natag,
    const char *na)
{
	struct buf t = { .len = 0 }, v = { .len = 0 };
	static const uint8_t serial = 1;

	tlv_raw(&t, 0x02, &serial, 1);
	tlv_raw(&t, 0x30, alg, sizeof(alg));
	tlv_raw(&t, 0x30, "", 0);		/* issuer */
	time_tlv(&v, nbtag, nb);
	time_tlv(&v, natag, na);
	tlv(&t, 0x30, &v);
	tlv_raw(&t, 0x30, "", 0);		/* subject */
	tlv_raw(&t, 0x30, "", 0);		/* subjectPublicKeyInfo */
	out->len = 0;
	tlv(out, 0x30, &t);
}

enum crl_field { THIS_UPDATE, NEXT_UPDATE, REVOCATION_DATE };

/* A v2 CRL with one entry; the time under test in field f. */
static void
crl_build(struct buf *out, enum crl_field f, uint8_t tag, const char *text)
{
	struct buf t = { .len = 0 }, revs = { .len = 0 }, ent = { .len = 0 },
	    cl = { .len = 0 };
	static const uint8_t one = 1, sig[] = { 0x00, 0x30, 0x00 };

	tlv_raw(&t, 0x02, &one, 1);
	tlv_raw(&t, 0x30, alg, sizeof(alg));
	tlv_raw(&t, 0x30, "", 0);		/* issuer */
	if (f == THIS_UPDATE)
		time_tlv(&t, tag, text);
	else
		time_tlv(&t, UTC, good);
	if (f == NEXT_UPDATE)
		time_tlv(&t, tag, text);
	tlv_raw(&ent, 0x02, &one, 1);
	if (f == REVOCATION_DATE)
		time_tlv(&ent, tag, text);
	else
		time_tlv(&ent, UTC, good);
	tlv(&revs, 0x30, &ent);
	tlv(&t, 0x30, &revs);
	tlv(&cl, 0x30, &t);
	tlv_raw(&cl, 0x30, alg, sizeof(alg));
	tlv_raw(&cl, 0x03, sig, sizeof(sig));
	out->len = 0;
	tlv(out, 0x30, &cl);
}

/* Exact-size heap copy, so that ASan sees any read past the end. */
static uint8_t *
exact(const struct buf *b)
{
	uint8_t *q = malloc(b->len);

	if (q == NULL)
		abort();
	memcpy(q, b->p, b->len);
	return q;
}

static void
test_month_days(void)
{
	static const int common[12] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};
	int mo;

	for (mo = 1; mo <= 12; mo++) {
		CHECK(crlc_month_days(2023, mo) == common[mo - 1]);
		CHECK(crlc_month_days(2024, mo) ==
		    common[mo - 1] + (mo == 2));
	}
	CHECK(crlc_month_days(2000, 2) == 29);
	CHECK(crlc_month_days(1900, 2) == 28);
	CHECK(crlc_month_days(2100, 2) == 28);
	CHECK(crlc_month_days(2400, 2) == 29);
	CHECK(crlc_month_days(2024, 0) == 0);
	CHECK(crlc_month_days(2024, 13) == 0);
	CHECK(crlc_month_days(2024, -1) == 0);
	CHECK(crlc_leap_year(2024) && crlc_leap_year(2000) &&
	    !crlc_leap_year(2023) && !crlc_leap_year(2100));
	CHECK(crlc_days_from_civil(1970, 1, 1) == 0);
	CHECK(crlc_days_from_civil(1969, 12, 31) == -1);
	CHECK(crlc_days_from_civil(2024, 3, 1) -
	    crlc_days_from_civil(2024, 2, 28) == 2);
}

static void
test_certificate(const struct tcase *c)
{
	struct crlc_tbs t;
	struct buf b;
	uint8_t *p;
	int rc;

	/* as notBefore */
	tbs_build(&b, c->tag, c->text, UTC, good);
	p = exact(&b);
	rc = crlc_tbs_parse(p, b.len, &t);
	if (c->want == BAD) {
		CHECK(rc == CRLC_TBS_BAD_TIME);
		CHECK(t.not_before == 0 && t.not_after == 1767225600);
		/* the rest is read: the provider still looks it up */
		CHECK(t.serial.len == 1 && t.serial.p[0] == 1);
		CHECK(t.issuer.len == 2);
	} else {
		CHECK(rc == 0);
		CHECK(t.not_before == c->want);
	}
	free(p);
	/* as notAfter */
	tbs_build(&b, UTC, good, c->tag, c->text);
	p = exact(&b);
	rc = crlc_tbs_parse(p, b.len, &t);
	CHECK(rc == (c->want == BAD ? CRLC_TBS_BAD_TIME : 0));
	CHECK(t.not_after == (c->want == BAD ? 0 : c->want));
	free(p);
}

static void
test_crl(const struct tcase *c)
{
	static const char *const field[] = {
		"thisUpdate", "nextUpdate", "revocationDate"
	};
	struct crlc_crl crl;
	struct crlc_crl_entry e;
	struct crlc_span rest;
	const char *why;
	struct buf b;
	uint8_t *p;
	int f, rc;

	for (f = THIS_UPDATE; f <= REVOCATION_DATE; f++) {
		crl_build(&b, (enum crl_field)f, c->tag, c->text);
		p = exact(&b);
		why = NULL;
		rc = crlc_crl_parse(p, b.len, &crl, &why);
		if (c->want == BAD) {
			CHECK(rc == -1);
			/* the reason names the field */
			CHECK(why != NULL && strstr(why, field[f]) != NULL);
		} else {
			CHECK(rc == 0);
			rest = crl.revoked;
			CHECK(crlc_crl_entry_next(&rest, &e, &why) == 1);
			CHECK((f == THIS_UPDATE ? crl.this_update :
			    f == NEXT_UPDATE ? crl.next_update : e.revoked_at) ==
			    c->want);
		}
		if ((rc == -1) != (c->want == BAD))
			fprintf(stderr, "%s %s: %s\n", field[f], c->text,
			    rc == -1 ? "refused" : "accepted");
		free(p);
	}
}

/*
 * UTCTime forms X.680 allows and RFC 5280 4.1.2.5.1 does not: a
 * certificate's time in them names no instant (the strict form stays),
 * a CRL's is read at the instant it names and marked tolerated.
 */
static const struct tcase lax[] = {
	{ UTC, "2601010000Z", 1767225600 },		/* no seconds */
	{ UTC, "260101000000+0000", 1767225600 },	/* an offset */
	{ UTC, "260101010000+0100", 1767225600 },
	{ UTC, "251231233000-0030", 1767225600 },
	{ UTC, "2601010130+0130", 1767225600 },
};

static void
test_lax(const struct tcase *c)
{
	struct tcase strict = { c->tag, c->text, BAD };
	struct crlc_crl crl;
	struct buf b;
	uint8_t *p;
	const char *why;
	int f;

	test_certificate(&strict);
	for (f = THIS_UPDATE; f <= NEXT_UPDATE; f++) {
		crl_build(&b, (enum crl_field)f, c->tag, c->text);
		p = exact(&b);
		CHECK(crlc_crl_parse(p, b.len, &crl, &why) == 0);
		CHECK((f == THIS_UPDATE ? crl.this_update : crl.next_update) ==
		    c->want);
		CHECK(crl.quirks == CRLC_CRL_QUIRK_LAX_TIME);
		free(p);
	}
}

int
main(void)
{
	size_t i;

	test_month_days();
	for (i = 0; i < NCASES; i++) {
		test_certificate(&cases[i]);
		test_crl(&cases[i]);
	}
	for (i = 0; i < sizeof(lax) / sizeof(lax[0]); i++)
		test_lax(&lax[i]);
	return check_result();
}
