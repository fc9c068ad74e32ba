/*
 * What a CRLite query takes from certificates: the SCTs embedded in a
 * leaf, its serial, and the issuer's SubjectPublicKeyInfo; read from DER
 * without OpenSSL's CT API, without allocation, never outside the buffer.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_SCT_H
#define CRLCACHE_SCT_H

#include <stddef.h>
#include <stdint.h>

#include <crlcache/tbs.h>

#define CRLC_SCT_HASH_LEN	32	/* SHA-256: log ids, issuer keys */
/*
 * The most SCTs read from one certificate: browsers ask for two or three
 * (Chrome's CT policy), CAs embed up to about five; a list of more is
 * refused rather than cut, so that no SCT a filter covers is dropped
 * unseen (the certificate then falls back to CRLs).
 */
#define CRLC_SCT_MAX		16

/* One embedded SCT as CRLite uses it (RFC 6962 3.2). */
struct crlc_sct {
	uint8_t		 log_id[CRLC_SCT_HASH_LEN];	/* SHA-256 of the
							   log's key */
	uint64_t	 timestamp;	/* ms since the epoch, as logged */
};

/* The CRLite inputs of one TBSCertificate; spans point into it. */
struct crlc_crlite_cert {
	struct crlc_span serial;	/* serialNumber content octets, a
					   leading 0x00 kept */
	struct crlc_span spki;		/* SubjectPublicKeyInfo TLV: its
					   SHA-256 is the key of the
					   certificates it issues */
	struct crlc_span sct_list;	/* the extnValue content of the
					   embedded SCT list extension
					   (RFC 6962 3.3); len 0: none */
};

/*
 * Walk tbs[0..len), a TBSCertificate (RFC 5280 4.1), for the spans above:
 * the extension 1.3.6.1.4.1.11129.2.4.2 is looked for in [3] extensions.
 * Returns 0, or -1 with a static reason in *why when the bytes are not a
 * TBSCertificate or carry that extension twice (RFC 5280 4.2).
 */
int	crlc_crlite_cert(const uint8_t *tbs, size_t len,
	    struct crlc_crlite_cert *out, const char **why);

/*
 * Read an embedded SCT list: ext[0..len) is the extension's extnValue
 * content, a DER OCTET STRING holding a TLS SignedCertificateTimestampList
 * (RFC 6962 3.3: opaque SerializedSCT<1..2^16-1>, sct_list<1..2^16-1>),
 * each a v1 SignedCertificateTimestamp (3.2: version 0, 32-byte log id,
 * uint64 timestamp, extensions<0..2^16-1>, digitally-signed hash and
 * signature algorithms and signature<0..2^16-1>, nothing after it).
 * Fills out[0..*n) in the list's order.  Returns 0, or -1 (*n 0) with a static
 * reason in *why: anything malformed, an SCT of another version, or more
 * than CRLC_SCT_MAX SCTs.  The signatures are not verified: the SCTs are
 * signed with the certificate, whose signature the caller verifies.
 */
int	crlc_sct_list(const uint8_t *ext, size_t len,
	    struct crlc_sct out[CRLC_SCT_MAX], size_t *n, const char **why);

#endif /* CRLCACHE_SCT_H */
