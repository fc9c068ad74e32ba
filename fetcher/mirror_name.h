/*
 * crlcache command-line tool: what mirror_name.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_MIRROR_NAME_H
#define CRLCACHE_FETCHER_MIRROR_NAME_H

#include "fetcher.h"

struct fetch;

/* mirror_name.c: names on a mirror (`crlcache mirror`, `mirror =`) */
/* Components of a name: scheme, host[:port] and 30 path segments; CRL
   URLs in the Web PKI have 1 to 4. */
#define MIRROR_MAX_DEPTH	32
/* One component: NAME_MAX of Linux file systems. */
#define MIRROR_COMPONENT_MAX	255
struct mirror_name {
	char	 comp[MIRROR_MAX_DEPTH][MIRROR_COMPONENT_MAX + 1];
	size_t	 n;		/* scheme, host[:port], path segments */
};
/*
 * The name of url on a mirror.  Refused (-1, why a static string): not
 * http(s), a query or fragment (a static server ignores them), a
 * component that could not be a file name.  Userinfo is not part of it.
 */
int	 mirror_name_parse(const char *url, struct mirror_name *m,
	    const char **why);
/* `mirror = ` for one transfer: sets via, or refused and err. */
void	 mirror_route(const struct conf *conf, struct fetch *f);

#endif /* CRLCACHE_FETCHER_MIRROR_NAME_H */
