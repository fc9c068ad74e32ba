/*
 * Strict DER recognisers for TBSCertificate (RFC 5280 4.1) and
 * CertificateList (RFC 5280 5.1).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Every byte comes from whoever built the certificate (or the CRL, OCSP
 * response, CMS blob or TLS transcript that a signature check hands us):
 * lengths are checked against the enclosing element before use, only the
 * DER definite forms are accepted, and nothing is allocated.
 */
#include <stddef.h>
#include <string.h>

#include <crlcache/civil.h>
#include <crlcache/reasons.h>
#include <crlcache/tbs.h>

#include "der.h"

/* OIDs as DER content octets. */
static const uint8_t oid_basic_constraints[] = { 0x55, 0x1d, 0x13 };
static const uint8_t oid_crl_dp[] = { 0x55, 0x1d, 0x1f };
static const uint8_t oid_cert_policies[] = { 0x55, 0x1d, 0x20 };
/* 1.3.6.1.4.1.11129.2.4.2, RFC 6962 3.3: the embedded SCT list. */
static const uint8_t oid_sct_list[] = {
	0x2b, 0x06, 0x01, 0x04, 0x01, 0xd6, 0x79, 0x02, 0x04, 0x02
};
/* CRL entry extensions (RFC 5280 5.3): id-ce 21, 24, 23, 29. */
static const uint8_t oid_crl_reason[] = { 0x55, 0x1d, 0x15 };
static const uint8_t oid_invalidity_date[] = { 0x55, 0x1d, 0x18 };
static const uint8_t oid_hold_instruction[] = { 0x55, 0x1d, 0x17 };
static const uint8_t oid_cert_issuer[] = { 0x55, 0x1d, 0x1d };
/*
 * No CA issued a CRL before 1950-01-01T00:00:00Z: RFC 5280 4.1.2.5 gives
 * UTCTime no earlier year and tells issuers to use it through 2049, so a
 * GeneralizedTime before 1950 (year 0001 in a real vector) is an
 * encoding error, not a time; a CRL dated then is refused.
 */
#define CRL_TIME_MIN	(-631152000LL)
/* RFC 5280 5.3.1: CRLReason values 0..10 (7 is unused but harmless). */
#define CRL_REASON_MAX	10
/*
 * CA/Browser Forum TLS policy OIDs (BR 7.1.6.1): 2.23.140.1.2.1 DV,
 * .2.2 OV, .2.3 IV and 2.23.140.1.1 EV.  S/MIME (.5) and code signing
 * (.3, .4) certificates live under the same arc but not under these rules.
 */
static const uint8_t oid_cabf_dv[] = { 0x67, 0x81, 0x0c, 0x01, 0x02, 0x01 };
static const uint8_t oid_cabf_ov[] = { 0x67, 0x81, 0x0c, 0x01, 0x02, 0x02 };
static const uint8_t oid_cabf_iv[] = { 0x67, 0x81, 0x0c, 0x01, 0x02, 0x03 };
static const uint8_t oid_cabf_ev[] = { 0x67, 0x81, 0x0c, 0x01, 0x01 };

/*
 * The subjectPublicKey of a SubjectPublicKeyInfo (RFC 5280 4.1.2.7):
 * SEQUENCE { algorithm AlgorithmIdentifier, subjectPublicKey BIT STRING },
 * whose bits (X.690 8.6.2: after the unused-bits octet, which is 0 for
 * every key type) the provider compares with the key that verifies the
 * certificate's children.  Empty when spki is anything else: the
 * certificate's revocation is still looked up (the SPKI is OpenSSL's to
 * judge), only no child is linked to it.
 */
static void
spk_bits(struct der spki, struct crlc_span *out)
{
	struct der alg, bits;

	out->p = NULL;
	out->len = 0;
	if (der_expect(&spki, TAG_SEQUENCE, &alg) == -1 ||
	    der_expect(&spki, TAG_BITSTRING, &bits) == -1 ||
	    spki.p != spki.end || bits.p == bits.end || bits.p[0] != 0)
		return;
	out->p = bits.p + 1;
	out->len = (size_t)(bits.end - bits.p - 1);
}

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

/*
 * RFC 5280 4.1.2.5.1 UTCTime YYMMDDHHMMSSZ (YY >= 50 is 19YY) and
 * 4.1.2.5.2 GeneralizedTime YYYYMMDDHHMMSSZ, the same for the CRL times
 * (5.1.2.4-5.1.2.6): Zulu ("Z", X.690 11.7.1 / 11.8.1), seconds present
 * (11.7.2 / 11.8.2), no fraction of a second (RFC 5280 4.1.2.5.2; DER
 * would allow one), and each field a possible date and time of the
 * Gregorian calendar: a day past its month's end (February 29 outside a
 * leap year, April 31) is refused, not carried into the next month, and
 * so are hour 24 and second 60 (OpenSSL's ASN1_TIME refuses both too).
 * GeneralizedTime before 2050, which RFC 5280 tells CAs and CRL issuers
 * not to use (4.1.2.5, 5.1.2.4, 5.1.2.6), is read: the rule binds
 * issuers, PKITS 4.2.4 makes a validator accept it, and OpenSSL accepts
 * it in the same objects.
 *
 * With lax not NULL (a CRL's times), a UTCTime in the other forms X.680
 * 47.3 defines is read too and *lax set: seconds left out (YYMMDDHHMMZ,
 * second 0) and an offset from UTC instead of "Z" (+hhmm or -hhmm, hh up
 * to 23, mm up to 59).  Each names one instant, so only the rule for
 * issuers is broken; OpenSSL, Go and webpki read them.
 */
static int
der_time(unsigned tag, const struct der *c, int64_t *out, int *lax)
{
	const uint8_t *p = c->p, *end = c->end;
	int cc, yy, mo, dd, hh, mi, ss = 0, oh = 0, om = 0, sign = 0;
	int64_t year;

	if (tag == TAG_UTCTIME && end - p >= 11 && (lax != NULL ||
	    end - p == 13)) {
		if (two_digits(p, &yy) == -1)
			return -1;
		year = yy >= 50 ? 1900 + yy : 2000 + yy;
		p += 2;
	} else if (tag == TAG_GENTIME && end - p == 15) {
		if (two_digits(p, &cc) == -1 || two_digits(p + 2, &yy) == -1)
			return -1;
		year = cc * 100 + yy;
		p += 4;
	} else
		return -1;
	if (two_digits(p, &mo) == -1 || two_digits(p + 2, &dd) == -1 ||
	    two_digits(p + 4, &hh) == -1 || two_digits(p + 6, &mi) == -1)
		return -1;
	p += 8;
	if (end - p >= 2 && two_digits(p, &ss) == 0)
		p += 2;
	else if (tag == TAG_GENTIME || lax == NULL)
		return -1;
	else
		*lax = 1;
	if (end - p == 1 && p[0] == 'Z')
		p++;
	else if (tag == TAG_UTCTIME && end - p == 5 && (p[0] == '+' ||
	    p[0] == '-') && two_digits(p + 1, &oh) == 0 &&
	    two_digits(p + 3, &om) == 0 && oh <= 23 && om <= 59 &&
	    lax != NULL) {
		sign = p[0] == '+' ? 1 : -1;
		*lax = 1;
		p += 5;
	} else
		return -1;
	if (dd < 1 || dd > crlc_month_days(year, mo) || hh > 23 || mi > 59 ||
	    ss > 59)
		return -1;
	/* local time = UTC + offset */
	*out = crlc_days_from_civil(year, mo, dd) * 86400 + hh * 3600 +
	    mi * 60 + ss - sign * (oh * 3600 + om * 60);
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
span_add(struct crlc_span *v, uint16_t *unnamed, size_t *n,
    const struct der *d, unsigned mask)
{
	if (*n == CRLC_TBS_MAX_DP)
		return;
	v[*n].p = d->p;
	v[*n].len = (size_t)(d->end - d->p);
	unnamed[*n] = (uint16_t)(CRLC_REASONS_ALL & ~mask);
	(*n)++;
}

/* A directoryName GeneralName ([4] EXPLICIT Name): exactly one SEQUENCE. */
static int
is_dirname(unsigned tag, const struct der *name)
{
	struct der rest = *name, seq;

	return tag == TAG_CTX_CONS(4) &&
	    der_expect(&rest, TAG_SEQUENCE, &seq) == 0 && rest.p == rest.end;
}

static void
ind_add(struct crlc_tbs *out, const struct crlc_span *crl_issuer,
    enum crlc_dpn_kind kind, const struct der *name, unsigned mask)
{
	struct crlc_tbs_idp *d;

	if (out->nind == CRLC_TBS_MAX_DP)
		return;
	d = &out->ind[out->nind++];
	d->crl_issuer = *crl_issuer;
	d->kind = kind;
	d->name.p = name != NULL ? name->p : NULL;
	d->name.len = name != NULL ? (size_t)(name->end - name->p) : 0;
	d->unnamed = (uint16_t)(CRLC_REASONS_ALL & ~mask);
}

/*
 * The names of one DistributionPointName ::= CHOICE { [0] fullName
 * GeneralNames, [1] nameRelativeToCRLIssuer RDN }: URIs ([6]) and
 * directoryNames ([4]) of fullName, or the RDN, with the reasons mask of
 * their DistributionPoint.  crl_issuer NULL: the distribution point has
 * no cRLIssuer, its names go to dp, dpdir and dprel; else to ind.  -1
 * when malformed.
 */
static int
dpn_names(struct der dpn, const struct crlc_span *crl_issuer, unsigned mask,
    struct crlc_tbs *out)
{
	struct der full, name;
	unsigned tag;

	if (der_peek(&dpn, TAG_CTX_CONS(1))) {
		if (der_expect(&dpn, TAG_CTX_CONS(1), &name) == -1)
			return -1;
		if (crl_issuer != NULL)
			ind_add(out, crl_issuer, CRLC_DPN_REL, &name, mask);
		else
			span_add(out->dprel, out->dprel_unnamed, &out->ndprel,
			    &name, mask);
		return 0;
	}
	if (der_expect(&dpn, TAG_CTX_CONS(0), &full) == -1)
		return -1;
	while (full.p < full.end) {
		if (der_read(&full, &tag, &name) == -1)
			return -1;
		if (tag == TAG_CTX_PRIM(6)) {
			if (crl_issuer != NULL)
				ind_add(out, crl_issuer, CRLC_DPN_URI, &name,
				    mask);
			else
				span_add(out->dp, out->dp_unnamed, &out->ndp,
				    &name, mask);
		} else if (is_dirname(tag, &name)) {
			if (crl_issuer != NULL)
				ind_add(out, crl_issuer, CRLC_DPN_DIR, &name,
				    mask);
			else
				span_add(out->dpdir, out->dpdir_unnamed,
				    &out->ndpdir, &name, mask);
		}
	}
	return 0;
}

/*
 * RFC 5280 4.2.1.13: CRLDistributionPoints ::= SEQUENCE OF
 * DistributionPoint { [0] distributionPoint DistributionPointName,
 * [1] reasons ReasonFlags (absent: all reasons), [2] cRLIssuer
 * GeneralNames }.  A distribution point without cRLIssuer is served by
 * the certificate issuer: its names go to dp, dpdir and dprel.  One with
 * a cRLIssuer is served by the indirect CRLs of that issuer (5.2.5,
 * 6.3.3 (b)(1)): its names, and the cRLIssuer's first directoryName, go
 * to ind -- a fullName there must never match the certificate issuer's
 * own partitions.  Anything malformed stops collection.
 */
static void
ext_crl_dp(struct der v, struct crlc_tbs *out)
{
	struct der seq, dp, dpn = { NULL, NULL }, iss = { NULL, NULL }, c;
	struct crlc_span crl_issuer;
	unsigned tag, mask;
	int has_dpn, has_iss, direct = 0;

	if (der_expect(&v, TAG_SEQUENCE, &seq) == -1)
		return;
	while (seq.p < seq.end) {
		if (der_expect(&seq, TAG_SEQUENCE, &dp) == -1)
			return;
		has_dpn = has_iss = 0;
		mask = CRLC_REASONS_ALL;
		while (dp.p < dp.end) {
			if (der_read(&dp, &tag, &c) == -1)
				return;
			if (tag == TAG_CTX_CONS(0)) {
				dpn = c;
				has_dpn = 1;
			} else if (tag == TAG_CTX_PRIM(1)) {
				if (crlc_reasons_parse(c.p, (size_t)(c.end - c.p),
				    &mask) == -1)
					return;
			} else if (tag == TAG_CTX_CONS(1)) {
				/* [1] IMPLICIT BIT STRING: primitive (X.690
				   8.6.3, DER) */
				return;
			} else if (tag == TAG_CTX_CONS(2)) {
				iss = c;
				has_iss = 1;
			}
		}
		if (!has_iss) {
			out->dp_indirect_only = 0;
			direct = 1;
			if (has_dpn && dpn_names(dpn, NULL, mask, out) == -1)
				return;
			continue;
		}
		out->dp_indirect_only = !direct;
		/* The cRLIssuer's first directoryName names the CRL issuer. */
		crl_issuer.len = 0;
		while (iss.p < iss.end && crl_issuer.len == 0) {
			if (der_read(&iss, &tag, &c) == -1)
				return;
			if (is_dirname(tag, &c)) {
				crl_issuer.p = c.p;
				crl_issuer.len = (size_t)(c.end - c.p);
			}
		}
		if (crl_issuer.len == 0)
			continue;
		if (!has_dpn)
			ind_add(out, &crl_issuer, CRLC_DPN_NONE, NULL, mask);
		else if (dpn_names(dpn, &crl_issuer, mask, out) == -1)
			return;
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
 * One Extension ::= SEQUENCE { extnID OID, critical BOOLEAN DEFAULT FALSE,
 * extnValue OCTET STRING } from exts: the OID content (and where its TLV
 * starts, when oid_tlv is not NULL), whether it is critical and the
 * OCTET STRING content.
 */
static int
ext_read(struct der *exts, struct der *oid, const uint8_t **oid_tlv,
    int *critical, struct der *val)
{
	struct der ext, b;

	*critical = 0;
	if (der_expect(exts, TAG_SEQUENCE, &ext) == -1)
		return -1;
	if (oid_tlv != NULL)
		*oid_tlv = ext.p;
	if (
	    der_expect(&ext, TAG_OID, oid) == -1 || oid->p == oid->end)
		return -1;
	if (der_peek(&ext, TAG_BOOLEAN)) {
		if (der_expect(&ext, TAG_BOOLEAN, &b) == -1 || b.end - b.p != 1)
			return -1;
		*critical = b.p[0] != 0;
	}
	if (der_expect(&ext, TAG_OCTETSTRING, val) == -1 || ext.p != ext.end)
		return -1;
	return 0;
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
	struct der exts, oid, val;
	int crit, scts = 0;

	if (der_expect(&ctx3, TAG_SEQUENCE, &exts) == -1 || ctx3.p != ctx3.end)
		return -1;
	if (exts.p == exts.end)
		return -1;
	while (exts.p < exts.end) {
		if (ext_read(&exts, &oid, NULL, &crit, &val) == -1)
			return -1;
		if (span_eq(&oid, oid_basic_constraints, sizeof(oid_basic_constraints)))
			ext_basic_constraints(val, out);
		else if (span_eq(&oid, oid_crl_dp, sizeof(oid_crl_dp)))
			ext_crl_dp(val, out);
		else if (span_eq(&oid, oid_cert_policies, sizeof(oid_cert_policies)))
			ext_cert_policies(val, out);
		else if (span_eq(&oid, oid_sct_list, sizeof(oid_sct_list)) &&
		    scts++ == 0) {
			/* kept as is: read only when CRLite data is loaded */
			out->sct_list.p = val.p;
			out->sct_list.len = (size_t)(val.end - val.p);
		}
	}
	/* twice (RFC 5280 4.2): not one list CRLite could trust */
	if (scts > 1)
		out->sct_list.len = 0;
	return 0;
}

/*
 * One Time of a Validity: -1 when the element is no UTCTime or
 * GeneralizedTime; a Time that names no possible instant sets *bad (the
 * bytes are still a certificate: crlc_tbs_parse says CRLC_TBS_BAD_TIME).
 */
static int
validity_time(struct der *validity, int64_t *out, int *bad)
{
	struct der c;
	unsigned tag;

	if (der_read(validity, &tag, &c) == -1 ||
	    (tag != TAG_UTCTIME && tag != TAG_GENTIME))
		return -1;
	if (der_time(tag, &c, out, NULL) == -1) {
		*out = 0;
		*bad = 1;
	}
	return 0;
}

/* Long: RFC 5280 4.1's fields in their order, one check each. */
int
crlc_tbs_parse(const uint8_t *der, size_t len, struct crlc_tbs *out)
{
	struct der top, tbs, c, validity;
	unsigned tag;
	long version = 0;
	int bad_time = 0;

	/* all but ind[], read only below nind (<crlcache/tbs.h>) */
	memset(out, 0, offsetof(struct crlc_tbs, ind));
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
	/* validity (4.1.2.5): notBefore, notAfter */
	if (der_expect(&tbs, TAG_SEQUENCE, &validity) == -1 ||
	    validity_time(&validity, &out->not_before, &bad_time) == -1 ||
	    validity_time(&validity, &out->not_after, &bad_time) == -1 ||
	    validity.p != validity.end)
		return -1;
	/* subject Name (4.1.2.6) */
	out->subject.p = tbs.p;
	if (der_expect(&tbs, TAG_SEQUENCE, &c) == -1)
		return -1;
	out->subject.len = (size_t)(tbs.p - out->subject.p);
	/* subjectPublicKeyInfo (4.1.2.7): its TLV and subjectPublicKey's bits */
	out->spki.p = tbs.p;
	if (der_expect(&tbs, TAG_SEQUENCE, &c) == -1)
		return -1;
	out->spki.len = (size_t)(tbs.p - out->spki.p);
	spk_bits(c, &out->spk);
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
	if (tbs.p != tbs.end)
		return -1;
	return bad_time ? CRLC_TBS_BAD_TIME : 0;
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

/* X.690 8.3.2: an INTEGER's content is non-empty and minimal (DER). */
static int
int_minimal(const struct der *c)
{
	size_t n = (size_t)(c->end - c->p);

	if (n == 0)
		return -1;
	if (n > 1 && ((c->p[0] == 0x00 && !(c->p[1] & 0x80)) ||
	    (c->p[0] == 0xff && (c->p[1] & 0x80))))
		return -1;
	return 0;
}

static int
fail(const char **why, const char *what)
{
	*why = what;
	return -1;
}

/* Read one element with tag from d and keep its whole TLV in *out. */
static int
tlv_span(struct der *d, unsigned tag, struct crlc_span *out)
{
	struct der c;

	out->p = d->p;
	if (der_expect(d, tag, &c) == -1)
		return -1;
	out->len = (size_t)(d->p - out->p);
	return 0;
}

/*
 * RFC 5280 5.3.3 certificateIssuer ::= GeneralNames, SEQUENCE SIZE
 * (1..MAX) OF GeneralName, critical: every GeneralName a well-formed
 * context-tagged element ([0]..[8]), exactly one of them a directoryName
 * -- the certificate issuer's DN, which 5.3.3 requires (an entry is
 * matched by that name; a second DN would make one entry stand for two
 * issuers, not supported).  seq: the value's element.
 */
static int
cert_issuer(unsigned tag, struct der seq, int crit, struct crlc_crl_entry *e,
    const char **why)
{
	struct der name;
	unsigned t;
	int ndir = 0;

	if (!crit)
		return fail(why, "malformed CRL: certificateIssuer not marked "
		    "critical (RFC 5280 5.3.3: MUST be critical)");
	if (tag != TAG_SEQUENCE || seq.p == seq.end)
		return fail(why, "malformed CRL: certificateIssuer is not "
		    "GeneralNames (RFC 5280 5.3.3)");
	while (seq.p < seq.end) {
		if (der_read(&seq, &t, &name) == -1 ||
		    (t & 0xc0) != 0x80 || (t & 0x1f) > 8)
			return fail(why, "malformed CRL: bad GeneralName in "
			    "certificateIssuer (RFC 5280 4.2.1.6, 5.3.3)");
		if (t == TAG_CTX_CONS(4)) {
			if (!is_dirname(t, &name))
				return fail(why, "malformed CRL: bad directoryName "
				    "in certificateIssuer (RFC 5280 5.3.3)");
			e->cert_issuer.p = name.p;
			e->cert_issuer.len = (size_t)(name.end - name.p);
			ndir++;
		}
	}
	if (ndir == 0)
		return fail(why, "certificateIssuer without a directoryName "
		    "(RFC 5280 5.3.3: MUST include the certificate issuer's "
		    "distinguished name)");
	if (ndir > 1)
		return fail(why, "certificateIssuer with several directoryNames "
		    "(RFC 5280 5.3.3) not supported");
	return 0;
}

/* The value of one crlEntryExtension we understand; -1 when malformed. */
static int
entry_ext(const struct der *oid, struct der val, int crit,
    struct crlc_crl_entry *e, unsigned *seen, const char **why)
{
	static const struct {
		const uint8_t	*oid;
		size_t		 len;
	} known[] = {
		{ oid_crl_reason, sizeof(oid_crl_reason) },
		{ oid_invalidity_date, sizeof(oid_invalidity_date) },
		{ oid_hold_instruction, sizeof(oid_hold_instruction) },
		{ oid_cert_issuer, sizeof(oid_cert_issuer) },
	};
	struct der c;
	unsigned tag;
	size_t k;

	for (k = 0; k < sizeof(known) / sizeof(known[0]); k++)
		if (span_eq(oid, known[k].oid, known[k].len))
			break;
	if (k == sizeof(known) / sizeof(known[0]))
		return 1;		/* not understood */
	if (*seen & (1u << k))
		return fail(why, "malformed CRL: an extension twice in one "
		    "revoked entry (RFC 5280 4.2, 5.3)");
	*seen |= 1u << k;
	/* Every value is exactly one DER element. */
	if (der_read(&val, &tag, &c) == -1 || val.p != val.end)
		return fail(why, "malformed CRL: bad CRL entry extension value");
	if (known[k].oid == oid_crl_reason) {
		/*
		 * CRLReason ::= ENUMERATED, one octet for 0..10.  A value no
		 * reason has still says the certificate is revoked: it is
		 * read as unspecified and reported, not a cause to ignore
		 * every entry of the CRL.
		 */
		if (tag != TAG_ENUMERATED || c.end - c.p != 1 || c.p[0] >= 0x80)
			return fail(why, "malformed CRL: bad reasonCode in a "
			    "revoked entry (RFC 5280 5.3.1)");
		e->reason = c.p[0];
		if (c.p[0] > CRL_REASON_MAX) {
			e->reason = 0;
			e->undefined_reason = 1;
		}
	} else if (known[k].oid == oid_cert_issuer)
		return cert_issuer(tag, c, crit, e, why);
	return 0;
}

int
crlc_crl_entry_next(struct crlc_span *rest, struct crlc_crl_entry *e,
    const char **why)
{
	struct der d, ent, c, exts, oid, val;
	const uint8_t *oid_tlv;
	unsigned tag, seen = 0;
	int crit, r;

	if (rest->len == 0)
		return 0;
	memset(e, 0, sizeof(*e));
	e->reason = CRLC_CRL_REASON_NONE;
	d.p = rest->p;
	d.end = rest->p + rest->len;
	if (der_expect(&d, TAG_SEQUENCE, &ent) == -1)
		return fail(why, "malformed CRL: bad revoked entry");
	/* userCertificate CertificateSerialNumber (5.1.2.6) */
	if (der_expect(&ent, TAG_INTEGER, &c) == -1 || int_minimal(&c) == -1)
		return fail(why, "malformed CRL: bad serial number in a revoked "
		    "entry");
	e->serial.p = c.p;
	e->serial.len = (size_t)(c.end - c.p);
	if (der_read(&ent, &tag, &c) == -1 ||
	    der_time(tag, &c, &e->revoked_at, &e->lax_time) == -1)
		return fail(why, "malformed CRL: revocationDate is no UTCTime "
		    "or GeneralizedTime of a possible date (RFC 5280 5.1.2.6)");
	if (ent.p < ent.end) {
		/*
		 * crlEntryExtensions Extensions: SIZE (1..MAX).  An empty
		 * SEQUENCE breaks that rule for issuers only: it says what
		 * an absent field says, real CAs publish it (T-Systems,
		 * FINMECCANICA) and OpenSSL, Go and webpki accept it, so
		 * it is read as absent and reported (CRLC_CRL_QUIRK_*).
		 */
		if (der_expect(&ent, TAG_SEQUENCE, &exts) == -1 ||
		    ent.p != ent.end)
			return fail(why, "malformed CRL: bad crlEntryExtensions");
		if (exts.p == exts.end)
			e->empty_extensions = 1;
		while (exts.p < exts.end) {
			if (ext_read(&exts, &oid, &oid_tlv, &crit, &val) == -1)
				return fail(why, "malformed CRL: bad CRL entry "
				    "extension");
			if ((r = entry_ext(&oid, val, crit, e, &seen, why)) == -1)
				return -1;
			if (r == 1 && crit && e->unknown_critical.len == 0) {
				e->unknown_critical.p = oid_tlv;
				e->unknown_critical.len = (size_t)(oid.end - oid_tlv);
			}
		}
	}
	rest->p = d.p;
	rest->len = (size_t)(d.end - d.p);
	return 1;
}

/*
 * CertificateList ::= SEQUENCE { tbsCertList, signatureAlgorithm,
 * signatureValue BIT STRING } (5.1.1): the three parts of der into out,
 * the content of tbsCertList into *tbs.
 */
static int
crl_outer(const uint8_t *der, size_t len, struct crlc_crl *out,
    struct der *tbs, const char **why)
{
	struct der top, cl, c;

	top.p = der;
	top.end = der + len;
	if (der_expect(&top, TAG_SEQUENCE, &cl) == -1)
		return fail(why, "malformed CRL: cannot decode DER");
	if (top.p != top.end)
		return fail(why, "malformed CRL: trailing bytes after the DER");
	out->tbs.p = cl.p;
	if (der_expect(&cl, TAG_SEQUENCE, tbs) == -1)
		return fail(why, "malformed CRL: bad tbsCertList");
	out->tbs.len = (size_t)(cl.p - out->tbs.p);
	if (tlv_span(&cl, TAG_SEQUENCE, &out->outer_sigalg) == -1)
		return fail(why, "malformed CRL: bad signatureAlgorithm");
	/* a signature is whole octets: no unused bits */
	if (der_expect(&cl, TAG_BITSTRING, &c) == -1 || c.p == c.end ||
	    c.p[0] != 0 || cl.p != cl.end)
		return fail(why, "malformed CRL: bad signatureValue");
	out->signature.p = c.p + 1;
	out->signature.len = (size_t)(c.end - c.p - 1);
	return 0;
}

/* tbsCertList from its start up to revokedCertificates (5.1.2.1-5.1.2.5). */
static int
crl_head(struct der *tbs, struct crlc_crl *out, const char **why)
{
	struct der c;
	unsigned tag;
	int lax_time = 0;

	/* version Version OPTIONAL -- if present, MUST be v2 (5.1.2.1) */
	out->version = 1;
	if (der_peek(tbs, TAG_INTEGER)) {
		if (der_expect(tbs, TAG_INTEGER, &c) == -1 ||
		    c.end - c.p != 1 || c.p[0] != 1)
			return fail(why, "malformed CRL: version other than v2 "
			    "(RFC 5280 5.1.2.1)");
		out->version = 2;
	}
	/* signature AlgorithmIdentifier (5.1.2.2), issuer Name (5.1.2.3) */
	if (tlv_span(tbs, TAG_SEQUENCE, &out->sigalg) == -1)
		return fail(why, "malformed CRL: bad signature algorithm");
	if (tlv_span(tbs, TAG_SEQUENCE, &out->issuer) == -1)
		return fail(why, "malformed CRL: bad issuer name");
	/* thisUpdate Time, nextUpdate Time OPTIONAL (5.1.2.4, 5.1.2.5) */
	if (der_read(tbs, &tag, &c) == -1 ||
	    der_time(tag, &c, &out->this_update, &lax_time) == -1 ||
	    out->this_update < CRL_TIME_MIN)
		return fail(why, "malformed CRL: thisUpdate is no UTCTime or "
		    "GeneralizedTime of a possible date from 1950 on (RFC 5280 "
		    "5.1.2.4, 4.1.2.5)");
	if (der_peek(tbs, TAG_UTCTIME) || der_peek(tbs, TAG_GENTIME)) {
		if (der_read(tbs, &tag, &c) == -1 ||
		    der_time(tag, &c, &out->next_update, &lax_time) == -1 ||
		    out->next_update < CRL_TIME_MIN)
			return fail(why, "malformed CRL: nextUpdate is no UTCTime "
			    "or GeneralizedTime of a possible date from 1950 on "
			    "(RFC 5280 5.1.2.5, 4.1.2.5)");
	}
	if (lax_time)
		out->quirks |= CRLC_CRL_QUIRK_LAX_TIME;
	return 0;
}

/*
 * revokedCertificates SEQUENCE OF SEQUENCE OPTIONAL (5.1.2.6): every entry
 * read once, so that a bad one refuses the CRL here, and counted.
 */
static int
crl_revoked(struct der *tbs, struct crlc_crl *out, const char **why)
{
	struct crlc_span rest;
	struct crlc_crl_entry e;
	struct der c;
	int r;

	if (!der_peek(tbs, TAG_SEQUENCE))
		return 0;
	if (der_expect(tbs, TAG_SEQUENCE, &c) == -1)
		return fail(why, "malformed CRL: bad revokedCertificates");
	out->revoked.p = c.p;
	out->revoked.len = (size_t)(c.end - c.p);
	rest = out->revoked;
	while ((r = crlc_crl_entry_next(&rest, &e, why)) == 1) {
		out->nrevoked++;
		out->entry_cert_issuer |= e.cert_issuer.len > 0;
		if (e.empty_extensions)
			out->quirks |= CRLC_CRL_QUIRK_EMPTY_ENTRY_EXTS;
		if (e.lax_time)
			out->quirks |= CRLC_CRL_QUIRK_LAX_TIME;
		if (e.undefined_reason)
			out->quirks |= CRLC_CRL_QUIRK_UNDEFINED_REASON;
		if (out->entry_unknown_critical.len == 0)
			out->entry_unknown_critical = e.unknown_critical;
	}
	return r;
}

/* crlExtensions [0] EXPLICIT Extensions OPTIONAL (5.1.2.7). */
static int
crl_extensions(struct der *tbs, struct crlc_crl *out, const char **why)
{
	struct der c, exts, oid, val;
	int crit;

	if (!der_peek(tbs, TAG_CTX_CONS(0)))
		return 0;
	if (der_expect(tbs, TAG_CTX_CONS(0), &c) == -1)
		return fail(why, "malformed CRL: bad crlExtensions");
	out->extensions.p = c.p;
	if (der_expect(&c, TAG_SEQUENCE, &exts) == -1 || c.p != c.end ||
	    exts.p == exts.end)
		return fail(why, "malformed CRL: bad crlExtensions");
	out->extensions.len = (size_t)(c.end - out->extensions.p);
	while (exts.p < exts.end)
		if (ext_read(&exts, &oid, NULL, &crit, &val) == -1)
			return fail(why, "malformed CRL: bad crlExtensions");
	return 0;
}

int
crlc_crl_parse(const uint8_t *der, size_t len, struct crlc_crl *out,
    const char **why)
{
	struct der tbs;

	memset(out, 0, sizeof(*out));
	if (der == NULL)
		return fail(why, "malformed CRL: no data");
	if (crl_outer(der, len, out, &tbs, why) == -1 ||
	    crl_head(&tbs, out, why) == -1 ||
	    crl_revoked(&tbs, out, why) == -1 ||
	    crl_extensions(&tbs, out, why) == -1)
		return -1;
	if (tbs.p != tbs.end)
		return fail(why, "malformed CRL: unexpected data in tbsCertList");
	return 0;
}
