/*
 * crlcache command-line tool: what localfs.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_LOCALFS_H
#define CRLCACHE_FETCHER_LOCALFS_H

#include "fetcher.h"

/* localfs.c: warn when the state directory is on a network filesystem */
void	 warn_network_fs(const char *dir);

#endif /* CRLCACHE_FETCHER_LOCALFS_H */
