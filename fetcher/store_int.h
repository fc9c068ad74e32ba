/*
 * The fetcher's working index (format.h NAMED DATABASES): what the files
 * that read and write it share.  One section per file; what the rest of
 * the fetcher calls is in fetcher.h.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_STORE_INT_H
#define CRLCACHE_FETCHER_STORE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <lmdb.h>

#include <crlcache/index.h>

#include "crl.h"
#include "fetcher.h"

/* store.c: the environment, opened and published */
struct store {
	struct state	*st;		/* the state it lives in */
	int		 lockfd;
	MDB_env		*env;
	MDB_dbi		 meta, canon, alias, key, rev, crl, source, crlhash;
	int		 dirty;		/* changed since the last publish */
	/*
	 * A split ingest (struct wtxn) failed and could not be rolled back:
	 * a scope's entries are half written until store_open() recovers
	 * them, and nothing may be published from here.
	 */
	int		 pending;
	uintptr_t	 map_lo, map_hi;	/* LMDB's map of it; 0: unknown */
	size_t		 reads;		/* records read through it (map_read) */
	/*
	 * The run's batch (BATCH): one write transaction that the small
	 * CRLs' ingests (each a child transaction of it) and the source
	 * records share; NULL when none is open.
	 */
	MDB_txn		*batch;
	size_t		 batch_writes;	/* since it began */
	int		 unsynced;	/* a commit left its meta page unsynced */
	struct strlist	 asked;		/* source keys recorded since opened */
};

/* work.c: its transactions */
/*
 * BATCH.  Every LMDB commit writes the pages it dirtied, its freelist and
 * two fsync()s.  A commit per source record and per CRL made an update of
 * 2,000 CRLs (test/bench/scale.sh) write 520 MB when nothing changed and
 * 59 GB from empty: the partitions of one issuer interleaved in "rev"
 * (work format 3 keyed it by serial, and serials are random), so each
 * partition's commit rewrote most of the issuer's leaf pages; and each
 * commit writes its freelist and syncs, however little it changed.  So
 * the records of a run share one transaction,
 * committed every INGEST_CHUNK writes (the bound of its dirty pages, as
 * a split ingest's) and before anything else begins one (batch_end()).
 * Each CRL is ingested in a child transaction of it, aborted alone when
 * the CRL fails; a CRL of INGEST_CHUNK writes or more is ingested on its
 * own, split (struct wtxn).  A run killed before a batch commits loses
 * its CRLs and their source records together: the next run fetches them
 * again.
 */

/*
 * A large CRL is ingested in several write transactions: LMDB holds every
 * page a transaction dirties in memory until it commits, and a
 * 1,000,000-entry CRL dirties about 47 MB of "rev" pages, as much again as
 * the CRL itself, which the received body already holds.  So an ingest
 * commits every INGEST_CHUNK writes (about 6 MB of dirty pages).  Before
 * the first such commit it records CRLC_META_PENDING (format.h): until
 * the last commit, which replaces the "crl" record and removes it, the
 * scope's "rev" records may be half written, and recover_pending()
 * rewrites them from the "crl" record, which only that last commit
 * changes.  A CRL of fewer writes commits once, as before.
 */
#define INGEST_CHUNK	131072

struct wtxn {
	struct store	*s;
	MDB_txn		*txn;
	int		 split;		/* commits every INGEST_CHUNK writes */
	size_t		 writes;	/* since the last commit */
	int		 committed;	/* a chunk is committed: pending held */
	int		 nested;	/* a child of the batch: never commits */
	int		 overflow;	/* nested, and INGEST_CHUNK writes reached */
	unsigned	 scope_no;	/* CRLC_META_PENDING's value */
	const uint8_t	*key;
	size_t		 keylen;
};

/* The caller's one transaction, never committed in between. */
#define ONE_TXN(st, t)	(&(struct wtxn){ .s = (st), .txn = (t) })

void	 lmdb_err(char *err, size_t errlen, const char *what, int rc);
void	 pages_release(const uint8_t *p, size_t len);
void	 map_find(struct store *s);
void	 map_drop(struct store *s);
/* A record was read through the map: let it go every so often. */
void	 map_read(struct store *s);
int	 wtxn_step(struct wtxn *w);
int	 batch_begin(struct store *s);
int	 batch_add(struct store *s, size_t writes);
int	 batch_end(struct store *s);
int	 read_begin(struct store *s, MDB_txn **txn);
void	 read_end(struct store *s, MDB_txn *txn);
/* The marker of changes not yet published (work.c): there?, removed. */
int	 unpublished_held(struct store *s);
void	 unpublished_clear(struct store *s);
int	 mark_dirty(struct store *s, char *err, size_t errlen);

/* issuerid.c: issuer ids, key numbers, scope keys */
int	 issuer_id(struct store *s, MDB_txn *txn, const struct crl *c,
	    uint32_t *id);
int	 key_no_of(struct store *s, MDB_txn *txn, uint32_t id, X509 *signer,
	    uint32_t *key_no);
void	 put_prefix(uint8_t prefix[CRLC_PREFIX_LEN], uint32_t id,
	    uint32_t key_no);
int	 scope_key(const uint8_t prefix[CRLC_PREFIX_LEN], const char *scope,
	    unsigned reasons, unsigned kind, uint8_t *key, size_t *keylen);

/* entries.c: the "rev" records of a scope */
/*
 * The certificate issuers an indirect CRL's certificateIssuer entry
 * extensions name (RFC 5280 5.3.3), by the canonical hash of the Name
 * (crlc_name_canon_hash()): canon[1..n].  Index 0 is the CRL issuer
 * itself -- the entries before the first certificateIssuer and those a
 * certificateIssuer naming the CRL issuer governs -- whose entries keep
 * the ordinary serial form; the others are keyed by
 * crlc_foreign_form() (format.h INDIRECT CRLS).  More distinct issuers
 * in one CRL are refused (E2BIG).
 */
#define CERT_ISSUERS_MAX	255
int	 write_entries(struct wtxn *w, const uint8_t prefix[CRLC_PREFIX_LEN],
	    unsigned scope_no, const struct crlc_crl *crl, int delta,
	    int64_t *count);
int	 drop_scope(struct wtxn *w, const uint8_t prefix[CRLC_PREFIX_LEN],
	    unsigned scope_no);
/*
 * The scope a split ingest left half written (CRLC_META_PENDING) made
 * its "crl" record's again: store_open() after a killed run, and
 * store_ingest() after a failed one.
 */
int	 recover_pending(struct store *s, MDB_txn *txn);

#endif
