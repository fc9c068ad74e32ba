/*
 * The files of the published index that readers may still need -- those
 * the new top names and those the top it replaces names -- and the
 * removal of the rest, and of the temporary files of publishes that were
 * killed (format.h PUBLISH).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The replaced generation's files stay: a reader re-checks index.mdb only
 * every few seconds (CRLC_RECHECK_MS in provider/snapshot.c) and opens
 * page and scope files lazily, so it may still open one of them; the next
 * publish removes them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <crlcache/index.h>

#include "fetcher.h"
#include "pubkeep.h"
#include "state.h"

#define FILE_NAME_LEN		(2 * CRLC_SCOPE_ID_LEN)
/*
 * Ids kept: the page and scope files of two tops, each at most a million
 * CRL scopes (publish.c MAX_TOP_RECORDS) and as many pages.
 */
#define KEEP_MAX		((size_t)4 << 20)

int
keep_add(struct pub_keep *k, const uint8_t id[CRLC_SCOPE_ID_LEN])
{
	uint8_t (*v)[CRLC_SCOPE_ID_LEN];
	size_t cap;

	if (k->n == k->cap) {
		cap = k->cap == 0 ? 256 : 2 * k->cap;
		if (k->n >= KEEP_MAX ||
		    (v = reallocarray(k->id, cap, sizeof(*v))) == NULL)
			return -1;
		k->id = v;
		k->cap = cap;
	}
	memcpy(k->id[k->n++], id, CRLC_SCOPE_ID_LEN);
	return 0;
}

static int
old_id(const uint8_t id[CRLC_SCOPE_ID_LEN], void *arg)
{
	return keep_add(arg, id) == -1 ? -1 : 0;
}

void
keep_old(struct pub_keep *k, int dfd, const char *name)
{
	struct crlc_index *idx;
	const char *detail;
	int rc;

	rc = crlc_index_open_at(dfd, name, &idx, &detail);
	if (rc == CRLC_OK) {
		k->old_known = crlc_index_foreach_file_id(idx, old_id, k) == 0;
		crlc_index_close(idx);
	} else
		k->old_known = rc == CRLC_E_NOINDEX || rc == CRLC_E_FORMAT ||
		    rc == CRLC_E_CORRUPT;
}

static int
id_cmp(const void *a, const void *b)
{
	return memcmp(a, b, CRLC_SCOPE_ID_LEN);
}

/* A page or scope file's name: exactly 32 lower-case hex digits. */
static int
file_name(const char *name, uint8_t id[CRLC_SCOPE_ID_LEN])
{
	return strlen(name) == FILE_NAME_LEN &&
	    strspn(name, "0123456789abcdef") == FILE_NAME_LEN &&
	    crlc_hex_decode(name, FILE_NAME_LEN, id, CRLC_SCOPE_ID_LEN) == 0;
}

size_t
keep_collect(struct pub_keep *k, int sfd)
{
	uint8_t id[CRLC_SCOPE_ID_LEN];
	struct dirent *de;
	size_t removed = 0;
	DIR *d;
	int fd;

	if (!k->old_known || (fd = fcntl(sfd, F_DUPFD_CLOEXEC, 0)) == -1)
		return 0;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	qsort(k->id, k->n, sizeof(*k->id), id_cmp);
	while ((de = readdir(d)) != NULL)
		if (file_name(de->d_name, id) &&
		    bsearch(id, k->id, k->n, sizeof(*k->id), id_cmp) == NULL &&
		    unlinkat(dirfd(d), de->d_name, 0) == 0)
			removed++;
	closedir(d);
	return removed;
}

void
keep_free(struct pub_keep *k)
{
	free(k->id);
	k->id = NULL;
	k->n = k->cap = 0;
}

/* Names prefix || STATE_TEMP_SUFFIX characters in d, never followed. */
static void
remove_temps(DIR *d, const char *prefix)
{
	size_t plen = strlen(prefix);
	struct dirent *de;

	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, prefix, plen) == 0 &&
		    strlen(de->d_name) == plen + STATE_TEMP_SUFFIX)
			(void)unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
}

/*
 * The temporary files of publishes that were killed.  Called under the
 * writer's lock, when no publish runs.
 */
void
publish_clean(struct state *st)
{
	DIR *d;

	if ((d = state_list(st, SCOPE_NAME)) != NULL)
		remove_temps(d, SCOPE_TEMP_PREFIX);
	if ((d = state_list(st, ".")) != NULL)
		remove_temps(d, TOP_TEMP_PREFIX);
}
