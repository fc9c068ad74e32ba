/*
 * crlcache command-line tool: what trust.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_TRUST_H
#define CRLCACHE_FETCHER_TRUST_H

#include "fetcher.h"

struct certpool;
struct crlc_index;
struct dir_index;
struct state;

/* trust.c: anchors and intermediates for CRL issuer verification */
struct trust {
	X509_STORE	*store;		/* anchors */
	STACK_OF(X509)	*certs;		/* every known CA cert: issuer candidates */
	struct certpool	*pool;		/* certs, indexed by subject */
	struct crlc_index *index;	/* published index: revoked CRL issuers */
	int64_t		 at;		/* --at: chains and CRLs are judged at
					   this instant; 0: the clock */
	/*
	 * When no candidate proves a CRL's issuer, called before the CRL
	 * is refused to add the candidates its caller held back (update:
	 * the issuer directory); 1 when it added any, and the issuer is
	 * looked for again.  NULL: none held back.
	 */
	int		(*widen)(void *arg);
	void		*widen_arg;
	/* the directory by name, if attached: its attacher frees it */
	struct dir_index *dir;
};
int	 trust_load(struct trust *t, const struct strlist *anchors,
	    const struct strlist *untrusted, const struct strlist *cas);
void	 trust_free(struct trust *t);
void	 trust_use_index(struct trust *t, struct state *st);
int	 certs_load(const char *path, STACK_OF(X509) *sk);
/* Make x (a new reference) an issuer candidate: -1 when out of memory. */
int	 trust_add(struct trust *t, X509 *x);
/*
 * A certificate in a state file: x's DER in base64 (malloc'd; NULL when
 * the DER is over max bytes), and back: exactly one DER certificate of at
 * most max bytes whose SHA-256 is fp, else NULL.
 */
char	*cert_to_b64(X509 *x, size_t max);
X509	*cert_from_b64(const char *s, size_t max,
	    const uint8_t fp[CRLC_HASH_LEN]);
/* Append x's http(s) CRL distribution points / caIssuers URLs. */
void	 cert_crl_urls(X509 *x, struct strlist *urls);
void	 cert_issuer_urls(X509 *x, struct strlist *urls);
/* The certificates named name among t->certs and the anchors (new stack). */
STACK_OF(X509) *trust_candidates(const struct trust *t, const X509_NAME *name);
/*
 * 1 when x chains to an anchor at time now with t->certs as intermediates
 * (chain_build: every candidate tried) and no certificate of the chain is
 * revoked in the published index; else 0 and why says what failed.
 */
int	 trust_chains(const struct trust *t, X509 *x, time_t now, char *why,
	    size_t whylen);

#endif /* CRLCACHE_FETCHER_TRUST_H */
