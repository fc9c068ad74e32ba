/*
 * crlcache command-line tool: what dirindex.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_DIRINDEX_H
#define CRLCACHE_FETCHER_DIRINDEX_H

#include "fetcher.h"

struct directory;
struct fpset;
struct state;
struct trust;

/*
 * dirindex.c: STATE_DIR/work/directory.index, where each entry of the
 * directory file lies and its subject's canonical name hash, so that a
 * run reads only the entries it looks up (format in dirindex.c).
 */
struct dir_span {
	uint64_t	 off, len;	/* an entry's bytes in the file */
};
struct dir_index;
/* Does the index describe the directory file as it is now? */
int	 dir_index_current(struct state *st);
/* Written after the directory file (len bytes), at[i] d->v[i]'s lines. */
int	 dir_index_write(struct state *st, const struct directory *d,
	    const struct dir_span *at, size_t len);
/*
 * The entries of only's fingerprints, with their URLs and no
 * certificate, into d (directory_load's only); -1 when the index does
 * not describe the directory file as it is (absent, stale, damaged).
 */
int	 dir_index_find(struct state *st, const struct fpset *only,
	    struct directory *d);
/*
 * The directory as a source of t's pool (certpool_set_fill): each entry
 * read and decoded when a search first asks for its subject.  -1 when
 * the index is not usable: then the directory is to be read whole.
 */
int	 dir_index_attach(struct trust *t, struct state *st);
void	 dir_index_free(struct dir_index *ix);

#endif /* CRLCACHE_FETCHER_DIRINDEX_H */
