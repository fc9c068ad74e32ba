/*
 * One CRL: parse it, verify it, extract what the index stores.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The bytes come from a network server or a file anyone may have handed
 * us.  Nothing in a CRL is trusted until crl_verify() has checked its
 * signature against an issuer that chains to a trust anchor; every other
 * check names the RFC 5280 section it comes from.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <crlcache/index.h>
#include <crlcache/tbs.h>

#include "fetcher.h"

static void
set_err(char *err, size_t errlen, const char *what)
{
	unsigned long e = ERR_peek_last_error();
	char ossl[256];

	if (e != 0) {
		ERR_error_string_n(e, ossl, sizeof(ossl));
		snprintf(err, errlen, "%s (%s)", what, ossl);
	} else
		snprintf(err, errlen, "%s", what);
	ERR_clear_error();
}

/* Content octets of a non-negative INTEGER without sign padding. */
static int
uint_octets(const ASN1_INTEGER *ai, uint8_t *out, size_t max, size_t *len)
{
	BIGNUM *bn;
	int n;

	if ((bn = ASN1_INTEGER_to_BN(ai, NULL)) == NULL)
		return -1;
	n = BN_num_bytes(bn);
	if (BN_is_negative(bn) || n < 0 || (size_t)n > max) {
		BN_free(bn);
		return -1;
	}
	*len = (size_t)BN_bn2bin(bn, out);
	BN_free(bn);
	return 0;
}

int
numcmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	if (alen != blen)
		return alen < blen ? -1 : 1;
	return memcmp(a, b, alen);
}

/* The serial's INTEGER content octets exactly as DER encodes them. */
int
serial_octets(const ASN1_INTEGER *ai, uint8_t *out, size_t max, size_t *len)
{
	unsigned char buf[2 + 4 + CRLC_SERIAL_MAX], *p = buf;
	const unsigned char *q;
	long clen;
	int n, tag, xclass;

	n = i2d_ASN1_INTEGER(ai, NULL);
	if (n <= 0 || (size_t)n > sizeof(buf))
		return -1;
	n = i2d_ASN1_INTEGER(ai, &p);
	q = buf;
	if (ASN1_get_object(&q, &clen, &tag, &xclass, n) & 0x80 ||
	    tag != V_ASN1_INTEGER || clen <= 0 || (size_t)clen > max)
		return -1;
	memcpy(out, q, (size_t)clen);
	*len = (size_t)clen;
	return 0;
}

int
crl_parse(struct crl *c, const char *source, const uint8_t *buf, size_t len,
    char *err, size_t errlen)
{
	const unsigned char *p = buf;
	unsigned char *der = NULL;
	BIO *bio = NULL;
	int n;

	memset(c, 0, sizeof(*c));
	c->source = xstrdup(source);
	if (len == 0) {
		snprintf(err, errlen, "empty file or body");
		return -1;
	}
	if (len > 11 && memcmp(buf, "-----BEGIN ", 11) == 0) {
		if ((bio = BIO_new_mem_buf(buf, (int)len)) == NULL ||
		    (c->x = PEM_read_bio_X509_CRL(bio, NULL, NULL, NULL)) == NULL) {
			BIO_free(bio);
			set_err(err, errlen, "cannot decode PEM CRL");
			return -1;
		}
		BIO_free(bio);
		if ((n = i2d_X509_CRL(c->x, &der)) <= 0) {
			set_err(err, errlen, "cannot re-encode CRL");
			return -1;
		}
		c->der = der;
		c->derlen = (size_t)n;
		return 0;
	}
	if (len > LONG_MAX || (c->x = d2i_X509_CRL(NULL, &p, (long)len)) == NULL) {
		set_err(err, errlen, "malformed CRL: cannot decode DER");
		return -1;
	}
	if ((size_t)(p - buf) != len) {
		snprintf(err, errlen, "malformed CRL: %zu trailing bytes after the DER",
		    len - (size_t)(p - buf));
		return -1;
	}
	c->der = xcalloc(1, len);
	memcpy(c->der, buf, len);
	c->derlen = len;
	return 0;
}

void
crl_free(struct crl *c)
{
	if (c == NULL)
		return;
	free(c->source);
	X509_CRL_free(c->x);
	free(c->der);
	X509_free(c->issuer);
	free(c->scope);
	memset(c, 0, sizeof(*c));
}

/*
 * RFC 5280 5.2 and 5.3: the extensions we understand.  Any other critical
 * extension makes the CRL unusable for us ("MUST ... reject").
 */
static int
check_extensions(const struct crl *c, char *err, size_t errlen)
{
	static const int crl_ok[] = {
		NID_authority_key_identifier, NID_issuer_alt_name,
		NID_crl_number, NID_delta_crl, NID_issuing_distribution_point,
		NID_freshest_crl, NID_info_access,
	};
	static const int entry_ok[] = {
		NID_crl_reason, NID_invalidity_date, NID_hold_instruction_code,
	};
	const STACK_OF(X509_EXTENSION) *exts = X509_CRL_get0_extensions(c->x);
	STACK_OF(X509_REVOKED) *revs = X509_CRL_get_REVOKED(c->x);
	char oid[80];
	size_t k;
	int i, j, nid, known;

	for (i = 0; i < sk_X509_EXTENSION_num(exts); i++) {
		X509_EXTENSION *e = sk_X509_EXTENSION_value(exts, i);

		nid = OBJ_obj2nid(X509_EXTENSION_get_object(e));
		for (known = 0, k = 0; k < sizeof(crl_ok) / sizeof(crl_ok[0]); k++)
			known |= nid == crl_ok[k];
		if (!known && X509_EXTENSION_get_critical(e)) {
			OBJ_obj2txt(oid, sizeof(oid), X509_EXTENSION_get_object(e), 1);
			snprintf(err, errlen, "unknown critical CRL extension %s "
			    "(RFC 5280 5.2)", oid);
			return -1;
		}
	}
	if (sk_X509_REVOKED_num(revs) > MAX_CRL_ENTRIES) {
		snprintf(err, errlen, "too many entries (%d, limit %ld)",
		    sk_X509_REVOKED_num(revs), MAX_CRL_ENTRIES);
		return -1;
	}
	for (j = 0; j < sk_X509_REVOKED_num(revs); j++) {
		const STACK_OF(X509_EXTENSION) *rx =
		    X509_REVOKED_get0_extensions(sk_X509_REVOKED_value(revs, j));

		for (i = 0; i < sk_X509_EXTENSION_num(rx); i++) {
			X509_EXTENSION *e = sk_X509_EXTENSION_value(rx, i);

			nid = OBJ_obj2nid(X509_EXTENSION_get_object(e));
			if (nid == NID_certificate_issuer) {
				snprintf(err, errlen, "indirect CRL entry "
				    "(certificateIssuer, RFC 5280 5.3.3) not supported");
				return -1;
			}
			for (known = 0, k = 0; k < sizeof(entry_ok) / sizeof(entry_ok[0]); k++)
				known |= nid == entry_ok[k];
			if (!known && X509_EXTENSION_get_critical(e)) {
				OBJ_obj2txt(oid, sizeof(oid),
				    X509_EXTENSION_get_object(e), 1);
				snprintf(err, errlen, "unknown critical CRL entry "
				    "extension %s (RFC 5280 5.3)", oid);
				return -1;
			}
		}
	}
	return 0;
}

/*
 * RFC 5280 5.2.3 cRLNumber and 5.2.4 deltaCRLIndicator.
 *
 * A v2 CRL must carry cRLNumber, non-critical (5.2.3: "conforming CRL
 * issuers MUST include this extension", "MUST be non-critical"); either
 * fault refuses it.  A v1 CRL (5.1.2.1: no version field) can carry no
 * extension at all, so no number: it is accepted, it must then have no
 * extension, and it is ordered by thisUpdate alone -- except that a scope
 * which already holds a numbered CRL refuses an unnumbered one
 * (admissible() in store.c): a CA does not go back from v2 to v1, and
 * accepting it would drop the number the rollback rule compares.  An
 * administrator who knows better clears the scope with `crlcache reset`.
 */
static int
read_numbers(struct crl *c, char *err, size_t errlen)
{
	ASN1_INTEGER *num;
	long version = X509_CRL_get_version(c->x);
	int crit;

	if (version == X509_CRL_VERSION_1) {
		if (sk_X509_EXTENSION_num(X509_CRL_get0_extensions(c->x)) > 0) {
			snprintf(err, errlen, "v1 CRL with extensions (RFC 5280 "
			    "5.1.2.1: extensions require v2)");
			return -1;
		}
		return 0;
	}
	num = X509_CRL_get_ext_d2i(c->x, NID_crl_number, &crit, NULL);
	if (num == NULL && crit != -1) {
		snprintf(err, errlen, "malformed cRLNumber extension");
		return -1;
	}
	if (num == NULL) {
		snprintf(err, errlen, "v2 CRL without cRLNumber (RFC 5280 5.2.3: "
		    "MUST be present)");
		return -1;
	}
	if (crit) {
		ASN1_INTEGER_free(num);
		snprintf(err, errlen, "cRLNumber marked critical (RFC 5280 5.2.3: "
		    "MUST be non-critical)");
		return -1;
	}
	if (uint_octets(num, c->number, CRLC_CRLNUM_MAX, &c->numlen) == -1) {
		ASN1_INTEGER_free(num);
		snprintf(err, errlen, "cRLNumber negative or longer than 20 octets "
		    "(RFC 5280 5.2.3)");
		return -1;
	}
	ASN1_INTEGER_free(num);
	num = X509_CRL_get_ext_d2i(c->x, NID_delta_crl, &crit, NULL);
	if (num == NULL && crit != -1) {
		snprintf(err, errlen, "malformed deltaCRLIndicator extension");
		return -1;
	}
	if (num == NULL)
		return 0;
	c->is_delta = 1;
	if (uint_octets(num, c->base, CRLC_CRLNUM_MAX, &c->baselen) == -1) {
		ASN1_INTEGER_free(num);
		snprintf(err, errlen, "bad BaseCRLNumber (RFC 5280 5.2.4)");
		return -1;
	}
	ASN1_INTEGER_free(num);
	if (c->numlen == 0) {
		snprintf(err, errlen, "delta CRL without cRLNumber (RFC 5280 5.2.4)");
		return -1;
	}
	return 0;
}

/*
 * RFC 5280 5.2.5 issuingDistributionPoint.  The scope we index is a
 * name of its distributionPoint (idp_scope(), idp.c); for a CRL fetched
 * from a URL a fullName URI must be the URL (partitioned CRLs: CA/B BR
 * 7.2.2 requires the IDP to equal the certificate's distribution point
 * byte for byte).
 */
static int
read_idp(struct crl *c, const char *url, char *err, size_t errlen)
{
	ISSUING_DIST_POINT *idp;
	int crit, ret = -1;

	idp = X509_CRL_get_ext_d2i(c->x, NID_issuing_distribution_point, &crit,
	    NULL);
	if (idp == NULL) {
		if (crit != -1) {
			snprintf(err, errlen, "malformed issuingDistributionPoint");
			return -1;
		}
		return 0;
	}
	if (idp->indirectCRL) {
		snprintf(err, errlen, "indirect CRL (RFC 5280 5.2.5) not supported");
		goto done;
	}
	if (idp->onlysomereasons != NULL || idp->onlyattr) {
		snprintf(err, errlen, "IDP onlySomeReasons/onlyContainsAttributeCerts "
		    "partition not supported");
		goto done;
	}
	if (idp->onlyuser && idp->onlyCA) {
		snprintf(err, errlen, "IDP claims both onlyContainsUserCerts and "
		    "onlyContainsCACerts (RFC 5280 5.2.5)");
		goto done;
	}
	c->idp_flags = (idp->onlyuser ? CRLC_CRL_USER_ONLY : 0) |
	    (idp->onlyCA ? CRLC_CRL_CA_ONLY : 0);
	if (idp->distpoint != NULL &&
	    idp_scope(idp->distpoint, X509_CRL_get_issuer(c->x), url,
	    c->is_delta, &c->scope, err, errlen) == -1)
		goto done;
	ret = 0;
done:
	ISSUING_DIST_POINT_free(idp);
	return ret;
}

/* RFC 5280 6.3.3 (f): find the issuer whose key verifies this CRL. */
static int
find_issuer(struct crl *c, const struct trust *t, time_t now, char *err,
    size_t errlen)
{
	const X509_NAME *iname = X509_CRL_get_issuer(c->x);
	STACK_OF(X509) *cands;
	char why[512] = "", name[256];
	int i, signed_ok = 0, no_crlsign = 0, not_ca = 0;

	X509_NAME_oneline(iname, name, sizeof(name));
	if ((cands = trust_candidates(t, iname)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < sk_X509_num(cands) && c->issuer == NULL; i++) {
		X509 *x = sk_X509_value(cands, i);
		EVP_PKEY *pk = X509_get0_pubkey(x);

		if (pk == NULL || X509_CRL_verify(c->x, pk) != 1) {
			ERR_clear_error();
			continue;
		}
		signed_ok = 1;
		/* RFC 5280 4.2.1.3: a CRL signer asserts cRLSign if it has keyUsage */
		if ((X509_get_extension_flags(x) & EXFLAG_KUSAGE) &&
		    !(X509_get_key_usage(x) & KU_CRL_SIGN)) {
			no_crlsign = 1;
			continue;
		}
		/*
		 * RFC 5280 4.2.1.9 and 6.3.3 (f): the CRL signer is a CA
		 * (basicConstraints cA=TRUE), or a certificate made only to
		 * sign its CA's CRLs -- no basicConstraints, a keyUsage that
		 * asserts cRLSign (checked above): 6.3.3 (f) lets a CA sign
		 * CRLs with a key other than its certificate-signing key, and
		 * NIST PKITS 4.4.19 is valid with exactly such a certificate.
		 * A certificate that says cA=FALSE, or has neither extension,
		 * is refused.  A version 1 certificate has no extensions: one
		 * that is self-signed passes here and is then accepted only
		 * as a configured trust anchor (trust_chains; 6.1.4 (k)).
		 */
		if (!(X509_get_extension_flags(x) & EXFLAG_CA) &&
		    !(!(X509_get_extension_flags(x) & EXFLAG_BCONS) &&
		    (X509_get_extension_flags(x) & EXFLAG_KUSAGE)) &&
		    !(X509_get_version(x) == X509_VERSION_1 &&
		    (X509_get_extension_flags(x) & EXFLAG_SS))) {
			not_ca = 1;
			continue;
		}
		if (trust_chains(t, x, now, why, sizeof(why)) && X509_up_ref(x))
			c->issuer = x;
	}
	sk_X509_pop_free(cands, X509_free);
	if (c->issuer != NULL)
		return 0;
	if (i == 0)
		snprintf(err, errlen, "no issuer certificate for %s among the anchors "
		    "and CA certificates", name);
	else if (!signed_ok)
		snprintf(err, errlen, "bad signature: no certificate of issuer %s "
		    "verifies the CRL signature", name);
	else if (no_crlsign && why[0] == '\0')
		snprintf(err, errlen, "issuer %s may not sign CRLs: its keyUsage "
		    "lacks cRLSign (RFC 5280 4.2.1.3)", name);
	else if (not_ca && why[0] == '\0')
		snprintf(err, errlen, "issuer %s may not sign CRLs: its certificate "
		    "is not a CA (basicConstraints cA=TRUE, RFC 5280 4.2.1.9) nor "
		    "a dedicated CRL signer (no basicConstraints, keyUsage "
		    "cRLSign; 6.3.3 (f))", name);
	else
		snprintf(err, errlen, "issuer %s does not chain to a trust anchor: %s",
		    name, why);
	return -1;
}

/*
 * Step over one DER element with tag want at *p (not past end).  With
 * enter, leave *p at its content and return the content end in *mark;
 * otherwise leave *p after it and return its first byte in *mark.
 */
static int
der_step(const unsigned char **p, const unsigned char *end, int want,
    int enter, const unsigned char **mark)
{
	const unsigned char *q = *p;
	long len;
	int tag, xclass;

	if (end <= q || ASN1_get_object(&q, &len, &tag, &xclass, end - q) & 0x80 ||
	    tag != want || len > end - q)
		return -1;
	if (enter) {
		*mark = q + len;
		*p = q;
	} else {
		*mark = *p;
		*p = q + len;
	}
	return 0;
}

/* RFC 5280 5.1.1.2: signatureAlgorithm equals tbsCertList.signature. */
static int
same_sigalg(const uint8_t *der, size_t len)
{
	const unsigned char *p = der, *end = der + len, *cend, *tend, *in, *out;
	const unsigned char *inend, *v;

	if (der_step(&p, end, V_ASN1_SEQUENCE, 1, &cend) == -1 ||
	    der_step(&p, cend, V_ASN1_SEQUENCE, 1, &tend) == -1)
		return 0;
	(void)der_step(&p, tend, V_ASN1_INTEGER, 0, &v);	/* optional version */
	if (der_step(&p, tend, V_ASN1_SEQUENCE, 0, &in) == -1)
		return 0;
	inend = p;
	p = tend;
	if (der_step(&p, cend, V_ASN1_SEQUENCE, 0, &out) == -1)
		return 0;
	return p - out == inend - in && memcmp(in, out, (size_t)(p - out)) == 0;
}

int
crl_verify(struct crl *c, const struct trust *t, const char *url, time_t now,
    char *err, size_t errlen)
{
	if (!same_sigalg(c->der, c->derlen)) {
		snprintf(err, errlen, "signature algorithm differs from the one in "
		    "tbsCertList (RFC 5280 5.1.1.2)");
		return -1;
	}
	if (find_issuer(c, t, now, err, errlen) == -1)
		return -1;
	/* RFC 5280 5.1.2.4 / 5.1.2.5 */
	c->this_update = asn1_time_to_epoch(X509_CRL_get0_lastUpdate(c->x));
	if (c->this_update == -1) {
		snprintf(err, errlen, "malformed thisUpdate");
		return -1;
	}
	if (c->this_update > (int64_t)now + MAX_CLOCK_SKEW) {
		snprintf(err, errlen, "thisUpdate is in the future");
		return -1;
	}
	if (X509_CRL_get0_nextUpdate(c->x) != NULL) {
		c->next_update = asn1_time_to_epoch(X509_CRL_get0_nextUpdate(c->x));
		if (c->next_update == -1 || c->next_update < c->this_update) {
			snprintf(err, errlen, "malformed nextUpdate (before thisUpdate)");
			return -1;
		}
	}
	if (check_extensions(c, err, errlen) == -1 ||
	    read_numbers(c, err, errlen) == -1 ||
	    read_idp(c, url, err, errlen) == -1)
		return -1;
	return 0;
}
