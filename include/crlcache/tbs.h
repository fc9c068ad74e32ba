/*
 * Strict, allocation-free recogniser for DER certificates (RFC 5280 4.1).
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
	int		 is_ca;		/* basicConstraints cA TRUE */
	int		 cabf_policy;	/* certificatePolicies has a CA/B OID */
};

/*
 * Parse der[0..len) as exactly one TBSCertificate: SEQUENCE of
 * [0] EXPLICIT version (v3 only when extensions are present), serial
 * INTEGER, AlgorithmIdentifier, issuer Name, Validity, subject Name,
 * SubjectPublicKeyInfo, optional [1] [2] unique IDs and [3] extensions,
 * with nothing after it.  Returns 0 and fills *out on success, -1 when
 * the bytes are anything else (out is then unspecified).
 */
int	crlc_tbs_parse(const uint8_t *der, size_t len, struct crlc_tbs *out);

/*
 * Find the TBSCertificate inside a DER Certificate (SEQUENCE of tbs,
 * signatureAlgorithm, signature).  Returns 0 and sets *tbs to point into
 * der, or -1.
 */
int	crlc_cert_tbs(const uint8_t *der, size_t len, struct crlc_span *tbs);

#endif /* CRLCACHE_TBS_H */
