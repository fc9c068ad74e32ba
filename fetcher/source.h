/*
 * crlcache command-line tool: what source.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_SOURCE_H
#define CRLCACHE_FETCHER_SOURCE_H

#include "fetcher.h"

struct state;
struct store;

/* source.c: the record of each source URL's last fetch (struct source_rec: proposed.c) */
struct source_rec;
int	 store_get_source(struct store *s, const char *url,
	    struct source_rec *rec);
int	 store_put_source(struct store *s, const char *url,
	    const struct source_rec *rec);
void	 source_rec_free(struct source_rec *rec);
/*
 * The source record of key, a source the configuration names, after a
 * fetch of its document (a CRLite index, a Remote Settings collection):
 * the attempt and its HTTP status (304: nothing new), and after a
 * success (err NULL) f's validators when f is given and was not a 304;
 * after a failure err and no validators, so that the next run asks for
 * the whole document.
 */
struct fetch;
void	 source_note(struct store *s, const char *key, struct fetch *f,
	    long status, const char *err);
int	 store_foreach_source(struct state *st,
	    int (*fn)(const char *url, const struct source_rec *, void *),
	    void *arg);
/*
 * After a full run (DESIGN 4): the sources it listed (keys: redacted,
 * sorted; asked or waiting) or asked beside them (CRLite, OneCRL: a
 * record put through s) are counted by source_state(), those asked beside
 * by outcome; with prune, the record of every other source is removed,
 * but a pruned proposed URL's (its history spaces its retries).  So a
 * source taken out of the configuration no longer counts anywhere; the
 * CRLs it fed stay until they expire.  -1 when the records could not be
 * walked or changed.
 */
struct source_count {
	size_t	 n, failing, retrying;	/* counted: status's figures */
	size_t	 beside_changed, beside_same, beside_failed;
	size_t	 removed;
};
int	 store_tend_sources(struct store *s, const struct strlist *listed,
	    int prune, struct source_count *c);

#endif /* CRLCACHE_FETCHER_SOURCE_H */
