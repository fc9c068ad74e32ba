/*
 * The fetcher's side of OneCRL (onecrl.c; the file is <crlcache/onecrl.h>).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_ONECRL_H
#define CRLCACHE_FETCHER_ONECRL_H

#include <stddef.h>
#include <stdint.h>

#include "fetcher.h"
#include "rsclient.h"

struct conf;
struct store;

/* The records of a verified changeset, as the file holds them. */
struct onecrl_list {
	uint8_t		*r[2];		/* issuer-serial, subject-key records */
	size_t		 n[2];
	size_t		 skipped;
	char		 first_bad[160];	/* the first skipped, and why */
};

/*
 * The OneCRL step of `update`, when `crlite =` names a Remote Settings
 * server, in three steps as CRLite's (crlitesrc.h): onecrl_begin(),
 * onecrl_fetch() without the state lock (the collection asked when it
 * changed, within its deadline, and verified), onecrl_finish() under it
 * (installed unless what is in force is newer).
 */
struct onecrl_run {
	struct state	*st;
	const struct conf *conf;
	const struct rs_monitor *mon;
	struct rs_client rc;
	struct rs_collection col;
	struct onecrl_list l;
	int		 r;		/* 1 to install, 0 unchanged, -1 */
};

/* 0 when OneCRL is not configured (the others then do nothing), 1. */
int	 onecrl_begin(struct onecrl_run *o, struct state *st,
	    const struct conf *conf, const struct rs_monitor *mon);
void	 onecrl_fetch(struct onecrl_run *o);
/*
 * 0 when nothing failed, -1 when it failed: the file in force is kept.
 * what gets a phrase for update's summary line ("" when not configured).
 */
int	 onecrl_finish(struct onecrl_run *o, struct store *s, char *what,
	    size_t whatlen);
/* What a run holds, freed (finish does it; for a run not finished). */
void	 onecrl_free(struct onecrl_run *o);

#endif /* CRLCACHE_FETCHER_ONECRL_H */
