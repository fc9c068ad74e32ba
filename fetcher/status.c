/*
 * crlcache status: the published index, its CRLs and the sources behind
 * them, for people (text), machines (--json) and node_exporter's textfile
 * collector (--prometheus FILE).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <crlcache/index.h>
#include <crlcache/reasons.h>

#include "at.h"
#include "cmd.h"
#include "directory.h"
#include "enable.h"
#include "enrolled.h"
#include "enrolment.h"
#include "fetcher.h"
#include "localfs.h"
#include "privs.h"
#include "proposed.h"
#include "refusals.h"
#include "source.h"
#include "spool.h"
#include "status.h"
#include "status_sources.h"
#include "verdict.h"

struct status_walk {
	FILE		*out;
	enum out_format	 fmt;
	int64_t		 now;
	int64_t		 grace;
	size_t		 crls, stale;	/* CRLs, of them stale */
	size_t		 sources, failing;	/* sources, of them failing */
	size_t		 retrying;	/* proposed URLs failing (proposed.c) */
	int		 hints_unread;	/* the last run could not read them */
	size_t		 n;		/* items printed in the current list */
};

/* What the summary line and the exit status say. */
struct summary {
	size_t		 crls, stale, sources, failing, retrying;
	int		 hints_unread;	/* failing too, but no source */
	int		 readable;	/* the working index: sources etc. */
	int		 dir_failing;	/* the directory's last refresh failed */
	int		 from_verdict;	/* not readable: the last run's counts */
};

static int
is_stale(const struct status_walk *w, const struct crlc_crl_info *ci)
{
	return w->now > crlc_crl_due(ci->this_update, ci->next_update) +
	    w->grace;
}

/*
 * What a scope is: "full" (no IDP distributionPoint: every certificate
 * of the issuer) or "partition", restricted to "user-only" or "CA-only"
 * certificates by the IDP, "+some-reasons" by its onlySomeReasons (RFC
 * 5280 5.2.5), "+indirect" for an indirect CRL (IDP indirectCRL,
 * format.h INDIRECT CRLS), "+delta" when a delta CRL is applied.
 */
static void
scope_kind(const struct crlc_crl_info *ci, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s%s", ci->name.len == 0 ? "full" : "partition",
	    ci->flags & CRLC_CRL_USER_ONLY ? "+user-only" :
	    ci->flags & CRLC_CRL_CA_ONLY ? "+CA-only" : "",
	    ci->reasons != CRLC_REASONS_ALL ? "+some-reasons" : "",
	    ci->flags & CRLC_CRL_INDIRECT ? "+indirect" : "",
	    ci->delta.len > 0 ? "+delta" : "");
}

/* Prometheus labels of a scope: source, scope and, when some, reasons. */
static void
prom_labels(FILE *out, const char *src, size_t srclen, const char *scope,
    const struct crlc_crl_info *ci, const char *reasons)
{
	fputs("{source=", out);
	out_prom_str(out, src, srclen);
	fputs(",scope=", out);
	out_prom_str(out, scope, strlen(scope));
	if (ci->reasons != CRLC_REASONS_ALL) {
		fputs(",reasons=", out);
		out_prom_str(out, reasons, strlen(reasons));
	}
	fputs("}", out);
}

/*
 * The signing key's subjectKeyIdentifier in lower-case hex, empty for key
 * number 0 (the CRLs that answer for any key of the name, format.h "key").
 */
static void
ski_hex(const struct crlc_crl_info *ci, char *buf, size_t size)
{
	size_t n = ci->ski.len < (size - 1) / 2 ? ci->ski.len : (size - 1) / 2;

	crlc_hex_encode(ci->ski.p, n, buf, 0);
}

/* Over 60 lines: one CRL in the three formats, side by side. */
static int
print_crl(const struct crlc_crl_info *ci, void *arg)
{
	struct status_walk *w = arg;
	char tu[32], nu[32], kind[48], ski[2 * CRLC_SKI_MAX + 1], *raw, *src;
	char *scope;
	char reasons[CRLC_REASONS_TEXT_MAX];
	size_t srclen;
	int stale = is_stale(w, ci);

	scope_kind(ci, kind, sizeof(kind));
	ski_hex(ci, ski, sizeof(ski));
	if (ci->reasons == CRLC_REASONS_ALL)
		snprintf(reasons, sizeof(reasons), "all");
	else
		crlc_reasons_format(ci->reasons, reasons, sizeof(reasons));

	/*
	 * Both came from the network (a URL, a CRL's distribution point);
	 * an index an older version published may name a URL's credentials.
	 */
	raw = xcalloc(1, ci->source.len + 1);
	memcpy(raw, ci->source.p, ci->source.len);
	src = safe_text(raw);
	free(raw);
	srclen = strlen(src);
	raw = xcalloc(1, ci->name.len + 1);
	memcpy(raw, ci->name.p, ci->name.len);
	scope = safe_text(raw);
	free(raw);
	w->crls++;
	w->stale += stale != 0;
	switch (w->fmt) {
	case OUT_TEXT:
		format_time(ci->this_update, tu, sizeof(tu));
		format_time(ci->next_update, nu, sizeof(nu));
		fprintf(w->out, "crl %.*s scope=%s entries=%u thisUpdate=%s "
		    "nextUpdate=%s kind=%s key=%u%s%s%s%s%s%s\n", (int)srclen,
		    src, ci->name.len > 0 ? scope : "all", ci->entries, tu,
		    ci->next_update != 0 ? nu : "none", kind, ci->key_no,
		    ski[0] != '\0' ? " ski=" : "", ski,
		    ci->reasons != CRLC_REASONS_ALL ? " reasons=" : "",
		    ci->reasons != CRLC_REASONS_ALL ? reasons : "",
		    ci->delta.len > 0 ? " delta" : "", stale ? " stale" : "");
		break;
	case OUT_JSON:
		fprintf(w->out, "%s\n    {\"source\": ", w->n++ ? "," : "");
		out_json_str(w->out, src, srclen);
		fputs(", \"scope\": ", w->out);
		out_json_str(w->out, scope, strlen(scope));
		fputs(", \"kind\": ", w->out);
		out_json_str(w->out, kind, strlen(kind));
		fputs(", \"reasons\": ", w->out);
		out_json_str(w->out, reasons, strlen(reasons));
		fprintf(w->out, ", \"key\": %u, \"ski\": ", ci->key_no);
		if (ski[0] != '\0')
			out_json_str(w->out, ski, strlen(ski));
		else
			fputs("null", w->out);
		fprintf(w->out, ", \"partition\": %s, \"user_only\": %s, "
		    "\"ca_only\": %s, \"entries\": %u, \"this_update\": %lld, "
		    "\"next_update\": %lld, \"fetched_at\": %lld, \"delta\": %s, "
		    "\"stale\": %s}", ci->name.len > 0 ? "true" : "false",
		    ci->flags & CRLC_CRL_USER_ONLY ? "true" : "false",
		    ci->flags & CRLC_CRL_CA_ONLY ? "true" : "false",
		    ci->entries, (long long)ci->this_update,
		    (long long)ci->next_update, (long long)ci->fetched_at,
		    ci->delta.len > 0 ? "true" : "false", stale ? "true" : "false");
		break;
	case OUT_PROM:
		fputs("crlcache_crl_next_update_timestamp_seconds", w->out);
		prom_labels(w->out, src, srclen, scope, ci, reasons);
		fprintf(w->out, " %lld\ncrlcache_crl_stale",
		    (long long)ci->next_update);
		prom_labels(w->out, src, srclen, scope, ci, reasons);
		fprintf(w->out, " %d\ncrlcache_crl_entries", stale);
		prom_labels(w->out, src, srclen, scope, ci, reasons);
		fprintf(w->out, " %u\n", ci->entries);
		break;
	}
	free(src);
	free(scope);
	return 0;
}

/*
 * One source: a URL that certificates proposed and that was pruned is
 * left out; one that fails is retrying, the URL's failure, not the
 * state's (proposed.c).
 */
static int
print_source(const char *raw_url, const struct source_rec *r, void *arg)
{
	struct status_walk *w = arg;
	enum source_state state = source_state(r);
	int erred = r->error != NULL;
	int failing = state == SOURCE_FAILING;
	unsigned long failures = (unsigned long)source_failures(r);
	/* Learned URLs and error texts quoting servers: network text. */
	char ls[32], fails[32] = "", *url, *error;

	if (state == SOURCE_PRUNED)
		return 0;
	url = safe_text(raw_url);
	error = erred ? safe_text(r->error) : NULL;
	w->sources++;
	w->failing += failing;
	w->retrying += state == SOURCE_RETRYING;
	if (erred)
		snprintf(fails, sizeof(fails), " failures=%lu", failures);
	switch (w->fmt) {
	case OUT_TEXT:
		format_time(r->last_success, ls, sizeof(ls));
		fprintf(w->out, "source %s %s%s last_success=%s%s%s\n", url,
		    failing ? "failing" : erred ? "retrying" : "ok", fails,
		    r->last_success ? ls : "never", erred ? " error=" : "",
		    erred ? error : "");
		break;
	case OUT_JSON:
		fprintf(w->out, "%s\n    {\"url\": ", w->n++ ? "," : "");
		out_json_str(w->out, url, strlen(url));
		fprintf(w->out, ", \"origin\": \"%s\", \"failing\": %s, "
		    "\"failures\": %lu, \"last_attempt\": %lld, "
		    "\"last_success\": %lld, \"http_status\": %ld, \"error\": ",
		    source_origin_name(r->origin), failing ? "true" : "false",
		    failures, (long long)r->last_attempt,
		    (long long)r->last_success, r->http_status);
		if (erred)
			out_json_str(w->out, error, strlen(error));
		else
			fputs("null", w->out);
		fputc('}', w->out);
		break;
	case OUT_PROM:
		fputs("crlcache_source_last_success_timestamp_seconds{url=", w->out);
		out_prom_str(w->out, url, strlen(url));
		fprintf(w->out, "} %lld\ncrlcache_source_failing{url=",
		    (long long)r->last_success);
		out_prom_str(w->out, url, strlen(url));
		fprintf(w->out, "} %d\ncrlcache_source_failures{url=", failing);
		out_prom_str(w->out, url, strlen(url));
		fprintf(w->out, "} %lu\n", failures);
		break;
	}
	free(url);
	free(error);
	return 0;
}

/* ---------------------------------------------------------------- coverage */

/* Entries counted in the hint spool at most: a flood is "at least this". */
#define MAX_PENDING_COUNT	1000000

/* Hints waiting in the spool; listing it follows no link. */
static size_t
hints_pending(struct state *st)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	if ((d = hints_opendir(st)) == NULL)
		return 0;
	while (n < MAX_PENDING_COUNT && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

/* The last error of every source, "URL\tERROR", sorted for bsearch. */
static int
collect_error(const char *url, const struct source_rec *r, void *arg)
{
	struct strlist *errors = arg;
	char *line;
	size_t len;

	if (r->error == NULL)
		return 0;
	len = strlen(url) + strlen(r->error) + 2;
	line = xcalloc(1, len);
	snprintf(line, len, "%s\t%s", url, r->error);
	strlist_add(errors, line);
	free(line);
	return 0;
}

static int
cmp_url_prefix(const void *key, const void *elem)
{
	const char *url = key, *line = *(char *const *)elem;
	size_t n = strcspn(line, "\t");
	int c = strncmp(url, line, n);

	return c != 0 ? c : url[n] != '\0';
}

static int
cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What the index holds for one issuer id. */
struct issuer_crls {
	uint32_t	id;
	size_t		held, stale;
	const struct status_walk *w;
};

static int
count_crls(const struct crlc_crl_info *ci, void *arg)
{
	struct issuer_crls *ic = arg;

	if (ci->issuer_id == ic->id) {
		ic->held++;
		ic->stale += is_stale(ic->w, ci) ? 1 : 0;
	}
	return 0;
}

struct coverage {
	size_t	met, covered, uncovered;
};

/* One enrolled issuer: fresh, stale or unfetched, and why not. */
/* Over 60 lines: one issuer in the three formats, side by side. */
static void
print_issuer(struct status_walk *w, struct crlc_index *idx,
    const struct enrolled *en, const struct strlist *errors,
    struct coverage *cv)
{
	struct issuer_crls ic = { 0, 0, 0, w };
	unsigned char *der = NULL;
	struct crlc_span name;
	const char *state, *why = NULL;
	char subject[256], met[32], whybuf[ERRLEN + CRLC_KEY_MAX], *shown;
	char *const *hit;
	size_t i;
	int len;

	X509_NAME_oneline(X509_get_subject_name(en->issuer), subject,
	    sizeof(subject));
	if ((len = i2d_X509_NAME(X509_get_subject_name(en->issuer), &der)) > 0) {
		name.p = der;
		name.len = (size_t)len;
		if (crlc_index_issuer(idx, &name, &ic.id) == 0 && ic.id != 0)
			(void)crlc_index_foreach_crl(idx, 0,
			    CRLC_WALK_RECORDS, count_crls, &ic);
	}
	OPENSSL_free(der);
	state = ic.held == 0 ? "unfetched" : ic.stale > 0 ? "stale" : "fresh";
	if (ic.held == 0 && en->urls.n == 0)
		why = "no CRL URL known for this issuer";
	for (i = 0; ic.held == 0 && why == NULL && i < en->urls.n; i++) {
		/* Source records are keyed by the URL without userinfo. */
		char *key = redact_userinfo(en->urls.v[i]);

		if (errors->n > 0 && (hit = bsearch(key, errors->v,
		    errors->n, sizeof(*errors->v), cmp_url_prefix)) != NULL) {
			len = (int)strcspn(*hit, "\t");
			snprintf(whybuf, sizeof(whybuf), "%.*s: %s", len, *hit,
			    *hit + len + 1);
			why = whybuf;
		}
		free(key);
	}
	cv->met++;
	if (ic.held > 0 && ic.stale == 0)
		cv->covered++;
	else
		cv->uncovered++;
	format_time(en->last_seen, met, sizeof(met));
	/* A URL and a server's error: network text. */
	shown = why != NULL ? safe_text(why) : NULL;
	if (w->fmt == OUT_TEXT) {
		fprintf(w->out, "issuer %s met=%s %s crls=%zu", subject, met, state,
		    ic.held);
		if (shown != NULL)
			fprintf(w->out, " why=%s", shown);
		fputc('\n', w->out);
	} else if (w->fmt == OUT_JSON) {
		fprintf(w->out, "%s\n    {\"subject\": ", w->n++ ? "," : "");
		out_json_str(w->out, subject, strlen(subject));
		fprintf(w->out, ", \"last_met\": %lld, \"state\": \"%s\", "
		    "\"crls\": %zu, \"why\": ", (long long)en->last_seen, state,
		    ic.held);
		if (shown != NULL)
			out_json_str(w->out, shown, strlen(shown));
		else
			fputs("null", w->out);
		fputc('}', w->out);
	}
	free(shown);
}

/*
 * The issuers programs on this host met (enroll = seen) and whether the
 * index covers them; counts for --json and --prometheus.
 */
static void
print_coverage(struct status_walk *w, struct crlc_index *idx,
    struct state *st)
{
	struct strlist errors = { NULL, 0 };
	struct coverage cv = { 0, 0, 0 };
	struct enrolment en;
	const char *base;
	char failed[32];
	size_t i, pending;
	int dfd;

	/* Like the sources: only root and the crlcache user may read it. */
	if ((dfd = state_dirfd(st, WORK_NAME, &base)) != -1 &&
	    faccessat(dfd, base, X_OK, 0) == -1 && errno == EACCES)
		return;
	pending = hints_pending(st);
	(void)enrolment_load(st, &en);
	(void)store_foreach_source(st, collect_error, &errors);
	if (errors.n > 0)
		qsort(errors.v, errors.n, sizeof(*errors.v), cmp_lines);
	if (w->fmt == OUT_JSON)
		fputs(",\n  \"issuers_met\": [", w->out);
	w->n = 0;
	for (i = 0; i < en.n; i++)
		print_issuer(w, idx, &en.v[i], &errors, &cv);
	/* A run that could not read the hints learns nothing: failing. */
	w->hints_unread = en.hints_failed != 0;
	format_time(en.hints_failed, failed, sizeof(failed));
	if (w->fmt == OUT_TEXT)
		fprintf(w->out, "coverage met=%zu covered=%zu uncovered=%zu "
		    "hints_pending=%zu hints_refused=%zu%s%s\n", cv.met,
		    cv.covered, cv.uncovered, pending, en.hints_refused,
		    en.hints_failed != 0 ? " hints_unread_since=" : "",
		    en.hints_failed != 0 ? failed : "");
	else if (w->fmt == OUT_JSON)
		fprintf(w->out, "\n  ],\n  \"coverage\": {\"met\": %zu, "
		    "\"covered\": %zu, \"uncovered\": %zu, \"hints_pending\": %zu, "
		    "\"hints_refused\": %zu, \"hints_unread_since\": %lld}",
		    cv.met, cv.covered, cv.uncovered, pending, en.hints_refused,
		    (long long)en.hints_failed);
	else
		fprintf(w->out, "crlcache_issuers_met %zu\n"
		    "crlcache_issuers_covered %zu\ncrlcache_issuers_uncovered %zu\n"
		    "crlcache_hints_pending %zu\ncrlcache_hints_refused %zu\n"
		    "crlcache_hints_unread_since_timestamp_seconds %lld\n",
		    cv.met, cv.covered, cv.uncovered, pending, en.hints_refused,
		    (long long)en.hints_failed);
	enrolment_free(&en);
	strlist_free(&errors);
}

/* Over 60 lines: the report's sections in order, in three formats. */
static int
print_status(FILE *out, enum out_format fmt, const char *path,
    struct crlc_index *idx, struct state *st, int64_t now, int64_t grace,
    struct summary *sum)
{
	struct status_walk w = { out, fmt, now, grace, 0, 0, 0, 0, 0, 0, 0 };
	struct crlc_stats cs;
	int64_t created = crlc_index_created(idx);
	/* the file's age, on the clock whatever --at says */
	long long age = (long long)((int64_t)time(NULL) - created);
	unsigned long long gen = (unsigned long long)crlc_index_generation(idx);
	char ct[32];
	int rc, have_sources, dir_failing, from_verdict = 0;
	struct verdict v;

	if (crlc_index_stats(idx, &cs) == -1)
		return -1;
	format_time(created, ct, sizeof(ct));
	if (fmt == OUT_TEXT)
		fprintf(out, "index %s\ngeneration %llu\ncreated %s\nage %llds\n"
		    "issuers %llu\ncrls %llu\nrevoked %llu\nbytes %llu\n", path, gen,
		    ct, age,
		    (unsigned long long)cs.issuers, (unsigned long long)cs.crls,
		    (unsigned long long)cs.revoked,
		    (unsigned long long)cs.file_size);
	else if (fmt == OUT_JSON) {
		fputs("{\n  \"index\": ", out);
		out_json_str(out, path, strlen(path));
		fprintf(out, ",\n  \"generation\": %llu,\n  \"created\": %lld,\n"
		    "  \"age_seconds\": %lld,\n  \"issuers\": %llu,\n  \"crls\": %llu,\n"
		    "  \"revoked\": %llu,\n  \"bytes\": %llu,\n  \"crl\": [", gen,
		    (long long)created, age,
		    (unsigned long long)cs.issuers, (unsigned long long)cs.crls,
		    (unsigned long long)cs.revoked, (unsigned long long)cs.file_size);
	} else
		fprintf(out, "# HELP crlcache_index_generation Published index generation.\n"
		    "# TYPE crlcache_index_generation gauge\n"
		    "crlcache_index_generation %llu\n"
		    "crlcache_index_created_timestamp_seconds %lld\n"
		    "crlcache_index_revoked_entries %llu\ncrlcache_index_crls %llu\n"
		    "crlcache_index_issuers %llu\ncrlcache_index_bytes %llu\n", gen,
		    (long long)created, (unsigned long long)cs.revoked,
		    (unsigned long long)cs.crls, (unsigned long long)cs.issuers,
		    (unsigned long long)cs.file_size);
	if ((rc = crlc_index_foreach_crl(idx, 0, CRLC_WALK_CRLS,
	    print_crl, &w)) != 0)
		return -1;
	if (fmt == OUT_JSON)
		fputs("\n  ],\n  \"sources\": [", out);
	w.n = 0;
	/* Source state lives in the working index; not every user can read it. */
	have_sources = store_foreach_source(st, print_source,
	    &w) == 0;
	if (fmt == OUT_JSON)
		fputs("\n  ]", out);
	dir_failing = print_directory(out, fmt, st);
	print_crlite(out, fmt, st, w.now);
	print_onecrl(out, fmt, st, w.now);
	print_coverage(&w, idx, st);
	/* Who may not read them is given the verdict the last run left. */
	if (!have_sources && verdict_read(st, &v) == 0) {
		w.sources = v.sources;
		w.failing = v.failing;
		w.retrying = v.retrying;
		dir_failing = v.dir_failing;
		from_verdict = 1;
	}
	if (fmt == OUT_JSON)
		fprintf(out, ",\n  \"sources_readable\": %s,\n  \"stale\": %s,\n"
		    "  \"failing\": %s,\n  \"directory_failing\": %s\n}\n",
		    have_sources ? "true" : "false", w.stale ? "true" : "false",
		    w.failing || w.hints_unread ? "true" : "false",
		    dir_failing ? "true" : "false");
	else if (fmt == OUT_PROM)
		fprintf(out, "crlcache_stale %d\ncrlcache_failing %d\n"
		    "crlcache_directory_failing %d\n", w.stale > 0,
		    w.failing > 0 || w.hints_unread, dir_failing);
	sum->crls = w.crls;
	sum->stale = w.stale;
	sum->sources = w.sources;
	sum->failing = w.failing;
	sum->retrying = w.retrying;
	sum->hints_unread = w.hints_unread;
	sum->readable = have_sources;
	sum->dir_failing = dir_failing;
	sum->from_verdict = from_verdict;
	return ferror(out) ? -1 : 0;
}

/* The exit status of `crlcache status` (man/crlcache.1 EXIT STATUS). */
static int
summary_exit(const struct summary *sum)
{
	if (sum->stale > 0)
		return STATUS_STALE;
	if (sum->failing > 0 || sum->hints_unread)
		return STATUS_SOURCES_FAILING;
	return sum->dir_failing ? EXIT_DIRECTORY_FAILED : 0;
}

/* The text report's first line: the verdict, and what is not shown. */
static void
print_summary(FILE *out, const struct summary *sum)
{
	static const char *const verdict[] = {
		[0] = "ok",
		[STATUS_STALE] = "stale",
		[STATUS_SOURCES_FAILING] = "sources failing",
		[EXIT_DIRECTORY_FAILED] = "directory refresh failing",
	};

	fprintf(out, "summary %s: %zu of %zu CRLs fresh", verdict[summary_exit(sum)],
	    sum->crls - sum->stale, sum->crls);
	if (sum->readable || sum->from_verdict) {
		fprintf(out, ", %zu of %zu sources ok", sum->sources -
		    sum->failing - sum->retrying, sum->sources);
		if (sum->retrying > 0)
			fprintf(out, ", %zu retrying", sum->retrying);
		if (sum->hints_unread)
			fputs(", hints unread", out);
		fprintf(out, ", directory %s",
		    sum->dir_failing ? "failing" : "ok");
	}
	if (sum->from_verdict)
		fputs(" (the last run's verdict)", out);
	if (!sum->readable)
		fputs("; sources, directory and coverage not shown: only root "
		    "and the state directory's owner may read them", out);
	fputc('\n', out);
}

struct status_args {
	enum out_format	 fmt;
	int		 refused;	/* --directory: the records not kept */
	int		 refusals;	/* --refusals: the provider's */
	int64_t		 now;		/* --at, else the clock */
	int64_t		 grace;
};

/*
 * The whole report to out, read as the state's owner (as_state_owner); the
 * exit code of `crlcache status`.
 */
static int
status_report(struct state *st, FILE *out, void *arg)
{
	const struct status_args *a = arg;
	struct crlc_index *idx;
	struct summary sum;
	char path[PATH_MAX], *body = NULL;
	size_t len = 0;
	FILE *to = out;
	int rc;

	memset(&sum, 0, sizeof(sum));
	warn_network_fs(state_path(st));
	if (a->refused)
		return dir_refused_print(st, out) == 0 ? 0 : 4;
	if (a->refusals)
		return refusals_print(st, out, a->fmt == OUT_JSON) == 0 ? 0 : 4;
	if (index_open(st, path, sizeof(path), &idx, 1) == -1) {
		/* What reads JSON gets JSON; the reason is on stderr. */
		if (a->fmt == OUT_JSON) {
			fputs("{\n  \"index\": ", out);
			out_json_str(out, path, strlen(path));
			fputs(",\n  \"error\": \"cannot open the index\"\n}\n",
			    out);
		}
		return 4;
	}
	/* The text's summary comes first: the rest is written aside. */
	if (a->fmt == OUT_TEXT && (to = open_memstream(&body, &len)) == NULL) {
		crlc_index_close(idx);
		return 4;
	}
	rc = print_status(to, a->fmt, path, idx, st, a->now, a->grace, &sum);
	crlc_index_close(idx);
	if (to != out && fclose(to) != 0)
		rc = -1;
	if (rc == 0 && to != out) {
		print_summary(out, &sum);
		fwrite(body, 1, len, out);
		rc = ferror(out) ? -1 : 0;
	}
	free(body);
	if (rc == -1) {
		logx(0, "%s: cannot read the index", path);
		return 4;
	}
	return summary_exit(&sum);
}

void
status_leave_verdict(struct state *st, int64_t grace)
{
	struct crlc_index *idx;
	struct summary sum;
	struct verdict v;
	char path[PATH_MAX];
	FILE *sink;

	if (index_open(st, path, sizeof(path), &idx, 0) == -1)
		return;
	memset(&sum, 0, sizeof(sum));
	if ((sink = fopen("/dev/null", "w")) != NULL &&
	    print_status(sink, OUT_TEXT, path, idx, st,
	    (int64_t)time(NULL), grace, &sum) == 0 && sum.readable) {
		v.sources = sum.sources;
		v.failing = sum.failing;
		v.retrying = sum.retrying;
		v.dir_failing = sum.dir_failing;
		if (verdict_write(st, &v) == -1)
			logx(0, "%s: the verdict for other users' status is "
			    "not written", state_path(st));
	}
	if (sink != NULL)
		fclose(sink);
	crlc_index_close(idx);
}

int
cmd_status(const struct cmd_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", required_argument, NULL, 'p' },
		{ "at", required_argument, NULL, 'T' },
		{ "directory", no_argument, NULL, 'd' },
		{ "refusals", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct status_args a = { OUT_TEXT, 0, 0, 0, c->conf->stale_grace };
	int64_t at = 0;
	const char *prom = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int ch, rc;

	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (ch == 'j')
			a.fmt = OUT_JSON;
		else if (ch == 'd')
			a.refused = 1;
		else if (ch == 'r')
			a.refusals = 1;
		else if (ch == 'p') {
			prom = optarg;
			a.fmt = OUT_PROM;
		} else if (ch != 'T' || at_option("status", optarg, &at) == -1)
			return 4;
	}
	if (optind != argc) {
		logx(0, "usage: crlcache status [--json] [--prometheus FILE|-] "
		    "[--at TIME] | --directory | --refusals");
		return 4;
	}
	a.now = at_or_now(at);
	enable_warn_lost();
	/*
	 * Root reads the state as its owner; the output file is root's.
	 * --prometheus -: to stdout, for a pipe or a look by hand.
	 */
	if (prom == NULL || strcmp(prom, "-") == 0)
		return (rc = as_state_owner(c, status_report, &a, NULL,
		    NULL)) == -1 ? 4 : rc;
	/* node_exporter reads the file at any time: write it whole, then rename. */
	if ((f = open_memstream(&text, &len)) == NULL)
		return 4;
	rc = as_state_owner(c, status_report, &a, state_copy, f);
	if (fclose(f) != 0 || rc == -1)
		rc = 4;
	if (rc != 4 && replace_file(prom, text, len, 0644, (uid_t)-1,
	    (gid_t)-1) == -1) {
		logx(0, "%s: cannot write", prom);
		rc = 4;
	}
	free(text);
	return rc;
}
