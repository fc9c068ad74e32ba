/*
 * crlcache check: what the published index says about certificates,
 * from files or from the chain a TLS server presents (peer.c), so that
 * "why does my client say certificate signature failure?" has a
 * one-command answer.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <crlcache/crlite.h>
#include <crlcache/crliteset.h>
#include <crlcache/onecrl.h>
#include <crlcache/dpname.h>
#include <crlcache/hash.h>
#include <crlcache/index.h>
#include <crlcache/reasons.h>
#include <crlcache/tbs.h>
#include <crlcache/validity.h>

#include "at.h"
#include "cmd.h"
#include "crlitedir.h"
#include "fetcher.h"
#include "name.h"
#include "peer.h"
#include "privs.h"
#include "state.h"
#include "trust.h"

#define EXIT_ERROR	4
/* check_one(): no CRL state, the line says what the filter said */
#define CRLC_CRLITE_ANSWERED	-1

static const char *const state_words[] = { "good", "revoked", "unknown", "stale" };

/* Worse state first: revoked, stale, unknown, good. */
static int
severity(enum crlc_state s)
{
	switch (s) {
	case CRLC_REVOKED: return 3;
	case CRLC_STALE: return 2;
	case CRLC_UNKNOWN: return 1;
	default: return 0;
	}
}

static void
print_name(const char *label, const X509_NAME *n)
{
	BIO *out = BIO_new_fp(stdout, BIO_NOCLOSE);

	printf(" %s=", label);
	fflush(stdout);
	X509_NAME_print_ex(out, n, 0, XN_FLAG_RFC2253);
	BIO_free(out);
}

static void
print_serial(const struct crlc_span *s)
{
	char two[3];
	size_t i;

	printf(" serial=");
	for (i = 0; i < s->len; i++) {
		crlc_hex_encode(&s->p[i], 1, two, 1);
		fputs(two, stdout);
	}
}

/*
 * The first name of x's first distribution point, as OpenSSL prints it,
 * escaped (safe_text): the certificate may come from any server.
 */
static void
print_dp(X509 *x)
{
	STACK_OF(DIST_POINT) *dps;
	DIST_POINT_NAME *dpn;
	BIO *out;
	char *text, *shown;
	long len;

	dps = X509_get_ext_d2i(x, NID_crl_distribution_points, NULL, NULL);
	dpn = sk_DIST_POINT_num(dps) > 0 ?
	    sk_DIST_POINT_value(dps, 0)->distpoint : NULL;
	if (dpn != NULL && (out = BIO_new(BIO_s_mem())) != NULL) {
		if (dpn->type == 0 && sk_GENERAL_NAME_num(dpn->name.fullname) > 0)
			GENERAL_NAME_print(out,
			    sk_GENERAL_NAME_value(dpn->name.fullname, 0));
		else if (dpn->type == 1 &&
		    DIST_POINT_set_dpname(dpn, X509_get_issuer_name(x))) {
			/* made full with the issuer's name (RFC 5280 4.2.1.13) */
			BIO_puts(out, "DirName:");
			X509_NAME_print_ex(out, dpn->dpname, 0, XN_FLAG_RFC2253);
		}
		BIO_write(out, "", 1);
		if ((len = BIO_get_mem_data(out, &text)) > 0) {
			shown = safe_text(text);
			fputs(shown, stdout);
			free(shown);
		}
		BIO_free(out);
	}
	sk_DIST_POINT_pop_free(dps, DIST_POINT_free);
}

/*
 * The key of x's issuer (format.h "key"): its hash when exactly one of
 * certs issued x (by name and authorityKeyIdentifier; no signature is
 * verified here, where the provider may be loaded), else x's
 * authorityKeyIdentifier, else nothing (the index answers by the
 * issuer's name where it knows a single key for it).
 */
static X509 *
issuer_key(STACK_OF(X509) *certs, X509 *x, uint8_t hash[CRLC_HASH_LEN],
    struct crlc_issuer_key *ik)
{
	const ASN1_OCTET_STRING *aki;
	X509 *c, *issuer = NULL;
	int i, n = 0;

	memset(ik, 0, sizeof(*ik));
	for (i = 0; i < sk_X509_num(certs); i++) {
		c = sk_X509_value(certs, i);
		if (X509_check_issued(c, x) == X509_V_OK) {
			issuer = c;
			n++;
		}
	}
	if (n == 1 && cert_key_hash(issuer, hash) == 0) {
		ik->hash = hash;
		return issuer;
	}
	if ((aki = X509_get0_authority_key_id(x)) != NULL) {
		ik->aki.p = ASN1_STRING_get0_data(aki);
		ik->aki.len = (size_t)ASN1_STRING_length(aki);
	}
	return NULL;
}

/*
 * The CRLite set's answer for t, issued by issuer (NULL: not known),
 * with the newest SCT time (ms) its filter covers; a set stale at the
 * time checked says "revoked" only (<crlcache/crlite.h> FRESHNESS).
 */
static enum crlc_clubcard_answer
crlite_answer(struct crlc_crliteset *set, X509 *issuer,
    const struct crlc_tbs *t, int64_t at, uint64_t *newest)
{
	uint8_t spki[CRLC_SCT_HASH_LEN];
	enum crlc_clubcard_answer a;

	*newest = 0;
	if (set == NULL || issuer == NULL || t->sct_list.len == 0 ||
	    cert_spki_hash(issuer, spki) == -1)
		return CRLC_CLUBCARD_NOT_COVERED;
	a = crlc_crliteset_ask(set, spki, &t->serial, &t->sct_list, newest);
	if (a == CRLC_CLUBCARD_GOOD && at >= crlc_crliteset_stale_at(set))
		a = CRLC_CLUBCARD_NOT_COVERED;
	return a;
}

/* Why x is unknown: what the index holds of its issuer; does it count? */
static void
print_unknown(const struct crlc_verdict *v, const struct crlc_tbs *t, X509 *x,
    int exempt, int uncounted)
{
	char rtext[CRLC_REASONS_TEXT_MAX];

	if (v->crl_issuer_ambiguous)
		printf(" (a cRLIssuer of its distribution points has "
		    "several keys in the index: which one signs its "
		    "indirect CRLs is not known");
	else if (v->reasons != 0) {
		crlc_reasons_format(v->reasons, rtext, sizeof(rtext));
		printf(" (the %s in the index cover this certificate "
		    "for only some reasons: %s", t->dp_indirect_only ?
		    "indirect CRLs of its cRLIssuer" :
		    "CRLs of this issuer", rtext);
	} else if (t->dp_indirect_only)
		printf(" (no indirect CRL of the cRLIssuer of its "
		    "distribution points covers it (RFC 5280 6.3.3 "
		    "(b)(1))");
	else if (!v->issuer_held)
		printf(" (no CRL of this issuer in the index");
	else if (crlc_dp_count(t) == 0 && t->nind == 0)
		printf(" (the index holds CRLs of this issuer, none that "
		    "covers a %s certificate without a distribution "
		    "point", t->is_ca ? "CA" : "user");
	else {
		printf(" (the index holds CRLs of this issuer, none for "
		    "this %s certificate's distribution point ",
		    t->is_ca ? "CA" : "user");
		print_dp(x);
	}
	printf("%s)", exempt ?
	    "; short-lived, no revocation expected" : uncounted ?
	    "; an intermediate the server sent: not counted in the "
	    "exit status" : "");
}

/* x's TBSCertificate parsed into t (its DER in *der, to free); -1 logged. */
static int
cert_tbs(X509 *x, unsigned char **der, struct crlc_tbs *t)
{
	struct crlc_span tbs;
	int len, rc;

	if ((len = i2d_X509(x, der)) <= 0 ||
	    crlc_cert_tbs(*der, (size_t)len, &tbs) == -1 ||
	    (rc = crlc_tbs_parse(tbs.p, tbs.len, t)) == -1) {
		logx(0, "check: certificate could not be parsed");
		return -1;
	}
	if (rc == CRLC_TBS_BAD_TIME) {
		logx(0, "check: certificate notBefore or notAfter is no "
		    "possible date (RFC 5280 4.1.2.5)");
		return -1;
	}
	return 0;
}

/* What the answer rests on: the CRL's times, the revocation, or why none. */
static void
print_detail(int from_crlite, const struct crlc_verdict *v,
    const struct crlc_tbs *t, X509 *x, int exempt, int uncounted)
{
	char a[32], b[32];

	switch (from_crlite ? CRLC_CRLITE_ANSWERED : (int)v->state) {
	case CRLC_CRLITE_ANSWERED:
		break;
	case CRLC_REVOKED:
		format_time(v->revoked_at, a, sizeof(a));
		printf(" revoked=%s reason=%s", a, crlc_reason_name(v->reason));
		break;
	case CRLC_UNKNOWN:
		print_unknown(v, t, x, exempt, uncounted);
		break;
	default:
		format_time(v->this_update, a, sizeof(a));
		format_time(v->next_update, b, sizeof(b));
		printf(" thisUpdate=%s nextUpdate=%s%s", a,
		    v->next_update != 0 ? b : "none",
		    v->state == CRLC_STALE ? " (past nextUpdate + grace)" : "");
		break;
	}
}

/*
 * Look x up and print its line; *st is the state it counts as in the
 * exit status.  sent_along: an intermediate a server sent with its own
 * certificate, whose issuer's CRLs the index does not hold at all
 * (typically a root whose CRL is not configured): printed unknown, but
 * not counted, so that a good server exits 0; held CRLs that do not
 * cover it, a revocation or staleness still count.
 */
/* Over 60 lines: the lookups in the provider's order, then the line. */
static int
check_one(struct crlc_index *idx, struct crlc_crliteset *set,
    const struct crlc_onecrl *onecrl, STACK_OF(X509) *certs, X509 *x,
    int64_t at, int64_t grace, int sent_along, enum crlc_state *st)
{
	uint8_t hash[CRLC_HASH_LEN];
	struct crlc_issuer_key ik;
	unsigned char *der = NULL;
	struct crlc_tbs t;
	struct crlc_verdict v;
	struct crlc_validity val;
	char a[32], vtext[160];
	int64_t now = at_or_now(at);
	enum crlc_clubcard_answer crlite;
	enum crlc_onecrl_hit listed = CRLC_ONECRL_NONE;
	uint64_t newest;
	int exempt = 0, from_crlite, uncounted, ret = -1;

	if (cert_tbs(x, &der, &t) == -1)
		goto done;
	crlite = crlite_answer(set, issuer_key(certs, x, hash, &ik), &t, now,
	    &newest);
	if (crlc_index_lookup(idx, &t, &ik, now, grace, &v) == -1) {
		logx(0, "check: index lookup failed");
		goto done;
	}
	/* OneCRL first, as the provider asks it (policy.c). */
	if (onecrl != NULL)
		listed = crlc_onecrl_lookup(onecrl, &t.issuer, &t.serial,
		    &t.subject, &t.spki);
	if (listed != CRLC_ONECRL_NONE)
		crlite = CRLC_CLUBCARD_REVOKED;
	/* Revoked by either source; else good where a filter covers it. */
	from_crlite = crlite == CRLC_CLUBCARD_REVOKED ||
	    (crlite == CRLC_CLUBCARD_GOOD && v.state != CRLC_REVOKED);
	/*
	 * CA/B BR lifetime rules (lib/validity.c): reported, never a change
	 * of state, except that a short-lived certificate no CRL covers is
	 * good -- no revocation is published for it.
	 */
	crlc_validity_check(&t, &val);
	if (v.state == CRLC_UNKNOWN && val.short_lived)
		exempt = 1;
	uncounted = !from_crlite && sent_along && v.state == CRLC_UNKNOWN &&
	    !v.issuer_held && !exempt;
	*st = from_crlite ? (crlite == CRLC_CLUBCARD_REVOKED ? CRLC_REVOKED :
	    CRLC_GOOD) : exempt ? CRLC_GOOD : v.state;
	printf("%s", state_words[*st]);
	if (listed != CRLC_ONECRL_NONE)
		printf(" (OneCRL, listed by %s)", listed ==
		    CRLC_ONECRL_ISSUER_SERIAL ? "issuer and serial" :
		    "subject and key");
	else if (from_crlite) {
		format_time((int64_t)(newest / 1000), a, sizeof(a));
		printf(" (CRLite, filter %s)", a);
	}
	if (uncounted)
		*st = CRLC_GOOD;
	print_name("subject", X509_get_subject_name(x));
	print_serial(&t.serial);
	print_name("issuer", X509_get_issuer_name(x));
	print_detail(from_crlite, &v, &t, x, exempt, uncounted);
	/* At --at, the certificate's own validity (RFC 5280 4.1.2.5). */
	if (at != 0 && (now < t.not_before || now > t.not_after))
		printf(" (certificate %s at that time)", now < t.not_before ?
		    "not yet valid" : "expired");
	if (val.applies) {
		crlc_validity_format(&val, vtext, sizeof(vtext));
		printf(" %s", vtext);
	}
	printf("\n");
	ret = 0;
done:
	OPENSSL_free(der);
	return ret;
}

struct check_args {
	STACK_OF(X509)	*certs;
	int		 server;	/* the chain a server sent */
	int64_t		 at, grace;
};

/*
 * Look every certificate up, as the state's owner (as_state_owner), printing
 * to stdout; the exit code of `crlcache check`.
 */
static int
check_all(struct state *st, FILE *out, void *arg)
{
	const struct check_args *a = arg;
	struct crlc_index *idx = NULL;
	struct crlc_crliteset *set = NULL;
	struct crlc_onecrl *onecrl = NULL;
	char path[PATH_MAX], why[CRLC_CRLITESET_WHY_LEN];
	enum crlc_state verdict, worst = CRLC_GOOD;
	X509 *x;
	int i, ret = EXIT_ERROR;

	(void)out;		/* stdout: as_state_owner() is given no consume */
	if (index_open(st, path, sizeof(path), &idx, 1) == -1)
		goto done;
	if (crlite_set_open(st, &set, why, sizeof(why)) == -1)
		logx(0, "check: CRLite data in %s/%s not used: %s",
		    state_path(st), CRLC_CRLITE_DIR, why);
	if (set != NULL && at_or_now(a->at) >= crlc_crliteset_stale_at(set)) {
		format_time(crlc_crliteset_stale_at(set), why, sizeof(why));
		logx(0, "check: CRLite data in %s/%s stale since %s: only its "
		    "revocations count, the CRLs answer the rest",
		    state_path(st), CRLC_CRLITE_DIR, why);
	}
	if (crlite_onecrl_open(st, &onecrl, why, sizeof(why)) == -1)
		logx(0, "check: OneCRL data in %s/%s not used: %s",
		    state_path(st), CRLC_CRLITE_DIR, why);
	for (i = 0; i < sk_X509_num(a->certs); i++) {
		x = sk_X509_value(a->certs, i);
		/* A root the server sends along: no CRL speaks for it. */
		if (a->server && X509_check_issued(x, x) == X509_V_OK) {
			printf("anchor");
			print_name("subject", X509_get_subject_name(x));
			printf(" (self-signed: no CRL covers a root)\n");
			continue;
		}
		/* TLS: the server's own certificate first (RFC 8446 4.4.2). */
		if (check_one(idx, set, onecrl, a->certs, x, a->at, a->grace,
		    a->server && i > 0, &verdict) == -1)
			goto done;
		if (severity(verdict) > severity(worst))
			worst = verdict;
	}
	ret = (int)worst;
done:
	crlc_crliteset_free(set);
	crlc_onecrl_free(onecrl);
	crlc_index_close(idx);
	return ret;
}

int
cmd_check(const struct cmd_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "chain", required_argument, NULL, 'C' },
		{ "at", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_args a = { sk_X509_new_null(), 0, 0, c->conf->stale_grace };
	const char *chain = NULL;
	struct stat sb;
	int ch, ret = EXIT_ERROR;

	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (ch == 'C')
			chain = optarg;
		else if (ch != 'T' || at_option("check", optarg, &a.at) == -1)
			goto done;
	}
	if (optind + 1 != argc) {
		logx(0, "usage: crlcache check [--chain CHAIN.pem] [--at TIME] "
		    "CERT.pem | HOST:PORT");
		goto done;
	}
	if (a.certs == NULL)
		goto done;
	/* Files and servers as the caller (root may read what the owner
	   may not); the index as the state's owner. */
	if (stat(argv[optind], &sb) == 0) {
		if (certs_load(argv[optind], a.certs) == -1 ||
		    (chain != NULL && certs_load(chain, a.certs) == -1))
			goto done;
	} else {
		if (chain != NULL) {
			logx(0, "check: --chain is for files; a server sends "
			    "its own");
			goto done;
		}
		if (server_chain(argv[optind], c->conf, "check", a.certs) == -1)
			goto done;
		a.server = 1;
	}
	if ((ret = as_state_owner(c, check_all, &a, NULL, NULL)) == -1)
		ret = EXIT_ERROR;
done:
	sk_X509_pop_free(a.certs, X509_free);
	return ret;
}
