/*
 * crlcache status: the issuer directory and the CRLite data, the two
 * sources beside the CRLs (status.c prints the rest).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <crlcache/crliteset.h>
#include <crlcache/index.h>
#include <crlcache/onecrl.h>

#include "crlitedir.h"
#include "directory.h"
#include "direntry.h"
#include "fetcher.h"
#include "state.h"
#include "status_sources.h"

/*
 * Whether update uses the directory: built, and readable as a whole (a
 * directory that fails to load is not used at all).  why says why not.
 */
static int
directory_in_use(struct state *st, const struct dir_state *ds,
    char *why, size_t whylen)
{
	struct directory d;
	int ok;

	if (ds->built == 0) {
		snprintf(why, whylen, "never built");
		return 0;
	}
	ok = directory_load(st, &d, NULL, why, whylen) == 0 &&
	    d.built != 0;
	if (ok)
		why[0] = '\0';
	else if (d.built == 0 && why[0] == '\0')
		snprintf(why, whylen, "no directory file");
	directory_free(&d);
	return ok;
}

/*
 * One line on the issuer directory, when update has ever tried to build
 * one.  1 when its last refresh failed, else 0.
 */
/* Over 60 lines: the three formats side by side, to stay alike. */
int
print_directory(FILE *out, enum out_format fmt, struct state *st)
{
	struct dir_state ds;
	char bt[32], why[ERRLEN] = "", *error = NULL, *notused = NULL;
	int in_use, failing;
	size_t i;

	if (directory_info(st, &ds) == -1)
		return 0;
	failing = ds.error != NULL;
	in_use = directory_in_use(st, &ds, why, sizeof(why));
	/* They may quote a ccadb URL and a server's words. */
	if (ds.error != NULL)
		error = safe_text(ds.error);
	if (!in_use)
		notused = safe_text(why);
	format_time(ds.built, bt, sizeof(bt));
	if (fmt == OUT_TEXT) {
		fprintf(out, "directory built=%s entries=%lld rows=%lld in_use=%s",
		    ds.built != 0 ? bt : "never", ds.entries, ds.rows,
		    in_use ? "yes" : "no");
		if (notused != NULL)
			fprintf(out, " why=\"%s\"", notused);
		for (i = 0; i < CSV_NSKIP; i++)
			if (ds.skipped[i] > 0)
				fprintf(out, " rows_%s=%lld", csv_skip_name[i],
				    ds.skipped[i]);
		for (i = 1; i < DIR_NREASONS; i++)
			if (ds.refused[i] > 0)
				fprintf(out, " refused_%s=%lld",
				    dir_reason_key[i], ds.refused[i]);
		if (error != NULL)
			fprintf(out, " error=%s", error);
		fputc('\n', out);
	} else if (fmt == OUT_JSON) {
		fprintf(out, ",\n  \"directory\": {\"built\": %lld, \"entries\": "
		    "%lld, \"rows\": %lld, \"in_use\": %s, \"why_not_used\": ",
		    (long long)ds.built, ds.entries, ds.rows,
		    in_use ? "true" : "false");
		if (notused != NULL)
			out_json_str(out, notused, strlen(notused));
		else
			fputs("null", out);
		fputs(", \"rows_lenient\": {", out);
		for (i = 0; i < CSV_NSKIP; i++)
			fprintf(out, "%s\"%s\": %lld", i ? ", " : "",
			    csv_skip_name[i], ds.skipped[i]);
		fputs("}, \"refused\": {", out);
		for (i = 1; i < DIR_NREASONS; i++)
			fprintf(out, "%s\"%s\": %lld", i > 1 ? ", " : "",
			    dir_reason_key[i], ds.refused[i]);
		fputs("}, \"error\": ", out);
		if (error != NULL)
			out_json_str(out, error, strlen(error));
		else
			fputs("null", out);
		fputc('}', out);
	} else {
		fprintf(out, "crlcache_directory_entries %lld\n"
		    "crlcache_directory_in_use %d\n", ds.entries, in_use);
		for (i = 1; i < DIR_NREASONS; i++)
			fprintf(out, "crlcache_directory_refused{reason=\"%s\"} "
			    "%lld\n", dir_reason_key[i], ds.refused[i]);
	}
	free(error);
	free(notused);
	dir_state_free(&ds);
	return failing;
}

/* The tally of source kind, or (0) of the source that ran last. */
static int
crlite_last_tally(struct state *st, unsigned kind,
    struct crlite_tally *tl)
{
	struct crlite_tally t;
	unsigned k;
	int found = -1;

	memset(tl, 0, sizeof(*tl));
	for (k = CRLC_CRLITE_SRC_REMOTE_SETTINGS; k <= CRLC_CRLITE_SRC_UPKI_DIR;
	    k++)
		if ((kind == 0 || k == kind) &&
		    crlite_tally_read(st, k, &t) == 0 &&
		    (found == -1 || t.attempt > tl->attempt)) {
			*tl = t;
			found = 0;
		}
	return found;
}

/*
 * The CRLite set in force (DESIGN 4a), when one was ever installed or
 * fetched: its filters, enrolled issuers, how fresh (the newest SCT time
 * its filters cover) and what its source's last run fetched.
 */
/* Over 60 lines: the three formats side by side, to stay alike. */
void
print_crlite(FILE *out, enum out_format fmt, struct state *st,
    int64_t now)
{
	struct crlite_info ci;
	struct crlite_tally tl;
	const char *src;
	char nt[32], it[32], sa[32];
	int64_t newest, stale_at;
	int have, damaged, tallied, stale, r;

	have = (r = crlite_info(st, &ci)) == 0;
	damaged = r == -1;	/* a set file that is not one: why says */
	src = crlite_source_name(have ? ci.set.source : 0);
	tallied = crlite_last_tally(st, have ? ci.set.source : 0,
	    &tl) == 0;
	if (!have && !damaged && !tallied)
		return;
	newest = (int64_t)(ci.set.newest / 1000);
	format_time(newest, nt, sizeof(nt));
	format_time(ci.set.installed, it, sizeof(it));
	/* <crlcache/crlite.h> FRESHNESS: past it, only its revocations count */
	stale_at = crlc_crlite_stale_at(ci.set.installed, ci.set.newest);
	stale = have && now >= stale_at;
	format_time(stale_at, sa, sizeof(sa));
	if (fmt == OUT_TEXT) {
		fprintf(out, "crlite source=%s filters=%zu issuers=%zu", src,
		    ci.set.n, ci.issuers);
		if (have)
			fprintf(out, " newest=%s age=%llds installed=%s "
			    "in_use=%s %s=%s", nt, (long long)(now - newest),
			    it, ci.usable ? "yes" : "no", stale ?
			    "stale_since" : "fresh_until", sa);
		if (damaged)
			fputs(" in_use=no", out);
		if ((have && !ci.usable) || damaged)
			fprintf(out, " why=\"%s\"", ci.why);
		fprintf(out, " fetched_last_run=%llu fetched_total=%llu\n",
		    (unsigned long long)tl.bytes, (unsigned long long)tl.total);
	} else if (fmt == OUT_JSON) {
		fprintf(out, ",\n  \"crlite\": {\"source\": \"%s\", "
		    "\"filters\": %zu, \"issuers\": %zu, \"newest\": %lld, "
		    "\"age_seconds\": %lld, \"installed\": %lld, \"in_use\": "
		    "%s, \"stale\": %s, \"fresh_until\": %lld, "
		    "\"fetched_last_run\": %llu, \"fetched_total\": %llu}",
		    src, ci.set.n, ci.issuers, have ? (long long)newest : 0,
		    have ? (long long)(now - newest) : 0,
		    (long long)ci.set.installed, have && ci.usable ? "true" :
		    "false", stale ? "true" : "false",
		    have ? (long long)stale_at : 0,
		    (unsigned long long)tl.bytes,
		    (unsigned long long)tl.total);
	} else
		fprintf(out, "crlcache_crlite_filters %zu\n"
		    "crlcache_crlite_issuers %zu\n"
		    "crlcache_crlite_newest_timestamp_seconds %lld\n"
		    "crlcache_crlite_in_use %d\n"
		    "crlcache_crlite_stale %d\n"
		    "crlcache_crlite_fresh_until_timestamp_seconds %lld\n"
		    "crlcache_crlite_fetched_bytes{source=\"%s\"} %llu\n",
		    ci.set.n, ci.issuers, have ? (long long)newest : 0,
		    have && ci.usable, stale, have ? (long long)stale_at : 0,
		    src, (unsigned long long)tl.bytes);
}


/*
 * OneCRL in force, when installed: its entries, how fresh (the
 * collection's timestamp) and the records the fetcher left out.
 */
void
print_onecrl(FILE *out, enum out_format fmt, struct state *st,
    int64_t now)
{
	char why[CRLC_ONECRL_WHY_LEN] = "", *shown;
	struct crlc_onecrl_info info;
	struct crlc_onecrl *o;
	int64_t ts;
	int r;

	if ((r = crlite_onecrl_open(st, &o, why, sizeof(why))) == 1)
		return;
	memset(&info, 0, sizeof(info));
	if (r == 0)
		crlc_onecrl_info(o, &info);
	crlc_onecrl_free(o);
	ts = info.timestamp / 1000;
	if (fmt == OUT_TEXT) {
		shown = safe_text(why);
		if (r == 0)
			fprintf(out, "onecrl entries=%zu by_issuer_serial=%zu "
			    "by_subject_key=%zu left_out=%zu age=%llds "
			    "in_use=yes\n", info.issuer_serial +
			    info.subject_key, info.issuer_serial,
			    info.subject_key, info.skipped,
			    (long long)(now - ts));
		else
			fprintf(out, "onecrl in_use=no why=\"%s\"\n", shown);
		free(shown);
	} else if (fmt == OUT_JSON)
		fprintf(out, ",\n  \"onecrl\": {\"entries\": %zu, "
		    "\"by_issuer_serial\": %zu, \"by_subject_key\": %zu, "
		    "\"left_out\": %zu, \"timestamp\": %lld, \"age_seconds\": "
		    "%lld, \"in_use\": %s}", info.issuer_serial +
		    info.subject_key, info.issuer_serial, info.subject_key,
		    info.skipped, (long long)ts, r == 0 ? (long long)(now - ts) :
		    0, r == 0 ? "true" : "false");
	else
		fprintf(out, "crlcache_onecrl_entries %zu\n"
		    "crlcache_onecrl_timestamp_seconds %lld\n"
		    "crlcache_onecrl_in_use %d\n", info.issuer_serial +
		    info.subject_key, (long long)ts, r == 0);
}
