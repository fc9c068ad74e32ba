/*
 * Enrolment: the issuers whose CRLs `enroll = seen` fetches, because a
 * program on this host met a certificate they issued.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * An issuer is enrolled only after proof: a certificate (a hint, or one
 * an administrator named to `crlcache enroll`) whose signature verifies
 * under the issuer's public key, where the issuer certificate chains to
 * a trust anchor (RFC 5280 6.1) with none of its chain revoked.  The
 * issuer certificate is found among the configured CA certificates, the
 * issuer directory, the anchors and the issuers enrolled before (which
 * serve as intermediates too), or fetched from the certificate's
 * caIssuers URL (RFC 5280 4.2.2.1), with the certificates above it
 * (aia.c), and then held to the same proof; a hinted CA certificate once
 * proven is an intermediate of the hints after it in the run (the link
 * below it of a chain met for the first time: update.c).  The
 * CRL URLs come from the directory entry of the issuer and from the CRL
 * distribution points of proven certificates: the latter were chosen by
 * whoever issued the certificate, so they are fetched as guarded URLs
 * (public addresses only, fetch.c), their failures are theirs, not the
 * run's, and one that never served a CRL is pruned (proposed.c).
 *
 * FILE
 *	STATE_DIR/work/enrolled, written whole and renamed into place; read
 *	back with every count and length bounded:
 *
 *	crlcache-enrolled 1
 *	hints AT TAKEN REFUSED              the last run's hint counts
 *	issuer FP FIRST LAST BASE64DER      one per issuer; FP is the hex
 *	url URL                             SHA-256 of DER; times in seconds
 *	...                                 since the epoch; its URLs follow
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <crlcache/hash.h>

#include "aia.h"
#include "chain.h"
#include "crlite_cover.h"
#include "enrolled.h"
#include "enrolment.h"
#include "fetcher.h"
#include "hintq.h"
#include "name.h"
#include "spool.h"
#include "trust.h"

#define ENROLLED_NAME	WORK_NAME "/enrolled"
#define ENROLLED_MAGIC	"crlcache-enrolled 1"
/*
 * Issuers one host meets: a busy server talks to a few hundred CAs; the
 * whole CCADB lists about 10,000 certificates.
 */
#define MAX_ENROLLED	10000
/* CRL URLs kept per issuer: Let's Encrypt has 128 partitions per CA. */
#define MAX_ISSUER_URLS	1024
/* Bytes of the file: MAX_ENROLLED issuer certificates of a few KiB. */
#define MAX_ENROLLED_SIZE	((size_t)256 << 20)
/* An issuer certificate: 64 KiB of DER, as the provider captures. */
#define MAX_CERT	(64 * 1024)
/* One line: an issuer certificate in base64 (a third more) and times. */
#define MAX_LINE	(96 * 1024)
/*
 * Hinted CA certificates kept for the next rounds of update --hints:
 * more than the never-met chains whose first handshakes one run answers.
 */
#define CAS_KEPT_MAX	64

static void
enrolled_free(struct enrolled *en)
{
	X509_free(en->issuer);
	strlist_free(&en->urls);
}

void
enrolment_free(struct enrolment *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		enrolled_free(&e->v[i]);
	free(e->v);
	strlist_free(&e->hinted_dps);
	memset(e, 0, sizeof(*e));
}

static int
cert_fingerprint(X509 *x, uint8_t fp[CRLC_HASH_LEN])
{
	unsigned char *der = NULL;
	int len;

	if ((len = i2d_X509(x, &der)) <= 0)
		return -1;
	crlc_sha256(der, (size_t)len, fp);
	OPENSSL_free(der);
	return 0;
}

static struct enrolled *
enrolment_find(const struct enrolment *e, const uint8_t fp[CRLC_HASH_LEN])
{
	size_t i;

	for (i = 0; i < e->n; i++)
		if (memcmp(e->v[i].fp, fp, CRLC_HASH_LEN) == 0)
			return &e->v[i];
	return NULL;
}

/* A new entry for issuer (the caller checked it is not there). */
static struct enrolled *
enrolment_add(struct enrolment *e, X509 *issuer, const uint8_t *fp)
{
	struct enrolled *n;

	if (e->n >= MAX_ENROLLED || !X509_up_ref(issuer))
		return NULL;
	if ((n = realloc(e->v, (e->n + 1) * sizeof(*n))) == NULL) {
		X509_free(issuer);
		return NULL;
	}
	e->v = n;
	n = &e->v[e->n++];
	memset(n, 0, sizeof(*n));
	memcpy(n->fp, fp, CRLC_HASH_LEN);
	n->issuer = issuer;
	return n;
}

static int
has_url(const struct strlist *l, const char *u)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i], u) == 0)
			return 1;
	return 0;
}

static void
add_urls(struct enrolled *en, const struct strlist *urls)
{
	size_t i;

	for (i = 0; i < urls->n && en->urls.n < MAX_ISSUER_URLS; i++)
		if (!has_url(&en->urls, urls->v[i]))
			strlist_add(&en->urls, urls->v[i]);
}

/* ---------------------------------------------------------------- file */

static int
parse_issuer(struct enrolment *e, char *rest)
{
	char fphex[2 * CRLC_HASH_LEN + 1];
	uint8_t fp[CRLC_HASH_LEN];
	long long first, last;
	struct enrolled *en;
	int off = 0;
	X509 *x;

	if (sscanf(rest, "%64s %lld %lld %n", fphex, &first, &last, &off) != 3 ||
	    off == 0 ||
	    crlc_hex_decode(fphex, strlen(fphex), fp, sizeof(fp)) == -1)
		return -1;
	if ((x = cert_from_b64(rest + off, MAX_CERT, fp)) == NULL ||
	    enrolment_find(e, fp) != NULL ||
	    (en = enrolment_add(e, x, fp)) == NULL) {
		X509_free(x);
		return -1;
	}
	X509_free(x);
	en->first_seen = first;
	en->last_seen = last;
	return 0;
}

static int
parse_line(struct enrolment *e, char *line)
{
	unsigned long long a, t, r, f = 0;

	if (strncmp(line, "issuer ", 7) == 0)
		return parse_issuer(e, line + 7);
	if (strncmp(line, "url ", 4) == 0) {
		if (e->n == 0 || !is_http_url(line + 4, strlen(line + 4)) ||
		    strlen(line + 4) > CRLC_KEY_MAX ||
		    e->v[e->n - 1].urls.n >= MAX_ISSUER_URLS)
			return -1;
		return strlist_add(&e->v[e->n - 1].urls, line + 4);
	}
	/* The fourth field is newer: a file without it has no failure. */
	if (sscanf(line, "hints %llu %llu %llu %llu", &a, &t, &r, &f) >= 3) {
		e->hints_at = (int64_t)a;
		e->hints_failed = (int64_t)f;
		e->hints_taken = (size_t)t;
		e->hints_refused = (size_t)r;
		return 0;
	}
	return -1;
}

int
enrolment_load(struct state *st, struct enrolment *e)
{
	char err[ERRLEN], *line, *next;
	uint8_t *buf = NULL;
	size_t len, lineno = 0;
	int ret = -1;

	memset(e, 0, sizeof(*e));
	if (state_read(st, ENROLLED_NAME, MAX_ENROLLED_SIZE, &buf, &len, err,
	    sizeof(err)) == -1) {
		if (errno == ENOENT)
			return 0;
		logx(0, "%s/%s: %s", state_path(st), ENROLLED_NAME, err);
		return -1;
	}
	if (memchr(buf, '\0', len) != NULL)
		goto bad;
	for (line = (char *)buf; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		lineno++;
		if (strlen(line) > MAX_LINE)
			goto bad;
		if (lineno == 1 ? strcmp(line, ENROLLED_MAGIC) != 0 :
		    *line != '\0' && parse_line(e, line) == -1)
			goto bad;
	}
	ret = 0;
	goto done;
bad:
	logx(0, "%s/%s:%zu: malformed; the enrolled issuers are learned again",
	    state_path(st), ENROLLED_NAME, lineno);
	enrolment_free(e);
done:
	free(buf);
	return ret;
}

int
enrolment_save(struct state *st, const struct enrolment *e)
{
	char fphex[2 * CRLC_HASH_LEN + 1];
	char *text = NULL, *b64;
	size_t textlen = 0, i, j;
	FILE *f;
	int ret = -1;

	if ((f = open_memstream(&text, &textlen)) == NULL)
		return -1;
	fprintf(f, "%s\nhints %lld %zu %zu %lld\n", ENROLLED_MAGIC,
	    (long long)e->hints_at, e->hints_taken, e->hints_refused,
	    (long long)e->hints_failed);
	for (i = 0; i < e->n; i++) {
		const struct enrolled *en = &e->v[i];

		if ((b64 = cert_to_b64(en->issuer, MAX_CERT)) == NULL)
			continue;	/* never enrolled: proven issuers fit */
		crlc_hex_encode(en->fp, CRLC_HASH_LEN, fphex, 0);
		fprintf(f, "issuer %s %lld %lld %s\n", fphex,
		    (long long)en->first_seen, (long long)en->last_seen, b64);
		free(b64);
		for (j = 0; j < en->urls.n; j++)
			fprintf(f, "url %s\n", en->urls.v[j]);
	}
	if (fclose(f) == 0 &&
	    state_replace(st, ENROLLED_NAME, text, textlen, 0600) == 0)
		ret = 0;
	free(text);
	return ret;
}

/* ---------------------------------------------------------------- proof */

/*
 * The issuer among cands whose key verifies cert's signature and that
 * chains to an anchor (RFC 5280 6.1.3 (a)(1)); NULL with why otherwise.
 */
static X509 *
proven_issuer(X509 *cert, STACK_OF(X509) *cands, const struct trust *t,
    time_t now, char *why, size_t whylen)
{
	int i;

	for (i = 0; i < sk_X509_num(cands); i++) {
		X509 *x = sk_X509_value(cands, i);
		EVP_PKEY *pk = X509_get0_pubkey(x);

		if (X509_NAME_cmp(X509_get_subject_name(x),
		    X509_get_issuer_name(cert)) != 0)
			continue;
		if (pk == NULL || X509_verify(cert, pk) != 1) {
			ERR_clear_error();
			snprintf(why, whylen, "its signature does not verify "
			    "under any known issuer certificate");
			continue;
		}
		/* RFC 5280 4.2.1.9: only a CA certificate issues others. */
		if (X509_check_ca(x) == 0) {
			snprintf(why, whylen, "signed by a certificate that is "
			    "not a CA");
			continue;
		}
		if (trust_chains(t, x, now, why, whylen))
			return x;
	}
	return NULL;
}

int
enrolment_prove(struct enrolment *e, X509 *cert, const struct trust *t,
    const struct conf *conf, size_t *aia_budget, int64_t now, char *why,
    size_t whylen)
{
	STACK_OF(X509) *cands;
	struct strlist urls = { NULL, 0 }, aia = { NULL, 0 };
	struct enrolled *en;
	uint8_t fp[CRLC_HASH_LEN];
	X509 *issuer;
	int spent, ret = -1;

	snprintf(why, whylen, "no issuer certificate with its issuer name is "
	    "known (directory, configuration, anchors, caIssuers)");
	if ((cands = trust_candidates(t, X509_get_issuer_name(cert))) == NULL)
		return -1;
	if ((issuer = proven_issuer(cert, cands, t, (time_t)now, why,
	    whylen)) == NULL && aia_budget != NULL) {
		cert_issuer_urls(cert, &aia);
		if (aia.n > 0 && *aia_budget == 0) {
			snprintf(why, whylen, "its issuer is only to be found "
			    "through caIssuers, and this run's fetches for it "
			    "are spent");
			ret = 1;
			goto done;
		}
		spent = aia_issuers(cert, t, conf, aia_budget, (time_t)now,
		    cands);
		issuer = proven_issuer(cert, cands, t, (time_t)now, why, whylen);
		if (issuer == NULL && spent) {
			snprintf(why, whylen, "its path is only to be found "
			    "through caIssuers, and it needs more fetches than "
			    "were left for it");
			ret = 1;
			goto done;
		}
	}
	if (issuer == NULL || cert_fingerprint(issuer, fp) == -1)
		goto done;
	/* Proven: an intermediate for the paths of the hints after it. */
	(void)certpool_add(t->pool, issuer);
	if ((en = enrolment_find(e, fp)) == NULL) {
		if ((en = enrolment_add(e, issuer, fp)) == NULL) {
			snprintf(why, whylen, "more than %d issuers enrolled",
			    MAX_ENROLLED);
			goto done;
		}
		en->first_seen = now;
	}
	en->last_seen = now;
	cert_crl_urls(cert, &urls);
	add_urls(en, &urls);
	ret = 0;
done:
	strlist_free(&urls);
	strlist_free(&aia);
	sk_X509_pop_free(cands, X509_free);
	return ret;
}

size_t
enrolment_expire(struct enrolment *e, int64_t before,
    const struct crl_fresh *cf)
{
	size_t i, n = 0, dropped = 0;
	char name[256];

	for (i = 0; i < e->n; i++) {
		if (e->v[i].last_seen >= before ||
		    crl_fresh_held(cf, &e->v[i]) >= before) {
			e->v[n++] = e->v[i];
			continue;
		}
		X509_NAME_oneline(X509_get_subject_name(e->v[i].issuer), name,
		    sizeof(name));
		logx(1, "enroll: %s not met since before the seen_expiry; "
		    "dropped", name);
		enrolled_free(&e->v[i]);
		dropped++;
	}
	e->n = n;
	return dropped;
}

size_t
enrolment_prune(struct enrolment *e, const struct strlist *urls)
{
	struct strlist *l;
	size_t i, j, n, pruned = 0;

	for (i = 0; i < e->n; i++) {
		l = &e->v[i].urls;
		for (j = n = 0; j < l->n; j++) {
			if (!strlist_listed(urls, l->v[j])) {
				l->v[n++] = l->v[j];
				continue;
			}
			logx(1, "enroll: %s: proposed by certificates, it never "
			    "served a valid CRL and keeps failing: pruned",
			    l->v[j]);
			free(l->v[j]);
			pruned++;
		}
		l->n = n;
	}
	return pruned;
}

/*
 * Prove one hint, its caIssuers fetches charged to its writer (*writer)
 * and to the run (*run): 0, 1 (waits for the next run) or -1 (refused).
 */
static int
learn_one(struct enrolment *e, X509 *x, const struct trust *t,
    const struct conf *conf, size_t *run, size_t *writer, int64_t now)
{
	size_t allow = *run < *writer ? *run : *writer, left = allow;
	char why[ERRLEN], id[1200];
	int rc;

	rc = enrolment_prove(e, x, t, conf, &left, now, why, sizeof(why));
	*run -= allow - left;
	*writer -= allow - left;
	/* It had its writer's whole share: waiting would spend it again. */
	if (rc == 1 && allow >= AIA_WRITER_MAX)
		rc = -1;
	if (rc != 0) {
		cert_id_text(x, id, sizeof(id));
		logx(1, "hint %s: %s: %s", id, rc == 1 ? "waits" : "refused",
		    why);
	}
	return rc;
}

/*
 * A proven hint that is a CA certificate: its path to an anchor is
 * proven (RFC 5280 6.1), so it is an intermediate of the proofs after it
 * in this run, and of the next rounds' (cas, when not NULL).
 */
static void
keep_ca(const struct trust *t, X509 *x, STACK_OF(X509) *cas)
{
	if (X509_check_ca(x) == 0)
		return;
	(void)certpool_add(t->pool, x);
	if (cas != NULL && sk_X509_num(cas) < CAS_KEPT_MAX && X509_up_ref(x) &&
	    !sk_X509_push(cas, x))
		X509_free(x);
}

int
enrolment_learn(struct state *st, const struct conf *conf,
    const struct trust *t, struct enrolment *e, STACK_OF(X509) *cas)
{
	struct hint_queue *q;
	struct hint_tally tl;
	size_t aia_run = MAX_AIA_FETCHES, refused = 0, *aia_writer, i;
	int64_t now = (int64_t)time(NULL);
	int rc;
	X509 *x;

	if (hints_open(st, &q, &tl) == -1)
		return -1;
	/* Issuers proven before: intermediates of the paths proven now. */
	for (i = 0; i < e->n; i++)
		(void)certpool_add(t->pool, e->v[i].issuer);
	e->hints_failed = 0;
	while ((x = hints_next(q, &aia_writer)) != NULL) {
		/* enroll = none reads only to empty the spool */
		rc = conf->enroll == ENROLL_NONE ? -1 :
		    learn_one(e, x, t, conf, &aia_run, aia_writer, now);
		refused += rc == -1;
		if (rc == 0) {
			cert_crl_urls(x, &e->hinted_dps);
			keep_ca(t, x, cas);
		}
		hints_settle(q, rc == 1);
		X509_free(x);
	}
	hints_close(q);
	if (tl.scanned > 0 || tl.taken > 0) {
		e->hints_at = now;
		e->hints_taken = tl.taken - refused - tl.waiting;
		e->hints_refused = tl.malformed + refused;
		logx(2, "hints: %zu arrived, %zu read, %zu enrolled or "
		    "refreshed, %zu refused, %zu wait", tl.scanned, tl.taken,
		    e->hints_taken, e->hints_refused, tl.waiting);
	}
	return enrolment_save(st, e);
}

void
enrolment_failed(struct state *st, struct enrolment *e)
{
	e->hints_failed = (int64_t)time(NULL);
	if (enrolment_save(st, e) == -1)
		logx(0, "enroll: cannot record that the hints were not read");
}
