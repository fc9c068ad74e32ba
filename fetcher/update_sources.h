/*
 * update_sources.c: the sources an update run asks, gathered by
 * update.c's steps.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_UPDATE_SOURCES_H
#define CRLCACHE_FETCHER_UPDATE_SOURCES_H

#include <stddef.h>
#include <stdint.h>

#include "crlite_cover.h"
#include "direntry.h"
#include "enrolled.h"
#include "fetcher.h"
#include "trust.h"

/*
 * The directory, read when the run first needs it, and no more of it
 * than it needs: the entries of the enrolled issuers for their URLs (no
 * certificate decoded), and every entry with its certificate only for
 * proving hints or when a CRL's issuer cannot be proven without them
 * (trust.widen).  An hourly run whose CRLs answer 304, or whose new CRLs
 * come from issuers it already holds, costs a read of the file however
 * many CAs it lists.  Only after gather_urls(), as directory_trust().
 */
struct lazy_dir {
	struct state	*st;
	struct trust	*t;
	size_t		*failed;
	struct directory d;		/* every entry, once read */
	struct directory enrolled;	/* or the enrolled issuers' only */
	int		 read;		/* d tried: it is what there is */
};

/*
 * The explicit sources and the CRL DPs of the configured CA certificates
 * to urls; those of downloaded CCADB exports to fromnet; exports not
 * read counted in *failed.  -1 when a configured URL is refused.
 */
int	 gather_urls(const struct conf *conf, const struct trust *t,
	    struct strlist *urls, struct strlist *fromnet, size_t *failed);
/* Every directory entry, read once (why: for the log). */
const struct directory *dir_need(struct lazy_dir *ld, const char *why);
/* trust.widen: the directory's certificates, for a CRL's issuer. */
int	 dir_widen(void *arg);
/* The directory entries enrolled_sources() looks up. */
const struct directory *dir_enrolled(struct lazy_dir *ld,
	    const struct conf *conf, const struct enrolment *en, int64_t since);
/* The URLs of from that urls does not name to learned (and vouched). */
void	 add_learned(const struct strlist *from, const struct strlist *urls,
	    struct strlist *learned, struct strlist *vouched);
/* The sources enrolment adds (DESIGN 4); see update_sources.c. */
void	 enrolled_sources(const struct conf *conf, const struct directory *d,
	    const struct enrolment *en, const struct crl_fresh *cf,
	    struct trust *t, int64_t since, const struct strlist *urls,
	    struct strlist *learned, struct strlist *vouched);
/* update --hints: configured URLs of newly met issuers keep their standing. */
void	 keep_configured(const struct conf *conf, struct strlist *urls,
	    struct strlist *learned);

#endif /* CRLCACHE_FETCHER_UPDATE_SOURCES_H */
