/*
 * The upki mirror source of CRLite (crlite.c drives it): a copy of
 * Mozilla's filters that upki's mirror tool (rustls/upki, upki-mirror
 * mozilla-crlite) publishes with a manifest, crlite_mirror = URL/.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * URL/manifest.json is {"generated_at": N, "comment": "...", "files":
 * [{"filename", "size", "hash"}]} (upki's Manifest, which also reads the
 * list as "filters"): the full filter first, then its deltas from oldest
 * to newest, each file at URL/FILENAME.  Nothing signs it: the mirror is
 * trusted only because the administrator named it, over HTTPS checked
 * against the system's trust store (conf.c refuses http), and every file
 * must still have the size and SHA-256 the manifest gives and parse.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <crlcache/clubcard.h>

#include "budget.h"
#include "crlitesrc.h"
#include "fetcher.h"

#define MANIFEST_NAME		"manifest.json"
/*
 * The manifest: about 150 bytes a file, CRLC_CRLITE_FILTERS_MAX (128)
 * files at most, 19 KiB: 64 KiB is room enough, and its values a few
 * per file (under 1,000 of 4096).
 */
#define MANIFEST_MAX		((size_t)64 << 10)
#define MANIFEST_VALUES		4096
/* upki-revocation "Revocation cache directory layout": 1 to 32 bytes. */
#define UPKI_NAME_MAX		32

static void
mirror_index_url(const struct conf *conf, char *out, size_t len)
{
	snprintf(out, len, "%s%s", conf->crlite_mirror, MANIFEST_NAME);
}

/* A filter file's name as upki-revocation allows it. */
static int
upki_name_ok(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= UPKI_NAME_MAX && strcmp(s, ".") != 0 &&
	    strcmp(s, "..") != 0 && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-._") == n;
}

/* One entry of the manifest's list into w. */
static int
manifest_file(struct crlite_run *run, const struct json *j, size_t e,
    size_t i, struct crlite_want *w)
{
	char name[UPKI_NAME_MAX + 2], hex[2 * CRLC_HASH_LEN + 2];
	int64_t size;

	if (json_str(j, json_get(j, e, "filename"), name, sizeof(name)) == -1 ||
	    !upki_name_ok(name))
		return fetch_budget_fail(&run->b, "manifest: file %zu: no "
		    "filename of 1 to %d letters, digits, '-', '.' or '_'", i,
		    UPKI_NAME_MAX);
	if (json_int(j, json_get(j, e, "size"), &size) == -1 || size <= 0 ||
	    (uint64_t)size > CRLC_CLUBCARD_MAX_LEN)
		return fetch_budget_fail(&run->b, "manifest: %s: size not 1 to "
		    "%zu", name, CRLC_CLUBCARD_MAX_LEN);
	if (json_str(j, json_get(j, e, "hash"), hex, sizeof(hex)) == -1 ||
	    strlen(hex) != 2 * CRLC_HASH_LEN ||
	    crlc_hex_decode(hex, strlen(hex), w->hash, CRLC_HASH_LEN) == -1)
		return fetch_budget_fail(&run->b, "manifest: %s: no SHA-256",
		    name);
	w->size = (uint64_t)size;
	snprintf(w->name, sizeof(w->name), "file %s", name);
	snprintf(w->path, sizeof(w->path), "%s", name);
	return 0;
}

static int
mirror_plan(struct crlite_run *run, const uint8_t *body, size_t len)
{
	struct json j;
	size_t list, e, i;
	int ret = -1;

	if (json_parse(&j, (const char *)body, len, MANIFEST_VALUES, run->b.err,
	    sizeof(run->b.err)) == -1)
		return -1;
	if ((list = json_get(&j, 0, "files")) == 0)
		list = json_get(&j, 0, "filters");
	if (list == 0 || j.v[list].type != JSON_ARRAY || j.v[list].n == 0 ||
	    j.v[list].n > CRLC_CRLITE_FILTERS_MAX)
		fetch_budget_fail(&run->b, "manifest: no list of 1 to %u files",
		    CRLC_CRLITE_FILTERS_MAX);
	else {
		for (i = 0, e = json_first(&j, list); i < j.v[list].n;
		    i++, e = json_next(&j, e))
			if (manifest_file(run, &j, e, i, &run->want[i]) == -1)
				break;
		if (i == j.v[list].n) {
			run->nwant = i;
			ret = 0;
		}
	}
	json_free(&j);
	return ret;
}

const struct crlite_source crlite_upki_mirror = {
	CRLC_CRLITE_SRC_MIRROR, MANIFEST_MAX, 0, 0, "manifest",
	mirror_index_url, mirror_plan, NULL, NULL,
};
