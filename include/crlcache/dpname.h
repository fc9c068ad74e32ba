/*
 * Distribution point names as index scopes (format.h "crl" keys), shared
 * by the fetcher (the IDP of a CRL) and every reader (the distribution
 * points of a certificate).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * RFC 5280 6.3.3 (b)(2)(i) matches a certificate's distribution point to
 * a CRL's issuingDistributionPoint when one name of the one equals one
 * name of the other; nameRelativeToCRLIssuer stands for the full name
 * made of the CRL issuer's Name with that RDN appended (4.2.1.13, 5.2.5).
 * A scope is either a URI, as encoded, or for a directoryName (and a
 * relative name made full) CRLC_SCOPE_DIRNAME followed by the lower-case
 * hex of the Name's canonical hash (crlc_name_canon_hash(), so that names
 * match as RFC 5280 7.1 compares them).  The prefix cannot begin a URI
 * that RFC 5280 4.2.1.6 allows (no relative URIs: a scheme comes first),
 * and the fetcher never keeps an IDP URI that starts with it.
 */
#ifndef CRLCACHE_DPNAME_H
#define CRLCACHE_DPNAME_H

#include <stddef.h>
#include <stdint.h>

#include <crlcache/format.h>
#include <crlcache/tbs.h>

#define CRLC_SCOPE_DIRNAME	"#dirName:"
#define CRLC_SCOPE_DIRNAME_LEN	(sizeof(CRLC_SCOPE_DIRNAME) - 1 + 2 * CRLC_HASH_LEN)
/*
 * Longest issuer Name plus RDN made into one full name (bytes of DER);
 * real names are a few hundred bytes.  Longer ones are not matched.
 */
#define CRLC_DPNAME_MAX		4096

/* The scope of the DER Name der[0..len) into out (NUL-terminated).  0 or -1. */
int	crlc_scope_dirname(const uint8_t *der, size_t len,
	    char out[CRLC_SCOPE_DIRNAME_LEN + 1]);
/*
 * The scope of issuer (a Name TLV) with the RDN whose content octets
 * (its AttributeTypeAndValues) are rdn appended.  0 or -1.
 */
int	crlc_scope_relative(const struct crlc_span *issuer,
	    const struct crlc_span *rdn, char out[CRLC_SCOPE_DIRNAME_LEN + 1]);
/* 1 when s[0..len) is a directoryName scope. */
int	crlc_scope_is_dirname(const uint8_t *s, size_t len);
/*
 * The kind of scope key part s[0..len), its reasons suffix taken off
 * (format.h SCOPE KINDS): the CRLC_CRL_KIND flags of its kind component
 * and *namelen the distribution point name's length; 0 and len without
 * one.
 */
unsigned crlc_scope_kind(const uint8_t *s, size_t len, size_t *namelen);
/* Append the kind component of kind to out (nothing for 0): its length. */
size_t	crlc_scope_put_kind(uint8_t *out, unsigned kind);

/* How many distribution point names cert has (URIs, names, relative). */
size_t	crlc_dp_count(const struct crlc_tbs *cert);
/*
 * The scope of cert's i-th distribution point name (i < crlc_dp_count)
 * into out[0..size): 0 and *len, or -1 when it cannot be a scope (too
 * long, malformed).
 */
int	crlc_dp_scope(const struct crlc_tbs *cert, size_t i, uint8_t *out,
	    size_t size, size_t *len);
/*
 * The reasons of the distribution point of cert's i-th name (RFC 5280
 * 4.2.1.13, <crlcache/reasons.h> mask): CRLC_REASONS_ALL when it has none.
 */
unsigned crlc_dp_reasons(const struct crlc_tbs *cert, size_t i);

/*
 * The scope of a distribution point name with a cRLIssuer (struct
 * crlc_tbs_idp) among its CRL issuer's scopes: a URI, or a directoryName
 * scope (nameRelativeToCRLIssuer made full with the cRLIssuer's Name);
 * *len 0 for CRLC_DPN_NONE (the complete CRL).  0, or -1 as
 * crlc_dp_scope().
 */
int	crlc_ind_scope(const struct crlc_tbs_idp *d, uint8_t *out, size_t size,
	    size_t *len);

#endif /* CRLCACHE_DPNAME_H */
