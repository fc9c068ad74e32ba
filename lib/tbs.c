/*
 * Strict DER recogniser for TBSCertificate (RFC 5280 4.1).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Every byte comes from whoever built the certificate (or the CRL, OCSP
 * response, CMS blob or TLS transcript that a signature check hands us):
 * lengths are checked against the enclosing element before use, only the
 * DER definite forms are accepted, and nothing is allocated.
 */
#include <string.h>

#include <crlcache/tbs.h>

#include "der.h"

/* OIDs as DER content octets. */
static const uint8_t oid_basic_constraints[] = { 0x55, 0x1d, 0x13 };
static const uint8_t oid_crl_dp[] = { 0x55, 0x1d, 0x1f };
static const uint8_t oid_cert_policies[] = { 0x55, 0x1d, 0x20 };
/*
 * CA/Browser Forum TLS policy OIDs (BR 7.1.6.1): 2.23.140.1.2.1 DV,
 * .2.2 OV, .2.3 IV and 2.23.140.1.1 EV.  S/MIME (.5) and code signing
 * (.3, .4) certificates live under the same arc but not under these rules.
 */
static const uint8_t oid_cabf_dv[] = { 0x67, 0x81, 0x0c, 0x01, 0x02, 0x01 };
static const uint8_t oid_cabf_ov[] = { 0x67, 0x81, 0x0c, 0x01, 0x02, 0x02 };
static const uint8_t oid_cabf_iv[] = { 0x67, 0x81, 0x0c, 0x01, 0x02, 0x03 };
static const uint8_t oid_cabf_ev[] = { 0x67, 0x81, 0x0c, 0x01, 0x01 };

static int
span_eq(const struct der *c, const uint8_t *s, size_t len)
{
	return (size_t)(c->end - c->p) == len && memcmp(c->p, s, len) == 0;
}

static int
two_digits(const uint8_t *p, int *v)
{
	if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9')
		return -1;
	*v = (p[0] - '0') * 10 + (p[1] - '0');
	return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/*
 * RFC 5280 4.1.2.5: UTCTime YYMMDDHHMMSSZ (YY >= 50 is 19YY) or
 * GeneralizedTime YYYYMMDDHHMMSSZ, always UTC, seconds present.
 */
static int
der_time(unsigned tag, const struct der *c, int64_t *out)
{
	const uint8_t *p = c->p;
	size_t len = (size_t)(c->end - c->p);
	int cc, yy, mo, dd, hh, mi, ss;
	int64_t year;

	if (tag == TAG_UTCTIME && len == 13) {
		if (two_digits(p, &yy) == -1)
			return -1;
		year = yy >= 50 ? 1900 + yy : 2000 + yy;
		p += 2;
	} else if (tag == TAG_GENTIME && len == 15) {
		if (two_digits(p, &cc) == -1 || two_digits(p + 2, &yy) == -1)
			return -1;
		year = cc * 100 + yy;
		p += 4;
	} else
		return -1;
	if (two_digits(p, &mo) == -1 || two_digits(p + 2, &dd) == -1 ||
	    two_digits(p + 4, &hh) == -1 || two_digits(p + 6, &mi) == -1 ||
	    two_digits(p + 8, &ss) == -1 || p[10] != 'Z')
		return -1;
	if (mo < 1 || mo > 12 || dd < 1 || dd > 31 || hh > 23 || mi > 59 ||
	    ss > 59)
		return -1;
	*out = days_from_civil(year, mo, dd) * 86400 + hh * 3600 + mi * 60 + ss;
	return 0;
}

/* RFC 5280 4.2.1.9: BasicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, ... } */
static void
ext_basic_constraints(struct der v, struct crlc_tbs *out)
{
	struct der seq, b;

	if (der_expect(&v, TAG_SEQUENCE, &seq) == -1)
		return;
	if (der_peek(&seq, TAG_BOOLEAN) &&
	    der_expect(&seq, TAG_BOOLEAN, &b) == 0 &&
	    b.end - b.p == 1 && b.p[0] != 0)
		out->is_ca = 1;
}

static void
span_add(struct crlc_span *v, size_t *n, const struct der *d)
{
	if (*n == CRLC_TBS_MAX_DP)
		return;
	v[*n].p = d->p;
	v[*n].len = (size_t)(d->end - d->p);
	(*n)++;
}

/*
 * RFC 5280 4.2.1.13: CRLDistributionPoints ::= SEQUENCE OF
 * DistributionPoint { [0] distributionPoint DistributionPointName,
 * [1] reasons, [2] cRLIssuer }, DistributionPointName ::= CHOICE {
 * [0] fullName GeneralNames, [1] nameRelativeToCRLIssuer RDN }.  Collect
 * the uniformResourceIdentifier ([6]) and directoryName ([4], EXPLICIT
 * Name) names of fullName, and nameRelativeToCRLIssuer when no cRLIssuer
 * makes it relative to another issuer (indirect CRLs are not indexed);
 * anything malformed stops collection.
 */
static void
ext_crl_dp(struct der v, struct crlc_tbs *out)
{
	struct der seq, dp, dpn, full, name, rest;
	unsigned tag;

	if (der_expect(&v, TAG_SEQUENCE, &seq) == -1)
		return;
	while (seq.p < seq.end) {
		if (der_expect(&seq, TAG_SEQUENCE, &dp) == -1)
			return;
		if (!der_peek(&dp, TAG_CTX_CONS(0)))
			continue;
		if (der_expect(&dp, TAG_CTX_CONS(0), &dpn) == -1)
			return;
		if (der_peek(&dpn, TAG_CTX_CONS(1))) {
			if (der_expect(&dpn, TAG_CTX_CONS(1), &name) == -1)
				return;
			/* [1] reasons, [2] cRLIssuer may follow */
			for (rest = dp, tag = 0; rest.p < rest.end &&
			    tag != TAG_CTX_CONS(2); )
				if (der_read(&rest, &tag, &full) == -1)
					return;
			if (tag != TAG_CTX_CONS(2))
				span_add(out->dprel, &out->ndprel, &name);
			continue;
		}
		if (der_expect(&dpn, TAG_CTX_CONS(0), &full) == -1)
			return;
		while (full.p < full.end) {
			if (der_read(&full, &tag, &name) == -1)
				return;
			if (tag == TAG_CTX_PRIM(6))
				span_add(out->dp, &out->ndp, &name);
			/* [4] EXPLICIT Name: exactly one SEQUENCE */
			rest = name;
			if (tag == TAG_CTX_CONS(4) &&
			    der_expect(&rest, TAG_SEQUENCE, &dpn) == 0 &&
			    rest.p == rest.end)
				span_add(out->dpdir, &out->ndpdir, &name);
		}
	}
}

/* RFC 5280 4.2.1.4: certificatePolicies, looking for the CA/B TLS OIDs. */
static void
ext_cert_policies(struct der v, struct crlc_tbs *out)
{
	struct der seq, pi, oid;

	if (der_expect(&v, TAG_SEQUENCE, &seq) == -1)
		return;
	while (seq.p < seq.end) {
		if (der_expect(&seq, TAG_SEQUENCE, &pi) == -1 ||
		    der_expect(&pi, TAG_OID, &oid) == -1)
			return;
		if (span_eq(&oid, oid_cabf_dv, sizeof(oid_cabf_dv)) ||
		    span_eq(&oid, oid_cabf_ov, sizeof(oid_cabf_ov)) ||
		    span_eq(&oid, oid_cabf_iv, sizeof(oid_cabf_iv)) ||
		    span_eq(&oid, oid_cabf_ev, sizeof(oid_cabf_ev)))
			out->cabf_policy = 1;
	}
}

/*
 * [3] EXPLICIT Extensions ::= SEQUENCE SIZE (1..MAX) OF Extension
 * Extension ::= SEQUENCE { extnID OID, critical BOOLEAN DEFAULT FALSE,
 * extnValue OCTET STRING }.  The outer structure must be well formed; the
 * values of the few extensions read here are parsed leniently (a bad one
 * is simply not used), since the signature check decides their fate.
 */
static int
parse_extensions(struct der ctx3, struct crlc_tbs *out)
{
	struct der exts, ext, oid, crit, val;

	if (der_expect(&ctx3, TAG_SEQUENCE, &exts) == -1 || ctx3.p != ctx3.end)
		return -1;
	if (exts.p == exts.end)
		return -1;
	while (exts.p < exts.end) {
		if (der_expect(&exts, TAG_SEQUENCE, &ext) == -1 ||
		    der_expect(&ext, TAG_OID, &oid) == -1)
			return -1;
		if (der_peek(&ext, TAG_BOOLEAN) &&
		    der_expect(&ext, TAG_BOOLEAN, &crit) == -1)
			return -1;
		if (der_expect(&ext, TAG_OCTETSTRING, &val) == -1 ||
		    ext.p != ext.end)
			return -1;
		if (span_eq(&oid, oid_basic_constraints, sizeof(oid_basic_constraints)))
			ext_basic_constraints(val, out);
		else if (span_eq(&oid, oid_crl_dp, sizeof(oid_crl_dp)))
			ext_crl_dp(val, out);
		else if (span_eq(&oid, oid_cert_policies, sizeof(oid_cert_policies)))
			ext_cert_policies(val, out);
	}
	return 0;
}

int
crlc_tbs_parse(const uint8_t *der, size_t len, struct crlc_tbs *out)
{
	struct der top, tbs, c, validity;
	unsigned tag;
	long version = 0;

	memset(out, 0, sizeof(*out));
	if (der == NULL)
		return -1;
	top.p = der;
	top.end = der + len;
	if (der_expect(&top, TAG_SEQUENCE, &tbs) == -1 ||
	    top.p != top.end)
		return -1;

	/* version [0] EXPLICIT Version DEFAULT v1; v2 = 1, v3 = 2 */
	if (der_peek(&tbs, TAG_CTX_CONS(0))) {
		struct der v;

		if (der_expect(&tbs, TAG_CTX_CONS(0), &v) == -1 ||
		    der_expect(&v, TAG_INTEGER, &c) == -1 || v.p != v.end ||
		    c.end - c.p != 1 || c.p[0] > 2)
			return -1;
		version = c.p[0];
	}
	/* serialNumber CertificateSerialNumber (4.1.2.2) */
	if (der_expect(&tbs, TAG_INTEGER, &c) == -1 || c.p == c.end)
		return -1;
	out->serial.p = c.p;
	out->serial.len = (size_t)(c.end - c.p);
	/* signature AlgorithmIdentifier (4.1.2.3): keep the whole TLV */
	out->sigalg.p = tbs.p;
	if (der_expect(&tbs, TAG_SEQUENCE, &c) == -1)
		return -1;
	out->sigalg.len = (size_t)(tbs.p - out->sigalg.p);
	/* issuer Name (4.1.2.4): keep the whole TLV */
	out->issuer.p = tbs.p;
	if (der_expect(&tbs, TAG_SEQUENCE, &c) == -1)
		return -1;
	out->issuer.len = (size_t)(tbs.p - out->issuer.p);
	/* validity (4.1.2.5) */
	if (der_expect(&tbs, TAG_SEQUENCE, &validity) == -1 ||
	    der_read(&validity, &tag, &c) == -1 ||
	    der_time(tag, &c, &out->not_before) == -1 ||
	    der_read(&validity, &tag, &c) == -1 ||
	    der_time(tag, &c, &out->not_after) == -1 ||
	    validity.p != validity.end)
		return -1;
	/* subject Name (4.1.2.6) */
	out->subject.p = tbs.p;
	if (der_expect(&tbs, TAG_SEQUENCE, &c) == -1)
		return -1;
	out->subject.len = (size_t)(tbs.p - out->subject.p);
	/* subjectPublicKeyInfo (4.1.2.7) */
	if (der_expect(&tbs, TAG_SEQUENCE, &c) == -1)
		return -1;
	/* issuerUniqueID [1], subjectUniqueID [2]: v2 or v3 only (4.1.2.8) */
	if (der_peek(&tbs, TAG_CTX_PRIM(1)) || der_peek(&tbs, TAG_CTX_CONS(1))) {
		if (version < 1 || der_read(&tbs, &tag, &c) == -1)
			return -1;
	}
	if (der_peek(&tbs, TAG_CTX_PRIM(2)) || der_peek(&tbs, TAG_CTX_CONS(2))) {
		if (version < 1 || der_read(&tbs, &tag, &c) == -1)
			return -1;
	}
	/* extensions [3]: v3 only (4.1.2.9) */
	if (der_peek(&tbs, TAG_CTX_CONS(3))) {
		if (version != 2 || der_expect(&tbs, TAG_CTX_CONS(3), &c) == -1 ||
		    parse_extensions(c, out) == -1)
			return -1;
	}
	return tbs.p == tbs.end ? 0 : -1;
}

int
crlc_cert_tbs(const uint8_t *der, size_t len, struct crlc_span *tbs)
{
	struct der top, cert, c;
	const uint8_t *start;

	if (der == NULL)
		return -1;
	top.p = der;
	top.end = der + len;
	if (der_expect(&top, TAG_SEQUENCE, &cert) == -1 ||
	    top.p != top.end)
		return -1;
	start = cert.p;
	if (der_expect(&cert, TAG_SEQUENCE, &c) == -1)
		return -1;
	tbs->p = start;
	tbs->len = (size_t)(cert.p - start);
	return 0;
}
