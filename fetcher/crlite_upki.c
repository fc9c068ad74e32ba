/*
 * The local upki cache source of CRLite (crlite.c drives it): a
 * revocation cache directory that upki (rustls/upki) keeps on this host,
 * crlite_upki_dir = PATH, read in place at every update.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The directory holds index.bin and the filter files it names (C2SP
 * upki-revocation, "Revocation cache directory layout" and "Index file
 * format"):
 *
 *	 0  8  magic "upkiidx1"
 *	 8  u16 num_filenames, u32 num_log_ids		(big-endian)
 *	14  num_filenames names of 32 bytes, NUL-padded
 *	    num_log_ids log entries: log id (32), u64 offset, u16 entries
 *	    entry sections: u16 filter_idx, u64 min, u64 max (18 bytes each)
 *
 * The index is checked whole, as the specification tells a reader to
 * (names of 1 to 32 bytes of [A-Za-z0-9._-], not "." or ".."; log ids
 * sorted and distinct; sections inside the file past the tables, not
 * overlapping; every filter_idx in range), although only its names are
 * used: crlcache asks every filter of a set.  The filters are taken in
 * the index's order, the first as the full filter (upki writes its
 * manifest's order, the full filter first).  Nothing authenticates them
 * but this host's file permissions: each must parse before the set is
 * installed, and is copied (named by its SHA-256) into the state.  A file
 * upki replaces between the index and the copy fails the run; the next
 * reads the cache again (upki-revocation "Cache atomicity").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <crlcache/clubcard.h>
#include <crlcache/hash.h>

#include "budget.h"
#include "crlitesrc.h"
#include "fetcher.h"

#define UPKI_INDEX_FILE		"index.bin"
#define UPKI_INDEX_MAGIC		"upkiidx1"
#define UPKI_HDR_LEN		14
#define UPKI_NAME_LEN		32
#define UPKI_LOG_LEN		42
#define UPKI_ENTRY_LEN		18
/*
 * The index: about 100 logs with an entry each for each filter, 170 KB
 * for the 92 filters of a 45-day cycle; 4 MiB is room for 20 times that.
 */
#define UPKI_INDEX_MAX		((size_t)4 << 20)

static void
upki_index_path(const struct conf *conf, char *out, size_t len)
{
	snprintf(out, len, "%s%s", conf->crlite_upki_dir, UPKI_INDEX_FILE);
}

/* Name i of the filename table into out, as the specification allows. */
static int
index_name(const uint8_t *p, char out[UPKI_NAME_LEN + 1])
{
	size_t n;

	memcpy(out, p, UPKI_NAME_LEN);
	out[UPKI_NAME_LEN] = '\0';
	n = strlen(out);
	/* zero padding only: nothing after the first NUL */
	for (size_t k = n; k < UPKI_NAME_LEN; k++)
		if (p[k] != 0)
			return -1;
	return n >= 1 && strcmp(out, ".") != 0 && strcmp(out, "..") != 0 &&
	    strspn(out, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789-._") == n ? 0 : -1;
}

/* The log directory and entry sections after the tables end at tables. */
static int
check_logs(struct crlite_run *run, const uint8_t *b, size_t len,
    size_t names, size_t logs, size_t tables)
{
	const uint8_t *log, *prev = NULL;
	uint64_t off, end, last_end = tables;
	size_t i, k, n;

	for (i = 0; i < logs; i++, prev = log) {
		log = b + UPKI_HDR_LEN + names * UPKI_NAME_LEN +
		    i * UPKI_LOG_LEN;
		if (prev != NULL && memcmp(prev, log, 32) >= 0)
			return fetch_budget_fail(&run->b, "index.bin: log %zu "
			    "not after the log before it", i);
		off = crlc_get_u64(log + 32);
		n = (size_t)log[40] << 8 | log[41];
		end = off + (uint64_t)n * UPKI_ENTRY_LEN;
		/* sections in the order of their logs, none overlapping */
		if (off < last_end || off > len || end > len)
			return fetch_budget_fail(&run->b, "index.bin: log "
			    "%zu's entries outside the file or overlapping", i);
		last_end = end;
		for (k = 0; k < n; k++)
			if (((size_t)b[off + k * UPKI_ENTRY_LEN] << 8 |
			    b[off + k * UPKI_ENTRY_LEN + 1]) >= names)
				return fetch_budget_fail(&run->b, "index.bin: "
				    "log %zu names filter %zu of %zu", i,
				    (size_t)b[off + k * UPKI_ENTRY_LEN] << 8 |
				    b[off + k * UPKI_ENTRY_LEN + 1], names);
	}
	return 0;
}

/* One filter the index names, read to learn its size and SHA-256. */
static int
want_file(struct crlite_run *run, const char *name, struct crlite_want *w)
{
	char path[CRLITE_URL_MAX + UPKI_NAME_LEN + 1];
	uint8_t *body;
	size_t len;

	snprintf(path, sizeof(path), "%s%s", run->b.conf->crlite_upki_dir,
	    name);
	if (crlite_read_local(run, path, CRLC_CLUBCARD_MAX_LEN, &body,
	    &len) == -1)
		return -1;
	crlc_sha256(body, len, w->hash);
	free(body);
	w->size = len;
	snprintf(w->name, sizeof(w->name), "file %s", name);
	snprintf(w->path, sizeof(w->path), "%s", name);
	return 0;
}

static int
upki_plan(struct crlite_run *run, const uint8_t *b, size_t len)
{
	char name[UPKI_NAME_LEN + 1];
	size_t names, logs, tables, i;

	if (len < UPKI_HDR_LEN || memcmp(b, UPKI_INDEX_MAGIC, 8) != 0)
		return fetch_budget_fail(&run->b, "index.bin: not an upki "
		    "index of version upkiidx1");
	names = (size_t)b[8] << 8 | b[9];
	logs = crlc_get_u32(b + 10);
	if (names == 0 || names > CRLC_CRLITE_FILTERS_MAX)
		return fetch_budget_fail(&run->b, "index.bin: %zu filters, not "
		    "1 to %u", names, CRLC_CRLITE_FILTERS_MAX);
	if (logs > (len - UPKI_HDR_LEN) / UPKI_LOG_LEN)
		return fetch_budget_fail(&run->b, "index.bin: %zu logs past "
		    "its end", logs);
	tables = UPKI_HDR_LEN + names * UPKI_NAME_LEN + logs * UPKI_LOG_LEN;
	if (tables > len)
		return fetch_budget_fail(&run->b, "index.bin: its tables pass "
		    "its end");
	if (check_logs(run, b, len, names, logs, tables) == -1)
		return -1;
	for (i = 0; i < names; i++) {
		if (index_name(b + UPKI_HDR_LEN + i * UPKI_NAME_LEN,
		    name) == -1)
			return fetch_budget_fail(&run->b, "index.bin: filter "
			    "name %zu is not 1 to 32 letters, digits, '-', '.' "
			    "or '_'", i);
		if (want_file(run, name, &run->want[i]) == -1)
			return -1;
	}
	run->nwant = names;
	return 0;
}

const struct crlite_source crlite_upki_dir = {
	CRLC_CRLITE_SRC_UPKI_DIR, UPKI_INDEX_MAX, 0, 1, "index",
	upki_index_path, upki_plan, NULL, NULL,
};
