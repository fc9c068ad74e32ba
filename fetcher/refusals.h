/*
 * crlcache command-line tool: what refusals.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_REFUSALS_H
#define CRLCACHE_FETCHER_REFUSALS_H

#include "fetcher.h"

struct state;

/*
 * refusals.c, the refusal spool (<crlcache/refusal.h>): make it when
 * missing and remove what is older than CRLC_REFUSALS_KEEP, after a
 * command that wrote the state; print the newest refusals (status
 * --refusals), as text or (json) a JSON array, 0 or -1.
 */
void	 refusals_tend(struct state *st);
int	 refusals_print(struct state *st, FILE *out, int json);

#endif /* CRLCACHE_FETCHER_REFUSALS_H */
