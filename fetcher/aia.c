/*
 * caIssuers: the certificates above a certificate, fetched from the URLs
 * it names (RFC 5280 4.2.2.1), level by level up to an anchor.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * A host without the issuer directory (private, offline, or one whose
 * CCADB export does not list the CA) learns a hinted certificate's issuer
 * from its caIssuers URL.  Real paths have up to three intermediates
 * (leaf, issuing CA, a root cross-signed by an older root, the anchor:
 * D-TRUST, Telia, SECOM, Let's Encrypt's short-lived chains), so each
 * certificate fetched that does not yet chain to an anchor has its own
 * caIssuers followed, up to AIA_MAX_LEVELS.  What is fetched is hostile:
 * each URL is fetched as a learned one (public addresses only, fetch.c),
 * within AIA_MAX_SIZE bytes and AIA_TIMEOUT seconds, every fetch spends
 * one of the caller's budget (MAX_AIA_FETCHES a run, AIA_WRITER_MAX a
 * writer), and at most AIA_MAX_CERTS certificates of a response are
 * looked at.  A fetched certificate becomes an intermediate of later
 * searches (it joins the pool) only once a path from it to an anchor is
 * proven, so a response cannot fill the pool with look-alikes.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "aia.h"
#include "chain.h"
#include "fetch.h"
#include "fetchall.h"
#include "fetcher.h"
#include "trust.h"

/*
 * Levels followed above the certificate being proven: the deepest Web
 * PKI paths have three intermediates (the issuing CA, a cross-signed
 * root and its older root's cross-sign).
 */
#define AIA_MAX_LEVELS	3
/* Bytes of one caIssuers response: a certificate or a few. */
#define AIA_MAX_SIZE	(256 * 1024)
/* Seconds for one caIssuers fetch: a hostile URL must not stall a run. */
#define AIA_TIMEOUT	15
/*
 * Certificates of one response looked at: a PKCS#7 bundle holds the
 * issuer and a cross-sign or two (IdenTrust's .p7c); more are ignored.
 */
#define AIA_MAX_CERTS	8

/* Push x (a reference the caller gives up) unless out is full. */
static void
take(STACK_OF(X509) *out, X509 *x, int *left)
{
	if (*left > 0 && sk_X509_push(out, x))
		(*left)--;
	else
		X509_free(x);
}

/* Certificates of a caIssuers response: DER, PEM or PKCS#7 certs-only. */
static void
aia_certs(const uint8_t *buf, size_t len, STACK_OF(X509) *out)
{
	const unsigned char *p = buf;
	STACK_OF(X509) *certs = NULL;
	int i, left = AIA_MAX_CERTS;
	PKCS7 *p7;
	BIO *bio;
	X509 *x;

	if ((x = d2i_X509(NULL, &p, (long)len)) != NULL) {
		take(out, x, &left);
	} else if (p = buf, (p7 = d2i_PKCS7(NULL, &p, (long)len)) != NULL) {
		if (PKCS7_type_is_signed(p7) && p7->d.sign != NULL)
			certs = p7->d.sign->cert;
		for (i = 0; i < sk_X509_num(certs); i++)
			if (X509_up_ref(sk_X509_value(certs, i)))
				take(out, sk_X509_value(certs, i), &left);
		PKCS7_free(p7);
	} else if ((bio = BIO_new_mem_buf(buf, (int)len)) != NULL) {
		while (left > 0 &&
		    (x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL)
			take(out, x, &left);
		BIO_free(bio);
	}
	ERR_clear_error();
}

/* May c have issued x: name, key identifier, key usage, signature. */
static int
issues(X509 *c, X509 *x)
{
	EVP_PKEY *pk;
	int ok;

	if (X509_check_issued(c, x) != X509_V_OK ||
	    (pk = X509_get0_pubkey(c)) == NULL)
		return 0;
	ok = X509_verify(x, pk) == 1;
	ERR_clear_error();
	return ok;
}

/*
 * Fetch x's caIssuers URLs into got, one budget unit each, until a
 * response holds a certificate that issued x.  1 when the budget ran out
 * before one did, else 0.
 */
static int
aia_fetch(X509 *x, const struct conf *conf, size_t *budget,
    STACK_OF(X509) *got)
{
	struct strlist urls = { NULL, 0 };
	struct conf small = *conf;
	struct fetch f;
	size_t i;
	int j, found = 0, spent;

	small.max_size = AIA_MAX_SIZE;
	small.retries = 0;
	if (small.timeout > AIA_TIMEOUT)
		small.timeout = AIA_TIMEOUT;
	if (small.connect_timeout > AIA_TIMEOUT)
		small.connect_timeout = AIA_TIMEOUT;
	cert_issuer_urls(x, &urls);
	for (i = 0; i < urls.n && *budget > 0 && !found; i++, (*budget)--) {
		memset(&f, 0, sizeof(f));
		f.url = urls.v[i];
		f.guarded = 1;
		if (fetch_all(&f, 1, &small) == 0 && f.ok && !f.not_modified)
			aia_certs(f.body, f.len, got);
		else
			logx(2, "%s: caIssuers: %s", f.url, f.err);
		fetch_free(&f);
		for (j = 0; j < sk_X509_num(got) && !found; j++)
			found = issues(sk_X509_value(got, j), x);
	}
	spent = !found && i < urls.n;
	strlist_free(&urls);
	return spent;
}

/*
 * Fetch the issuers of x (at level) into got; each of them that does not
 * chain to an anchor yet has its own issuers fetched, and one of those
 * that then chains joins t's pool.  1 when the budget ran out first.
 */
static int
aia_level(X509 *x, const struct trust *t, const struct conf *conf,
    size_t *budget, time_t now, int level, STACK_OF(X509) *got)
{
	STACK_OF(X509) *above;
	char why[ERRLEN];
	int i, ok, spent;

	spent = aia_fetch(x, conf, budget, got);
	for (i = 0; i < sk_X509_num(got); i++) {
		X509 *c = sk_X509_value(got, i);

		/* only an anchor is self-signed in a path (chain.c) */
		if (!issues(c, x) || X509_check_ca(c) == 0 ||
		    (X509_get_extension_flags(c) & EXFLAG_SS))
			continue;
		ok = trust_chains(t, c, now, why, sizeof(why));
		if (!ok && level + 1 < AIA_MAX_LEVELS &&
		    (above = sk_X509_new_null()) != NULL) {
			spent |= aia_level(c, t, conf, budget, now, level + 1,
			    above);
			sk_X509_pop_free(above, X509_free);
			ok = trust_chains(t, c, now, why, sizeof(why));
		}
		/* proven: an intermediate of the searches after this one */
		if (ok && certpool_add(t->pool, c) == -1)
			break;
	}
	return spent;
}

int
aia_issuers(X509 *x, const struct trust *t, const struct conf *conf,
    size_t *budget, time_t now, STACK_OF(X509) *cands)
{
	STACK_OF(X509) *got;
	X509 *c;
	int spent;

	if ((got = sk_X509_new_null()) == NULL)
		return 0;
	spent = aia_level(x, t, conf, budget, now, 0, got);
	while ((c = sk_X509_shift(got)) != NULL)
		if (!sk_X509_push(cands, c))
			X509_free(c);
	sk_X509_free(got);
	return spent;
}
