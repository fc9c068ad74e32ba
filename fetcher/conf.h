/*
 * crlcache command-line tool: what conf.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_CONF_H
#define CRLCACHE_FETCHER_CONF_H

#include "fetcher.h"

/* conf.c */
int	 parse_number(const char *s, long long max, int suffix, long long *out);
void	 conf_init(struct conf *c);
int	 conf_load(struct conf *c, const char *path, int must_exist);
void	 conf_free(struct conf *c);

#endif /* CRLCACHE_FETCHER_CONF_H */
