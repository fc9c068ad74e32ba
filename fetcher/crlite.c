/*
 * CRLite from a source (DESIGN 4a): its index document asked for
 * conditionally, the filters it lists gathered (from disk, or downloaded
 * and checked), and installed as the set in force (<crlcache/crlite.h>).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * One run, whatever the source (crlite_rs.c, crlite_mirror.c):
 *   1. GET the index document, with If-None-Match and If-Modified-Since
 *      from the last run that installed a set when that set is on disk
 *      whole.  A 304: nothing else is asked.
 *   2. The source reads it (verifying what it must) into the list of
 *      filters: the full filter, then its deltas, each with the size and
 *      SHA-256 its source vouches for.
 *   3. Each filter is taken from disk when the file of its SHA-256 is
 *      there and is it, else downloaded from the source's base URL; each
 *      must have its size and SHA-256 and parse (crlc_clubcard_parse()).
 *   4. The set is installed (crliteset.c), unless it is the one in force.
 * Any failure keeps the set in force, and forgets the index document's
 * validators, so that the next run asks for all of it again.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <crlcache/clubcard.h>
#include <crlcache/hash.h>

#include "crlitesrc.h"

int
crlite_fail(struct crlite_run *run, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(run->err, sizeof(run->err), fmt, ap);
	va_end(ap);
	return -1;
}

int
crlite_get(struct crlite_run *run, struct fetch *f, const char *url,
    int guarded, int decode, size_t max)
{
	struct conf c = *run->conf;

	c.max_size = max;
	f->url = url;
	f->guarded = guarded;
	f->decode = decode;
	if (fetch_all(f, 1, &c) == -1 || !f->ok) {
		char *shown = safe_text(url);

		crlite_fail(run, "%s: %s", shown, f->err[0] != '\0' ? f->err :
		    "fetch failed");
		free(shown);
		return -1;
	}
	run->bytes += f->len;
	return 0;
}

int
crlite_read_local(struct crlite_run *run, const char *path, size_t max,
    uint8_t **body, size_t *len)
{
	char why[ERRLEN];

	if (read_file(path, max, body, len, why, sizeof(why)) == -1)
		return crlite_fail(run, "%s: %s", path, why);
	return 0;
}

int
crlite_path_ok(const char *s)
{
	return s[0] != '\0' && s[0] != '/' && strstr(s, "..") == NULL &&
	    strstr(s, "//") == NULL && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-._~/") == strlen(s);
}

/* A filter's bytes: the size and SHA-256 its source gave, and it parses. */
static int
check_filter(struct crlite_run *run, const struct crlite_want *w,
    const uint8_t *body, size_t len, struct crlc_clubcard_info *info)
{
	char why[CRLC_CLUBCARD_WHY_LEN];
	uint8_t hash[CRLC_HASH_LEN];
	struct crlc_clubcard *cc;

	if (len != w->size)
		return crlite_fail(run, "%s: attachment of %zu bytes, the %s "
		    "says %llu", w->name, len, run->src->says,
		    (unsigned long long)w->size);
	crlc_sha256(body, len, hash);
	if (memcmp(hash, w->hash, CRLC_HASH_LEN) != 0)
		return crlite_fail(run, "%s: the attachment's SHA-256 is not "
		    "the one the %s says", w->name, run->src->says);
	if (crlc_clubcard_parse(body, len, &cc, why, sizeof(why)) == -1)
		return crlite_fail(run, "%s: not a clubcard filter: %s",
		    w->name, why);
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
	    CRLC_CLUBCARD_MAX_LEN, &f.body, &f.len) : crlite_get(run, &f, url,
	    run->src->guarded, 0, CRLC_CLUBCARD_MAX_LEN)) == 0 &&
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
		if (crlite_file_read(run->state_dir, cf, &cf->body) == 0) {
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

/* Does the set listed pass CRLITE_SET_MAX_BYTES? */
static int
too_large(struct crlite_run *run)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < run->nwant; i++)
		total += run->want[i].size;	/* each at most 64 MiB */
	if (total <= CRLITE_SET_MAX_BYTES)
		return 0;
	crlite_fail(run, "a set of %llu bytes, more than %llu",
	    (unsigned long long)total,
	    (unsigned long long)CRLITE_SET_MAX_BYTES);
	return 1;
}

/* Steps 2 to 4 on an index document received: 1 installed, 0 same, -1. */
static int
settle(struct crlite_run *run, const struct fetch *f,
    const struct crlite_set *cur, int have)
{
	struct crlite_set set;
	char why[ERRLEN];
	int ret = -1;

	memset(&set, 0, sizeof(set));
	if (run->src->plan(run, f->body, f->len) == -1 || too_large(run))
		return -1;
	set.source = run->src->kind;
	set.installed = (int64_t)time(NULL);
	if (gather(run, &set) == -1)
		goto done;
	if (have && run->fetched == 0 && same_set(&set, cur)) {
		ret = 0;
		goto done;
	}
	if (crlite_set_install(run->state_dir, &set, why, sizeof(why)) == -1)
		crlite_fail(run, "%s", why);
	else
		ret = 1;
done:
	crlite_set_free(&set);
	return ret;
}

void
crlite_record_source(struct crlite_run *run, struct store *s, struct fetch *f,
    int ok)
{
	struct source_rec rec;

	(void)store_get_source(s, run->index_url, &rec);
	free(rec.error);
	rec.error = NULL;
	rec.last_attempt = (int64_t)time(NULL);
	rec.http_status = f->status;
	rec.fresh_until = 0;
	/* The configuration names it: its failure is the run's (status). */
	rec.origin = CRLC_SRC_ORIGIN_CONFIGURED;
	source_history(&rec, ok);
	if (ok) {
		rec.last_success = rec.last_attempt;
		if (!f->not_modified) {
			free(rec.etag);
			free(rec.last_modified);
			rec.etag = f->new_etag;
			rec.last_modified = f->new_last_modified;
			f->new_etag = f->new_last_modified = NULL;
		}
	} else {
		/* The next run asks for the whole document. */
		free(rec.etag);
		free(rec.last_modified);
		rec.etag = rec.last_modified = NULL;
		rec.error = xstrdup(run->err);
	}
	if (store_put_source(s, run->index_url, &rec) == -1)
		logx(0, "%s: cannot record the source state",
		    run->index_url);
	source_rec_free(&rec);
}

/*
 * Is every filter of the set in force on disk as it names it?  If not,
 * the index document is asked for whole, and the missing filters downloaded.
 */
static int
set_on_disk(const char *state_dir, const struct crlite_set *cur)
{
	uint8_t *body;
	size_t i;

	for (i = 0; i < cur->n; i++) {
		if (crlite_file_read(state_dir, &cur->f[i], &body) == -1) {
			logx(0, "crlite: filter %zu of the set in force is "
			    "missing or damaged; fetched again", i);
			return 0;
		}
		free(body);
	}
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

int
crlite_update(const char *state_dir, const struct conf *conf,
    struct store *s, char *what, size_t whatlen)
{
	struct crlite_run run;
	struct crlite_set cur;
	struct source_rec rec;
	struct fetch f;
	char why[ERRLEN];
	int have, in_force, r = -1;

	what[0] = '\0';
	memset(&run, 0, sizeof(run));
	if ((run.src = configured(conf)) == NULL)
		return 0;
	memset(&f, 0, sizeof(f));
	run.state_dir = state_dir;
	run.conf = conf;
	run.src->index_url(conf, run.index_url, sizeof(run.index_url));
	if ((have = crlite_set_read(state_dir, &cur, why, sizeof(why))) == -1)
		logx(0, "crlite: %s; a new set is fetched", why);
	in_force = have == 0;
	have = have == 0 && cur.source == run.src->kind &&
	    set_on_disk(state_dir, &cur);
	/* Ask conditionally only when what it gave last time is installed. */
	if (store_get_source(s, run.index_url, &rec) == 0 && have) {
		f.etag = rec.etag;
		f.last_modified = rec.last_modified;
	}
	if (run.src->local) {
		/* Read in place each run: nothing to ask conditionally. */
		f.etag = f.last_modified = NULL;
		if (crlite_read_local(&run, run.index_url, run.src->index_max,
		    &f.body, &f.len) == 0)
			r = settle(&run, &f, &cur, have);
	} else if (crlite_get(&run, &f, run.index_url, 0, 1,
	    run.src->index_max) == 0)
		r = f.not_modified ? 0 : settle(&run, &f, &cur, have);
	f.etag = f.last_modified = NULL;
	source_rec_free(&rec);
	crlite_record_source(&run, s, &f, r != -1);
	crlite_tally_add(state_dir, run.src->kind, run.bytes);
	if (r == -1) {
		logx(0, "crlite: %s; %s", run.err, in_force ?
		    "the set in force is kept" : "no set in force yet");
		snprintf(what, whatlen, "crlite failed, %s", in_force ?
		    "the set in force kept" : "no set in force yet");
	} else if (r == 0)
		snprintf(what, whatlen, "crlite %s (%zu filters, %llu bytes "
		    "fetched)", f.not_modified ? "not modified" : "unchanged",
		    have ? cur.n : 0, (unsigned long long)run.bytes);
	else
		snprintf(what, whatlen, "crlite: %zu filters installed (%zu "
		    "fetched, %llu bytes)", run.nwant, run.fetched,
		    (unsigned long long)run.bytes);
	fetch_free(&f);
	return r == -1 ? -1 : 0;
}
