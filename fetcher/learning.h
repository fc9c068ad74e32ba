/*
 * crlcache command-line tool: what learning.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_LEARNING_H
#define CRLCACHE_FETCHER_LEARNING_H

#include "fetcher.h"

struct crlc_index;
struct enrolment;
struct state;
struct trust;

/*
 * learning.c: the learning marker (<crlcache/hint.h>), holding the key
 * ids of t's anchors and of the issuers of en (may be NULL) whose CRLs
 * idx (may be NULL) holds none of.  LEARNING_FAST: written, its time
 * ahead (`update --hints` starts); LEARNING_FULL: an unexpired one
 * pushed ahead, or removed when the spool's watcher stopped (a full
 * update starts); LEARNING_CONTENT: an unexpired one's content brought
 * up to date, its time kept (a run published).  Failures are logged.
 */
enum learning_how { LEARNING_FAST, LEARNING_FULL, LEARNING_CONTENT };
void	 learning_mark(struct state *st, enum learning_how how,
	    const struct trust *t, const struct enrolment *en,
	    const struct crlc_index *idx);

#endif /* CRLCACHE_FETCHER_LEARNING_H */
