/*
 * Trust anchors and CA certificates used to verify CRL issuers.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <crlcache/hash.h>
#include <crlcache/index.h>

#include "at.h"
#include "chain.h"
#include "fetcher.h"
#include "name.h"
#include "state.h"
#include "trust.h"

/*
 * Why a certificate file did not open, with the OS's word.  Commands that
 * write the state run as its owner (privs.c): a file only root may read,
 * such as one under /root, is named with the account it was read as.
 */
static void
cert_open_failed(const char *path, int err)
{
	struct passwd *pw;

	if (err != EACCES || geteuid() == 0) {
		logx(0, "%s: cannot open certificate file: %s", path,
		    err != 0 ? strerror(err) : "unknown error");
		return;
	}
	pw = getpwuid(geteuid());
	logx(0, "%s: cannot open certificate file: %s: this command runs as "
	    "the state directory's owner (%s, uid %lu), who must be able to "
	    "read it; copy it where that account can", path, strerror(err),
	    pw != NULL ? pw->pw_name : "?", (unsigned long)geteuid());
}

/* Append every certificate of a PEM (or single DER) file to sk. */
int
certs_load(const char *path, STACK_OF(X509) *sk)
{
	BIO *bio;
	X509 *x;
	int n = 0;

	errno = 0;
	if ((bio = BIO_new_file(path, "r")) == NULL) {
		cert_open_failed(path, errno);
		return -1;
	}
	while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
		if (!sk_X509_push(sk, x)) {
			X509_free(x);
			break;
		}
		n++;
	}
	ERR_clear_error();
	if (n == 0) {
		(void)BIO_reset(bio);
		if ((x = d2i_X509_bio(bio, NULL)) != NULL && sk_X509_push(sk, x))
			n++;
		else
			X509_free(x);
		ERR_clear_error();
	}
	BIO_free(bio);
	if (n == 0) {
		logx(0, "%s: no certificate found", path);
		return -1;
	}
	return 0;
}

/* A certificate in our state files: its DER in base64, one line. */
char *
cert_to_b64(X509 *x, size_t max)
{
	unsigned char *der = NULL;
	char *b64 = NULL;
	int len;

	if ((len = i2d_X509(x, &der)) > 0 && (size_t)len <= max) {
		b64 = xcalloc(1, 4 * (((size_t)len + 2) / 3) + 1);
		EVP_EncodeBlock((unsigned char *)b64, der, len);
	}
	OPENSSL_free(der);
	return b64;
}

X509 *
cert_from_b64(const char *s, size_t max, const uint8_t fp[CRLC_HASH_LEN])
{
	uint8_t h[CRLC_HASH_LEN], *der;
	const unsigned char *p;
	size_t len = strlen(s), dlen;
	X509 *x = NULL;
	int n, pad;

	if (len < 4 || len % 4 != 0 || len / 4 * 3 > max + 2)
		return NULL;
	pad = (s[len - 1] == '=') + (s[len - 2] == '=');
	der = xcalloc(1, len / 4 * 3 + 1);
	n = EVP_DecodeBlock(der, (const unsigned char *)s, (int)len);
	dlen = n > pad ? (size_t)(n - pad) : 0;
	p = der;
	if (dlen > 0) {
		crlc_sha256(der, dlen, h);
		if (memcmp(h, fp, CRLC_HASH_LEN) == 0 &&
		    (x = d2i_X509(NULL, &p, (long)dlen)) != NULL &&
		    p != der + dlen) {
			X509_free(x);
			x = NULL;
		}
	}
	free(der);
	ERR_clear_error();
	return x;
}

static int
load_list(const struct strlist *l, STACK_OF(X509) *sk)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (certs_load(l->v[i], sk) == -1)
			return -1;
	return 0;
}

/*
 * An administrator named x, which is not self-signed, as an anchor: an
 * intermediate CA trusted in its own right, as OpenSSL's -partial_chain
 * (X509_V_FLAG_PARTIAL_CHAIN) does: chains end at it, whatever is above
 * it.  The flag makes every configured anchor such an end; only
 * explicitly given certificates are anchors then, never the system
 * store.  A certificate that is not a CA (RFC 5280 4.2.1.9) is refused:
 * nothing it signs is a CRL issuer's certificate.
 */
static int
anchor_partial(X509_STORE *store, X509 *x)
{
	char name[256];

	X509_NAME_oneline(X509_get_subject_name(x), name, sizeof(name));
	if (X509_check_ca(x) == 0) {
		logx(0, "anchor %s is neither self-signed nor a CA certificate",
		    name);
		return -1;
	}
	logx(2, "anchor %s is an intermediate CA: chains may end there "
	    "(partial chain)", name);
	return X509_STORE_set_flags(store, X509_V_FLAG_PARTIAL_CHAIN) ? 0 : -1;
}

int
trust_load(struct trust *t, const struct strlist *anchors,
    const struct strlist *untrusted, const struct strlist *cas)
{
	STACK_OF(X509) *roots = NULL;
	int i, ret = -1;

	t->store = X509_STORE_new();
	t->certs = sk_X509_new_null();
	t->pool = certpool_new();
	roots = sk_X509_new_null();
	if (t->store == NULL || t->certs == NULL || roots == NULL)
		goto done;
	if (anchors->n == 0) {
		if (!X509_STORE_set_default_paths(t->store)) {
			logx(0, "cannot load the system trust store");
			goto done;
		}
	} else {
		if (load_list(anchors, roots) == -1)
			goto done;
		for (i = 0; i < sk_X509_num(roots); i++) {
			X509 *x = sk_X509_value(roots, i);

			if (!(X509_get_extension_flags(x) & EXFLAG_SS) &&
			    anchor_partial(t->store, x) == -1)
				goto done;
			if (!X509_STORE_add_cert(t->store, x) ||
			    trust_add(t, x) == -1)
				goto done;
		}
	}
	sk_X509_pop_free(roots, X509_free);
	if ((roots = sk_X509_new_null()) == NULL ||
	    load_list(untrusted, roots) == -1 || load_list(cas, roots) == -1)
		goto done;
	for (i = 0; i < sk_X509_num(roots); i++)
		if (trust_add(t, sk_X509_value(roots, i)) == -1)
			goto done;
	ret = 0;
done:
	sk_X509_pop_free(roots, X509_free);
	return ret;
}

int
trust_add(struct trust *t, X509 *x)
{
	if (certpool_add(t->pool, x) == -1 || !X509_up_ref(x))
		return -1;
	if (!sk_X509_push(t->certs, x)) {
		X509_free(x);
		return -1;
	}
	return 0;
}

/*
 * Check CRL issuers' chains against what is already published (a fresh
 * state directory has nothing yet; that is not an error).
 */
void
trust_use_index(struct trust *t, struct state *st)
{
	char path[PATH_MAX];

	if (index_open(st, path, sizeof(path), &t->index, 0) == -1)
		t->index = NULL;
}

/* Every certificate named name, from our list and the store. */
STACK_OF(X509) *
trust_candidates(const struct trust *t, const X509_NAME *name)
{
	STACK_OF(X509) *out = certpool_named(t->pool, name), *fromstore = NULL;
	X509_STORE_CTX *ctx = NULL;
	X509 *x;

	if (out == NULL)
		return NULL;
	if ((ctx = X509_STORE_CTX_new()) != NULL &&
	    X509_STORE_CTX_init(ctx, t->store, NULL, NULL) &&
	    (fromstore = X509_STORE_CTX_get1_certs(ctx, (X509_NAME *)name)) != NULL) {
		while ((x = sk_X509_shift(fromstore)) != NULL)
			if (!sk_X509_push(out, x))
				X509_free(x);
	}
	sk_X509_pop_free(fromstore, X509_free);
	X509_STORE_CTX_free(ctx);
	ERR_clear_error();
	return out;
}

/*
 * RFC 5280 6.3.3 (f) validates the CRL issuer's certification path, its
 * revocation included: a certificate of the chain that the published
 * index lists as revoked disqualifies the issuer.  Returns 1 when one is.
 */
static int
chain_revoked(const struct trust *t, STACK_OF(X509) *chain, char *why,
    size_t whylen)
{
	struct crlc_span tbs;
	struct crlc_verdict v;
	struct crlc_tbs cert;
	unsigned char *der;
	uint8_t hash[CRLC_HASH_LEN];
	struct crlc_issuer_key ik = { hash, { NULL, 0 } };
	char name[256];
	int i, len, revoked = 0;

	if (t->index == NULL)
		return 0;
	/* the last certificate is the anchor: trusted as configured */
	for (i = 0; i + 1 < sk_X509_num(chain) && !revoked; i++) {
		X509 *x = sk_X509_value(chain, i);

		der = NULL;
		if ((len = i2d_X509(x, &der)) > 0 &&
		    crlc_cert_tbs(der, (size_t)len, &tbs) == 0 &&
		    crlc_tbs_parse(tbs.p, tbs.len, &cert) == 0 &&
		    cert_key_hash(sk_X509_value(chain, i + 1), hash) == 0 &&
		    crlc_index_lookup(t->index, &cert, &ik, at_or_now(t->at), 0,
		    &v) == 0 && v.state == CRLC_REVOKED) {
			X509_NAME_oneline(X509_get_subject_name(x), name,
			    sizeof(name));
			snprintf(why, whylen, "certificate %s in its chain is revoked "
			    "(RFC 5280 6.3.3)", name);
			revoked = 1;
		}
		OPENSSL_free(der);
	}
	return revoked;
}

/* chain_build's accept: a path none of whose links is revoked. */
static int
chain_unrevoked(void *arg, STACK_OF(X509) *chain, char *why, size_t whylen)
{
	return !chain_revoked(arg, chain, why, whylen);
}

/* Does x chain to an anchor (RFC 5280 6.1), none revoked? */
int
trust_chains(const struct trust *t, X509 *x, time_t now, char *why,
    size_t whylen)
{
	return chain_build(t->store, t->pool, x, now, chain_unrevoked,
	    (void *)t, NULL, why, whylen);
}

/* Keep gn when it is an http(s) URI that may become a source (url_usable). */
static void
add_uri(const GENERAL_NAME *gn, struct strlist *urls)
{
	const char *u;
	int len;

	if (gn->type != GEN_URI)
		return;
	u = (const char *)ASN1_STRING_get0_data(gn->d.uniformResourceIdentifier);
	len = ASN1_STRING_length(gn->d.uniformResourceIdentifier);
	if (len > 0 && url_usable(u, (size_t)len) && urls->n < MAX_SOURCES)
		strlist_add(urls, u);
}

/* RFC 5280 4.2.1.13: the http(s) fullName URIs of x's CRL DPs. */
void
cert_crl_urls(X509 *x, struct strlist *urls)
{
	STACK_OF(DIST_POINT) *dps;
	int i, j;

	dps = X509_get_ext_d2i(x, NID_crl_distribution_points, NULL, NULL);
	for (i = 0; i < sk_DIST_POINT_num(dps); i++) {
		DIST_POINT *dp = sk_DIST_POINT_value(dps, i);
		GENERAL_NAMES *names;

		if (dp->distpoint == NULL || dp->distpoint->type != 0)
			continue;
		names = dp->distpoint->name.fullname;
		for (j = 0; j < sk_GENERAL_NAME_num(names); j++) {
			GENERAL_NAME *gn = sk_GENERAL_NAME_value(names, j);

			add_uri(gn, urls);
		}
	}
	sk_DIST_POINT_pop_free(dps, DIST_POINT_free);
}


/* RFC 5280 4.2.2.1: the http(s) caIssuers URIs of x's AIA extension. */
void
cert_issuer_urls(X509 *x, struct strlist *urls)
{
	AUTHORITY_INFO_ACCESS *aia;
	int i;

	aia = X509_get_ext_d2i(x, NID_info_access, NULL, NULL);
	for (i = 0; i < sk_ACCESS_DESCRIPTION_num(aia); i++) {
		ACCESS_DESCRIPTION *ad = sk_ACCESS_DESCRIPTION_value(aia, i);

		if (OBJ_obj2nid(ad->method) == NID_ad_ca_issuers)
			add_uri(ad->location, urls);
	}
	AUTHORITY_INFO_ACCESS_free(aia);
	ERR_clear_error();
}

void
trust_free(struct trust *t)
{
	crlc_index_close(t->index);
	t->index = NULL;
	X509_STORE_free(t->store);
	sk_X509_pop_free(t->certs, X509_free);
	certpool_free(t->pool);
	t->store = NULL;
	t->certs = NULL;
	t->pool = NULL;
}
