/*
 * crlcache update: fetch every configured source, verify, ingest, publish.
 * update --hints: only the CRLs of the issuers the new hints prove.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <openssl/x509v3.h>

#include <crlcache/index.h>

#include "chain.h"
#include "cmd.h"
#include "directory.h"
#include "dirindex.h"
#include "dirrefresh.h"
#include "enrolment.h"
#include "fetch.h"
#include "fetchall.h"
#include "fetcher.h"
#include "header.h"
#include "ingest.h"
#include "learning.h"
#include "mirror_name.h"
#include "mozilla.h"
#include "privs.h"
#include "proposed.h"
#include "scope.h"
#include "source.h"
#include "spool.h"
#include "store.h"
#include "update_sources.h"

/*
 * Times update --hints waits for a run in progress (and then tries the
 * lock again) before it gives up: it is started when the spool fills, and
 * failing at once would only have it started again at once.
 */
#define LOCK_WAITS	3

static int
store_open_waiting(struct store **s, struct state *st, int wait,
    char *err, size_t errlen)
{
	int fd, waits;

	for (waits = 0; store_open(s, st, err, errlen) == -1; waits++) {
		if (!wait || waits == LOCK_WAITS)
			return -1;
		if ((fd = state_openat(st, LOCK_NAME, O_RDONLY, 0)) == -1)
			return -1;
		(void)flock(fd, LOCK_EX);	/* until that run ends */
		close(fd);
	}
	return 0;
}

struct tally {
	size_t	updated, unchanged, failed;
	size_t	url_failed;	/* failures that are the URL's, not the run's */
	size_t	exports;	/* CCADB exports not read */
	int	enrol_failed;	/* the hints could not be read */
	int	fresh_failed;	/* crl_fresh's files could not be read */
};

/*
 * Ingest one finished transfer and record the outcome for its source.
 * Long: every outcome's effect on the record, side by side.
 */
static void
settle(struct store *s, const struct trust *t, struct fetch *f,
    struct source_rec *rec, int hints_only, struct tally *tl)
{
	uint8_t key[CRLC_KEY_MAX];
	size_t keylen = 0;
	char err[ERRLEN];
	int res;

	free(rec->error);
	rec->error = NULL;
	rec->last_attempt = (int64_t)time(NULL);
	rec->http_status = f->status;
	rec->fresh_until = f->ok && f->fresh_for > 0 ?
	    rec->last_attempt + f->fresh_for : 0;
	if (!f->ok) {
		snprintf(err, sizeof(err), "%s", f->err);
		res = INGEST_FAILED;
	} else if (f->not_modified) {
		res = INGEST_UNCHANGED;
	} else {
		res = ingest_buffer(s, t, f->url, f->url, f->body, f->len, key,
		    &keylen, err, sizeof(err));
		if (res != INGEST_FAILED) {
			free(rec->etag);
			free(rec->last_modified);
			rec->etag = f->new_etag;
			rec->last_modified = f->new_last_modified;
			f->new_etag = f->new_last_modified = NULL;
			free(rec->scope_key);
			rec->scope_key = xcalloc(1, keylen > 0 ? keylen : 1);
			memcpy(rec->scope_key, key, keylen);
			rec->scope_keylen = keylen;
		}
	}
	if (res == INGEST_FAILED) {
		/* Forget validators so the next run fetches the whole CRL. */
		free(rec->etag);
		free(rec->last_modified);
		rec->etag = rec->last_modified = NULL;
		rec->error = xstrdup(err);
		source_history(rec, 0);
		if (source_origin_counts(rec->origin, hints_only)) {
			logx(0, "%s: %s", f->url, err);
			tl->failed++;
		} else {
			logx(1, "%s: %s (a %s URL: its failure %lu in a row, "
			    "not the run's)", f->url, err,
			    source_origin_name(rec->origin),
			    (unsigned long)rec->failures);
			tl->url_failed++;
		}
	} else {
		source_history(rec, 1);
		rec->last_success = rec->last_attempt;
		if (res == INGEST_CHANGED)
			tl->updated++;
		else
			tl->unchanged++;
		logx(2, "%s: %s", f->url, res == INGEST_CHANGED ? "updated" :
		    f->not_modified ? "not modified" : "unchanged");
	}
	if (store_put_source(s, f->url, rec) == -1)
		logx(0, "%s: cannot record the source state", f->url);
}

/* What each finished transfer is settled against (fetch_each's callback). */
struct settling {
	struct store		*s;
	const struct trust	*t;
	struct fetch		*f;	/* the transfers, recs[i] for f[i] */
	struct source_rec	*recs;
	unsigned char		*settled;
	int			 hints_only;
	struct tally		 tl;
};

/*
 * Verify, ingest and free each body as its transfer ends, so that the
 * memory of a run does not grow with the number of sources (only the
 * transfers in flight, conf->parallel of them, hold a body).  Ingest runs
 * between transfers: a large CRL pauses the others for its seconds, well
 * within the default 120 s transfer timeout.
 */
static void
settle_one(struct fetch *f, void *arg)
{
	struct settling *sg = arg;
	size_t i = (size_t)(f - sg->f);

	f->etag = f->last_modified = NULL;
	settle(sg->s, sg->t, f, &sg->recs[i], sg->hints_only, &sg->tl);
	fetch_free(f);
	sg->settled[i] = 1;
}

/* Fetch and settle the transfers f[from..to). */
static void
fetch_settle(struct settling *sg, size_t from, size_t to,
    const struct conf *conf)
{
	size_t i;

	if (fetch_each(sg->f + from, to - from, conf, settle_one, sg) == -1)
		logx(0, "update: transfer engine failed");
	for (i = from; i < to; i++)
		if (!sg->settled[i])
			settle_one(&sg->f[i], sg);
}

/*
 * update --hints: the transfers of the hinted certificates' own
 * distribution points to the front of f[0..n), in order otherwise, for
 * a first publish that answers the verifications waiting for them
 * (provider/learn.c); their count.
 */
static size_t
hinted_first(struct fetch *f, size_t n, const struct strlist *dps)
{
	struct strlist sorted = { NULL, 0 };
	struct fetch *tmp;
	size_t i, k = 0, first;

	for (i = 0; i < dps->n; i++)
		strlist_add(&sorted, dps->v[i]);
	strlist_uniq(&sorted);
	tmp = xcalloc(n + 1, sizeof(*tmp));
	for (i = 0; i < n; i++)
		if (strlist_listed(&sorted, f[i].url))
			tmp[k++] = f[i];
	first = k;
	for (i = 0; i < n; i++)
		if (!strlist_listed(&sorted, f[i].url))
			tmp[k++] = f[i];
	memcpy(f, tmp, n * sizeof(*f));
	free(tmp);
	strlist_free(&sorted);
	return first;
}

/*
 * update --hints fetches a URL only when what it gave is due: a hint only
 * says that an issuer was met, which any user can repeat at will (one
 * certificate in many hint files, a run every few seconds), so the hints
 * never decide how often a server is asked.  A URL whose CRL is held and
 * current waits for the timer's run, and so does one whose server said
 * its last answer is still fresh (Cache-Control, RFC 9111 4.2: asked
 * again, it would give the same); any other waits hint_refetch after its
 * last attempt, which bounds the requests hints cause to one per URL and
 * hint_refetch, whoever writes them.  A fresh-until further ahead than
 * HTTP_FRESH_MAX (a clock set back) holds nothing back.
 */
static int
refetch_waits(const struct conf *conf, const struct source_rec *rec,
    int held, int64_t due, int64_t now)
{
	if (held && now < due)
		return 1;
	if (now < rec->fresh_until && rec->fresh_until - now <= HTTP_FRESH_MAX)
		return 1;
	return rec->last_attempt > now - conf->hint_refetch &&
	    rec->last_attempt <= now;
}

/* The issuers this run could not cover, named in the marker at once. */
static void
learn_refused(struct state *st, const struct trust *t,
    const struct enrolment *en)
{
	struct crlc_index *idx;
	char path[PATH_MAX];

	if (index_open(st, path, sizeof(path), &idx, 0) == -1)
		return;
	learning_mark(st, LEARNING_CONTENT, t, en, idx);
	crlc_index_close(idx);
}

/*
 * Where this run has a URL from (format.h "source" origin): typed by the
 * administrator (fetched unguarded), vouched for by the directory or a
 * CCADB export, or only proposed by proven certificates.
 */
static unsigned
url_origin(const struct fetch *f, const struct strlist *vouched)
{
	if (!f->guarded)
		return CRLC_SRC_ORIGIN_CONFIGURED;
	return strlist_listed(vouched, f->url) ? CRLC_SRC_ORIGIN_DIRECTORY :
	    CRLC_SRC_ORIGIN_PROPOSED;
}

/*
 * The source records of what a run listed (store_tend_sources()): every
 * URL of urls and learned, as the records are keyed.
 */
static void
listed_keys(const struct strlist *urls, const struct strlist *learned,
    struct strlist *keys)
{
	const struct strlist *from[] = { urls, learned };
	size_t i, j;
	char *key;

	for (j = 0; j < 2; j++)
		for (i = 0; i < from[j]->n; i++) {
			key = redact_userinfo(from[j]->v[i]);
			strlist_add(keys, key);
			free(key);
		}
	strlist_uniq(keys);
}

/*
 * The pruned URLs (proposed.c) out of every issuer's list, so that no
 * run asks them again unless a certificate proposes them anew.
 */
static void
prune_enrolled(struct state *st, struct enrolment *en,
    struct strlist *pruned)
{
	strlist_uniq(pruned);
	if (pruned->n > 0 && enrolment_prune(en, pruned) > 0 &&
	    enrolment_save(st, en) == -1)
		logx(0, "enroll: cannot record the pruned URLs");
}

/* What update's last line says (man/crlcache.1 update). */
struct outcome {
	const struct tally *tl;
	struct source_count sc;	/* a full run's (store_tend_sources()) */
	size_t		 n;	/* a hint run's: the sources it asked */
	int		 full;
	int		 crlite_failed, onecrl_failed;
	int		 dir_failed;
	unsigned long long gen;
	int		 published;
	const char	*crlite, *onecrl;
};

/* The summary's counts, and which of the sources beside the CRLs failed. */
static void
say_counts(FILE *f, const struct outcome *o)
{
	const struct tally *tl = o->tl;

	fprintf(f, "update: %zu sources, %zu updated, %zu unchanged, %zu "
	    "failed", o->full ? o->sc.n : o->n, tl->updated +
	    o->sc.beside_changed, tl->unchanged + o->sc.beside_same,
	    tl->failed + o->sc.beside_failed);
	if (!o->crlite_failed && !o->onecrl_failed)
		return;
	fputs(" (", f);
	if (tl->failed > 0)
		fprintf(f, "%zu CRL URLs, ", tl->failed);
	fprintf(f, "%s%s%s)", o->crlite_failed ? "CRLite" : "",
	    o->crlite_failed && o->onecrl_failed ? ", " : "",
	    o->onecrl_failed ? "OneCRL" : "");
}

/* The summary's warnings: what was not read, whether a directory is kept. */
static void
say_warnings(FILE *f, struct state *st, const struct outcome *o)
{
	const struct tally *tl = o->tl;
	struct dir_state ds;

	if (tl->url_failed > 0)
		fprintf(f, ", %zu proposed URLs failing (their failure, not "
		    "the run's: retried later)", tl->url_failed);
	if (tl->exports > 0)
		fprintf(f, "; %zu CCADB exports not read", tl->exports);
	if (tl->enrol_failed)
		fputs("; the hints not read: explicit sources only", f);
	if (tl->fresh_failed)
		fputs("; crl_fresh files not read: every CRL fetched", f);
	if (o->dir_failed) {
		memset(&ds, 0, sizeof(ds));
		fprintf(f, "; warning: issuer directory not refreshed (CCADB), "
		    "%s", directory_info(st, &ds) == 0 &&
		    ds.built != 0 ? "the previous one kept" : "none built yet");
		dir_state_free(&ds);
	}
}

/* The summary's generation and what CRLite and OneCRL said. */
static void
say_generation(FILE *f, const struct outcome *o)
{
	fprintf(f, "; generation %llu%s", o->gen, o->published ? "" :
	    " (unchanged)");
	if (o->crlite[0] != '\0')
		fprintf(f, "; %s", o->crlite);
	if (o->onecrl[0] != '\0')
		fprintf(f, "; %s", o->onecrl);
}

/*
 * The summary: the sources status counts, what failed by name, and
 * whether a directory was there to keep; logged at level 0 when ret says
 * the run failed, so that -q still says why.
 */
static void
say_summary(struct state *st, int ret, const struct outcome *o)
{
	char *line = NULL;
	size_t len = 0;
	FILE *f;

	if ((f = open_memstream(&line, &len)) == NULL)
		return;
	say_counts(f, o);
	say_warnings(f, st, o);
	say_generation(f, o);
	if (fclose(f) == 0)
		logx(ret != 0 ? 0 : 1, "%s", line);
	free(line);
}

/* One run's state, which its steps share (update_run()). */
struct run {
	const struct conf	*conf;
	struct state		*st;
	int			 force, hints_only;
	STACK_OF(X509)		*cas;
	struct strlist		 urls, learned, fromnet, vouched, pruned, listed;
	struct trust		 t;
	struct lazy_dir		 dir;
	struct enrolment	 en;
	struct store		*s;
	struct fetch		*f;	/* the transfers, recs[i] for f[i] */
	struct source_rec	*recs;
	size_t			 n;
	size_t			 first;	/* f[0..first): published first */
	struct mozilla_run	*moz;
	struct settling		 sg;	/* its tally: the run's */
	struct outcome		 o;
	char			 crlite[ERRLEN], onecrl[ERRLEN];
	uint64_t		 gen;	/* published by this run; 0: none */
	int64_t			 since;	/* issuers met from here on */
	size_t			 dir_failed, refresh_failed;
	int			 complete;	/* every source there is listed */
};

/* Step: the trust the CRLs are verified under, the lazy directory's. */
static int
run_trust(struct run *r)
{
	int ca;

	r->dir.st = r->st;
	r->dir.t = &r->t;
	r->dir.failed = &r->dir_failed;
	r->t.widen = dir_widen;
	r->t.widen_arg = &r->dir;
	if (trust_load(&r->t, &r->conf->anchors, &r->conf->untrusted,
	    &r->conf->cas) == -1)
		return -1;
	for (ca = 0; ca < sk_X509_num(r->cas); ca++)
		(void)certpool_add(r->t.pool, sk_X509_value(r->cas, ca));
	return 0;
}

/* Step: the lock, and the working index under it. */
static int
run_lock(struct run *r)
{
	char err[ERRLEN];

	if (store_open_waiting(&r->s, r->st, r->hints_only, err,
	    sizeof(err)) == -1) {
		logx(0, "%s", err);
		return -1;
	}
	return 0;
}

/*
 * Step: the directory refreshed when due, under the lock (it lives in
 * the working directory).  Counted apart from the sources: the previous
 * directory serves.  --hints touches nothing but the new issuers' CRLs:
 * no directory refresh, no configured source, no CCADB export.
 */
static void
run_directory(struct run *r)
{
	if (!r->hints_only && directory_refresh(r->st, r->conf,
	    &r->t, r->force) == -1)
		r->dir_failed = r->refresh_failed = 1;
}

/* Step: the configured sources and the CCADB exports'. */
static int
run_sources(struct run *r)
{
	if (!r->hints_only && gather_urls(r->conf, &r->t, &r->urls,
	    &r->fromnet, &r->sg.tl.exports) == -1)
		return -1;
	strlist_uniq(&r->urls);
	add_learned(&r->fromnet, &r->urls, &r->learned, &r->vouched);
	trust_use_index(&r->t, r->st);
	return 0;
}

/* Step: the hints proven into the enrolment. */
static void
run_hints(struct run *r)
{
	/* A malformed file is logged and its issuers learned anew. */
	(void)enrolment_load(r->st, &r->en);
	/* The run the spool's watcher starts says it watches. */
	learning_mark(r->st, r->hints_only ? LEARNING_FAST :
	    LEARNING_FULL, &r->t, &r->en, r->t.index);
	/* Issuers proven from here on were met in this run's hints. */
	if (r->hints_only)
		r->since = (int64_t)time(NULL);
	/* A hint's issuers are looked up by name, not the whole directory. */
	if (hints_waiting(r->st) && dir_index_attach(&r->t,
	    r->st) == -1)
		(void)dir_need(&r->dir, "hints");
	/* Hints are proven against what is published: no revoked issuer. */
	if (hints_prepare(r->st) == -1 ||
	    enrolment_learn(r->st, r->conf, &r->t, &r->en,
	    r->cas) == -1) {
		logx(0, "update: enrolment from hints failed; explicit sources "
		    "only this run");
		enrolment_failed(r->st, &r->en);
		r->sg.tl.enrol_failed = 1;
	}
}

/* Step: the enrolled issuers' sources, less what CRLite answers. */
static void
run_enrolled(struct run *r)
{
	const struct conf *conf = r->conf;
	struct crl_fresh fresh;

	/* The filters are read only when an enrolled issuer is asked about. */
	memset(&fresh, 0, sizeof(fresh));
	if (conf->enroll != ENROLL_NONE && r->en.n > 0 &&
	    crl_fresh_load(&fresh, r->st, conf) == -1)
		r->sg.tl.fresh_failed = 1;
	/* After the set is read: what it answered for counts as met. */
	if (conf->enroll == ENROLL_SEEN && enrolment_expire(&r->en, (int64_t)
	    time(NULL) - conf->seen_expiry, &fresh) > 0)
		(void)enrolment_save(r->st, &r->en);
	enrolled_sources(conf, dir_enrolled(&r->dir, conf, &r->en, r->since),
	    &r->en, &fresh, &r->t, r->since, &r->urls, &r->learned,
	    &r->vouched);
	crl_fresh_free(&fresh);
	strlist_uniq(&r->vouched);
	if (r->hints_only)
		keep_configured(conf, &r->urls, &r->learned);
	strlist_uniq(&r->learned);
	/* What a full run lists is every source there is, when all was read. */
	r->complete = !r->hints_only && r->sg.tl.exports == 0 &&
	    !r->sg.tl.enrol_failed && r->dir_failed == r->refresh_failed;
	if (!r->hints_only)
		listed_keys(&r->urls, &r->learned, &r->listed);
}

/* Step: a transfer for each source, its record read. */
static void
run_transfers(struct run *r)
{
	size_t i;

	r->n = r->urls.n + r->learned.n;
	if (r->n == 0 && !r->hints_only)
		logx(1, "update: no CRL URL configured or learned");
	r->f = xcalloc(r->n + 1, sizeof(*r->f));
	r->recs = xcalloc(r->n + 1, sizeof(*r->recs));
	for (i = 0; i < r->n; i++) {
		r->f[i].url = i < r->urls.n ? r->urls.v[i] :
		    r->learned.v[i - r->urls.n];
		/* Not typed by the administrator: public addresses only. */
		r->f[i].guarded = i >= r->urls.n;
	}
	r->first = r->hints_only ? hinted_first(r->f, r->n,
	    &r->en.hinted_dps) : 0;
}

/* Step: the transfers not due dropped, the others made conditional. */
static void
run_due(struct run *r)
{
	struct fetch *f = r->f;
	struct source_rec *recs = r->recs;
	int64_t now = (int64_t)time(NULL), due = 0;
	size_t i, kept, n = r->n;
	int found, held;

	for (i = kept = 0; i < n; i++) {
		found = store_get_source(r->s, f[i].url, &recs[i]) == 0;
		recs[i].origin = url_origin(&f[i], &r->vouched);
		held = found && store_has_scope(r->s, recs[i].scope_key,
		    recs[i].scope_keylen, &due);
		if (found && ((r->hints_only &&
		    refetch_waits(r->conf, &recs[i], held, due, now)) ||
		    proposed_waits(r->conf, &recs[i], r->hints_only, now))) {
			if (proposed_pruned(&recs[i]))
				strlist_add(&r->pruned, f[i].url);
			source_rec_free(&recs[i]);
			r->first -= i < r->first;
			continue;
		}
		/* Ask conditionally only when what we got last time is held. */
		if (held) {
			f[i].etag = recs[i].etag;
			f[i].last_modified = recs[i].last_modified;
		}
		mirror_route(r->conf, &f[i]);
		f[kept] = f[i];
		recs[kept++] = recs[i];
	}
	if (kept < n) {
		logx(1, "update: %zu sources fetched less than hint_refetch "
		    "ago, held current or fresh, or backing off after failures, "
		    "not fetched again", n - kept);
		memset(f + kept, 0, (n - kept) * sizeof(*f));
		memset(recs + kept, 0, (n - kept) * sizeof(*recs));
		r->n = kept;
	}
}

/* Step: fetch and ingest, what the waiting verifications need first. */
static void
run_fetch(struct run *r)
{
	char err[ERRLEN];
	size_t i;

	r->sg.s = r->s;
	r->sg.t = &r->t;
	r->sg.f = r->f;
	r->sg.recs = r->recs;
	r->sg.settled = xcalloc(r->n + 1, 1);
	r->sg.hints_only = r->hints_only;
	if (r->first > 0 && r->first < r->n) {
		fetch_settle(&r->sg, 0, r->first, r->conf);
		if (store_publish(r->s, 0, &r->gen, err, sizeof(err)) == -1)
			logx(0, "publish: %s", err);
		else
			logx(2, "update: the %zu CRLs of the hinted certificates "
			    "published first", r->first);
	} else
		r->first = 0;
	fetch_settle(&r->sg, r->first, r->n, r->conf);
	for (i = 0; i < r->n; i++)
		if (proposed_pruned(&r->recs[i]))
			strlist_add(&r->pruned, r->f[i].url);
	prune_enrolled(r->st, &r->en, &r->pruned);
}

/* Step: publish what the CRLs changed. */
static int
run_publish(struct run *r)
{
	char err[ERRLEN];

	if (store_publish(r->s, 0, &r->gen, err, sizeof(err)) == -1) {
		logx(0, "publish: %s", err);
		return -1;
	}
	return 0;
}

/*
 * Step: DESIGN 4a, CRLite and OneCRL beside the CRLs; a failure keeps
 * each.  Their transfers without the lock (mozilla.h).  -1: the lock
 * could not be taken again.
 */
static int
run_mozilla(struct run *r)
{
	char err[ERRLEN];

	if (r->hints_only)
		return 0;
	r->moz = mozilla_begin(r->st, r->conf, r->s);
	store_close(r->s);
	r->s = NULL;
	mozilla_fetch(r->moz, r->st, r->conf);
	if (store_open_waiting(&r->s, r->st, 1, err, sizeof(err)) == -1) {
		logx(0, "%s; CRLite and OneCRL not installed", err);
		return -1;
	}
	mozilla_finish(r->moz, r->st, r->s, r->crlite,
	    sizeof(r->crlite), &r->o.crlite_failed, r->onecrl,
	    sizeof(r->onecrl), &r->o.onecrl_failed);
	return 0;
}

/* Step: the sources' records tended, the verdict said; the exit status. */
static int
run_verdict(struct run *r)
{
	const struct tally *tl = &r->sg.tl;
	struct outcome *o = &r->o;
	int ret;

	/* The sources status counts: this run's, the others' records gone. */
	o->full = !r->hints_only && store_tend_sources(r->s, &r->listed,
	    r->complete, &o->sc) == 0;
	if (o->sc.removed > 0)
		logx(1, "update: the records of %zu sources no longer listed "
		    "removed", o->sc.removed);
	ret = tl->failed > 0 || tl->exports > 0 || tl->enrol_failed ||
	    tl->fresh_failed || o->crlite_failed || o->onecrl_failed ? 1 :
	    r->dir_failed ? EXIT_DIRECTORY_FAILED : 0;
	/* The summary: always with -v/default, with -q only on a failure. */
	o->tl = tl;
	o->n = r->n;
	o->dir_failed = r->dir_failed != 0;
	o->gen = (unsigned long long)(r->gen != 0 ? r->gen :
	    r->t.index != NULL ? crlc_index_generation(r->t.index) : 0);
	o->published = r->gen != 0;
	o->crlite = r->crlite;
	o->onecrl = r->onecrl;
	say_summary(r->st, ret, o);
	return ret;
}

static void
run_free(struct run *r)
{
	size_t i;

	for (i = 0; r->f != NULL && i < r->n; i++) {
		fetch_free(&r->f[i]);
		source_rec_free(&r->recs[i]);
	}
	free(r->f);
	free(r->recs);
	free(r->sg.settled);
	mozilla_free(r->moz);
	store_close(r->s);
	/* The directory's index this run attached (dir_index_attach()). */
	dir_index_free(r->t.dir);
	r->t.dir = NULL;
	trust_free(&r->t);
	directory_free(&r->dir.d);
	directory_free(&r->dir.enrolled);
	enrolment_free(&r->en);
	strlist_free(&r->urls);
	strlist_free(&r->learned);
	strlist_free(&r->fromnet);
	strlist_free(&r->vouched);
	strlist_free(&r->pruned);
	strlist_free(&r->listed);
}

/*
 * One run: force (--refresh-directory) refreshes the directory whatever
 * its age; hints_only is update --hints.  cas: the CA certificates the
 * hints of the runs before proved (intermediates of this run's proofs),
 * and those of this run's appended; NULL: none kept.  Its exit status.
 */
static int
update_run(const struct cmd_ctx *c, int force, int hints_only,
    STACK_OF(X509) *cas)
{
	struct run *r = xcalloc(1, sizeof(*r));
	int ret = 4;

	r->conf = c->conf;
	r->st = c->st;
	r->force = force;
	r->hints_only = hints_only;
	r->cas = cas;
	if (run_trust(r) == -1 || run_lock(r) == -1)
		goto done;
	run_directory(r);
	if (run_sources(r) == -1)
		goto done;
	run_hints(r);
	run_enrolled(r);
	run_transfers(r);
	run_due(r);
	run_fetch(r);
	if (run_publish(r) == -1)
		goto done;
	learn_refused(r->st, &r->t, &r->en);
	if (run_mozilla(r) == -1) {
		ret = 1;
		goto done;
	}
	ret = run_verdict(r);
done:
	run_free(r);
	free(r);
	return ret;
}

/*
 * update --hints: rounds after the first.  A chain of CAs no program met
 * before is hinted link by link from its anchor down, each link once the
 * run before answered the one above it (provider/learn.c: the chain's
 * verifications wait within one learn_wait): so a run that proved a CA
 * certificate looks at the spool for FOLLOW_MS after it published, and
 * a hint there (the link below) starts another round at once, with the
 * CA certificates proven so far as intermediates, rather than after the
 * service's hold (crlcache-hints.service), when the wait is over.
 * FOLLOW_ROUNDS: a leaf under the three intermediates of the deepest Web
 * PKI paths (aia.c) is its chain's fourth hint.  FOLLOW_MS: more than a
 * program takes to see a publish (provider/learn.c looks every 10 ms),
 * verify the next certificate and leave its hint, on a loaded host.
 */
#define FOLLOW_ROUNDS	3
#define FOLLOW_MS	500

int
cmd_update(const struct cmd_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "refresh-directory", no_argument, NULL, 'r' },
		{ "hints", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	STACK_OF(X509) *cas = NULL;
	int ch, force = 0, hints_only = 0, round, proven, rc, ret = 0;

	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (ch == 'r')
			force = 1;
		else if (ch == 'h')
			hints_only = 1;
		else
			return 4;
	}
	if (optind != argc || (force && hints_only)) {
		logx(0, "usage: crlcache update [--refresh-directory | --hints]");
		return 4;
	}
	if (hints_only && (cas = sk_X509_new_null()) == NULL)
		return 4;
	for (round = 0;; round++) {
		proven = sk_X509_num(cas);
		rc = update_run(c, force, hints_only, cas);
		/* The first failure is the run's exit status. */
		if (ret == 0)
			ret = rc;
		if (!hints_only || rc == 4 || round == FOLLOW_ROUNDS ||
		    sk_X509_num(cas) == proven ||
		    !hints_follow(c->st, FOLLOW_MS))
			break;
		logx(2, "update: a hint below the CA certificates just proven; "
		    "another round");
	}
	sk_X509_pop_free(cas, X509_free);
	return ret;
}
