/*
 * crlcache command-line tool: what dirrefresh.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_DIRREFRESH_H
#define CRLCACHE_FETCHER_DIRREFRESH_H

#include "fetcher.h"

struct state;
struct trust;

/*
 * Rebuild the directory from the reports when it is older than
 * conf->ccadb_refresh or force is set (conditional GET; at most daily by
 * default).  Any failure keeps the previous directory.  Returns 0 when
 * nothing failed (including "not due" after a refresh that succeeded),
 * -1 when a report could not be fetched or was refused (logged), or when
 * the refresh is not due but the last one failed: its failure stands,
 * as status says, until one succeeds.  No ccadb_records: no directory
 * (directory_forget).
 */
int	 directory_refresh(struct state *st, const struct conf *conf,
	    const struct trust *t, int force);
/* Remove the directory and everything kept for it, a failure's state too. */
void	 directory_forget(struct state *st);

#endif /* CRLCACHE_FETCHER_DIRREFRESH_H */
