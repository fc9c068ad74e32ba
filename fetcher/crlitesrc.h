/*
 * The CRLite sources' side of crlite.c: what a source's index document
 * (a Remote Settings changeset, an upki mirror's manifest) must give the
 * driver, which fetches it conditionally, then the filters it lists, and
 * installs them.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_CRLITESRC_H
#define CRLCACHE_CRLITESRC_H

#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "crlitedir.h"
#include "fetch.h"
#include "fetcher.h"
#include "rsclient.h"
#include "store.h"

/* URLs the sources build: a configured base and a path of 512 at most. */
#define CRLITE_URL_MAX		1024
#define CRLITE_PATH_MAX		512
/* A filter's name in messages: "record ID" or "file NAME". */
#define CRLITE_NAME_MAX		96

/* One filter of the set to install, as the index document lists it. */
struct crlite_want {
	uint8_t		 hash[CRLC_HASH_LEN];
	uint64_t	 size;
	char		 name[CRLITE_NAME_MAX];
	char		 path[CRLITE_PATH_MAX + 1];	/* under the base URL */
};

struct crlite_run;

struct crlite_source {
	unsigned	 kind;		/* CRLC_CRLITE_SRC_* */
	size_t		 index_max;	/* bytes of its index document */
	int		 guarded;	/* its files' URLs came from the network:
					   public addresses only */
	int		 local;		/* its index and files are read from a
					   directory, not fetched */
	const char	*says;		/* who vouches for sizes and hashes */
	/* The index document's URL (local: its path), from the configuration. */
	void		(*index_url)(const struct conf *, char *, size_t);
	/* Read the index document: run->want, or -1 with run->b.err. */
	int		(*plan)(struct crlite_run *, const uint8_t *, size_t);
	/*
	 * The URL the wanted paths are under (ends in '/'), or -1; NULL:
	 * the index document's own directory.
	 */
	int		(*base)(struct crlite_run *, char *, size_t);
	/*
	 * Instead of asking index_url and plan(): get the index and plan
	 * (run->want): 1, 0 unchanged, -1 (run->b.err).
	 */
	int		(*index)(struct crlite_run *);
};

extern const struct crlite_source crlite_remote_settings;
extern const struct crlite_source crlite_upki_mirror;
extern const struct crlite_source crlite_upki_dir;

/*
 * One run of the configured source, in three steps: crlite_begin()
 * under the state lock (the set in force, the index's validators),
 * crlite_fetch() without it (every transfer within run->b's deadline),
 * crlite_finish() under it again (install, record).
 */
struct crlite_run {
	struct state	*st;
	struct fetch_budget b;		/* the configuration, the deadline,
					   the bytes fetched, err */
	const struct crlite_source *src;
	const struct rs_monitor *mon;	/* Remote Settings: the poll */
	struct rs_collection col;	/* Remote Settings: the collection */
	char		 index_url[CRLITE_URL_MAX + CRLITE_PATH_MAX];
	/* 128 of 656 bytes: 84 KB on the stack of update's main thread */
	struct crlite_want want[CRLC_CRLITE_FILTERS_MAX];
	size_t		 nwant;		/* the full filter first */
	size_t		 fetched;	/* filters downloaded */
	struct crlite_set cur;		/* in force when the run began */
	int		 in_force;	/* a set was in force (any source) */
	int		 have;		/* cur is of this source, on disk */
	struct fetch	 f;		/* the index document */
	char		*validator[2];	/* f's ETag and Last-Modified */
	struct crlite_set set;		/* to install */
	int		 r;		/* 1 set to install, 0 none, -1 */
};

/*
 * The three steps.  begin: 0 when no source is configured (then the
 * others do nothing), 1.  finish: 0, or -1 when the source failed (the
 * set in force kept); what gets a phrase for update's summary line.
 */
int	 crlite_begin(struct crlite_run *run, struct state *st,
	    const struct conf *conf, struct store *s,
	    const struct rs_monitor *mon);
void	 crlite_fetch(struct crlite_run *run);
int	 crlite_finish(struct crlite_run *run, struct store *s, char *what,
	    size_t whatlen);
/* What a run holds, freed (finish does it; for a run not finished). */
void	 crlite_free(struct crlite_run *run);
/* A local source's file, whole, at most max bytes: 0, or -1 (run->b.err). */
int	 crlite_read_local(struct crlite_run *run, const char *path,
	    size_t max, uint8_t **body, size_t *len);
/* A relative path of unreserved characters (RFC 3986 2.3) and '/'. */
int	 crlite_path_ok(const char *s);

#endif /* CRLCACHE_CRLITESRC_H */
