/*
 * The fetcher's side of OneCRL (onecrl.c; the file is <crlcache/onecrl.h>).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_ONECRL_H
#define CRLCACHE_FETCHER_ONECRL_H

#include <stddef.h>

struct conf;
struct store;

/*
 * The OneCRL step of `update`, when `crlite =` names a Remote Settings
 * server: fetch, verify and install.  0 when nothing failed (nothing
 * configured included), -1 when it failed: the file in force is kept.
 * what gets a phrase for update's summary line ("" when not configured).
 */
int	 onecrl_update(const char *state_dir, const struct conf *conf,
	    struct store *s, char *what, size_t whatlen);

#endif /* CRLCACHE_FETCHER_ONECRL_H */
