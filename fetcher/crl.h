/*
 * crlcache command-line tool: what crl.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_CRL_H
#define CRLCACHE_FETCHER_CRL_H

#include "fetcher.h"
#include "idp.h"

struct trust;

/* crl.c: one CRL, parsed and verified */
struct crl {
	char		*source;	/* file name or URL */
	const uint8_t	*der;		/* the signed CRL, as received: the
					   caller's buffer, or pem_der */
	size_t		 derlen;
	uint8_t		*pem_der;	/* owned: der decoded from PEM */
	struct crlc_crl	 p;		/* its fields and entries: spans in der */
	X509_NAME	*issuer_name;	/* decoded p.issuer */
	STACK_OF(X509_EXTENSION) *exts;	/* decoded p.extensions; NULL: none */
	X509		*issuer;	/* verified issuer certificate */
	int64_t		 this_update;
	int64_t		 next_update;	/* 0: absent */
	uint8_t		 number[CRLC_CRLNUM_MAX];
	size_t		 numlen;	/* 0: no cRLNumber */
	int		 is_delta;
	uint8_t		 base[CRLC_CRLNUM_MAX];	/* delta: BaseCRLNumber */
	size_t		 baselen;
	/*
	 * The IDP names (idp.c) it is stored under, one "crl" record each;
	 * none: the whole issuer.  scope is the one being stored (NULL: the
	 * whole issuer), keep_body: more are to be stored after it, so the
	 * ingest must not let go of der's pages (store_ingest).
	 */
	char		*scopes[IDP_SCOPES_MAX];
	size_t		 nscopes;
	const char	*scope;
	int		 keep_body;
	unsigned	 idp_flags;	/* CRLC_CRL_USER_ONLY / CA_ONLY / INDIRECT */
	unsigned	 reasons;	/* IDP onlySomeReasons, or
					   CRLC_REASONS_ALL (<crlcache/reasons.h>) */
};
/*
 * Parse buf (DER, or PEM) without decoding its entries into objects: buf
 * must outlive c when it is DER, since c points into it.
 */
int	 crl_from_buffer(struct crl *c, const char *source,
	    const uint8_t *buf, size_t len, char *err, size_t errlen);
int	 crl_verify(struct crl *c, const struct trust *t, const char *url,
	    time_t now, char *err, size_t errlen);
void	 crl_free(struct crl *c);
/* crl.c: one log line for what an accepted CRL broke of issuers' rules */
void	 crl_log_quirks(const struct crl *c);
int	 numcmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

#endif /* CRLCACHE_FETCHER_CRL_H */
