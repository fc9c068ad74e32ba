/*
 * crlcache command-line tool: what enrolment.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_ENROLMENT_H
#define CRLCACHE_FETCHER_ENROLMENT_H

#include "fetcher.h"

struct enrolled;
struct enrolment;
struct state;
struct trust;

/* enrolment.c: issuers met on this host, proven (STATE_DIR/work/enrolled) */
/* None yet is an empty enrolment.  0, or -1 (logged; e is empty). */
int	 enrolment_load(struct state *st, struct enrolment *e);
int	 enrolment_save(struct state *st, const struct enrolment *e);
void	 enrolment_free(struct enrolment *e);
/*
 * Enrol (or mark as met now) the issuer of cert once cert's signature is
 * proven (see enrolment.c); aia_budget, when not NULL, allows that many
 * caIssuers fetches.  0; 1 when only caIssuers can prove it and the
 * budget is spent (it may wait for the next); or -1 with why.
 */
int	 enrolment_prove(struct enrolment *e, X509 *cert, const struct trust *t,
	    const struct conf *conf, size_t *aia_budget, int64_t now, char *why,
	    size_t whylen);
struct crl_fresh;
/*
 * Drop issuers last met before `before`, an issuer the CRLite set of cf
 * (NULL: none) answered for counting as met until crl_fresh_held();
 * how many.
 */
size_t	 enrolment_expire(struct enrolment *e, int64_t before,
	    const struct crl_fresh *cf);
/* Remove the URLs of the sorted list from every issuer's; how many. */
size_t	 enrolment_prune(struct enrolment *e, const struct strlist *urls);
/*
 * The hint step of `update`: drain the spool, prove each hint into e
 * (enroll = none only empties the spool), save.  0 or -1.  A
 * hinted CA certificate proven joins t's pool, and cas (NULL: not kept;
 * at most CAS_KEPT_MAX), for the next rounds of update --hints.
 */
int	 enrolment_learn(struct state *st, const struct conf *conf,
	    const struct trust *t, struct enrolment *e, STACK_OF(X509) *cas);
/* The hints could not be read this run: said by status until they are. */
void	 enrolment_failed(struct state *st, struct enrolment *e);

#endif /* CRLCACHE_FETCHER_ENROLMENT_H */
