/*
 * The fetcher's side of CRLite (DESIGN 4a): the installed set
 * (<crlcache/crlite.h>), and the Remote Settings source that feeds it.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_CRLITEDIR_H
#define CRLCACHE_FETCHER_CRLITEDIR_H

#include <stddef.h>
#include <stdint.h>

#include <crlcache/crlite.h>
#include <crlcache/format.h>

#define CRLITE_ERRLEN	512

struct conf;
struct store;

/* One filter of a set, as its record in the set file says. */
struct crlite_filter {
	uint8_t		 hash[CRLC_HASH_LEN];	/* SHA-256: the file's name */
	uint64_t	 size;
	unsigned	 kind;		/* CRLC_CRLITE_FULL or _DELTA */
	uint8_t		*body;		/* to install: the verified bytes
					   (owned); NULL: on disk already */
};

struct state;

struct crlite_set {
	int64_t		 installed;
	uint64_t	 newest;	/* ms; 0: none */
	unsigned	 source;	/* CRLC_CRLITE_SRC_* */
	struct crlite_filter f[CRLC_CRLITE_FILTERS_MAX];
	size_t		 n;		/* the full filter first */
};

/* "remote-settings", "mirror", "upki-dir" (for messages and status). */
const char *crlite_source_name(unsigned source);
/*
 * The set in force: 0 and *s, 1 when none is installed, -1 when the set
 * file is not one (why in err).  Only the set file is read.
 */
int	 crlite_set_read(struct state *st, struct crlite_set *s,
	    char *err, size_t errlen);
/*
 * The readers of crlite/ through the handle, each as lib's reader of a
 * directory path says: 1 (nothing to say) when there is no crlite/ yet.
 * The set file (crlc_crliteset_read); the set with its lookup file
 * (crlc_crliteset_open); OneCRL in force (crlc_onecrl_open).
 */
struct crlc_crliteset_file;
struct crlc_crliteset;
struct crlc_onecrl;
int	 crlite_set_file(struct state *st, struct crlc_crliteset_file *file,
	    char *why, size_t whylen);
int	 crlite_set_open(struct state *st, struct crlc_crliteset **set,
	    char *why, size_t whylen);
int	 crlite_onecrl_open(struct state *st, struct crlc_onecrl **o,
	    char *why, size_t whylen);
/*
 * Filter f of the directory, whole, when it is the file the set names
 * (size and SHA-256): 0 and *body (malloc'd), else -1.
 */
int	 crlite_file_read(struct state *st, const struct crlite_filter *f,
	    uint8_t **body);
/*
 * Install s (each filter with a body written first, durably), then
 * remove every file of the directory s does not name.  0, or -1 with
 * why in err and the set in force untouched.
 */
int	 crlite_set_install(struct state *st, const struct crlite_set *s,
	    char *err, size_t errlen);
void	 crlite_set_free(struct crlite_set *s);
/* STATE_DIR/crlite: made when missing; ours, and no one else may write. */
int	 crlite_dir_prepare(struct state *st, char *err, size_t errlen);

/* For status: the set in force and whether its files can be used. */
struct crlite_info {
	struct crlite_set set;
	int		 usable;	/* every file there, as named, parses */
	size_t		 issuers;	/* enrolled in the full filter */
	char		 why[CRLITE_ERRLEN];	/* when not usable */
};
/* 0 and *ci; 1 when no set is installed; -1 when unreadable (why). */
int	 crlite_info(struct state *st, struct crlite_info *ci);

/*
 * What one run fetched of a source, kept in STATE_DIR/work/crlite.state
 * for `status`: one line "SOURCE ATTEMPT BYTES TOTAL".
 */
struct crlite_tally {
	int64_t		 attempt;	/* the last run's time */
	uint64_t	 bytes;		/* fetched by the last run */
	uint64_t	 total;		/* fetched since the state began */
};
int	 crlite_tally_read(struct state *st, unsigned source,
	    struct crlite_tally *t);
void	 crlite_tally_add(struct state *st, unsigned source,
	    uint64_t bytes);

#endif /* CRLCACHE_FETCHER_CRLITEDIR_H */
