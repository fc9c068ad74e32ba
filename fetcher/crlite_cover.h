/*
 * crlcache command-line tool: what crlite_cover.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_CRLITE_COVER_H
#define CRLCACHE_FETCHER_CRLITE_COVER_H

#include "direntry.h"
#include "fetcher.h"

struct enrolled;
struct state;

/*
 * crlite_cover.c: which CRLs of an enrolled issuer a run fetches while a
 * CRLite set is in force (crl_fresh = ).
 */
struct crlc_crliteset;
struct crl_fresh {
	struct crlc_crliteset	*set;	/* the set in force, NULL: none */
	int			 stale;	/* past its stale_at */
	int			 unread;	/* refused: expire none */
	int			 all;	/* crl_fresh = all */
	struct fpset		 keys;	/* crl_fresh = FILE: their keys */
};
enum crl_want {
	CRL_WANT_ALL,		/* every CRL: directory's and hinted DPs */
	CRL_WANT_HINTED,	/* CRLite covers it: the hinted DPs only */
	CRL_WANT_NONE,		/* CRLite covers it, nothing hinted lately */
};
/*
 * Read the set in force and the crl_fresh = files.  0; -1 when a file
 * cannot be read (logged; cf then wants every CRL of every issuer).
 */
int	 crl_fresh_load(struct crl_fresh *cf, struct state *st,
	    const struct conf *conf);
enum crl_want crl_fresh_want(const struct crl_fresh *cf,
	    const struct enrolled *en, int64_t now);
/*
 * Until when the set in force (fresh or stale) answered for en's issuer
 * in place of its CRLs (its stale_at), or 0: a time its enrolment counts
 * as met, since those answers leave no hint that would renew it.
 * INT64_MAX when the set could not be read.
 */
int64_t	 crl_fresh_held(const struct crl_fresh *cf,
	    const struct enrolled *en);
void	 crl_fresh_free(struct crl_fresh *cf);

#endif /* CRLCACHE_FETCHER_CRLITE_COVER_H */
