/*
 * crlcache command-line tool: what verdict.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_VERDICT_H
#define CRLCACHE_FETCHER_VERDICT_H

#include "fetcher.h"

struct state;

/*
 * The verdict a run that wrote the state leaves for users who may not
 * read the working data (verdict.c): the counts `status` judges by.
 */
struct verdict {
	size_t	sources, failing, retrying;
	int	dir_failing;		/* the directory's last refresh failed */
};
int	 verdict_write(struct state *st, const struct verdict *v);
int	 verdict_read(struct state *st, struct verdict *v);

#endif /* CRLCACHE_FETCHER_VERDICT_H */
