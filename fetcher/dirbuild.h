/*
 * crlcache command-line tool: what dirbuild.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_DIRBUILD_H
#define CRLCACHE_FETCHER_DIRBUILD_H

#include "fetcher.h"

struct ccadb_records;
struct directory;
struct trust;

/* Decide the records (their certificates move to d); -1 with err. */
int	 directory_build(struct ccadb_records *rs, const struct trust *t,
	    int64_t now, struct directory *d, char *err, size_t errlen);

#endif /* CRLCACHE_FETCHER_DIRBUILD_H */
