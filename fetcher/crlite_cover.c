/*
 * Which CRLs of an enrolled issuer a run fetches, once CRLite data is in
 * force: for an issuer its filters cover, only what CRLite cannot answer.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * WHY
 *	An issuer is enrolled because a program met one of its certificates
 *	that nothing answered for (a hint).  Without CRLite its every CRL is
 *	then fetched hourly: all 128 partitions of a Let's Encrypt
 *	intermediate, 36 MB for one DigiCert intermediate.  Where a CRLite
 *	filter enrols the issuer, the provider answers for its CT-logged
 *	leaves without any CRL and leaves no hint for them; what still
 *	comes as a hint is a certificate the filters cannot answer: younger
 *	than the newest filter's coverage (CRLite's data runs 12 to 36 hours
 *	behind the CAs), or without embedded SCTs.  For such an issuer a
 *	run fetches only the distribution points of the certificates that
 *	were hinted (the enrolment keeps them), and only for CRLITE_CATCHUP
 *	after the last one: by then the filters answer for it.
 *
 * A STALE SET
 *	A set past its stale_at (<crlcache/crlite.h> FRESHNESS) restricts
 *	nothing: every enrolled issuer has all its CRLs fetched, as without
 *	CRLite, from the first run that finds it stale.  The enrolments it
 *	held stay: an issuer the set answered for counts as met until the
 *	set's stale_at (crl_fresh_held()), since the provider leaves no hint
 *	for a certificate CRLite answers, and only hints renew an enrolment
 *	(enrolment.c); from then on its certificates hint again, as any
 *	the index cannot answer.
 *
 * THE ADMINISTRATOR'S CHOICE
 *	crl_fresh = all keeps every enrolled issuer on all its CRLs, as
 *	without CRLite (revocations within the hour, not within a day);
 *	crl_fresh = FILE does so for the CA certificates in FILE, matched by
 *	key.  A run without a CRLite set in force changes nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/x509.h>

#include <crlcache/crlite.h>
#include <crlcache/crliteset.h>

#include "crlite_cover.h"
#include "crlitedir.h"
#include "directory.h"
#include "enrolled.h"
#include "fetcher.h"
#include "name.h"
#include "state.h"
#include "trust.h"

/*
 * How long a CRLite-enrolled issuer's hinted distribution points are
 * fetched after the last hint: the filters' lag behind the CAs (12 to 36
 * hours, upki-revocation's publication) with a day to spare.
 */
#define CRLITE_CATCHUP	(2 * 86400)

int
crl_fresh_load(struct crl_fresh *cf, struct state *st,
    const struct conf *conf)
{
	char why[CRLC_CRLITESET_WHY_LEN], when[32];
	STACK_OF(X509) *certs = NULL;
	size_t i;
	int j, ret = -1;

	memset(cf, 0, sizeof(*cf));
	cf->all = conf->crl_fresh_all;
	/*
	 * A set that cannot be read: every issuer as without CRLite, and
	 * none expires (whom it answered for is not known this run).
	 */
	if (crlite_set_open(st, &cf->set, why, sizeof(why)) == -1) {
		cf->unread = 1;
		logx(0, "enroll: CRLite data in %s/%s not used: %s; the CRLs "
		    "of every enrolled issuer are fetched", state_path(st),
		    CRLC_CRLITE_DIR, why);
		return 0;
	}
	if (cf->set != NULL && (int64_t)time(NULL) >=
	    crlc_crliteset_stale_at(cf->set)) {
		cf->stale = 1;
		format_time(crlc_crliteset_stale_at(cf->set), when,
		    sizeof(when));
		logx(1, "enroll: CRLite data in %s/%s stale since %s: the CRLs "
		    "of every enrolled issuer are fetched", state_path(st),
		    CRLC_CRLITE_DIR, when);
	}
	if (cf->set == NULL || cf->stale || cf->all || conf->crl_fresh.n == 0)
		return 0;
	if ((certs = sk_X509_new_null()) == NULL)
		goto done;
	for (i = 0; i < conf->crl_fresh.n; i++)
		if (certs_load(conf->crl_fresh.v[i], certs) == -1)
			goto done;
	cf->keys.v = xcalloc((size_t)sk_X509_num(certs) + 1,
	    sizeof(*cf->keys.v));
	for (j = 0; j < sk_X509_num(certs); j++)
		if (cert_spki_hash(sk_X509_value(certs, j),
		    cf->keys.v[cf->keys.n]) == 0)
			cf->keys.n++;
	fpset_sort(&cf->keys);
	ret = 0;
done:
	sk_X509_pop_free(certs, X509_free);
	if (ret == -1) {
		logx(0, "enroll: crl_fresh: the CA certificates cannot be read; "
		    "the CRLs of every enrolled issuer are fetched");
		free(cf->keys.v);
		cf->keys.v = NULL;
		cf->keys.n = 0;
		cf->all = 1;
	}
	return ret;
}

static int
fp_cmp(const void *a, const void *b)
{
	return memcmp(a, b, CRLC_HASH_LEN);
}

enum crl_want
crl_fresh_want(const struct crl_fresh *cf, const struct enrolled *en,
    int64_t now)
{
	uint8_t spki[CRLC_HASH_LEN];

	if (cf->set == NULL || cf->stale || cf->all ||
	    cert_spki_hash(en->issuer, spki) == -1 ||
	    !crlc_crliteset_enrolls(cf->set, spki) ||
	    (cf->keys.n > 0 && bsearch(spki, cf->keys.v, cf->keys.n,
	    sizeof(*cf->keys.v), fp_cmp) != NULL))
		return CRL_WANT_ALL;
	return en->last_seen >= now - CRLITE_CATCHUP ? CRL_WANT_HINTED :
	    CRL_WANT_NONE;
}

int64_t
crl_fresh_held(const struct crl_fresh *cf, const struct enrolled *en)
{
	uint8_t spki[CRLC_HASH_LEN];

	if (cf != NULL && cf->unread)
		return INT64_MAX;
	if (cf == NULL || cf->set == NULL ||
	    cert_spki_hash(en->issuer, spki) == -1 ||
	    !crlc_crliteset_enrolls(cf->set, spki))
		return 0;
	return crlc_crliteset_stale_at(cf->set);
}

void
crl_fresh_free(struct crl_fresh *cf)
{
	if (cf == NULL)
		return;
	crlc_crliteset_free(cf->set);
	free(cf->keys.v);
	memset(cf, 0, sizeof(*cf));
}
