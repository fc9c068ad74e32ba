/*
 * crlcache command-line tool: what directory.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_DIRECTORY_H
#define CRLCACHE_FETCHER_DIRECTORY_H

#include "fetcher.h"

struct ccadb_records;
struct dir_entry;
struct dir_report;
struct dir_state;
struct directory;
struct fpset;
struct state;
struct trust;

void	 dir_say(char *err, size_t errlen, const char *what, const char *why);
struct dir_report *dir_report_add(struct dir_report **r, size_t *n,
	    const char *src, int kind);
void	 dir_reports_free(struct dir_report *r, size_t n);
/* None yet is an empty state; -1 with why in err. */
int	 dir_state_read(struct state *st, struct dir_state *ds,
	    char *err, size_t errlen);
int	 dir_state_write(struct state *st, const struct dir_state *ds);
/*
 * The records a build did not keep, with why and their subject, to
 * STATE_DIR/work/directory.refused; and printed from there, escaped.
 */
int	 dir_refused_write(struct state *st, const struct ccadb_records *rs);
int	 dir_refused_print(struct state *st, FILE *out);
void	 dir_state_free(struct dir_state *ds);
int	 directory_write(struct state *st, const struct directory *d);
/* Is STATE_DIR/work/directory there, in the format this version reads? */
int	 directory_current(struct state *st);
/*
 * For status: the refresh state (error NULL: the last refresh
 * succeeded).  -1 when no refresh was ever tried or the state cannot be
 * read.
 */
int	 directory_info(struct state *st, struct dir_state *ds);
void	 fpset_sort(struct fpset *s);
/*
 * Read the last built directory; none yet is an empty one.  -1 with err.
 * only == NULL: every entry with its certificate; else the entries of
 * only's fingerprints, with their URLs and no certificate (cert NULL).
 */
int	 directory_load(struct state *st, struct directory *d,
	    const struct fpset *only, char *err, size_t errlen);
/*
 * d's certificates become issuer candidates of t (CRLs, enrolment
 * proofs); in update, only after gather_urls(): their own distribution
 * points are not sources.
 */
int	 directory_trust(struct trust *t, const struct directory *d);
const struct dir_entry *directory_find(const struct directory *d,
	    const uint8_t fp[CRLC_HASH_LEN]);

#endif /* CRLCACHE_FETCHER_DIRECTORY_H */
