/*
 * crlcache command-line tool: what enable.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_ENABLE_H
#define CRLCACHE_FETCHER_ENABLE_H

#include "fetcher.h"

/* enable.c: for status, a warning when openssl.cnf lost enable's block */
void	 enable_warn_lost(void);

#endif /* CRLCACHE_FETCHER_ENABLE_H */
