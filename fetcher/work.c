/*
 * The working environment's transactions: the run's batch, the split
 * write transactions of a large CRL, reads that see the batch, LMDB's
 * map let go of, and the marker of changes not yet published.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The environment itself (struct store) is opened in store.c; its
 * layout is in <crlcache/format.h>.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <lmdb.h>

#include "fetcher.h"
#include "state.h"
#include "store_int.h"

/*
 * UNPUBLISHED exists while the working index holds changes
 * the published one lacks: a run killed between ingest and publish leaves
 * it, and the next run publishes them even when it changes nothing.
 */
#define UNPUBLISHED		WORK_NAME "/unpublished"

void
lmdb_err(char *err, size_t errlen, const char *what, int rc)
{
	snprintf(err, errlen, "index: %s: %s", what, mdb_strerror(rc));
}

/*
 * Let the whole pages inside [p, p + len) go out of memory (and out of the
 * resident set): a map of a file reads them back from the file, anonymous
 * memory reads back zeros, so p is a file map or memory nobody reads again.
 */
void
pages_release(const uint8_t *p, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), a, b;

	a = ((uintptr_t)p + page - 1) & ~(page - 1);
	b = ((uintptr_t)p + len) & ~(page - 1);
	if (a < b)
		(void)madvise((void *)a, b - a, MADV_DONTNEED);
}

/*
 * Where LMDB maps the working file (it tells only with MDB_FIXEDMAP): the
 * mapping in /proc/self/maps that holds a value read from it.  Unknown
 * (no /proc), nothing is let go.
 */
void
map_find(struct store *s)
{
	MDB_val k = { strlen(CRLC_META_FORMAT), CRLC_META_FORMAT }, v;
	MDB_txn *txn;
	unsigned long lo, hi;
	uintptr_t p = 0;
	char line[256];
	int at_start = 1;
	FILE *f;

	if (mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn) != 0)
		return;
	if (mdb_get(txn, s->meta, &k, &v) == 0)
		p = (uintptr_t)v.mv_data;
	mdb_txn_abort(txn);
	if (p == 0 || (f = fopen("/proc/self/maps", "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (at_start && sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
		    lo <= p && p < hi) {
			s->map_lo = lo;
			s->map_hi = hi;
			break;
		}
		at_start = strchr(line, '\n') != NULL;
	}
	fclose(f);
}

/*
 * Let go of the pages of the working file that LMDB's read-only shared
 * map holds resident: an ingest reads the stored CRL it replaces and the
 * "rev" pages it changes through it, as large as the new CRL.  They stay
 * in the page cache; pointers into the map stay valid.
 */
void
map_drop(struct store *s)
{
	MDB_envinfo info;
	MDB_stat st;
	size_t used;

	if (s->map_hi == 0 || mdb_env_info(s->env, &info) != 0 ||
	    mdb_env_stat(s->env, &st) != 0)
		return;
	used = (info.me_last_pgno + 1) * (size_t)st.ms_psize;
	if (used > s->map_hi - s->map_lo)
		used = s->map_hi - s->map_lo;
	(void)madvise((void *)s->map_lo, used, MADV_DONTNEED);
}

/*
 * Every MAP_DROP_READS records read, let the map go.  The kernel maps the
 * pages around each page read (fault-around, 64 KB): the 16,000 source
 * and CRL lookups of a run brought 130 MB of the working file, the CRLs
 * beside the records, into the resident set.  256 reads: at most 16 MB
 * resident.
 */
#define MAP_DROP_READS	256

void
map_read(struct store *s)
{
	if (++s->reads % MAP_DROP_READS == 0)
		map_drop(s);
}

/* CRLC_META_PENDING's value: u16 scope number || the scope's "crl" key. */
static int
put_pending(struct wtxn *w)
{
	MDB_val k = { strlen(CRLC_META_PENDING), CRLC_META_PENDING };
	MDB_val v = { 2 + w->keylen, NULL };
	int rc;

	if ((rc = mdb_put(w->txn, w->s->meta, &k, &v, MDB_RESERVE)) != 0)
		return rc;
	((uint8_t *)v.mv_data)[0] = (uint8_t)(w->scope_no >> 8);
	((uint8_t *)v.mv_data)[1] = (uint8_t)w->scope_no;
	memcpy((uint8_t *)v.mv_data + 2, w->key, w->keylen);
	return 0;
}

/* One write done: commit and begin anew every INGEST_CHUNK (struct wtxn). */
int
wtxn_step(struct wtxn *w)
{
	int rc;

	if (w->nested && ++w->writes >= INGEST_CHUNK) {
		w->overflow = 1;	/* ingested again on its own */
		return MDB_TXN_FULL;
	}
	if (!w->split || ++w->writes < INGEST_CHUNK)
		return 0;
	w->writes = 0;
	if (!w->committed && (rc = put_pending(w)) != 0)
		return rc;
	/*
	 * Its meta page is flushed by the next commit's sync: a power
	 * loss may lose the chunk, which CRLC_META_PENDING makes harmless,
	 * never the database's integrity (LMDB's MDB_NOMETASYNC).
	 */
	(void)mdb_env_set_flags(w->s->env, MDB_NOMETASYNC, 1);
	rc = mdb_txn_commit(w->txn);
	(void)mdb_env_set_flags(w->s->env, MDB_NOMETASYNC, 0);
	w->txn = NULL;
	if (rc != 0)
		return rc;
	w->committed = 1;
	map_drop(w->s);
	return mdb_txn_begin(w->s->env, NULL, 0, &w->txn);
}

/*
 * Commit the batch (BATCH), if one is open.  Its meta page is synced by
 * the next commit that syncs, or by store_close() (MDB_NOMETASYNC).
 */
int
batch_end(struct store *s)
{
	int rc;

	if (s->batch == NULL)
		return 0;
	(void)mdb_env_set_flags(s->env, MDB_NOMETASYNC, 1);
	rc = mdb_txn_commit(s->batch);
	(void)mdb_env_set_flags(s->env, MDB_NOMETASYNC, 0);
	s->batch = NULL;
	s->batch_writes = 0;
	s->unsynced = rc == 0;
	map_drop(s);
	if (rc != 0)
		logx(0, "index: the last CRLs and source records were not "
		    "written (%s); the next run fetches them again",
		    mdb_strerror(rc));
	return rc;
}

/* Count writes done in the batch; commit it at INGEST_CHUNK of them. */
int
batch_add(struct store *s, size_t writes)
{
	s->batch_writes += writes;
	return s->batch_writes >= INGEST_CHUNK ? batch_end(s) : 0;
}

int
batch_begin(struct store *s)
{
	return s->batch != NULL ? 0 :
	    mdb_txn_begin(s->env, NULL, 0, &s->batch);
}

/* A transaction to read in: the batch, which holds the latest, if open. */
int
read_begin(struct store *s, MDB_txn **txn)
{
	if (s->batch != NULL) {
		*txn = s->batch;
		return 0;
	}
	return mdb_txn_begin(s->env, NULL, MDB_RDONLY, txn);
}

void
read_end(struct store *s, MDB_txn *txn)
{
	if (txn != s->batch)
		mdb_txn_abort(txn);
	map_read(s);
}

int
unpublished_held(struct store *s)
{
	return state_exists(s->st, UNPUBLISHED) == 1;
}

void
unpublished_clear(struct store *s)
{
	(void)state_remove(s->st, UNPUBLISHED, 0);
}

/* Before the first change of a run commits: the marker, made durable. */
int
mark_dirty(struct store *s, char *err, size_t errlen)
{
	int fd;

	if (s->dirty)
		return 0;
	if ((fd = state_openat(s->st, UNPUBLISHED, O_WRONLY | O_CREAT,
	    0600)) == -1 || fsync(fd) == -1) {
		snprintf(err, errlen, "%s/%s: %s", state_path(s->st),
		    UNPUBLISHED, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	close(fd);
	s->dirty = 1;
	return 0;
}
