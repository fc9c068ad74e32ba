/*
 * The files of the published index that readers may still need, and the
 * removal of the rest (pubkeep.c; format.h PUBLISH step 4).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_PUBKEEP_H
#define CRLCACHE_PUBKEEP_H

#include <stddef.h>
#include <stdint.h>

#include <crlcache/format.h>

#include "fetcher.h"

/*
 * Temporary names (state_mktemp(): the prefix and STATE_TEMP_SUFFIX
 * characters): the top's beside it, the others' in scope/.
 */
#define TOP_TEMP_PREFIX		"." INDEX_NAME "."
#define SCOPE_TEMP_PREFIX	".tmp."
/* Room for either name and its NUL. */
#define TEMP_NAME_SIZE		32

/* Ids of page and scope files to keep: the new top's and the old's. */
struct pub_keep {
	uint8_t		(*id)[CRLC_SCOPE_ID_LEN];
	size_t		 n, cap;
	int		 old_known;	/* the replaced top's ids are in */
};

/* Keep id; -1 when there would be too many (memory). */
int	keep_add(struct pub_keep *k, const uint8_t id[CRLC_SCOPE_ID_LEN]);

/*
 * Keep the page and scope files the top name in directory dfd (about to
 * be replaced)
 * names: a reader that has not re-checked index.mdb yet may still open
 * them.  When that top cannot be read for a reason that may pass (memory,
 * permissions), old_known stays 0 and nothing is collected this time.
 */
void	keep_old(struct pub_keep *k, int dfd, const char *name);

/*
 * Remove the page and scope files (names of 32 lower-case hex digits) of
 * the directory sfd that are not kept; nothing unless old_known.  The
 * count removed.
 */
size_t	keep_collect(struct pub_keep *k, int sfd);

void	keep_free(struct pub_keep *k);

struct state;
/*
 * Remove the temporary files of publishes that were killed.  Only
 * under the writer's lock, when no publish runs.
 */
void	publish_clean(struct state *st);

#endif /* CRLCACHE_PUBKEEP_H */
