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
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <crlcache/index.h>
#include <crlcache/reasons.h>
#include <crlcache/tbs.h>

#include "crl.h"
#include "fetcher.h"
#include "trust.h"

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

/*
 * RFC 5280 5.1: the CRL is read in place by the strict DER recogniser of
 * lib/tbs.c, its revoked entries included, and never decoded into an
 * X509_CRL (a million X509_REVOKED objects cost about 15 times the CRL
 * in memory).  Only the small parts whose checks OpenSSL already knows
 * are decoded with it: the issuer Name and the crlExtensions.
 */
int
crl_from_buffer(struct crl *c, const char *source, const uint8_t *buf,
    size_t len, char *err, size_t errlen)
{
	const unsigned char *q;
	const char *why = NULL;
	unsigned char *pem = NULL;
	long pemlen;
	BIO *bio = NULL;

	memset(c, 0, sizeof(*c));
	c->reasons = CRLC_REASONS_ALL;
	c->source = xstrdup(source);
	if (len == 0) {
		snprintf(err, errlen, "empty file or body");
		return -1;
	}
	c->der = buf;
	c->derlen = len;
	if (len > 11 && memcmp(buf, "-----BEGIN ", 11) == 0) {
		if (len > INT_MAX || (bio = BIO_new_mem_buf(buf, (int)len)) == NULL ||
		    !PEM_bytes_read_bio(&pem, &pemlen, NULL, PEM_STRING_X509_CRL,
		    bio, NULL, NULL)) {
			BIO_free(bio);
			set_err(err, errlen, "cannot decode PEM CRL");
			return -1;
		}
		BIO_free(bio);
		c->pem_der = pem;
		c->der = pem;
		c->derlen = (size_t)pemlen;
	}
	if (crlc_crl_parse(c->der, c->derlen, &c->p, &why) == -1) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	q = c->p.issuer.p;
	if ((c->issuer_name = d2i_X509_NAME(NULL, &q, (long)c->p.issuer.len))
	    == NULL || q != c->p.issuer.p + c->p.issuer.len) {
		set_err(err, errlen, "malformed CRL: cannot decode the issuer name");
		return -1;
	}
	q = c->p.extensions.p;
	if (c->p.extensions.len > 0 && ((c->exts = d2i_X509_EXTENSIONS(NULL, &q,
	    (long)c->p.extensions.len)) == NULL ||
	    q != c->p.extensions.p + c->p.extensions.len)) {
		set_err(err, errlen, "malformed CRL: cannot decode crlExtensions");
		return -1;
	}
	return 0;
}

void
crl_free(struct crl *c)
{
	if (c == NULL)
		return;
	free(c->source);
	OPENSSL_free(c->pem_der);
	X509_NAME_free(c->issuer_name);
	sk_X509_EXTENSION_pop_free(c->exts, X509_EXTENSION_free);
	X509_free(c->issuer);
	while (c->nscopes > 0)
		free(c->scopes[--c->nscopes]);
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
	const unsigned char *q;
	ASN1_OBJECT *obj;
	char oid[80];
	size_t k;
	int i, nid, known;

	for (i = 0; i < sk_X509_EXTENSION_num(c->exts); i++) {
		X509_EXTENSION *e = sk_X509_EXTENSION_value(c->exts, i);

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
	if (c->p.nrevoked > MAX_CRL_ENTRIES) {
		snprintf(err, errlen, "too many entries (%zu, limit %ld)",
		    c->p.nrevoked, MAX_CRL_ENTRIES);
		return -1;
	}
	/* The entry extensions were read by crlc_crl_parse (lib/tbs.c). */
	if (c->p.entry_unknown_critical.len > 0) {
		q = c->p.entry_unknown_critical.p;
		obj = d2i_ASN1_OBJECT(NULL, &q,
		    (long)c->p.entry_unknown_critical.len);
		if (obj == NULL || OBJ_obj2txt(oid, sizeof(oid), obj, 1) <= 0)
			snprintf(oid, sizeof(oid), "(malformed)");
		ASN1_OBJECT_free(obj);
		ERR_clear_error();
		snprintf(err, errlen, "unknown critical CRL entry extension %s "
		    "(RFC 5280 5.3)", oid);
		return -1;
	}
	return 0;
}

/*
 * RFC 5280 5.2.3 cRLNumber and 5.2.4 deltaCRLIndicator.
 *
 * A v2 CRL must carry cRLNumber, non-critical (5.2.3: "conforming CRL
 * issuers MUST include this extension", "MUST be non-critical").  Both
 * rules bind the issuer and change no meaning, and refusing the CRL would
 * ignore its revocations (docs/crl-quirks.md): a critical cRLNumber is
 * understood and read; a CRL without one is ordered by thisUpdate alone,
 * exactly as a v1 CRL (5.1.2.1: no version field, no extension, so no
 * number) is, and both are said in the log.  A delta CRL needs its number
 * to be applied (5.2.4), and two instances of the extension leave which
 * one counts a guess (4.2): those are refused.  A scope that already
 * holds a numbered CRL refuses an unnumbered one, v1 or v2 (admissible()
 * in scope.c): a CA does not drop the number it once published, and
 * accepting it would drop the number the rollback rule compares.  An
 * administrator who knows better clears the scope with `crlcache reset`.
 * Long: cRLNumber, then deltaCRLIndicator, which needs the number read.
 */
static int
read_numbers(struct crl *c, char *err, size_t errlen)
{
	ASN1_INTEGER *num;
	int crit;

	if (c->p.version == 1) {
		if (sk_X509_EXTENSION_num(c->exts) > 0) {
			snprintf(err, errlen, "v1 CRL with extensions (RFC 5280 "
			    "5.1.2.1: extensions require v2)");
			return -1;
		}
		return 0;
	}
	num = X509V3_get_d2i(c->exts, NID_crl_number, &crit, NULL);
	if (num == NULL && crit == -2) {
		snprintf(err, errlen, "two cRLNumber extensions (RFC 5280 4.2: "
		    "a CRL MUST NOT include more than one instance of an "
		    "extension)");
		return -1;
	}
	if (num == NULL && crit != -1) {
		snprintf(err, errlen, "malformed cRLNumber extension");
		return -1;
	}
	if (num == NULL) {
		if (X509v3_get_ext_by_NID(c->exts, NID_delta_crl, -1) >= 0) {
			snprintf(err, errlen, "delta CRL without cRLNumber "
			    "(RFC 5280 5.2.4)");
			return -1;
		}
		c->p.quirks |= CRLC_CRL_QUIRK_NO_CRLNUMBER;
		return 0;
	}
	if (crit)
		c->p.quirks |= CRLC_CRL_QUIRK_CRLNUMBER_CRIT;
	/*
	 * A number that is negative or longer than 20 octets breaks a rule
	 * for issuers: it is not used, and the CRL is ordered as one
	 * without (a delta, which needs it, is refused below).
	 */
	if (uint_octets(num, c->number, CRLC_CRLNUM_MAX, &c->numlen) == -1) {
		c->numlen = 0;
		c->p.quirks |= CRLC_CRL_QUIRK_BAD_CRLNUMBER;
	}
	ASN1_INTEGER_free(num);
	num = X509V3_get_d2i(c->exts, NID_delta_crl, &crit, NULL);
	if (num == NULL && crit == -2) {
		snprintf(err, errlen, "two deltaCRLIndicator extensions (RFC 5280 "
		    "4.2: a CRL MUST NOT include more than one instance of an "
		    "extension)");
		return -1;
	}
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
 * RFC 5280 5.2.5 onlySomeReasons, read strictly from the extension's DER
 * (lib/reasons.c): the CRL answers for those reasons only, and its scope
 * key says which (<crlcache/reasons.h>).  Unknown bits add no reason; a
 * CRL left with none answers for nothing and is refused.
 */
static int
idp_reasons(struct crl *c, char *err, size_t errlen)
{
	const ASN1_OCTET_STRING *v;
	X509_EXTENSION *ext;
	int at;

	at = X509v3_get_ext_by_NID(c->exts, NID_issuing_distribution_point, -1);
	if (at < 0 || (ext = X509v3_get_ext(c->exts, at)) == NULL ||
	    (v = X509_EXTENSION_get_data(ext)) == NULL ||
	    crlc_idp_reasons(ASN1_STRING_get0_data(v),
	    (size_t)ASN1_STRING_length(v), &c->reasons) == -1) {
		snprintf(err, errlen, "malformed issuingDistributionPoint: bad "
		    "onlySomeReasons or a BOOLEAN not DER-encoded (RFC 5280 "
		    "4.2.1.13, 5.2.5; X.690 11.1)");
		return -1;
	}
	if (c->reasons == 0) {
		snprintf(err, errlen, "IDP onlySomeReasons names no revocation "
		    "reason (RFC 5280 5.2.5)");
		return -1;
	}
	return 0;
}

/*
 * RFC 5280 5.2.5 issuingDistributionPoint.  The scope we index is a
 * name of its distributionPoint (idp_scope(), idp.c); for a CRL fetched
 * from a URL a fullName URI must be the URL (partitioned CRLs: CA/B BR
 * 7.2.2 requires the IDP to equal the certificate's distribution point
 * byte for byte).  Long: the fields in RFC 5280 5.2.5's order, one done:.
 */
static int
read_idp(struct crl *c, const char *url, char *err, size_t errlen)
{
	ISSUING_DIST_POINT *idp;
	int crit, ret = -1;

	idp = X509V3_get_d2i(c->exts, NID_issuing_distribution_point, &crit,
	    NULL);
	if (idp == NULL && crit != -1) {
		snprintf(err, errlen, "malformed issuingDistributionPoint");
		return -1;
	}
	/*
	 * RFC 5280 5.3.3: certificateIssuer only in an indirect CRL; one
	 * elsewhere would make us read another issuer's entry as one about
	 * the CRL issuer's own certificate.
	 */
	if (c->p.entry_cert_issuer && (idp == NULL || !idp->indirectCRL)) {
		snprintf(err, errlen, "indirect CRL entry (certificateIssuer) in "
		    "a CRL whose issuingDistributionPoint does not assert "
		    "indirectCRL (RFC 5280 5.3.3, 5.2.5)");
		goto done;
	}
	if (idp == NULL)
		return 0;
	/*
	 * Not kept: it answers for attribute certificates only, which no
	 * reader looks up, and its number sequence is its own (format.h
	 * SCOPE KINDS), so refusing it touches no scope held.
	 */
	if (idp->onlyattr) {
		snprintf(err, errlen, "IDP onlyContainsAttributeCerts: the CRL "
		    "covers no public-key certificate (RFC 5280 5.2.5, 6.3.3 "
		    "(b)(2)(iv)), not kept");
		goto done;
	}
	if (idp_reasons(c, err, errlen) == -1)
		goto done;
	/*
	 * RFC 5280 5.2.5: "MUST NOT issue CRLs where the DER encoding of the
	 * issuing distribution point extension is an empty sequence".  It
	 * restricts nothing: the CRL covers the whole issuer, as OpenSSL
	 * reads it too.
	 */
	if (idp->distpoint == NULL && idp->onlysomereasons == NULL &&
	    !idp->onlyuser && !idp->onlyCA && !idp->indirectCRL)
		c->p.quirks |= CRLC_CRL_QUIRK_EMPTY_IDP;
	if (idp->onlyuser && idp->onlyCA) {
		snprintf(err, errlen, "IDP claims both onlyContainsUserCerts and "
		    "onlyContainsCACerts (RFC 5280 5.2.5)");
		goto done;
	}
	/* RFC 5280 5.2.5: an indirect CRL may list other issuers'
	   certificates (format.h INDIRECT CRLS) */
	c->idp_flags = (idp->onlyuser ? CRLC_CRL_USER_ONLY : 0) |
	    (idp->onlyCA ? CRLC_CRL_CA_ONLY : 0) |
	    (idp->indirectCRL ? CRLC_CRL_INDIRECT : 0);
	if (idp->distpoint != NULL &&
	    idp_scope(idp->distpoint, c->issuer_name, url,
	    c->is_delta, c->scopes, &c->nscopes, err, errlen) == -1)
		goto done;
	c->scope = c->nscopes > 0 ? c->scopes[0] : NULL;
	ret = 0;
done:
	ISSUING_DIST_POINT_free(idp);
	return ret;
}

/*
 * RSASSA-PSS parameters (RFC 4055 3.1) onto a verification context:
 * hash, MGF1 and its hash (both SHA-1 when absent), salt length (20 when
 * absent, never negative) and trailerField 1.
 */
static int
pss_init(EVP_MD_CTX *ctx, const X509_ALGOR *alg, EVP_PKEY *pk)
{
	RSA_PSS_PARAMS *pss = NULL;
	X509_ALGOR *mgfmd = NULL;
	EVP_PKEY_CTX *pctx = NULL;
	const char *md = "SHA1", *mgf1 = "SHA1";
	const ASN1_OBJECT *obj;
	const void *pv;
	int ptype, nid, ok = 0;
	long salt = 20;

	X509_ALGOR_get0(&obj, &ptype, &pv, alg);
	if (ptype != V_ASN1_SEQUENCE || (pss = ASN1_TYPE_unpack_sequence(
	    ASN1_ITEM_rptr(RSA_PSS_PARAMS), alg->parameter)) == NULL)
		goto done;
	if (pss->hashAlgorithm != NULL &&
	    ((nid = OBJ_obj2nid(pss->hashAlgorithm->algorithm)) == NID_undef ||
	    (md = OBJ_nid2sn(nid)) == NULL))
		goto done;
	if (pss->maskGenAlgorithm != NULL) {
		if (OBJ_obj2nid(pss->maskGenAlgorithm->algorithm) != NID_mgf1 ||
		    pss->maskGenAlgorithm->parameter == NULL ||
		    pss->maskGenAlgorithm->parameter->type != V_ASN1_SEQUENCE ||
		    (mgfmd = ASN1_TYPE_unpack_sequence(ASN1_ITEM_rptr(X509_ALGOR),
		    pss->maskGenAlgorithm->parameter)) == NULL ||
		    (nid = OBJ_obj2nid(mgfmd->algorithm)) == NID_undef ||
		    (mgf1 = OBJ_nid2sn(nid)) == NULL)
			goto done;
	}
	if (pss->saltLength != NULL &&
	    (salt = ASN1_INTEGER_get(pss->saltLength)) < 0)
		goto done;
	if (pss->trailerField != NULL && ASN1_INTEGER_get(pss->trailerField) != 1)
		goto done;
	ok = EVP_DigestVerifyInit_ex(ctx, &pctx, md, NULL, NULL, pk, NULL) == 1 &&
	    EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
	    EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, (int)salt) == 1 &&
	    EVP_PKEY_CTX_set_rsa_mgf1_md_name(pctx, mgf1, NULL) == 1;
done:
	RSA_PSS_PARAMS_free(pss);
	X509_ALGOR_free(mgfmd);
	return ok ? 0 : -1;
}

/*
 * RFC 5280 5.1.1.3: the signature over the TBSCertList exactly as
 * received.  This is what X509_CRL_verify does through ASN1_item_verify
 * (OpenSSL 3.0): the algorithm names a digest and a key type, the key
 * must be of that type, RSASSA-PSS and EdDSA carry their own rules --
 * only without a decoded CRL to re-encode.  1: verified.
 */
static int
sig_verify(const struct crl *c, EVP_PKEY *pk)
{
	const unsigned char *q = c->p.outer_sigalg.p;
	X509_ALGOR *alg;
	EVP_MD_CTX *ctx = NULL;
	const char *md = NULL;
	int nid, mdnid, pknid, ok = 0;

	if ((alg = d2i_X509_ALGOR(NULL, &q, (long)c->p.outer_sigalg.len)) == NULL ||
	    (ctx = EVP_MD_CTX_new()) == NULL)
		goto done;
	nid = OBJ_obj2nid(alg->algorithm);
	if (!OBJ_find_sigid_algs(nid, &mdnid, &pknid))
		goto done;
	if (mdnid == NID_undef && pknid == EVP_PKEY_RSA_PSS) {
		if ((!EVP_PKEY_is_a(pk, "RSA") && !EVP_PKEY_is_a(pk, "RSA-PSS")) ||
		    pss_init(ctx, alg, pk) == -1)
			goto done;
	} else {
		if (!EVP_PKEY_is_a(pk, OBJ_nid2sn(pknid)))
			goto done;
		/* EdDSA (RFC 8410 3): no digest, parameters absent */
		if (mdnid == NID_undef && alg->parameter != NULL)
			goto done;
		if (mdnid != NID_undef && (md = OBJ_nid2sn(mdnid)) == NULL)
			goto done;
		if (EVP_DigestVerifyInit_ex(ctx, NULL, md, NULL, NULL, pk,
		    NULL) != 1)
			goto done;
	}
	ok = EVP_DigestVerify(ctx, c->p.signature.p, c->p.signature.len,
	    c->p.tbs.p, c->p.tbs.len) == 1;
done:
	EVP_MD_CTX_free(ctx);
	X509_ALGOR_free(alg);
	return ok;
}

/*
 * RFC 5280 6.3.3 (f): find the issuer whose key verifies this CRL.  Long:
 * one pass notes why each candidate failed, for the one message that says.
 */
static int
find_issuer(struct crl *c, const struct trust *t, time_t now, char *err,
    size_t errlen)
{
	const X509_NAME *iname = c->issuer_name;
	STACK_OF(X509) *cands;
	char why[512] = "", name[256];
	int i, signed_ok = 0, no_crlsign = 0, not_ca = 0, widened = 0;

	X509_NAME_oneline(iname, name, sizeof(name));
again:
	if ((cands = trust_candidates(t, iname)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < sk_X509_num(cands) && c->issuer == NULL; i++) {
		X509 *x = sk_X509_value(cands, i);
		EVP_PKEY *pk = X509_get0_pubkey(x);

		if (pk == NULL || sig_verify(c, pk) != 1) {
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
	if (!widened && t->widen != NULL && t->widen(t->widen_arg) == 1) {
		widened = 1;
		why[0] = '\0';
		signed_ok = no_crlsign = not_ca = 0;
		goto again;
	}
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

/* What each tolerated quirk breaks, and how it is read. */
static const struct {
	unsigned	 bit;
	const char	*what;
} crl_quirks[] = {
	{ CRLC_CRL_QUIRK_EMPTY_ENTRY_EXTS, "a revoked entry with an empty "
	    "crlEntryExtensions SEQUENCE (RFC 5280 5.1: SIZE (1..MAX)), read "
	    "as absent" },
	{ CRLC_CRL_QUIRK_LAX_TIME, "a UTCTime with an offset from UTC or "
	    "without seconds (RFC 5280 4.1.2.5.1: YYMMDDHHMMSSZ), read as the "
	    "instant it names" },
	{ CRLC_CRL_QUIRK_NO_CRLNUMBER, "no cRLNumber (RFC 5280 5.2.3: MUST be "
	    "present), ordered by thisUpdate alone" },
	{ CRLC_CRL_QUIRK_CRLNUMBER_CRIT, "cRLNumber marked critical (RFC 5280 "
	    "5.2.3: MUST be non-critical), read as it is understood" },
	{ CRLC_CRL_QUIRK_BAD_CRLNUMBER, "a cRLNumber negative or longer than "
	    "20 octets (RFC 5280 5.2.3), not used: ordered by thisUpdate "
	    "alone" },
	{ CRLC_CRL_QUIRK_UNDEFINED_REASON, "a reasonCode no CRLReason defines "
	    "(RFC 5280 5.3.1), read as unspecified: the certificate is "
	    "revoked" },
	{ CRLC_CRL_QUIRK_EMPTY_IDP, "an empty issuingDistributionPoint (RFC "
	    "5280 5.2.5: MUST NOT be an empty sequence), read as covering the "
	    "whole issuer" },
};

/*
 * Say once per CRL what was tolerated in it (docs/crl-quirks.md): it
 * breaks a rule for issuers only and was read as the rule intends.
 * logx escapes what came from the network.
 */
void
crl_log_quirks(const struct crl *c)
{
	char name[256];
	size_t i;

	if (c->p.quirks == 0)
		return;
	X509_NAME_oneline(c->issuer_name, name, sizeof(name));
	for (i = 0; i < sizeof(crl_quirks) / sizeof(crl_quirks[0]); i++)
		if (c->p.quirks & crl_quirks[i].bit)
			logx(1, "%s: CRL of %s: tolerated: %s", c->source,
			    name, crl_quirks[i].what);
}

int
crl_verify(struct crl *c, const struct trust *t, const char *url, time_t now,
    char *err, size_t errlen)
{
	/* RFC 5280 5.1.1.2: signatureAlgorithm equals tbsCertList.signature */
	if (c->p.sigalg.len != c->p.outer_sigalg.len ||
	    memcmp(c->p.sigalg.p, c->p.outer_sigalg.p, c->p.sigalg.len) != 0) {
		snprintf(err, errlen, "signature algorithm differs from the one in "
		    "tbsCertList (RFC 5280 5.1.1.2)");
		return -1;
	}
	if (find_issuer(c, t, now, err, errlen) == -1)
		return -1;
	/* RFC 5280 5.1.2.4 / 5.1.2.5; crlc_crl_parse read both times */
	c->this_update = c->p.this_update;
	if (c->this_update > (int64_t)now + MAX_CLOCK_SKEW) {
		snprintf(err, errlen, "thisUpdate is in the future");
		return -1;
	}
	c->next_update = c->p.next_update;
	if (c->next_update != 0 && c->next_update < c->this_update) {
		snprintf(err, errlen, "malformed nextUpdate (before thisUpdate)");
		return -1;
	}
	if (check_extensions(c, err, errlen) == -1 ||
	    read_numbers(c, err, errlen) == -1 ||
	    read_idp(c, url, err, errlen) == -1)
		return -1;
	return 0;
}
