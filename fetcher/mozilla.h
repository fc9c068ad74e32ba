/*
 * The CRLite and OneCRL step of `update` (mozilla.c), in three steps so
 * that no transfer is made under the state lock:
 *
 *	m = mozilla_begin(st, conf, s);			under the lock
 *	(the lock released)
 *	mozilla_fetch(m, st, conf);			no lock: the network
 *	(the lock taken again)
 *	mozilla_finish(m, ...);				under it: install
 *	mozilla_free(m);
 *
 * A run that cannot take the lock again frees m: nothing is installed.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_MOZILLA_H
#define CRLCACHE_MOZILLA_H

#include <stddef.h>

struct conf;
struct state;
struct store;
struct mozilla_run;

struct mozilla_run *mozilla_begin(struct state *st,
	    const struct conf *conf, struct store *s);
void	 mozilla_fetch(struct mozilla_run *m, struct state *st,
	    const struct conf *conf);
/*
 * Install what was fetched; *crlite_failed and *onecrl_failed say which
 * source failed (what is in force kept); crlite and onecrl get phrases
 * for update's summary line ("" when not configured).
 */
void	 mozilla_finish(struct mozilla_run *m, struct state *st,
	    struct store *s, char *crlite, size_t crlitelen, int *crlite_failed,
	    char *onecrl, size_t onecrllen, int *onecrl_failed);
/* NULL is fine. */
void	 mozilla_free(struct mozilla_run *m);

#endif /* CRLCACHE_MOZILLA_H */
