/*
 * crlcache command-line tool: what proposed.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_PROPOSED_H
#define CRLCACHE_FETCHER_PROPOSED_H

#include "fetcher.h"

/*
 * proposed.c: the URLs that proven certificates proposed: back-off and
 * pruning.  Whether a failure of a URL of that origin fails the run (and
 * `status`); its name; rec's history after a fetch (rec->last_attempt
 * set); whether rec is pruned; whether its fetch waits.
 */
struct source_rec {
	int64_t		 last_attempt;
	int64_t		 last_success;
	int64_t		 fresh_until;	/* its server's answer is fresh until
					   then (0: not said) */
	long		 http_status;
	char		*etag;
	char		*last_modified;
	char		*error;
	uint8_t		*scope_key;
	size_t		 scope_keylen;
	unsigned	 origin;	/* CRLC_SRC_ORIGIN_* (format.h) */
	uint32_t	 failures;	/* consecutive failed fetches */
	int64_t		 first_failure;	/* the first of them (0: none) */
};
int	 source_origin_counts(unsigned origin, int hints_only);
const char *source_origin_name(unsigned origin);
void	 source_history(struct source_rec *rec, int ok);
int	 proposed_pruned(const struct source_rec *rec);
int	 proposed_waits(const struct conf *conf, const struct source_rec *rec,
	    int hints_only, int64_t now);
/*
 * What `status` and update's summary make of a record, as of its last
 * attempt: left out (a pruned proposed URL), ok, failing (the run's
 * failure) or retrying (a proposed URL's own); its failures in a row, at
 * least 1 when its last attempt failed.
 */
enum source_state { SOURCE_PRUNED, SOURCE_OK, SOURCE_FAILING, SOURCE_RETRYING };
enum source_state source_state(const struct source_rec *rec);
uint32_t source_failures(const struct source_rec *rec);

#endif /* CRLCACHE_FETCHER_PROPOSED_H */
