/*
 * CRLite from a source (DESIGN 4a): its index document asked for
 * conditionally, the filters it lists gathered (from disk, or downloaded
 * and checked), and installed as the set in force (<crlcache/crlite.h>).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * One run, whatever the source (crlite_rs.c, crlite_mirror.c,
 * crlite_upki.c), in three steps (crlitesrc.h): what is in force read
 * under the state lock, steps 1 to 3 without it, within the source's
 * budget (budget.h), step 4 under it again:
 *   1. GET the index document, with If-None-Match and If-Modified-Since
 *      from the last run that installed a set when that set is on disk
 *      whole.  A 304: nothing else is asked.  (Remote Settings asks its
 *      collection as rsclient.c does: source.index.)
 *   2. The source reads it (verifying what it must) into the list of
 *      filters: the full filter, then its deltas, each with the size and
 *      SHA-256 its source vouches for.
 *   3. Each filter is taken from disk when the file of its SHA-256 is
 *      there and is it, else downloaded from the source's base URL; each
 *      must have its size and SHA-256 and parse (crlc_clubcard_parse()).
 *   4. The set is installed (crliteset.c), unless it is the one in force
 *      or older than it (Remote Settings: the collection's signed
 *      timestamp; an upki mirror or cache: the newest certificate time
 *      the filters cover), as a run that installed meanwhile left it.
 * Any failure keeps the set in force, and forgets the index document's
 * validators, so that the next run asks for all of it again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <crlcache/clubcard.h>
#include <crlcache/crliteset.h>
#include <crlcache/hash.h>

#include "budget.h"
#include "crlitesrc.h"
#include "fetcher.h"
#include "proposed.h"
#include "source.h"

/* A filter's bytes: the size and SHA-256 its source gave, and it parses. */
static int
check_filter(struct crlite_run *run, const struct crlite_want *w,
    const uint8_t *body, size_t len, struct crlc_clubcard_info *info)
{
	char why[CRLC_CLUBCARD_WHY_LEN];
	uint8_t hash[CRLC_HASH_LEN];
	struct crlc_clubcard *cc;

	if (len != w->size)
		return fetch_budget_fail(&run->b, "%s: attachment of %zu "
		    "bytes, the %s says %llu", w->name, len, run->src->says,
		    (unsigned long long)w->size);
	crlc_sha256(body, len, hash);
	if (memcmp(hash, w->hash, CRLC_HASH_LEN) != 0)
		return fetch_budget_fail(&run->b, "%s: the attachment's "
		    "SHA-256 is not the one the %s says", w->name,
		    run->src->says);
	if (crlc_clubcard_parse(body, len, &cc, why, sizeof(why)) == -1)
		return fetch_budget_fail(&run->b, "%s: not a clubcard filter: "
		    "%s", w->name, why);
	crlc_clubcard_info(cc, info);
	crlc_clubcard_free(cc);
	return 0;
}

/* Download (or read, from a local source) filter w into *body, checked. */
static int
download(struct crlite_run *run, const char *base,
    const struct crlite_want *w, uint8_t **body,
    struct crlc_clubcard_info *info)
{
	char url[CRLITE_URL_MAX + CRLITE_PATH_MAX + 2];
	struct fetch f;
	int ret = -1;

	memset(&f, 0, sizeof(f));
	snprintf(url, sizeof(url), "%s%s", base, w->path);
	if ((run->src->local ? crlite_read_local(run, url,
	    CRLC_CLUBCARD_MAX_LEN, &f.body, &f.len) : fetch_budget_get(&run->b,
	    &f, url, run->src->guarded, 0, CRLC_CLUBCARD_MAX_LEN)) == 0 &&
	    check_filter(run, w, f.body, f.len, info) == 0) {
		*body = f.body;
		f.body = NULL;
		run->fetched++;
		ret = 0;
	}
	fetch_free(&f);
	return ret;
}

/* Where the wanted paths are: the source's base, or its index's directory. */
static int
base_of(struct crlite_run *run, char *out, size_t len)
{
	const char *slash = strrchr(run->index_url, '/');

	if (run->src->base != NULL)
		return run->src->base(run, out, len);
	snprintf(out, len, "%.*s", (int)(slash - run->index_url + 1),
	    run->index_url);
	return 0;
}

/* Step 3: the wanted filters into set, from disk or downloaded. */
static int
gather(struct crlite_run *run, struct crlite_set *set)
{
	char base[CRLITE_URL_MAX + 2] = "";
	struct crlc_clubcard_info info;
	struct crlite_filter *cf;
	size_t i;

	for (i = 0; i < run->nwant; i++) {
		cf = &set->f[set->n++];
		memcpy(cf->hash, run->want[i].hash, CRLC_HASH_LEN);
		cf->size = run->want[i].size;
		cf->kind = i == 0 ? CRLC_CRLITE_FULL : CRLC_CRLITE_DELTA;
		if (crlite_file_read(run->st, cf, &cf->body) == 0) {
			if (check_filter(run, &run->want[i], cf->body,
			    (size_t)cf->size, &info) == -1)
				return -1;
			free(cf->body);
			cf->body = NULL;
		} else if ((base[0] == '\0' && base_of(run, base,
		    sizeof(base)) == -1) ||
		    download(run, base, &run->want[i], &cf->body, &info) == -1)
			return -1;
		if (info.newest > set->newest)
			set->newest = info.newest;
	}
	return 0;
}

/* Is the chain the set in force already? */
static int
same_set(const struct crlite_set *a, const struct crlite_set *b)
{
	size_t i;

	if (a->n != b->n || a->source != b->source)
		return 0;
	for (i = 0; i < a->n; i++)
		if (memcmp(a->f[i].hash, b->f[i].hash, CRLC_HASH_LEN) != 0)
			return 0;
	return 1;
}

/*
 * Does the set listed pass CRLC_CRLITE_SET_MAX_BYTES (checked before any
 * download: an unsigned mirror could list 128 filters of 64 MiB), or
 * name a filter twice (readers refuse such a set)?
 */
static int
set_refused(struct crlite_run *run)
{
	uint64_t total = 0;
	size_t i, k;

	for (i = 0; i < run->nwant; i++) {
		total += run->want[i].size;	/* each at most 64 MiB */
		for (k = 0; k < i; k++)
			if (memcmp(run->want[i].hash, run->want[k].hash,
			    CRLC_HASH_LEN) == 0) {
				fetch_budget_fail(&run->b, "%s: the filter of "
				    "%s again", run->want[i].name,
				    run->want[k].name);
				return 1;
			}
	}
	if (total <= CRLC_CRLITE_SET_MAX_BYTES)
		return 0;
	fetch_budget_fail(&run->b, "a set of %llu bytes, more than %llu",
	    (unsigned long long)total,
	    (unsigned long long)CRLC_CRLITE_SET_MAX_BYTES);
	return 1;
}

/*
 * Steps 2 and 3 on an index document received (NULL: planned already):
 * 1 a set to install, 0 the set in force, -1.
 */
static int
settle(struct crlite_run *run, const uint8_t *body, size_t len)
{
	if ((body != NULL && run->src->plan(run, body, len) == -1) ||
	    set_refused(run))
		return -1;
	run->set.source = run->src->kind;
	if (gather(run, &run->set) == -1)
		return -1;
	return !(run->have && run->fetched == 0 && same_set(&run->set,
	    &run->cur));
}

/*
 * No rollback from an upki mirror or cache, which say no more of their
 * data's age than this: a set whose newest filter covers less recent
 * certificates than the set of this source in force is refused.
 * (Remote Settings: the collection's signed timestamp, rsclient.c.)
 */
static int
not_older(struct crlite_run *run)
{
	struct crlite_set now;
	char why[ERRLEN], a[32], b[32];
	int ret = 0;

	if (crlite_set_read(run->st, &now, why, sizeof(why)) != 0)
		return 0;
	if (now.source == run->set.source && run->set.newest < now.newest) {
		format_time((int64_t)(run->set.newest / 1000), a, sizeof(a));
		format_time((int64_t)(now.newest / 1000), b, sizeof(b));
		ret = fetch_budget_fail(&run->b, "the set's newest filter "
		    "covers certificates up to %s, the set in force up to %s: "
		    "refused, the newer set stays in force", a, b);
	}
	crlite_set_free(&now);
	return ret;
}

/*
 * Step 4, under the lock: the set installed, unless another run
 * installed a newer one meanwhile; Remote Settings' collection kept.
 */
static int
install(struct crlite_run *run)
{
	struct rs_client rc;
	char why[ERRLEN];

	fetch_budget_start(&rc.b, run->b.conf);
	rc.st = run->st;
	if (run->col.doc != NULL && rs_collection_recheck(&rc, &run->col) == -1)
		return fetch_budget_fail(&run->b, "%s", rc.b.err);
	if (run->r == 1 && run->src->kind != CRLC_CRLITE_SRC_REMOTE_SETTINGS &&
	    not_older(run) == -1)
		return -1;
	run->set.installed = (int64_t)time(NULL);
	if (run->r == 1 && crlite_set_install(run->st, &run->set, why,
	    sizeof(why)) == -1)
		return fetch_budget_fail(&run->b, "%s", why);
	if (run->col.doc != NULL && rs_collection_keep(&rc, &run->col) == -1)
		return fetch_budget_fail(&run->b, "%s", rc.b.err);
	return run->r;
}

/*
 * Is every filter of the set in force on disk as it names it, and its
 * lookup file there for readers (a set installed by an earlier version
 * has none)?  If not, the index document is asked for whole, the missing
 * filters downloaded, and the set installed anew.
 */
static int
set_on_disk(struct state *st, const struct crlite_set *cur)
{
	char why[CRLC_CRLITESET_WHY_LEN];
	struct crlc_crliteset *set;
	uint8_t *body;
	size_t i;

	for (i = 0; i < cur->n; i++) {
		if (crlite_file_read(st, &cur->f[i], &body) == -1) {
			logx(0, "crlite: filter %zu of the set in force is "
			    "missing or damaged; fetched again", i);
			return 0;
		}
		free(body);
	}
	if (crlite_set_open(st, &set, why, sizeof(why)) != 0) {
		logx(0, "crlite: the set in force cannot be read (%s); "
		    "installed anew", why);
		return 0;
	}
	crlc_crliteset_free(set);
	return 1;
}

/*
 * The source the configuration names: a local upki cache, else an upki
 * mirror, else the Remote Settings server.
 */
static const struct crlite_source *
configured(const struct conf *conf)
{
	if (conf->crlite_upki_dir != NULL)
		return &crlite_upki_dir;
	if (conf->crlite_mirror != NULL)
		return &crlite_upki_mirror;
	return conf->crlite != NULL ? &crlite_remote_settings : NULL;
}

/*
 * Append to update's phrase how fresh the set in force now is
 * (<crlcache/crlite.h> FRESHNESS): past its stale_at, CRLs answer.
 */
static void
say_freshness(struct state *st, char *what, size_t whatlen)
{
	struct crlite_set set;
	char err[ERRLEN], when[32];
	size_t used = strlen(what);
	int64_t stale_at;

	if (crlite_set_read(st, &set, err, sizeof(err)) != 0)
		return;
	stale_at = crlc_crlite_stale_at(set.installed, set.newest);
	crlite_set_free(&set);
	format_time(stale_at, when, sizeof(when));
	if ((int64_t)time(NULL) >= stale_at)
		snprintf(what + used, whatlen - used, "; CRLite data stale "
		    "since %s: its good answers unused, CRLs answer", when);
	else
		snprintf(what + used, whatlen - used, "; CRLite data fresh "
		    "until %s", when);
}

int
crlite_begin(struct crlite_run *run, struct state *st,
    const struct conf *conf, struct store *s, const struct rs_monitor *mon)
{
	struct source_rec rec;
	char why[ERRLEN];
	int have;

	memset(run, 0, sizeof(*run));
	if ((run->src = configured(conf)) == NULL)
		return 0;
	run->st = st;
	run->b.conf = conf;
	run->mon = mon;
	run->src->index_url(conf, run->index_url, sizeof(run->index_url));
	if ((have = crlite_set_read(st, &run->cur, why,
	    sizeof(why))) == -1)
		logx(0, "crlite: %s; a new set is fetched", why);
	run->in_force = have == 0;
	run->have = have == 0 && run->cur.source == run->src->kind &&
	    set_on_disk(st, &run->cur);
	/* Ask conditionally only when what it gave last time is installed. */
	if (!run->src->local && run->src->index == NULL && run->have &&
	    store_get_source(s, run->index_url, &rec) == 0) {
		run->f.etag = run->validator[0] = rec.etag;
		run->f.last_modified = run->validator[1] = rec.last_modified;
		rec.etag = rec.last_modified = NULL;
		source_rec_free(&rec);
	}
	return 1;
}

void
crlite_fetch(struct crlite_run *run)
{
	struct fetch *f = &run->f;

	if (run->src == NULL)
		return;
	fetch_budget_start(&run->b, run->b.conf);
	run->r = -1;
	if (run->src->index != NULL) {
		if ((run->r = run->src->index(run)) == 1)
			run->r = settle(run, NULL, 0);
	} else if (run->src->local) {
		/* Read in place each run: nothing to ask conditionally. */
		if (crlite_read_local(run, run->index_url, run->src->index_max,
		    &f->body, &f->len) == 0)
			run->r = settle(run, f->body, f->len);
	} else if (fetch_budget_get(&run->b, f, run->index_url, 0, 1,
	    run->src->index_max) == 0)
		run->r = f->not_modified ? 0 : settle(run, f->body, f->len);
}

int
crlite_finish(struct crlite_run *run, struct store *s, char *what,
    size_t whatlen)
{
	struct fetch *f = &run->f;

	what[0] = '\0';
	if (run->src == NULL)
		return 0;
	if (run->r == 1 || (run->r == 0 && run->col.doc != NULL))
		run->r = install(run);
	/* Remote Settings: no HTTP status says the outcome, the run does. */
	source_note(s, run->index_url, f, run->src->index == NULL ? f->status :
	    run->r == 0 ? 304 : 200, run->r == -1 ? run->b.err : NULL);
	crlite_tally_add(run->st, run->src->kind, run->b.bytes);
	if (run->r == -1) {
		logx(0, "crlite: %s; %s", run->b.err, run->in_force ?
		    "the set in force is kept" : "no set in force yet");
		snprintf(what, whatlen, "crlite failed (%s), %s", run->b.err,
		    run->in_force ? "the set in force kept" :
		    "no set in force yet");
	} else if (run->r == 0)
		snprintf(what, whatlen, "crlite %s (%zu filters, %llu bytes "
		    "fetched)", f->not_modified ? "not modified" : "unchanged",
		    run->have ? run->cur.n : 0,
		    (unsigned long long)run->b.bytes);
	else
		snprintf(what, whatlen, "crlite: %zu filters installed (%zu "
		    "fetched, %llu bytes)", run->nwant, run->fetched,
		    (unsigned long long)run->b.bytes);
	say_freshness(run->st, what, whatlen);
	crlite_free(run);
	return run->r == -1 ? -1 : 0;
}

void
crlite_free(struct crlite_run *run)
{
	run->f.etag = run->f.last_modified = NULL;
	free(run->validator[0]);
	free(run->validator[1]);
	run->validator[0] = run->validator[1] = NULL;
	fetch_free(&run->f);
	crlite_set_free(&run->set);
	crlite_set_free(&run->cur);
	rs_collection_free(&run->col);
}
