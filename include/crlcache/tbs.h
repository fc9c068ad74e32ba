/*
 * Strict, allocation-free recogniser for DER certificates (RFC 5280 4.1)
 * and CRLs (RFC 5280 5.1).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The provider runs crlc_tbs_parse() over every buffer handed to a
 * signature verification, so it must say "not a TBSCertificate" for
 * TBSCertList, OCSP, CSR, CMS and TLS handshake data, never read outside
 * the buffer, and never allocate.  Spans point into the caller's buffer
 * and live exactly as long as it does.
 */
#ifndef CRLCACHE_TBS_H
#define CRLCACHE_TBS_H

#include <stddef.h>
#include <stdint.h>

struct crlc_span {
	const uint8_t	*p;
	size_t		 len;
};

/* Distribution point URIs kept per certificate; more are ignored. */
#define CRLC_TBS_MAX_DP		4

/*
 * A name of a distribution point that carries a cRLIssuer (RFC 5280
 * 4.2.1.13): its CRLs are the cRLIssuer's indirect CRLs (5.2.5, 6.3.3
 * (b)(1)), never the certificate issuer's own, so these are kept apart
 * from dp, dpdir and dprel.
 */
enum crlc_dpn_kind {
	CRLC_DPN_NONE,		/* no distributionPoint: the cRLIssuer's
				   indirect CRL without an IDP name */
	CRLC_DPN_URI,		/* fullName URI: name is its IA5String octets */
	CRLC_DPN_DIR,		/* fullName directoryName: the Name TLV */
	CRLC_DPN_REL,		/* nameRelativeToCRLIssuer, relative to the
				   cRLIssuer: the RDN's content octets */
};
struct crlc_tbs_idp {
	struct crlc_span crl_issuer;	/* the cRLIssuer's first
					   directoryName: its Name TLV */
	struct crlc_span name;
	enum crlc_dpn_kind kind;
	uint16_t	 unnamed;	/* the reasons its DistributionPoint
					   does NOT name, as dp_unnamed */
};

struct crlc_tbs {
	struct crlc_span serial;	/* INTEGER content octets */
	/*
	 * signature AlgorithmIdentifier TLV, as encoded: RFC 5280 4.1.1.2
	 * requires the Certificate's signatureAlgorithm to be identical, so
	 * with it and the signature value the whole Certificate can be
	 * rebuilt (provider/hint.c).
	 */
	struct crlc_span sigalg;
	struct crlc_span issuer;	/* whole Name TLV, as encoded */
	struct crlc_span subject;	/* whole Name TLV, as encoded */
	/*
	 * subjectPublicKey's bits (after the unused-bits octet): the key a
	 * child of this certificate is verified with (provider/chain.c)
	 */
	struct crlc_span spk;
	/* the whole SubjectPublicKeyInfo TLV, as encoded (OneCRL's key hash) */
	struct crlc_span spki;
	int64_t		 not_before;	/* seconds since the epoch */
	int64_t		 not_after;
	/* fullName URIs of crlDistributionPoints (RFC 5280 4.2.1.13) */
	struct crlc_span dp[CRLC_TBS_MAX_DP];
	size_t		 ndp;
	/* fullName directoryNames: the Name TLV inside [4] */
	struct crlc_span dpdir[CRLC_TBS_MAX_DP];
	size_t		 ndpdir;
	/*
	 * nameRelativeToCRLIssuer of a distribution point without cRLIssuer
	 * (relative to the certificate's issuer): the RDN's content octets
	 */
	struct crlc_span dprel[CRLC_TBS_MAX_DP];
	size_t		 ndprel;
	/*
	 * The reasons the DistributionPoint each name above comes from does
	 * NOT name (<crlcache/reasons.h> mask): 0 when it has no reasons
	 * field, so that a zeroed crlc_tbs names every reason
	 * (crlc_dp_reasons())
	 */
	uint16_t	 dp_unnamed[CRLC_TBS_MAX_DP];
	uint16_t	 dpdir_unnamed[CRLC_TBS_MAX_DP];
	uint16_t	 dprel_unnamed[CRLC_TBS_MAX_DP];
	int		 is_ca;		/* basicConstraints cA TRUE */
	int		 cabf_policy;	/* certificatePolicies has a CA/B OID */
	/*
	 * crlDistributionPoints is present and every distribution point in
	 * it has a cRLIssuer: no CRL of the certificate's issuer itself
	 * covers it (RFC 5280 6.3.3 (b)(1)), not even a complete one
	 */
	int		 dp_indirect_only;
	/*
	 * the extnValue content of the embedded SCT list extension (RFC
	 * 6962 3.3, <crlcache/sct.h> crlc_sct_list() reads it); len 0: none,
	 * or the extension twice (RFC 5280 4.2), which CRLite does not read
	 */
	struct crlc_span sct_list;
	/* names of distribution points with a cRLIssuer (at most
	   CRLC_TBS_MAX_DP; a cRLIssuer without a directoryName is skipped) */
	size_t		 nind;
	/*
	 * Last: crlc_tbs_parse() zeroes the fields before it only (every
	 * verification parses a certificate; few have one): ind[i] is set
	 * for i < nind, the rest is undefined
	 */
	struct crlc_tbs_idp ind[CRLC_TBS_MAX_DP];
};

/*
 * Parse der[0..len) as exactly one TBSCertificate: SEQUENCE of
 * [0] EXPLICIT version (v3 only when extensions are present), serial
 * INTEGER, AlgorithmIdentifier, issuer Name, Validity, subject Name,
 * SubjectPublicKeyInfo, optional [1] [2] unique IDs and [3] extensions,
 * with nothing after it.  Returns 0 and fills *out on success, -1 when
 * the bytes are anything else (out is then unspecified).
 *
 * CRLC_TBS_BAD_TIME: a TBSCertificate in every respect but that its
 * notBefore or notAfter, a UTCTime or GeneralizedTime, names no possible
 * instant (April 31, February 29 of 2023, hour 24, ...: RFC 5280
 * 4.1.2.5).  *out is filled except that such a time reads 0.  The
 * certificate is malformed, yet still one: its serial, issuer and
 * distribution points are those of a certificate that a verifier with
 * time checks off (X509_V_FLAG_NO_CHECK_TIME) would accept, so the
 * provider still looks its revocation up rather than pass it as "not a
 * certificate".
 */
#define CRLC_TBS_BAD_TIME	-2
int	crlc_tbs_parse(const uint8_t *der, size_t len, struct crlc_tbs *out);

/*
 * Find the TBSCertificate inside a DER Certificate (SEQUENCE of tbs,
 * signatureAlgorithm, signature).  Returns 0 and sets *tbs to point into
 * der, or -1.
 */
int	crlc_cert_tbs(const uint8_t *der, size_t len, struct crlc_span *tbs);

/*
 * A DER CertificateList (RFC 5280 5.1), recognised without allocation so
 * that a CRL of millions of entries is read straight from the received
 * bytes.  Spans point into the caller's buffer.
 */
struct crlc_crl {
	struct crlc_span tbs;		/* TBSCertList TLV: the signed bytes */
	struct crlc_span sigalg;	/* tbsCertList.signature TLV */
	struct crlc_span outer_sigalg;	/* signatureAlgorithm TLV */
	struct crlc_span signature;	/* signatureValue bits (no pad octet) */
	int		 version;	/* 1 (field absent) or 2 */
	struct crlc_span issuer;	/* whole Name TLV, as encoded */
	int64_t		 this_update;	/* seconds since the epoch */
	int64_t		 next_update;	/* 0: absent */
	struct crlc_span revoked;	/* content of revokedCertificates */
	size_t		 nrevoked;	/* its entries */
	struct crlc_span extensions;	/* crlExtensions: the Extensions
					   SEQUENCE TLV inside [0]; len 0: none */
	/* Over all entries (see struct crlc_crl_entry): */
	int		 entry_cert_issuer;
	struct crlc_span entry_unknown_critical;
	unsigned	 quirks;	/* CRLC_CRL_QUIRK_*: tolerated */
};
/*
 * What breaks a rule for CRL issuers only and changes no meaning: read
 * as the rule intends and reported by the fetcher (docs/crl-quirks.md).
 */
#define CRLC_CRL_QUIRK_EMPTY_ENTRY_EXTS	0x1u	/* crlEntryExtensions an
						   empty SEQUENCE (5.1) */
#define CRLC_CRL_QUIRK_LAX_TIME		0x8u	/* a UTCTime with an offset
						   or no seconds (4.1.2.5.1) */
#define CRLC_CRL_QUIRK_UNDEFINED_REASON	0x20u	/* a reasonCode of one
						   octet no CRLReason defines
						   (5.3.1), read as 0 */
/* Set by the fetcher's reading of the numbers (fetcher/crl.c): */
#define CRLC_CRL_QUIRK_NO_CRLNUMBER	0x2u	/* a v2 CRL without
						   cRLNumber (5.2.3) */
#define CRLC_CRL_QUIRK_CRLNUMBER_CRIT	0x4u	/* cRLNumber critical
						   (5.2.3) */
#define CRLC_CRL_QUIRK_BAD_CRLNUMBER	0x40u	/* cRLNumber negative or
						   over 20 octets (5.2.3) */
#define CRLC_CRL_QUIRK_EMPTY_IDP	0x10u	/* issuingDistributionPoint
						   an empty SEQUENCE (5.2.5) */

/* crlEntryExtensions read by crlc_crl_entry_next(). */
#define CRLC_CRL_REASON_NONE	-1
struct crlc_crl_entry {
	struct crlc_span serial;	/* INTEGER content octets, minimal */
	int64_t		 revoked_at;	/* revocationDate */
	int		 reason;	/* reasonCode 0..10 or CRLC_CRL_REASON_NONE */
	/*
	 * certificateIssuer (5.3.3) of this entry, which also names the
	 * issuer of every following entry up to the next one: the Name TLV
	 * of its only directoryName; len 0: the entry has none
	 */
	struct crlc_span cert_issuer;
	struct crlc_span unknown_critical; /* OID TLV of the first critical
					   extension not understood; len 0:
					   none */
	int		 empty_extensions; /* crlEntryExtensions present and
					   empty (CRLC_CRL_QUIRK_EMPTY_ENTRY_EXTS) */
	int		 undefined_reason; /* reasonCode none defined, read
					   as unspecified */
	int		 lax_time;	/* revocationDate read in a form
					   CRLC_CRL_QUIRK_LAX_TIME names */
};

/*
 * Parse der[0..len) as exactly one CertificateList: the TBSCertList
 * fields in order, every revoked entry walked with
 * crlc_crl_entry_next(), signatureAlgorithm and a BIT STRING signature
 * with no unused bits, nothing after it.  Returns 0 and fills *out, or
 * -1 with a static reason in *why.  The signature is not verified and
 * the extensions' values are not interpreted: the caller does both.
 */
int	crlc_crl_parse(const uint8_t *der, size_t len, struct crlc_crl *out,
	    const char **why);

/*
 * Read the next revoked entry from *rest (initially crl->revoked) into
 * *e and advance.  1: an entry, 0: none left, -1: malformed (why).
 * reasonCode (5.3.1), invalidityDate (5.3.2), holdInstructionCode and
 * certificateIssuer (5.3.3) are understood; an extension twice in one
 * entry is malformed (RFC 5280 4.2 applies to CRL entries by 5.3).
 * certificateIssuer is read strictly: critical (5.3.3 MUST), GeneralNames
 * of well-formed GeneralName elements with exactly one directoryName
 * (the certificate issuer's DN, which 5.3.3 requires; several are not
 * supported), else the CRL is refused.
 */
int	crlc_crl_entry_next(struct crlc_span *rest, struct crlc_crl_entry *e,
	    const char **why);

#endif /* CRLCACHE_TBS_H */
