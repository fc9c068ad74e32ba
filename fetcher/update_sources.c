/*
 * The sources an update run asks: the configured URLs, the CCADB exports',
 * the issuer directory read lazily, and what enrolment adds.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/x509v3.h>

#include "ccadb.h"
#include "directory.h"
#include "fetch.h"
#include "fetchall.h"
#include "fetcher.h"
#include "update_sources.h"

/*
 * CRL URLs of the CCADB exports the configuration names: a file the
 * administrator placed (its URLs to urls, as configured), or an http(s)
 * URL fetched with the same limits as a CRL (its URLs came from the
 * network: to fromnet, fetched as learned URLs).  Returns how many
 * exports could not be read.
 */
static size_t
read_ccadb(const struct conf *conf, struct strlist *urls,
    struct strlist *fromnet)
{
	char err[ERRLEN];
	struct fetch f;
	uint8_t *buf;
	size_t i, len, failed = 0;
	int ok, net;

	for (i = 0; i < conf->ccadb.n; i++) {
		const char *src = conf->ccadb.v[i];

		buf = NULL;
		len = 0;
		if ((net = is_http_url(src, strlen(src)))) {
			memset(&f, 0, sizeof(f));
			f.url = src;
			ok = fetch_all(&f, 1, conf) == 0 && f.ok && !f.not_modified;
			if (!ok)
				logx(0, "%s: %s", src, f.err[0] ? f.err : "fetch failed");
			else {
				buf = f.body;
				len = f.len;
				f.body = NULL;
			}
			fetch_free(&f);
		} else {
			ok = read_file(src, conf->max_size, &buf, &len, err,
			    sizeof(err)) == 0;
			if (!ok)
				logx(0, "%s: %s", src, err);
		}
		if (!ok || ccadb_parse(buf, len, src, net ? fromnet : urls) == -1)
			failed++;
		free(buf);
	}
	return failed;
}

/*
 * The explicit sources and the CRL DPs of the configured CA certificates
 * to urls; those of downloaded CCADB exports to fromnet.
 */
int
gather_urls(const struct conf *conf, const struct trust *t, struct strlist *urls,
    struct strlist *fromnet, size_t *failed)
{
	size_t i;
	int j;

	for (i = 0; i < conf->urls.n; i++) {
		if (!is_http_url(conf->urls.v[i], strlen(conf->urls.v[i]))) {
			logx(0, "url %s: only http:// and https:// are fetched",
			    conf->urls.v[i]);
			return -1;
		}
		/* Redaction of its userinfo must see the whole URL. */
		if (!url_plain(conf->urls.v[i])) {
			/* Unprintable: it may hold credentials redaction misses. */
			logx(0, "url number %zu: white space, a control character, "
			    "'\"', '<' or '>' in a URL", i + 1);
			return -1;
		}
		/* Its state is keyed by the URL: LMDB keys stop at 511 bytes. */
		if (strlen(conf->urls.v[i]) > CRLC_KEY_MAX) {
			/* Redacted before it is cut: the '@' may lie beyond. */
			char *r = redact_userinfo(conf->urls.v[i]);

			logx(0, "url %.64s...: longer than %d bytes", r,
			    CRLC_KEY_MAX);
			free(r);
			return -1;
		}
		strlist_add(urls, conf->urls.v[i]);
	}
	/* DESIGN 4: CRL DPs of the CA certificates the configuration names. */
	for (j = 0; j < sk_X509_num(t->certs); j++)
		if (X509_check_ca(sk_X509_value(t->certs, j)) > 0)
			cert_crl_urls(sk_X509_value(t->certs, j), urls);
	*failed += read_ccadb(conf, urls, fromnet);
	return 0;
}


static int
dir_read(struct lazy_dir *ld, struct directory *d, const struct fpset *only)
{
	char err[ERRLEN];

	if (directory_load(ld->st, d, only, err, sizeof(err)) == 0)
		return 0;
	logx(0, "%s; not used until the next refresh", err);
	(*ld->failed)++;
	return -1;
}

const struct directory *
dir_need(struct lazy_dir *ld, const char *why)
{
	if (ld->read)
		return &ld->d;
	ld->read = 1;
	if (dir_read(ld, &ld->d, NULL) == -1)
		return &ld->d;
	if (directory_trust(ld->t, &ld->d) == -1) {
		logx(0, "update: out of memory; the directory is not used");
		directory_free(&ld->d);
		(*ld->failed)++;
	} else
		logx(2, "directory: %zu entries read (%s)", ld->d.n, why);
	return &ld->d;
}

/* trust.widen: the directory's certificates, for a CRL's issuer. */
int
dir_widen(void *arg)
{
	struct lazy_dir *ld = arg;

	if (ld->read)
		return 0;
	return dir_need(ld, "issuer candidates")->n > 0;
}

/* The directory entries enrolled_sources() looks up. */
const struct directory *
dir_enrolled(struct lazy_dir *ld, const struct conf *conf,
    const struct enrolment *en, int64_t since)
{
	struct fpset only;
	size_t i;

	if (conf->enroll == ENROLL_ALL && since == 0)
		return dir_need(ld, "enrolled issuers");
	if (ld->read || conf->enroll == ENROLL_NONE || en->n == 0)
		return &ld->d;
	only.v = xcalloc(en->n, sizeof(*only.v));
	for (i = only.n = 0; i < en->n; i++)
		if (en->v[i].last_seen >= since)
			memcpy(only.v[only.n++], en->v[i].fp, CRLC_HASH_LEN);
	fpset_sort(&only);
	if (dir_read(ld, &ld->enrolled, &only) == 0)
		logx(2, "directory: %zu of %zu enrolled issuers found",
		    ld->enrolled.n, only.n);
	free(only.v);
	return &ld->enrolled;
}

/*
 * The URLs of from that urls does not name to learned; to vouched too
 * when it is given (a directory's or a CCADB export's: not only a
 * certificate's proposal).
 */
void
add_learned(const struct strlist *from, const struct strlist *urls,
    struct strlist *learned, struct strlist *vouched)
{
	size_t i;

	for (i = 0; i < from->n && learned->n < MAX_SOURCES; i++)
		if (!strlist_listed(urls, from->v[i])) {
			strlist_add(learned, from->v[i]);
			if (vouched != NULL)
				strlist_add(vouched, from->v[i]);
		}
}

/*
 * The sources enrolment adds (DESIGN 4), less what the configuration
 * already names: the CRLs of every enrolled issuer (enroll = seen) met
 * since `since` (0: all), from its directory entry and from the
 * distribution points of its proven certificates, every enrolled
 * certificate becoming an issuer candidate for verifying them; with
 * enroll = all and no `since`, every directory entry's CRLs too.  Those
 * of the directory to vouched as well.
 */
void
enrolled_sources(const struct conf *conf, const struct directory *d,
    const struct enrolment *en, const struct crl_fresh *cf, struct trust *t,
    int64_t since, const struct strlist *urls, struct strlist *learned,
    struct strlist *vouched)
{
	const struct dir_entry *de;
	int64_t now = (int64_t)time(NULL);
	size_t i, crlite = 0;
	enum crl_want w;

	if (conf->enroll == ENROLL_NONE)
		return;
	for (i = 0; i < en->n; i++) {
		(void)trust_add(t, en->v[i].issuer);
		if (en->v[i].last_seen < since)
			continue;
		/* CRLite answers for its leaves: what it cannot, only. */
		if ((w = crl_fresh_want(cf, &en->v[i], now)) != CRL_WANT_ALL)
			crlite++;
		if (w == CRL_WANT_NONE)
			continue;
		if (w == CRL_WANT_ALL &&
		    (de = directory_find(d, en->v[i].fp)) != NULL)
			add_learned(&de->urls, urls, learned, vouched);
		add_learned(&en->v[i].urls, urls, learned, NULL);
	}
	if (crlite > 0)
		logx(2, "enroll: %zu issuers answered by CRLite: only the "
		    "distribution points of their certificates it could not "
		    "answer are fetched, for two days after", crlite);
	if (conf->enroll == ENROLL_ALL && since == 0)
		for (i = 0; i < d->n; i++)
			add_learned(&d->v[i].urls, urls, learned, vouched);
}

/*
 * update --hints: a URL of a newly met issuer that the configuration
 * names keeps its standing (fetched unguarded, as the full run does).
 */
void
keep_configured(const struct conf *conf, struct strlist *urls,
    struct strlist *learned)
{
	struct strlist configured = { NULL, 0 }, rest = { NULL, 0 };
	size_t i;

	for (i = 0; i < conf->urls.n; i++)
		strlist_add(&configured, conf->urls.v[i]);
	strlist_uniq(&configured);
	for (i = 0; i < learned->n; i++)
		strlist_add(strlist_listed(&configured, learned->v[i]) ? urls : &rest,
		    learned->v[i]);
	strlist_free(learned);
	*learned = rest;
	strlist_free(&configured);
}
