/*
 * The fetcher's private working index: opening it (refusing another
 * format, finishing a half written CRL), closing it, and publishing
 * snapshots of it.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Layout: see <crlcache/format.h>.  Every CRL is ingested in its own
 * write transaction, or, when large, in several whose effect a failure
 * or a kill half way undoes (struct wtxn, work.c): a CRL that fails
 * changes nothing (scope.c).
 * Publishing (publish.c) writes the files of index format 4 from one read
 * transaction and renames the new top file over index.mdb: readers see
 * the old or the new generation, never a mixture.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <lmdb.h>

#include "fetcher.h"
#include "pubkeep.h"
#include "publish.h"
#include "state.h"
#include "store.h"
#include "store_int.h"

/*
 * Free space below which a failed write is put down to a full filesystem:
 * LMDB reports a short write as EIO, and writes a page run at a time.
 */
#define FULL_FS_BYTES		((unsigned long long)1 << 20)
/* LMDB's data file: where it writes. */
#define WORK_DATA		WORK_NAME "/data.mdb"

/*
 * The databases.  A working index of another format than this one is
 * refused, not converted (format.h VERSIONS: format 4 is the first
 * released; a later one brings its migration).  Long: eight databases
 * opened in one transaction, the format checked in it.
 */
static int
open_dbs(struct store *s, char *err, size_t errlen)
{
	MDB_txn *txn;
	MDB_val k = { strlen(CRLC_META_FORMAT), CRLC_META_FORMAT }, v;
	uint8_t fmt[4];
	char found[16];
	int rc;

	if ((rc = mdb_txn_begin(s->env, NULL, 0, &txn)) != 0) {
		lmdb_err(err, errlen, "begin", rc);
		return -1;
	}
	if ((rc = mdb_dbi_open(txn, CRLC_DB_META, MDB_CREATE, &s->meta)) != 0 ||
	    (rc = mdb_dbi_open(txn, CRLC_DB_CANON, MDB_CREATE, &s->canon)) != 0 ||
	    (rc = mdb_dbi_open(txn, CRLC_DB_ALIAS, MDB_CREATE, &s->alias)) != 0 ||
	    (rc = mdb_dbi_open(txn, CRLC_DB_KEY, MDB_CREATE, &s->key)) != 0 ||
	    (rc = mdb_dbi_open(txn, CRLC_DB_REV, MDB_CREATE, &s->rev)) != 0 ||
	    (rc = mdb_dbi_open(txn, CRLC_DB_CRL, MDB_CREATE, &s->crl)) != 0 ||
	    (rc = mdb_dbi_open(txn, CRLC_DB_SOURCE, MDB_CREATE, &s->source)) != 0 ||
	    (rc = mdb_dbi_open(txn, CRLC_DB_CRLHASH, MDB_CREATE,
	    &s->crlhash)) != 0)
		goto fail;
	rc = mdb_get(txn, s->meta, &k, &v);
	if (rc == 0 && (v.mv_size != 4 ||
	    crlc_get_u32(v.mv_data) != CRLC_WORK_FORMAT_VERSION)) {
		if (v.mv_size == 4)
			snprintf(found, sizeof(found), "%u",
			    (unsigned)crlc_get_u32(v.mv_data));
		else
			snprintf(found, sizeof(found), "unknown");
		mdb_txn_abort(txn);
		snprintf(err, errlen, "working index %s/%s is of format %s, "
		    "not %u, the one this version reads, and is not "
		    "converted: run `crlcache reset --all` to empty it (the "
		    "next `crlcache update` fills it again)", state_path(s->st),
		    WORK_NAME, found, CRLC_WORK_FORMAT_VERSION);
		return -1;
	}
	if (rc == MDB_NOTFOUND) {
		crlc_put_u32(fmt, CRLC_WORK_FORMAT_VERSION);
		v.mv_size = sizeof(fmt);
		v.mv_data = fmt;
		if ((rc = mdb_put(txn, s->meta, &k, &v, 0)) != 0)
			goto fail;
	} else if (rc != 0)
		goto fail;
	/* A run killed half way through a large CRL (struct wtxn). */
	if ((rc = recover_pending(s, txn)) != 0) {
		mdb_txn_abort(txn);
		lmdb_err(err, errlen, "rebuilding a half written CRL", rc);
		return -1;
	}
	if ((rc = mdb_txn_commit(txn)) != 0) {
		lmdb_err(err, errlen, "create databases", rc);
		return -1;
	}
	return 0;
fail:
	mdb_txn_abort(txn);
	lmdb_err(err, errlen, "open databases", rc);
	return -1;
}

/* Remove name (an LMDB file of the working index), if there. */
static int
remove_env_file(struct state *st, const char *name, char *err, size_t errlen)
{
	if (state_remove(st, name, 0) == -1 && errno != ENOENT) {
		snprintf(err, errlen, "%s/%s: %s", state_path(st), name,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The working index, under the lock; empty: its LMDB files removed first
 * (`reset --all`: whatever format they are of, nothing of them is read).
 */
static int
open_locked(struct store **out, struct state *st, int empty, char *err,
    size_t errlen)
{
	struct store *s = xcalloc(1, sizeof(*s));
	char path[PATH_MAX];
	int rc;

	*out = NULL;
	s->lockfd = -1;
	s->st = st;
	if (state_create(st) == -1) {
		snprintf(err, errlen, "%s: cannot make the state directory",
		    state_path(st));
		goto fail;
	}
	if ((s->lockfd = state_openat(st, LOCK_NAME, O_RDWR | O_CREAT,
	    0600)) == -1) {
		snprintf(err, errlen, "%s/%s: %s", state_path(st), LOCK_NAME,
		    strerror(errno));
		goto fail;
	}
	if (flock(s->lockfd, LOCK_EX | LOCK_NB) == -1) {
		snprintf(err, errlen, "%s/%s: another crlcache run holds the "
		    "lock", state_path(st), LOCK_NAME);
		goto fail;
	}
	if (state_mkdir(st, WORK_NAME, 0700) == -1) {
		snprintf(err, errlen, "%s/%s: %s", state_path(st), WORK_NAME,
		    strerror(errno));
		goto fail;
	}
	if (empty && (remove_env_file(st, WORK_DATA, err, errlen) == -1 ||
	    remove_env_file(st, WORK_NAME "/lock.mdb", err, errlen) == -1))
		goto fail;
	/* LMDB takes nothing but a path (state.h). */
	if (state_file_path(st, WORK_NAME, path, sizeof(path)) == -1) {
		snprintf(err, errlen, "%s: path too long", state_path(st));
		goto fail;
	}
	if ((rc = mdb_env_create(&s->env)) != 0 ||
	    (rc = mdb_env_set_maxdbs(s->env, CRLC_NUM_DBS)) != 0 ||
	    (rc = mdb_env_set_mapsize(s->env, CRLC_MAP_SIZE)) != 0 ||
	    (rc = mdb_env_open(s->env, path, 0, 0600)) != 0) {
		lmdb_err(err, errlen, path, rc);
		goto fail;
	}
	if (open_dbs(s, err, errlen) == -1)
		goto fail;
	map_find(s);
	publish_clean(st);
	s->dirty = unpublished_held(s);
	*out = s;
	return 0;
fail:
	store_close(s);
	return -1;
}

int
store_open(struct store **out, struct state *st, char *err, size_t errlen)
{
	return open_locked(out, st, 0, err, errlen);
}

int
store_open_empty(struct store **out, struct state *st, char *err,
    size_t errlen)
{
	return open_locked(out, st, 1, err, errlen);
}

void
store_close(struct store *s)
{
	if (s == NULL)
		return;
	if (s->env != NULL && (batch_end(s) == 0 && s->unsynced))
		(void)mdb_env_sync(s->env, 1);
	if (s->env != NULL)
		mdb_env_close(s->env);
	if (s->lockfd != -1)
		close(s->lockfd);
	strlist_free(&s->asked);
	free(s);
}

/* Bump the generation and stamp the meta records for a publish. */
static int
stamp_generation(struct store *s, uint64_t *generation, int64_t *created)
{
	MDB_val k = { strlen(CRLC_META_GENERATION), CRLC_META_GENERATION }, v;
	MDB_val ck = { strlen(CRLC_META_CREATED), CRLC_META_CREATED };
	uint8_t g[8], t[8];
	MDB_txn *txn;
	int rc;

	if ((rc = mdb_txn_begin(s->env, NULL, 0, &txn)) != 0)
		return rc;
	*generation = 1;
	if (mdb_get(txn, s->meta, &k, &v) == 0 && v.mv_size == 8)
		*generation = crlc_get_u64(v.mv_data) + 1;
	crlc_put_u64(g, *generation);
	*created = (int64_t)time(NULL);
	crlc_put_i64(t, *created);
	v.mv_size = 8;
	v.mv_data = g;
	if ((rc = mdb_put(txn, s->meta, &k, &v, 0)) == 0) {
		v.mv_data = t;
		rc = mdb_put(txn, s->meta, &ck, &v, 0);
	}
	if (rc != 0) {
		mdb_txn_abort(txn);
		return rc;
	}
	return mdb_txn_commit(txn);
}

/* EIO from LMDB on a filesystem with no room left is ENOSPC. */
static int
full_fs(struct state *st, int rc)
{
	struct statvfs sv;
	const char *base;
	int dfd;

	if (rc == EIO && (dfd = state_dirfd(st, WORK_DATA, &base)) != -1 &&
	    fstatvfs(dfd, &sv) == 0 &&
	    (unsigned long long)sv.f_bavail * sv.f_frsize < FULL_FS_BYTES)
		return ENOSPC;
	return rc;
}

/*
 * Publish the working environment (publish.c) when it holds changes the
 * published index lacks, when force, or when index.mdb is missing, of an
 * older format or does not open.
 */
int
store_publish(struct store *s, int force, uint64_t *generation, char *err,
    size_t errlen)
{
	struct publish_src src;
	int64_t created;
	MDB_txn *txn;
	int rc;

	*generation = 0;
	if (s->pending) {
		snprintf(err, errlen, "a CRL is half written in the working "
		    "index; not published");
		return -1;
	}
	if ((rc = batch_end(s)) != 0) {
		lmdb_err(err, errlen, "commit", full_fs(s->st, rc));
		return -1;
	}
	if (!s->dirty && !force && !publish_needed(s->st))
		return 0;
	if ((rc = stamp_generation(s, generation, &created)) != 0) {
		lmdb_err(err, errlen, "generation", full_fs(s->st, rc));
		return -1;
	}
	if ((rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn)) != 0) {
		lmdb_err(err, errlen, "begin", rc);
		return -1;
	}
	src.txn = txn;
	src.canon = s->canon;
	src.alias = s->alias;
	src.key = s->key;
	src.rev = s->rev;
	src.crl = s->crl;
	src.crlhash = s->crlhash;
	rc = publish(s->st, &src, *generation, created, err, errlen);
	mdb_txn_abort(txn);
	if (rc == -1)
		return -1;
	s->dirty = 0;
	unpublished_clear(s);
	return 0;
}
