/*
 * crlcache command-line tool: what name.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_NAME_H
#define CRLCACHE_FETCHER_NAME_H

#include "fetcher.h"

/* name.c: issuer Name canonical form (format.h "canon") */
int	 name_canon_hash(const X509_NAME *name, uint8_t out[CRLC_HASH_LEN]);
/* name as RFC 2253 text (its specials and bytes over 0x7e escaped). */
void	 name_text(const X509_NAME *name, char *out, size_t len);
/*
 * Which certificate x is, for a log: "SUBJECT (serial HEX of ISSUER)",
 * or "serial HEX of ISSUER" when its subject is empty (RFC 5280 4.1.2.6:
 * a leaf may name itself in subjectAltName only).
 */
void	 cert_id_text(X509 *x, char *out, size_t len);
int	 name_der_hash(const X509_NAME *name, uint8_t out[CRLC_HASH_LEN]);
/* SHA-256 of x's subjectPublicKey bits: its key's identity (format.h "key") */
int	 cert_key_hash(X509 *x, uint8_t out[CRLC_HASH_LEN]);
/* SHA-256 of x's SubjectPublicKeyInfo DER (CRLite's issuer id); 0 or -1. */
int	 cert_spki_hash(X509 *x, uint8_t h[CRLC_HASH_LEN]);

#endif /* CRLCACHE_FETCHER_NAME_H */
