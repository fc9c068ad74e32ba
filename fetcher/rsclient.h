/*
 * A client of a Remote Settings server for the security-state bucket,
 * used by CRLite (crlite_rs.c, collection cert-revocations) and OneCRL
 * (onecrl.c, collection onecrl), as Firefox's own client polls it.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * One run (facts from mozilla/remote-settings, kinto-remote-settings'
 * changes plugin, views.py get_changeset):
 *   1. rs_poll(): GET SERVER/buckets/monitor/collections/changes/
 *      changeset?_expected=0[&_since=CURSOR]: {"timestamp": T,
 *      "changes": [{"bucket", "collection", "last_modified"}, ...]},
 *      with _since only the collections changed after CURSOR (the T of
 *      the last poll after which every collection was settled, kept in
 *      STATE_DIR/work/rs.monitor: decimal milliseconds and a newline;
 *      lost, the whole list is asked once).  Not signed: it can hold an
 *      update back (a freeze), never roll one back, and a collection it
 *      lists older than the one in force is refused.  A server without it (any failure): each collection is
 *      asked with _since, which costs a small answer each run.
 *   2. rs_collection_fetch(): a collection listed newer than the one
 *      held, or not held: GET SERVER/buckets/security-state/collections/
 *      CID/changeset?_expected=LISTED[&_since=HELD].  With _since the
 *      answer holds only the records changed after HELD, deleted ones
 *      as tombstones {"id", "last_modified", "deleted": true}; they are
 *      merged with the records held (the last verified changeset), and
 *      the content signature, which is over the whole collection, is
 *      verified on the merged set (rschangeset.c).  A merged set that
 *      does not verify is asked once more whole: the records held may
 *      be what is wrong.
 *   3. A changeset whose timestamp (inside the signed bytes) is older
 *      than the one in force is refused: no rollback.  The same
 *      timestamp: unchanged.
 * Every request is bounded by the client's deadline (budget.h),
 * and a changeset's x5u chain is asked of RS_X5U_TRIES URLs at most.
 */
#ifndef CRLCACHE_RSCLIENT_H
#define CRLCACHE_RSCLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "fetcher.h"
#include "rschangeset.h"

#define RS_BUCKET		"security-state"
/* A URL the client builds: the server (1024 at most), a path, two numbers. */
#define RS_URL_MAX		(1024 + 256)

enum { RS_CERT_REVOCATIONS, RS_ONECRL, RS_COLLECTIONS };

struct state;

/*
 * A client: what it may spend on the network (b: every request within
 * one deadline, the bytes counted, the failure said in b.err), and the
 * state it keeps the held changesets and the poll's cursor in.
 */
struct rs_client {
	struct fetch_budget b;
	struct state	*st;
};

/* What monitor/changes said. */
struct rs_monitor {
	int		 answered;	/* else every collection is asked */
	int64_t		 since;		/* the cursor it was asked with (0) */
	int64_t		 timestamp;	/* its answer's: the next cursor */
	int64_t		 listed[RS_COLLECTIONS];	/* 0: not listed */
};

/* One collection of the run. */
struct rs_collection {
	unsigned	 which;		/* RS_CERT_REVOCATIONS or RS_ONECRL */
	size_t		 max_len;	/* bytes of a changeset */
	size_t		 max_values, max_records;
	int64_t		 in_force;	/* set by the caller: the timestamp of
					   the data in force (0: none); the
					   held changeset's counts too */
	int		 whole;		/* set by the caller: ask it whole
					   (what it gave is lost on disk) */
	int		 behind;	/* the answer is older than what
					   monitor/changes listed (a cache):
					   the poll's cursor stays */
	char		*doc;		/* the verified collection, merged */
	size_t		 len;
	struct rs_changeset cs;		/* doc read: its records, timestamp */
};

/* Step 1: 0, or -1 (rc->b.err; m->answered 0). */
int	 rs_poll(struct rs_client *rc, struct rs_monitor *m);
/* After a run that settled every collection: the next poll's cursor. */
void	 rs_poll_done(struct state *st, const struct rs_monitor *m);
/*
 * Steps 2 and 3: 1 with col->doc and col->cs (a newer collection,
 * verified), 0 unchanged (nothing asked, or the same timestamp), -1
 * (rc->b.err; an older collection says both timestamps).
 */
int	 rs_collection_fetch(struct rs_client *rc, const struct rs_monitor *m,
	    struct rs_collection *col);
/*
 * Under the lock, before installing: is col still newer than what is
 * in force (another run may have installed meanwhile)?  0, or -1 (b.err).
 */
int	 rs_collection_recheck(struct rs_client *rc, struct rs_collection *col);
/* Keep col->doc as the held changeset (its data installed): 0 or -1. */
int	 rs_collection_keep(struct rs_client *rc, const struct rs_collection *col);
void	 rs_collection_free(struct rs_collection *col);
/* The key of a collection's source record: its changeset URL. */
void	 rs_collection_url(const struct conf *conf, unsigned which, char *out,
	    size_t len);

#endif /* CRLCACHE_RSCLIENT_H */
