/*
 * The issuer directory's entries, decided from the CCADB's records
 * (report.c) and the trust anchors here.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * A record is an entry when its certificate (PEM matched to the record's
 * SHA-256) is an unexpired CA certificate that chains to a trust anchor
 * here; a root row's certificate must itself be the anchor.  One subject
 * and key often has several records (cross-signs, re-issues), each with
 * its own CRL URL lists, and a CA signs the same CRLs whichever
 * certificate of its key a client met: every entry gets the union of the
 * URLs of all records of its subject and key, those whose own chain
 * reaches no anchor here included (as sslmate's CRL Watch does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "chain.h"
#include "dirbuild.h"
#include "direntry.h"
#include "fetcher.h"
#include "trust.h"

static void
log_refusal(const struct ccadb_record *rec, const char *why)
{
	char hex[2 * CRLC_HASH_LEN + 1];

	crlc_hex_encode(rec->fp, CRLC_HASH_LEN, hex, 1);
	logx(2, "directory: certificate %s refused: %s", hex, why);
}

/* Verify one record's certificate: DIR_KEPT or why not. */
static enum dir_reason
check_cert(const struct trust *t, struct certpool *pool,
    const struct ccadb_record *rec, int64_t now)
{
	STACK_OF(X509) *chain = NULL;
	X509 *x = rec->cert;
	char why[256];
	int ok, depth = 0;

	if (x == NULL)
		return DIR_NO_CERT;
	if (asn1_time_to_epoch(X509_get0_notAfter(x)) < now)
		return DIR_EXPIRED;
	if (X509_check_ca(x) <= 0)
		return DIR_NOT_CA;
	ok = chain_build(t->store, pool, x, (time_t)now, NULL, NULL, &chain,
	    why, sizeof(why));
	depth = sk_X509_num(chain);
	sk_X509_pop_free(chain, X509_free);
	if (!ok)
		log_refusal(rec, why);
	/* A root row's certificate must itself be the anchor. */
	if (rec->root && (!ok || depth != 1))
		return DIR_NOT_ANCHOR;
	return ok ? DIR_KEPT : DIR_NO_CHAIN;
}

/*
 * Decide every record (reason): the certificates of all records and the
 * configured ones are the pool chains are built from.
 */
static int
verify_records(struct ccadb_records *rs, const struct trust *t, int64_t now)
{
	struct certpool *pool = certpool_new();
	size_t i;
	int j, ret = -1;

	for (j = 0; j < sk_X509_num(t->certs); j++)
		if (certpool_add(pool, sk_X509_value(t->certs, j)) == -1)
			goto done;
	for (i = 0; i < rs->n; i++)
		if (rs->v[i].cert != NULL &&
		    certpool_add(pool, rs->v[i].cert) == -1)
			goto done;
	for (i = 0; i < rs->n; i++)
		if (rs->v[i].reason == DIR_KEPT || rs->v[i].reason == DIR_NO_URL)
			rs->v[i].reason = check_cert(t, pool, &rs->v[i], now);
	ret = 0;
done:
	certpool_free(pool);
	return ret;
}

/* A record's subject and key: the SHA-256 of its subject and SPKI. */
struct key_of {
	uint8_t	 key[CRLC_HASH_LEN];
	size_t	 rec;			/* index in the records */
};

static int
subject_key(X509 *x, uint8_t out[CRLC_HASH_LEN])
{
	unsigned char *subj = NULL, *spki = NULL;
	int slen, klen, ok = 0;
	EVP_MD_CTX *md;

	slen = i2d_X509_NAME(X509_get_subject_name(x), &subj);
	klen = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(x), &spki);
	if (slen > 0 && klen > 0 && (md = EVP_MD_CTX_new()) != NULL) {
		ok = EVP_DigestInit_ex(md, EVP_sha256(), NULL) &&
		    EVP_DigestUpdate(md, subj, (size_t)slen) &&
		    EVP_DigestUpdate(md, spki, (size_t)klen) &&
		    EVP_DigestFinal_ex(md, out, NULL);
		EVP_MD_CTX_free(md);
	}
	OPENSSL_free(subj);
	OPENSSL_free(spki);
	return ok ? 0 : -1;
}

static int
cmp_key(const void *a, const void *b)
{
	return memcmp(((const struct key_of *)a)->key,
	    ((const struct key_of *)b)->key, CRLC_HASH_LEN);
}

/*
 * The union of the URLs of records k[from..to) into urls, each once.
 * -1 when it holds more than DIR_MAX_URLS.
 */
static int
union_urls(const struct ccadb_records *rs, const struct key_of *k,
    size_t from, size_t to, struct strlist *urls)
{
	const struct strlist *u;
	size_t i, j;

	for (i = from; i < to; i++) {
		u = &rs->v[k[i].rec].urls;
		for (j = 0; j < u->n; j++)
			if (urls->n >= 2 * DIR_MAX_URLS ||
			    strlist_add(urls, u->v[j]) == -1)
				return -1;
	}
	strlist_uniq(urls);
	return urls->n > DIR_MAX_URLS ? -1 : 0;
}

/*
 * Replace the URLs of every chained record (DIR_KEPT) by the union over
 * its subject and key; one left with none becomes DIR_NO_URL.
 */
static int
unite(struct ccadb_records *rs)
{
	struct key_of *k = xcalloc(rs->n + 1, sizeof(*k));
	struct strlist urls;
	size_t i, j, g, nk = 0;

	for (i = 0; i < rs->n; i++)
		if (rs->v[i].cert != NULL &&
		    subject_key(rs->v[i].cert, k[nk].key) == 0)
			k[nk++].rec = i;
	qsort(k, nk, sizeof(*k), cmp_key);
	for (g = 0; g < nk; g = j) {
		for (j = g + 1; j < nk && cmp_key(&k[g], &k[j]) == 0; j++)
			;
		memset(&urls, 0, sizeof(urls));
		if (union_urls(rs, k, g, j, &urls) == -1) {
			for (i = g; i < j; i++)
				if (rs->v[k[i].rec].reason == DIR_KEPT)
					rs->v[k[i].rec].reason = DIR_MANY_URLS;
			strlist_free(&urls);
			continue;
		}
		for (i = g; i < j; i++) {
			struct ccadb_record *rec = &rs->v[k[i].rec];
			size_t u;

			if (rec->reason != DIR_KEPT)
				continue;
			strlist_free(&rec->urls);
			for (u = 0; u < urls.n; u++)
				strlist_add(&rec->urls, urls.v[u]);
			if (rec->urls.n == 0)
				rec->reason = DIR_NO_URL;
		}
		strlist_free(&urls);
	}
	free(k);
	return 0;
}

int
directory_build(struct ccadb_records *rs, const struct trust *t, int64_t now,
    struct directory *d, char *err, size_t errlen)
{
	size_t i, k;

	memset(d, 0, sizeof(*d));
	if (verify_records(rs, t, now) == -1 || unite(rs) == -1) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	d->v = xcalloc(rs->n + 1, sizeof(*d->v));
	for (i = k = 0; i < rs->n; i++) {
		struct ccadb_record *rec = &rs->v[i];

		if (rec->reason != DIR_KEPT) {
			rs->refused[rec->reason]++;
			continue;
		}
		memcpy(d->v[k].fp, rec->fp, CRLC_HASH_LEN);
		d->v[k].cert = rec->cert;
		d->v[k].urls = rec->urls;
		rec->cert = NULL;
		memset(&rec->urls, 0, sizeof(rec->urls));
		k++;
	}
	d->n = k;
	d->built = now;
	return 0;
}
