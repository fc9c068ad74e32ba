/*
 * The revocation decision for one verified certificate, and how it is
 * reported: errors through the core, log lines through crlc_log (log.c).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/x509.h>

#include <crlcache/clock.h>
#include <crlcache/format.h>
#include <crlcache/hex.h>
#include <crlcache/index.h>
#include <crlcache/reasons.h>
#include <crlcache/tbs.h>
#include <crlcache/validity.h>

#include "prov.h"

/* Text sizes for messages; longer serials and names are cut. */
#define SERIAL_TEXT_MAX	(2 * CRLC_SERIAL_MAX + 1)
#define NAME_TEXT_MAX	512

void
crlc_raise(struct crlc_prov *prov, const char *file, int line,
    const char *func, int reason, const char *fmt, ...)
{
	va_list ap;

	if (prov->core_new_error == NULL || prov->core_vset_error == NULL)
		return;
	prov->core_new_error(prov->handle);
	if (prov->core_set_error_debug != NULL)
		prov->core_set_error_debug(prov->handle, file, line, func);
	va_start(ap, fmt);
	prov->core_vset_error(prov->handle, reason, fmt, ap);
	va_end(ap);
}

/* The serial in upper-case hex, as many octets as buf holds. */
static void
serial_text(const struct crlc_span *serial, char *buf, size_t size)
{
	size_t n = serial->len < (size - 1) / 2 ? serial->len : (size - 1) / 2;

	crlc_hex_encode(serial->p, n, buf, 1);
}

/* RFC 2253 form of a DER Name; only on the (rare) reporting path. */
static void
der_name_text(const struct crlc_span *name, char *buf, size_t size)
{
	const unsigned char *p = name->p;
	X509_NAME *xn = NULL;
	BIO *bio = NULL;
	int n;

	snprintf(buf, size, "(unprintable)");
	if ((xn = d2i_X509_NAME(NULL, &p, (long)name->len)) == NULL ||
	    (bio = BIO_new(BIO_s_mem())) == NULL ||
	    X509_NAME_print_ex(bio, xn, 0,
	    XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB) < 0)
		goto done;
	if ((n = BIO_read(bio, buf, (int)size - 1)) < 0)
		n = 0;
	buf[n] = '\0';
done:
	BIO_free(bio);
	X509_NAME_free(xn);
}

void
crlc_time_text(int64_t t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t == 0 || gmtime_r(&tt, &tm) == NULL ||
	    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, size, "(none)");
}

/*
 * Why no CRL covers cert: none of its issuer is held, those held cover
 * it for some reasons only (RFC 5280 5.2.5 onlySomeReasons), or none is
 * for its distribution point (the first one named: a URI, a
 * directoryName, or a name relative to the issuer).
 */
static void
why_unknown(const struct crlc_tbs *cert, const struct crlc_verdict *v,
    char *buf, size_t size)
{
	char name[NAME_TEXT_MAX];
	size_t i;

	if (v->crl_issuer_ambiguous)
		snprintf(buf, size, "a cRLIssuer of its distribution points has "
		    "several keys in the index");
	else if (v->reasons != 0) {
		crlc_reasons_format(v->reasons, name, sizeof(name));
		snprintf(buf, size, "the %s in the index cover this "
		    "certificate for only some reasons: %s",
		    cert->dp_indirect_only ? "indirect CRLs of its cRLIssuer" :
		    "CRLs of this issuer", name);
	} else if (cert->dp_indirect_only)
		snprintf(buf, size, "no indirect CRL of the cRLIssuer of its "
		    "distribution points in the index (RFC 5280 6.3.3 (b)(1))");
	else if (!v->issuer_held)
		snprintf(buf, size, "no CRL of this issuer in the index");
	else if (cert->ndp > 0) {
		/* the certificate's bytes: printable ASCII only in a log line */
		for (i = 0; i < cert->dp[0].len && i + 1 < sizeof(name); i++)
			name[i] = cert->dp[0].p[i] >= 0x20 &&
			    cert->dp[0].p[i] < 0x7f ? (char)cert->dp[0].p[i] : '?';
		name[i] = '\0';
		snprintf(buf, size, "the index holds CRLs of this issuer, none "
		    "for its distribution point %s", name);
	} else if (cert->ndpdir > 0) {
		der_name_text(&cert->dpdir[0], name, sizeof(name));
		snprintf(buf, size, "the index holds CRLs of this issuer, none "
		    "for its distribution point DirName:%s", name);
	} else
		snprintf(buf, size, "the index holds CRLs of this issuer, none "
		    "for %s", cert->ndprel > 0 ? "its distribution point "
		    "relative to the issuer" : "a certificate without a "
		    "distribution point");
}

/* Log and, when enforcing, raise; returns the verify result to give. */
static int
report(struct crlc_prov *prov, const struct crlc_tbs *cert,
    const struct crlc_verdict *v, int deny)
{
	char serial[SERIAL_TEXT_MAX], issuer[NAME_TEXT_MAX];
	char when[CRLC_TIME_TEXT_MAX], next[CRLC_TIME_TEXT_MAX];
	char dp[NAME_TEXT_MAX + 96];
	/* the log line after its head and verb: a serial, two names, why */
	char detail[SERIAL_TEXT_MAX + 2 * NAME_TEXT_MAX + 160];
	const char *head = NULL;
	int enforce = prov->conf.mode == CRLC_MODE_ENFORCE && deny;
	const char *verb = enforce ? "refused" : deny ? "audit, allowed" :
	    "allowed by policy";

	serial_text(&cert->serial, serial, sizeof(serial));
	der_name_text(&cert->issuer, issuer, sizeof(issuer));
	switch (v->state) {
	case CRLC_REVOKED:
		crlc_time_text(v->revoked_at, when, sizeof(when));
		snprintf(detail, sizeof(detail), "serial=%s issuer=%s, revoked "
		    "%s reason %s", serial, issuer, when,
		    crlc_reason_name(v->reason));
		head = "certificate is revoked";
		if (enforce)
			CRLC_RAISE(prov, CRLC_R_REVOKED, "serial=%s issuer=%s, "
			    "revoked %s reason %s", serial, issuer, when,
			    crlc_reason_name(v->reason));
		break;
	case CRLC_STALE:
		/* no nextUpdate: stale from thisUpdate on (crlc_crl_due) */
		crlc_time_text(crlc_crl_due(v->this_update, v->next_update),
		    next, sizeof(next));
		snprintf(detail, sizeof(detail), "serial=%s issuer=%s, CRL %s "
		    "%s; run `crlcache update`", serial, issuer,
		    v->next_update ? "nextUpdate" :
		    "without nextUpdate, thisUpdate", next);
		head = "revocation data is stale";
		if (enforce)
			CRLC_RAISE(prov, CRLC_R_STALE, "serial=%s issuer=%s, CRL "
			    "%s %s; run `crlcache update` or set on_stale = "
			    "allow", serial, issuer, v->next_update ? "nextUpdate" :
			    "without nextUpdate, thisUpdate", next);
		break;
	case CRLC_UNKNOWN:
		why_unknown(cert, v, dp, sizeof(dp));
		snprintf(detail, sizeof(detail), "serial=%s issuer=%s, %s",
		    serial, issuer, dp);
		head = "revocation status unknown";
		if (enforce)
			CRLC_RAISE(prov, CRLC_R_UNKNOWN, "serial=%s issuer=%s, %s; "
			    "add its CRL or set on_unknown = allow", serial,
			    issuer, dp);
		break;
	default:
		break;
	}
	if (head != NULL) {
		crlc_log(prov->conf.log, LOG_WARNING, "%s (%s): %s", head, verb,
		    detail);
		/* Where no syslog is, status --refusals still says why. */
		if (enforce)
			crlc_refusal_note(prov->conf.index, "%s (refused): %s",
			    head, detail);
	}
	return enforce ? 0 : 1;
}

/*
 * A certificate a CRLite filter (crlite.c) says is revoked: refused
 * whatever its lifetime (a short-lived one is revoked all the same).
 * newest: the newest SCT time (ms) the filter covers, its date.
 */
static int
report_crlite(struct crlc_prov *prov, const struct crlc_tbs *cert,
    uint64_t newest)
{
	char serial[SERIAL_TEXT_MAX], issuer[NAME_TEXT_MAX];
	char when[CRLC_TIME_TEXT_MAX];
	int enforce = prov->conf.mode == CRLC_MODE_ENFORCE;

	serial_text(&cert->serial, serial, sizeof(serial));
	der_name_text(&cert->issuer, issuer, sizeof(issuer));
	crlc_time_text((int64_t)(newest / 1000), when, sizeof(when));
	crlc_log(prov->conf.log, LOG_WARNING, "certificate is revoked "
	    "(CRLite, %s): serial=%s issuer=%s, in the CRLite filter of %s",
	    enforce ? "refused" : "audit, allowed", serial, issuer, when);
	if (enforce) {
		CRLC_RAISE(prov, CRLC_R_REVOKED, "serial=%s issuer=%s, revoked "
		    "(CRLite filter of %s)", serial, issuer, when);
		/* Where no syslog is, status --refusals still says why. */
		crlc_refusal_note(prov->conf.index, "certificate is revoked "
		    "(CRLite, refused): serial=%s issuer=%s, in the CRLite "
		    "filter of %s", serial, issuer, when);
	}
	return enforce ? 0 : 1;
}

/*
 * A certificate OneCRL (onecrl.c) lists: refused, CA certificates and
 * leaves alike, whatever CRLs and CRLite say (Mozilla revoked it).
 */
static int
report_onecrl(struct crlc_prov *prov, const struct crlc_tbs *cert,
    enum crlc_onecrl_hit hit)
{
	char serial[SERIAL_TEXT_MAX], issuer[NAME_TEXT_MAX];
	const char *by = hit == CRLC_ONECRL_ISSUER_SERIAL ?
	    "issuer and serial" : "subject and key";
	int enforce = prov->conf.mode == CRLC_MODE_ENFORCE;

	serial_text(&cert->serial, serial, sizeof(serial));
	der_name_text(&cert->issuer, issuer, sizeof(issuer));
	crlc_log(prov->conf.log, LOG_WARNING, "certificate is revoked "
	    "(OneCRL, %s): serial=%s issuer=%s, listed by %s", enforce ?
	    "refused" : "audit, allowed", serial, issuer, by);
	if (enforce) {
		CRLC_RAISE(prov, CRLC_R_REVOKED, "serial=%s issuer=%s, revoked "
		    "(OneCRL, listed by %s)", serial, issuer, by);
		crlc_refusal_note(prov->conf.index, "certificate is revoked "
		    "(OneCRL, refused): serial=%s issuer=%s, listed by %s",
		    serial, issuer, by);
	}
	return enforce ? 0 : 1;
}

static atomic_int stale_logged;
static atomic_int lookup_failed_logged;
static atomic_int spool_ro_logged;

/*
 * "Once per process" without a lock: the fingerprints of what was
 * already acted on, in a small ring.  A forgotten entry (more than
 * SEEN_SLOTS since) or two threads racing merely act twice: a repeated
 * log line, a second hint for an issuer.
 */
#define SEEN_SLOTS	64
struct seen {
	_Atomic uint64_t	fp[SEEN_SLOTS];	/* 0: empty slot */
	atomic_uint		next;		/* slot to overwrite */
};

/* validity_policy = audit logs each over-long certificate once. */
static struct seen validity_seen;

/* FNV-1a (64-bit): a fingerprint for the ring, not a security hash. */
#define FNV_OFFSET	14695981039346656037ULL
#define FNV_PRIME	1099511628211ULL

static uint64_t
fnv1a(uint64_t h, const struct crlc_span *s)
{
	size_t i;

	for (i = 0; i < s->len; i++)
		h = (h ^ s->p[i]) * FNV_PRIME;
	return h;
}

/* Which certificate: issuer and serial (| 1: never the empty slot). */
static uint64_t
issuer_serial_hash(const struct crlc_tbs *cert)
{
	return fnv1a(fnv1a(FNV_OFFSET, &cert->issuer), &cert->serial) | 1;
}

/* 1 the first time fp is seen (and remembers it), else 0. */
static int
first_sighting(struct seen *seen, uint64_t fp)
{
	size_t i;

	for (i = 0; i < SEEN_SLOTS; i++)
		if (atomic_load(&seen->fp[i]) == fp)
			return 0;
	atomic_store(&seen->fp[atomic_fetch_add(&seen->next, 1) % SEEN_SLOTS],
	    fp);
	return 1;
}

/*
 * CA/B BR 6.3.2 (ballot SC-081) lifetime limit: enforce fails an
 * over-long subscriber certificate, audit logs it once.  Returns the
 * verify result to give.
 */
static int
check_validity(struct crlc_prov *prov, const struct crlc_tbs *cert,
    const struct crlc_validity *val)
{
	char serial[SERIAL_TEXT_MAX], issuer[NAME_TEXT_MAX], what[160];
	int enforce = prov->conf.validity == CRLC_MODE_ENFORCE;

	if (prov->conf.validity == CRLC_MODE_OFF || !val->applies ||
	    !val->exceeds)
		return 1;
	if (!enforce &&
	    !first_sighting(&validity_seen, issuer_serial_hash(cert)))
		return 1;
	serial_text(&cert->serial, serial, sizeof(serial));
	der_name_text(&cert->issuer, issuer, sizeof(issuer));
	crlc_validity_format(val, what, sizeof(what));
	crlc_log(prov->conf.log, LOG_WARNING, "certificate lifetime over the "
	    "CA/B Forum limit (%s): serial=%s issuer=%s, %s",
	    enforce ? "refused" : "audit, allowed", serial, issuer, what);
	if (!enforce)
		return 1;
	CRLC_RAISE(prov, CRLC_R_VALIDITY, "serial=%s issuer=%s, %s (BR 6.3.2, "
	    "ballot SC-081); set validity_policy = audit to allow", serial,
	    issuer, what);
	return 0;
}

/* At most one hint per issuer and process (a name, as the TBS has it). */
static struct seen hinted_issuers;

static uint64_t
issuer_fingerprint(const struct crlc_tbs *cert)
{
	return fnv1a(FNV_OFFSET, &cert->issuer) | 1;
}

/*
 * Which issuer a wait is for: its key when known (a name a peer chose
 * cannot take another issuer's wait by colliding with it), else its name.
 */
static uint64_t
issuer_key_fingerprint(const struct crlc_tbs *cert,
    const struct crlc_issuer_key *ik)
{
	uint64_t fp = 0;
	size_t i;

	if (ik->hash == NULL)
		return issuer_fingerprint(cert);
	for (i = 0; i < sizeof(fp); i++)
		fp = fp << 8 | ik->hash[i];
	return fp | 1;
}

/*
 * The fetcher wants the certificate when no CRL covers it (to enrol its
 * issuer) and when the covering CRL is past its nextUpdate (the issuer
 * is still met: keep or resume fetching it).  Comparisons of what the
 * lookup returned: a covered, fresh certificate costs nothing more.
 */
static int
wants_hint(const struct crlc_verdict *v, int64_t now)
{
	return v->state == CRLC_UNKNOWN || v->state == CRLC_STALE ||
	    (v->state == CRLC_GOOD && v->next_update != 0 &&
	    now > v->next_update);
}

/* Leave a hint of cert; 1 when one was left. */
static int
hint(struct crlc_prov *prov, const struct crlc_tbs *cert,
    const struct crlc_span *tbs, const struct crlc_span *sig)
{
	enum crlc_hint h;

	h = crlc_hint_leave(prov->conf.spool, prov->conf.index, tbs,
	    &cert->sigalg, sig);
	if (h == CRLC_HINT_READ_ONLY && !atomic_exchange(&spool_ro_logged, 1))
		crlc_log(prov->conf.log, LOG_NOTICE, "the hint spool %s is on a "
		    "read-only filesystem (a container sharing the host's "
		    "index?): no hints are left, and the issuers this program "
		    "meets are learned only where the fetcher runs",
		    prov->conf.spool);
	return h == CRLC_HINT_LEFT;
}

/*
 * The index's verdict on cert into v: 0, or -1 when the lookup failed
 * (said once per process).  No usable index: -1 too, logged by
 * snapshot.c.
 */
static int
lookup(struct crlc_prov *prov, const struct crlc_tbs *cert,
    const struct crlc_issuer_key *ik, int64_t now, struct crlc_verdict *v)
{
	struct crlc_pin *snap;
	int rc;

	if ((snap = crlc_snap_acquire(prov->store)) == NULL)
		return -1;
	rc = crlc_index_lookup(crlc_snap_index(snap), cert, ik, now,
	    prov->conf.grace, v);
	crlc_pin_release(snap);
	if (rc != 0 && !atomic_exchange(&lookup_failed_logged, 1))
		/* A scope file missing or damaged (format.h READER CHECKS). */
		crlc_log(prov->conf.log, LOG_WARNING, "index lookup failed (a "
		    "damaged index?): certificates pass unchecked until the "
		    "next update publishes");
	return rc != 0 ? -1 : 0;
}

/*
 * An issuer the index does not cover, just hinted, that the fetcher can
 * learn: wait, bounded, for the fast run to publish what covers cert
 * (learn.c says whether and how long; chain_end: the deadline of a
 * wait above it in its chain, 0 for none), and answer from the new index.
 * Returns the deadline it waited to, 0 when it did not wait.
 */
static long long
learn(struct crlc_prov *prov, const struct crlc_tbs *cert,
    const struct crlc_issuer_key *ik, long long chain_end,
    struct crlc_verdict *v)
{
	char issuer[NAME_TEXT_MAX];
	struct crlc_verdict nv;
	long long start = crlc_mono_ms(), deadline;

	if ((deadline = crlc_learn_deadline(&prov->conf,
	    issuer_key_fingerprint(cert, ik), chain_end)) == 0)
		return 0;
	while (v->state == CRLC_UNKNOWN && crlc_mono_ms() < deadline) {
		crlc_learn_pause(deadline);
		crlc_store_recheck(prov->store);
		if (lookup(prov, cert, ik, (int64_t)time(NULL), &nv) == 0)
			*v = nv;
	}
	crlc_learn_done(deadline);
	der_name_text(&cert->issuer, issuer, sizeof(issuer));
	crlc_log(prov->conf.log, LOG_NOTICE, "waited %lld ms for crlcache to "
	    "learn issuer=%s: %s", crlc_mono_ms() - start, issuer,
	    v->state == CRLC_UNKNOWN ? "not covered in time, on_unknown "
	    "decides" : "covered now, answered from the new index");
	return deadline;
}

/*
 * What the fetcher wants to know of cert, the first time its issuer is
 * met in this process: a hint, and for a certificate no CRL covers a
 * wait where one can be answered (learn.c).  Answers that need no new
 * data come first: a short-lived certificate needs no CRL entry (BR
 * 4.9.1.1), so one without a distribution point, which no CRL but a
 * complete one could cover, is neither hinted nor waited for, and no
 * short-lived one is waited for.  Returns the deadline it waited to, 0
 * when it did not wait.
 */
static long long
learn_issuer(struct crlc_prov *prov, const struct crlc_tbs *cert,
    const struct crlc_validity *val, const struct crlc_span *tbs,
    const struct crlc_span *sig, const struct crlc_issuer_key *ik,
    struct crlc_verdict *v)
{
	int short_lived = val->applies && val->short_lived;
	enum crlc_learn l;
	long long chain_end;

	if (prov->conf.spool[0] == '\0' || (short_lived &&
	    v->state == CRLC_UNKNOWN &&
	    cert->ndp + cert->ndpdir + cert->ndprel + cert->nind == 0) ||
	    !first_sighting(&hinted_issuers, issuer_fingerprint(cert)))
		return 0;
	l = crlc_learnable(&prov->conf, cert, ik->hash,
	    v->state != CRLC_UNKNOWN || v->issuer_held, &chain_end);
	if (l == CRLC_LEARN_NO || !hint(prov, cert, tbs, sig))
		return 0;
	if (l != CRLC_LEARN_WAIT || v->state != CRLC_UNKNOWN || short_lived)
		return 0;
	return learn(prov, cert, ik, chain_end, v);
}

/*
 * The verdicts of OneCRL, CRLite and the index on cert, applied per mode
 * / on_stale / on_unknown.  Listed by OneCRL or revoked by either of the
 * others: refused.  Good in a CRLite
 * filter that covers it: good whatever the index lacks, with no hint and
 * no wait.  Else the index decides.
 */
static int
check_revocation(struct crlc_prov *prov, const struct crlc_tbs *cert,
    const struct crlc_validity *val, const struct crlc_span *tbs,
    const struct crlc_span *sig, struct crlc_key *key)
{
	int64_t now = (int64_t)time(NULL);
	uint8_t scratch[CRLC_HASH_LEN];
	struct crlc_issuer_key ik = { NULL, { NULL, 0 } };
	struct crlc_verdict v;
	enum crlc_clubcard_answer crlite;
	enum crlc_onecrl_hit onecrl;
	uint64_t newest;
	long long waited = 0;

	if (prov->store == NULL)
		return 1;	/* pass-through */
	onecrl = crlc_onecrl_list_check(crlc_store_onecrl(prov->store), cert);
	if (onecrl != CRLC_ONECRL_NONE)
		return report_onecrl(prov, cert, onecrl);
	crlite = crlc_crlite_check(crlc_store_crlite(prov->store), cert, key,
	    &newest);
	if (crlite == CRLC_CLUBCARD_REVOKED)
		return report_crlite(prov, cert, newest);
	/* The CRLs of the key that verified it (format.h "key"). */
	if (key != NULL)
		ik.hash = crlc_key_id(key, scratch);
	if (lookup(prov, cert, &ik, now, &v) != 0)
		return 1;
	if (crlite == CRLC_CLUBCARD_GOOD) {
		crlc_chain_note(ik.hash, &cert->spk, 0);
		return v.state == CRLC_REVOKED ? report(prov, cert, &v, 1) : 1;
	}
	if (wants_hint(&v, now))
		waited = learn_issuer(prov, cert, val, tbs, sig, &ik, &v);
	crlc_chain_note(ik.hash, &cert->spk, waited);
	switch (v.state) {
	case CRLC_REVOKED:
		return report(prov, cert, &v, 1);
	case CRLC_STALE:
		/*
		 * Allowed stale data is still news: say it once per process
		 * (every lookup would flood the log) so that a fetcher that
		 * stopped running does not go unnoticed.
		 */
		if (prov->conf.deny_stale || !atomic_exchange(&stale_logged, 1))
			return report(prov, cert, &v, prov->conf.deny_stale);
		return 1;
	case CRLC_UNKNOWN:
		/* Short-lived certificates need no CRL entry (BR 4.9.1.1). */
		if (prov->conf.deny_unknown && !(val->applies && val->short_lived))
			return report(prov, cert, &v, 1);
		return 1;
	default:
		return 1;
	}
}

/*
 * Decide whether a verified signature sig over der[0..len) may stand.
 * Returns 1 to let it pass, 0 to make it fail (an error is raised).
 * Anything that is not a TBSCertificate, and any internal trouble,
 * passes: the index can only ever take certificates away.
 */
int
crlc_policy_check(struct crlc_prov *prov, const uint8_t *der, size_t len,
    const uint8_t *sig, size_t siglen, struct crlc_key *key)
{
	const struct crlc_span tbs = { der, len }, sg = { sig, siglen };
	struct crlc_validity val;
	struct crlc_tbs cert;
	int rc;

	if (prov->conf.mode == CRLC_MODE_OFF ||
	    (rc = crlc_tbs_parse(der, len, &cert)) == -1)
		return 1;
	(void)crlc_validity_check(&cert, &val);
	/*
	 * A certificate whose notBefore or notAfter is no possible date
	 * (OpenSSL refuses it unless time checks are off) has no lifetime
	 * to judge: no limit and no short-lived exemption, but its
	 * revocation is looked up like any other's.
	 */
	if (rc == CRLC_TBS_BAD_TIME)
		val.applies = 0;
	if (check_revocation(prov, &cert, &val, &tbs, &sg, key) == 0)
		return 0;
	return check_validity(prov, &cert, &val);
}
