/*
 * The fetcher's private working index and the publishing of snapshots.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Layout: see <crlcache/format.h>.  Every CRL is ingested in its own
 * write transaction, or, when large, in several whose effect a failure
 * or a kill half way undoes (struct wtxn): a CRL that fails changes
 * nothing.
 * Publishing (publish.c) writes the files of index format 3 from one read
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
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <lmdb.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <crlcache/hash.h>
#include <crlcache/index.h>
#include <crlcache/name.h>
#include <crlcache/reasons.h>

#include "fetcher.h"

#define META_NEXT_ISSUER	"next_issuer_id"	/* writer's id counter */
#define REASON_REMOVE_FROM_CRL	8			/* RFC 5280 5.3.1 */
/*
 * WORK_NAME/UNPUBLISHED_NAME exists while the working index holds changes
 * the published one lacks: a run killed between ingest and publish leaves
 * it, and the next run publishes them even when it changes nothing.
 */
#define UNPUBLISHED_NAME	"unpublished"
/*
 * Free space below which a failed write is put down to a full filesystem:
 * LMDB reports a short write as EIO, and writes a page run at a time.
 */
#define FULL_FS_BYTES		((unsigned long long)1 << 20)

struct store {
	char		*dir;
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
};

/*
 * BATCH.  Every LMDB commit writes the pages it dirtied, its freelist and
 * two fsync()s.  A commit per source record and per CRL made an update of
 * 2,000 CRLs (test/bench/scale.sh) write 520 MB when nothing changed and
 * 59 GB from empty: the partitions of one issuer interleave in "rev"
 * (their serials are random), so each partition's commit rewrote most of
 * the issuer's leaf pages.  So the records of a run share one transaction,
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

static void
lmdb_err(char *err, size_t errlen, const char *what, int rc)
{
	snprintf(err, errlen, "index: %s: %s", what, mdb_strerror(rc));
}

/*
 * Let the whole pages inside [p, p + len) go out of memory (and out of the
 * resident set): a map of a file reads them back from the file, anonymous
 * memory reads back zeros, so p is a file map or memory nobody reads again.
 */
static void
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
static void
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
static void
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
 * A record was read through the map: every MAP_DROP_READS of them, let
 * the map go.  The kernel maps the pages around each page read (fault-
 * around, 64 KB): the 16,000 source and CRL lookups of a run brought
 * 130 MB of the working file, the CRLs beside the records, into the
 * resident set, as many more with the search for format 1 records.
 */
#define MAP_DROP_READS	1024

static void
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

/* The caller's one transaction, never committed in between. */
#define ONE_TXN(st, t)	(&(struct wtxn){ .s = (st), .txn = (t) })

/* One write done: commit and begin anew every INGEST_CHUNK (struct wtxn). */
static int
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
static int
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
static int
batch_add(struct store *s, size_t writes)
{
	s->batch_writes += writes;
	return s->batch_writes >= INGEST_CHUNK ? batch_end(s) : 0;
}

static int
batch_begin(struct store *s)
{
	return s->batch != NULL ? 0 :
	    mdb_txn_begin(s->env, NULL, 0, &s->batch);
}

/* A transaction to read in: the batch, which holds the latest, if open. */
static int
read_begin(struct store *s, MDB_txn **txn)
{
	if (s->batch != NULL) {
		*txn = s->batch;
		return 0;
	}
	return mdb_txn_begin(s->env, NULL, MDB_RDONLY, txn);
}

static void
read_end(struct store *s, MDB_txn *txn)
{
	if (txn != s->batch)
		mdb_txn_abort(txn);
	map_read(s);
}

/* The "crl" key of a scope: prefix (issuer id || key number) || URI. */
static int
scope_key(const uint8_t prefix[CRLC_PREFIX_LEN], const char *scope,
    unsigned reasons, uint8_t *key, size_t *keylen)
{
	size_t slen = scope != NULL ? strlen(scope) : 0;

	if (slen > CRLC_SCOPE_URI_MAX || (reasons != CRLC_REASONS_ALL &&
	    slen > CRLC_SCOPE_URI_MAX - CRLC_REASONS_SUFFIX_LEN))
		return -1;
	memcpy(key, prefix, CRLC_PREFIX_LEN);
	if (slen > 0)
		memcpy(key + CRLC_PREFIX_LEN, scope, slen);
	*keylen = CRLC_PREFIX_LEN + slen;
	/* onlySomeReasons: the name, then 00 || u16 mask (format.h "crl") */
	*keylen += crlc_scope_put_reasons(key + *keylen, reasons);
	return 0;
}

static void
put_prefix(uint8_t prefix[CRLC_PREFIX_LEN], uint32_t id, uint32_t key_no)
{
	crlc_put_u32(prefix, id);
	crlc_put_u32(prefix + CRLC_ISSUER_ID_LEN, key_no);
}

size_t
store_rev_key(const uint8_t prefix[CRLC_PREFIX_LEN], const uint8_t *serial,
    size_t len, uint8_t key[CRLC_PREFIX_LEN + CRLC_SERIAL_MAX])
{
	memcpy(key, prefix, CRLC_PREFIX_LEN);
	return CRLC_PREFIX_LEN + crlc_serial_key(serial, len,
	    key + CRLC_PREFIX_LEN);
}

/*
 * Source records older versions keyed by a URL with its userinfo move to
 * the redacted key (the record already there, if any, wins).
 */
static int
redact_source_keys(MDB_txn *txn, MDB_dbi dbi)
{
	struct strlist old = { NULL, 0 };
	MDB_cursor *cur;
	MDB_val k, v;
	char *key, *red;
	size_t i;
	int rc;

	if ((rc = mdb_cursor_open(txn, dbi, &cur)) != 0)
		return rc;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (memchr(k.mv_data, '@', k.mv_size) == NULL ||
		    memchr(k.mv_data, '\0', k.mv_size) != NULL)
			continue;
		key = xcalloc(1, k.mv_size + 1);
		memcpy(key, k.mv_data, k.mv_size);
		red = redact_userinfo(key);
		if (strcmp(red, key) != 0)
			strlist_add(&old, key);
		free(red);
		free(key);
	}
	mdb_cursor_close(cur);
	rc = rc == MDB_NOTFOUND ? 0 : rc;
	for (i = 0; i < old.n && rc == 0; i++) {
		uint8_t *copy;
		MDB_val nk;

		k.mv_size = strlen(old.v[i]);
		k.mv_data = old.v[i];
		if ((rc = mdb_get(txn, dbi, &k, &v)) != 0)
			break;
		copy = xcalloc(1, v.mv_size + 1);
		memcpy(copy, v.mv_data, v.mv_size);
		v.mv_data = copy;
		red = redact_userinfo(old.v[i]);
		nk.mv_size = strlen(red);
		nk.mv_data = red;
		/* A key redaction makes too long is dropped: state only. */
		rc = nk.mv_size > CRLC_KEY_MAX ? 0 :
		    mdb_put(txn, dbi, &nk, &v, MDB_NOOVERWRITE);
		if (rc == MDB_KEYEXIST)
			rc = 0;
		if (rc == 0)
			rc = mdb_del(txn, dbi, &k, NULL);
		free(red);
		free(copy);
	}
	strlist_free(&old);
	return rc;
}

static int	migrate_v1(struct store *s, MDB_txn *txn);
static int	hash_crls(struct store *s, MDB_txn *txn);
static int	mark_dirty(struct store *s, char *err, size_t errlen);
static int	recover_pending(struct store *s, MDB_txn *txn);

static int
open_dbs(struct store *s, char *err, size_t errlen)
{
	MDB_txn *txn;
	MDB_val k = { strlen(CRLC_META_FORMAT), CRLC_META_FORMAT }, v;
	uint8_t fmt[4];
	uint32_t old;
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
	    &s->crlhash)) != 0 ||
	    (rc = redact_source_keys(txn, s->source)) != 0)
		goto fail;
	rc = mdb_get(txn, s->meta, &k, &v);
	old = rc == 0 && v.mv_size == 4 ? crlc_get_u32(v.mv_data) : 0;
	/* format.h VERSIONS: 1 -> 2 (keys by signer), 2 -> 3 ("crlhash"). */
	if (old >= 1 && old < CRLC_WORK_FORMAT_VERSION) {
		if ((old == 1 && (rc = migrate_v1(s, txn)) != 0) ||
		    (rc = hash_crls(s, txn)) != 0) {
			mdb_txn_abort(txn);
			lmdb_err(err, errlen, old == 1 ? "migrating the working "
			    "index from format 1" : "migrating the working "
			    "index from format 2", rc);
			return -1;
		}
		logx(1, "working index migrated from format %u to %u%s",
		    (unsigned)old, CRLC_WORK_FORMAT_VERSION, old == 1 ?
		    "; CRLs are keyed by their signer's key from now on" : "");
		/*
		 * Content ids changed: publish the new ones in this run
		 * (the marker: or the next, if this one is killed).
		 */
		if (mark_dirty(s, err, errlen) == -1) {
			mdb_txn_abort(txn);
			return -1;
		}
		rc = MDB_NOTFOUND;	/* write the new version */
	}
	if (rc == 0 && (v.mv_size != 4 ||
	    crlc_get_u32(v.mv_data) != CRLC_WORK_FORMAT_VERSION)) {
		mdb_txn_abort(txn);
		snprintf(err, errlen, "working index %s/%s has another format "
		    "version; move it away to rebuild", s->dir, WORK_NAME);
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

static void
unpublished_path(const struct store *s, char *path, size_t len)
{
	snprintf(path, len, "%s/%s/%s", s->dir, WORK_NAME, UNPUBLISHED_NAME);
}

/* Before the first change of a run commits: the marker, made durable. */
static int
mark_dirty(struct store *s, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int fd;

	if (s->dirty)
		return 0;
	unpublished_path(s, path, sizeof(path));
	if ((fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0600)) == -1 || fsync(fd) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	close(fd);
	s->dirty = 1;
	return 0;
}

int
store_open(struct store **out, const char *state_dir, char *err, size_t errlen)
{
	struct store *s = xcalloc(1, sizeof(*s));
	char path[PATH_MAX];
	int rc;

	*out = NULL;
	s->lockfd = -1;
	s->dir = xstrdup(state_dir);
	if (mkdir(state_dir, 0755) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", state_dir, strerror(errno));
		goto fail;
	}
	snprintf(path, sizeof(path), "%s/%s", state_dir, LOCK_NAME);
	if ((s->lockfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (flock(s->lockfd, LOCK_EX | LOCK_NB) == -1) {
		snprintf(err, errlen, "%s: another crlcache run holds the lock",
		    path);
		goto fail;
	}
	snprintf(path, sizeof(path), "%s/%s", state_dir, WORK_NAME);
	if (mkdir(path, 0700) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
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
	publish_clean(state_dir);
	unpublished_path(s, path, sizeof(path));
	s->dirty = access(path, F_OK) == 0;
	*out = s;
	return 0;
fail:
	store_close(s);
	return -1;
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
	free(s->dir);
	free(s);
}

static int
put_u32(MDB_txn *txn, MDB_dbi dbi, const void *key, size_t klen, uint32_t val)
{
	MDB_val k = { klen, (void *)key }, v;
	uint8_t be[4];

	crlc_put_u32(be, val);
	v.mv_size = sizeof(be);
	v.mv_data = be;
	return mdb_put(txn, dbi, &k, &v, 0);
}

/*
 * A dedicated CRL signer: a keyUsage without keyCertSign, so its key
 * issues no certificate (RFC 5280 4.2.1.3, 6.3.3 (f); PKITS 4.4.19).  Its
 * CRLs cover the certificates every key of the name issued.
 */
static int
crl_only_signer(X509 *signer)
{
	uint32_t ku = X509_get_key_usage(signer);

	return ku != UINT32_MAX && !(ku & KU_KEY_CERT_SIGN);
}

/*
 * The key number of signer's key under issuer id (format.h "key"),
 * registering it when new; 0 for a dedicated CRL signer.
 */
static int
key_no_of(struct store *s, MDB_txn *txn, uint32_t id, X509 *signer,
    uint32_t *key_no)
{
	uint8_t kk[CRLC_ISSUER_ID_LEN + CRLC_HASH_LEN];
	uint8_t val[CRLC_KEY_NO_LEN + 1 + CRLC_SKI_MAX];
	const ASN1_OCTET_STRING *ski;
	const ASN1_BIT_STRING *spk;
	MDB_val k = { sizeof(kk), kk }, v;
	MDB_cursor *cur;
	unsigned int skilen = 0;
	int rc;

	*key_no = 0;
	if (crl_only_signer(signer))
		return 0;
	crlc_put_u32(kk, id);
	if (cert_key_hash(signer, kk + CRLC_ISSUER_ID_LEN) == -1)
		return EINVAL;
	rc = mdb_get(txn, s->key, &k, &v);
	if (rc == 0 && v.mv_size >= CRLC_KEY_NO_LEN) {
		*key_no = crlc_get_u32(v.mv_data);
		return 0;
	}
	if (rc != MDB_NOTFOUND)
		return rc != 0 ? rc : EINVAL;
	/* New: one more than the issuer's highest (keys are never removed). */
	*key_no = 1;
	if ((rc = mdb_cursor_open(txn, s->key, &cur)) != 0)
		return rc;
	k.mv_size = CRLC_ISSUER_ID_LEN;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0 &&
	    k.mv_size > CRLC_ISSUER_ID_LEN && crlc_get_u32(k.mv_data) == id;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
		if (v.mv_size >= CRLC_KEY_NO_LEN &&
		    crlc_get_u32(v.mv_data) >= *key_no)
			*key_no = crlc_get_u32(v.mv_data) + 1;
	mdb_cursor_close(cur);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return rc;
	if (*key_no == UINT32_MAX)
		return ENOSPC;
	crlc_put_u32(val, *key_no);
	/* Its subjectKeyIdentifier, else RFC 5280 4.2.1.2 method (1). */
	if ((ski = X509_get0_subject_key_id(signer)) != NULL &&
	    ASN1_STRING_length(ski) <= CRLC_SKI_MAX) {
		skilen = (unsigned)ASN1_STRING_length(ski);
		memcpy(val + CRLC_KEY_NO_LEN + 1, ASN1_STRING_get0_data(ski),
		    skilen);
	} else if ((spk = X509_get0_pubkey_bitstr(signer)) == NULL ||
	    !EVP_Digest(spk->data, (size_t)spk->length,
	    val + CRLC_KEY_NO_LEN + 1, &skilen, EVP_sha1(), NULL))
		return EINVAL;
	val[CRLC_KEY_NO_LEN] = (uint8_t)skilen;
	k.mv_size = sizeof(kk);
	k.mv_data = kk;
	v.mv_size = CRLC_KEY_NO_LEN + 1 + skilen;
	v.mv_data = val;
	return mdb_put(txn, s->key, &k, &v, 0);
}

/* The issuer id for the CRL's issuer, creating it and its aliases. */
static int
issuer_id(struct store *s, MDB_txn *txn, const struct crl *c, uint32_t *id)
{
	uint8_t canon[CRLC_HASH_LEN], h[CRLC_HASH_LEN];
	MDB_val k = { sizeof(canon), canon }, v;
	MDB_val nk = { strlen(META_NEXT_ISSUER), META_NEXT_ISSUER };
	uint32_t next = 1;
	int rc;

	if (name_canon_hash(c->issuer_name, canon) == -1)
		return EINVAL;
	rc = mdb_get(txn, s->canon, &k, &v);
	if (rc == 0 && v.mv_size == CRLC_ISSUER_ID_LEN) {
		*id = crlc_get_u32(v.mv_data);
	} else if (rc == MDB_NOTFOUND) {
		if ((rc = mdb_get(txn, s->meta, &nk, &v)) == 0 && v.mv_size == 4)
			next = crlc_get_u32(v.mv_data);
		else if (rc != MDB_NOTFOUND)
			return rc;
		if (next == UINT32_MAX)
			return ENOSPC;
		*id = next;
		if ((rc = put_u32(txn, s->canon, canon, sizeof(canon), next)) != 0 ||
		    (rc = put_u32(txn, s->meta, META_NEXT_ISSUER,
		    strlen(META_NEXT_ISSUER), next + 1)) != 0)
			return rc;
	} else
		return rc != 0 ? rc : EINVAL;
	/* Both encodings of the issuer's name lead readers to this id. */
	if (name_der_hash(c->issuer_name, h) == -1 ||
	    (rc = put_u32(txn, s->alias, h, sizeof(h), *id)) != 0)
		return rc != 0 ? rc : EINVAL;
	if (name_der_hash(X509_get_subject_name(c->issuer), h) == -1 ||
	    (rc = put_u32(txn, s->alias, h, sizeof(h), *id)) != 0)
		return rc != 0 ? rc : EINVAL;
	return 0;
}


/*
 * Set (rec: CRLC_REV_LEN - 2 bytes, date reason flags) or remove (rec
 * NULL) the record scope_no holds in one "rev" value (format.h), leaving
 * the other scopes' records alone.  *had says whether scope_no had one.
 */
#define REV_INLINE	8	/* records on the stack; more are rare */

static int
rev_set(struct store *s, MDB_txn *txn, const uint8_t *key, size_t klen,
    unsigned scope_no, const uint8_t *rec, int *had)
{
	uint8_t small[REV_INLINE * CRLC_REV_LEN], *buf = small;
	MDB_val k = { klen, (void *)key }, v;
	const uint8_t *r;
	size_t n = 0, i, out = 0;
	int rc;

	*had = 0;
	rc = mdb_get(txn, s->rev, &k, &v);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return rc;
	if (rc == 0) {
		if (v.mv_size % CRLC_REV_LEN != 0)
			return EINVAL;
		n = v.mv_size;
	}
	if (n + CRLC_REV_LEN > sizeof(small))
		buf = xcalloc(1, n + CRLC_REV_LEN);
	for (i = 0; i < n; i += CRLC_REV_LEN) {
		r = (const uint8_t *)v.mv_data + i;
		if (((unsigned)r[0] << 8 | r[1]) == scope_no) {
			*had = 1;
			continue;
		}
		memcpy(buf + out, r, CRLC_REV_LEN);
		out += CRLC_REV_LEN;
	}
	if (rec != NULL) {
		buf[out] = (uint8_t)(scope_no >> 8);
		buf[out + 1] = (uint8_t)scope_no;
		memcpy(buf + out + 2, rec, CRLC_REV_LEN - 2);
		out += CRLC_REV_LEN;
	}
	rc = 0;
	if (out == 0 && n > 0)
		rc = mdb_del(txn, s->rev, &k, NULL);
	else if (out > 0) {
		v.mv_size = out;
		v.mv_data = buf;
		rc = mdb_put(txn, s->rev, &k, &v, 0);
	}
	if (buf != small)
		free(buf);
	return rc;
}

/*
 * A revoked entry of the CRL being written, 8 bytes (a 20,000,000-entry
 * CRL sorts 160 MB of them): where its serial's content octets sit in the
 * revokedCertificates, their length (16 bits), the certificate issuer it
 * is about (8 bits: an index into struct cert_issuers, 0 for the CRL
 * issuer) and how many header bytes the entry has before them (8 bits:
 * two DER headers of at most 6).
 */
struct entry_ref {
	uint32_t	 at;
	uint32_t	 len_hdr;
};
/*
 * Longest serial the refs carry: RFC 5280 4.1.2.2 allows 20 octets; a
 * CRL with one of 64 KiB is refused as malformed.
 */
#define REF_SERIAL_MAX	0xffffu
#define REF_LEN(r)	((r)->len_hdr & REF_SERIAL_MAX)
#define REF_ISS(r)	(((r)->len_hdr >> 16) & 0xffu)
#define REF_HDR(r)	((r)->len_hdr >> 24)

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
struct cert_issuers {
	struct crlc_span issuer;	/* the CRL's issuer Name */
	uint8_t		 own[CRLC_HASH_LEN];	/* its canonical hash, once
						   an entry names an issuer */
	int		 own_known;
	size_t		 n;
	uint8_t		 canon[CERT_ISSUERS_MAX + 1][CRLC_HASH_LEN];
};

/*
 * The index in ci of the certificate issuer Name name (a Name TLV),
 * added when new; -1 and *rc when it cannot be.
 */
static int
cert_issuer_index(struct cert_issuers *ci, const struct crlc_span *name,
    int *rc)
{
	uint8_t h[CRLC_HASH_LEN];
	size_t i;

	if (crlc_name_canon_hash(name->p, name->len, h) == -1 ||
	    (!ci->own_known && crlc_name_canon_hash(ci->issuer.p,
	    ci->issuer.len, ci->own) == -1)) {
		*rc = EINVAL;
		return -1;
	}
	ci->own_known = 1;
	if (memcmp(h, ci->own, CRLC_HASH_LEN) == 0)
		return 0;
	for (i = 1; i <= ci->n; i++)
		if (memcmp(h, ci->canon[i], CRLC_HASH_LEN) == 0)
			return (int)i;
	if (ci->n == CERT_ISSUERS_MAX) {
		*rc = E2BIG;
		return -1;
	}
	memcpy(ci->canon[++ci->n], h, CRLC_HASH_LEN);
	return (int)ci->n;
}

/* The "rev" key of entry ref's serial under prefix (format.h "rev"). */
static size_t
ref_key(const uint8_t prefix[CRLC_PREFIX_LEN], const struct cert_issuers *ci,
    unsigned iss, const uint8_t *serial, size_t len,
    uint8_t key[CRLC_PREFIX_LEN + CRLC_SERIAL_MAX])
{
	_Static_assert(CRLC_FOREIGN_FORM_LEN <= CRLC_SERIAL_MAX,
	    "a foreign form fits a rev key");
	if (iss == 0)
		return store_rev_key(prefix, serial, len, key);
	memcpy(key, prefix, CRLC_PREFIX_LEN);
	crlc_foreign_form(ci->canon[iss], serial, len, key + CRLC_PREFIX_LEN);
	return CRLC_PREFIX_LEN + CRLC_FOREIGN_FORM_LEN;
}

/*
 * By certificate issuer, then LMDB's default key order (memcmp, then the
 * shorter first) of the serial forms, then CRL order.  A serial over
 * CRLC_SERIAL_MAX is keyed 00 00 || hash, before every other (a minimal
 * INTEGER never starts 00 00); among themselves such serials sort by
 * their bytes, not their hash, and merely end the appending
 * (write_entry), as the entries of other issuers do (their keys are
 * hashes).  arg: the revokedCertificates.
 */
static int
entry_ref_cmp(const void *a, const void *b, void *arg)
{
	const struct entry_ref *x = a, *y = b;
	const uint8_t *revoked = arg;
	uint32_t xn = REF_LEN(x), yn = REF_LEN(y);
	int xl = xn > CRLC_SERIAL_MAX, yl = yn > CRLC_SERIAL_MAX, c;

	if (REF_ISS(x) != REF_ISS(y))
		return REF_ISS(x) < REF_ISS(y) ? -1 : 1;
	if (xl != yl)
		return xl ? -1 : 1;
	c = memcmp(revoked + x->at, revoked + y->at, xn < yn ? xn : yn);
	if (c != 0)
		return c;
	if (xn != yn)
		return xn < yn ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * One entry into the "rev" database as scope_no's record; *append: try
 * MDB_APPEND first (a key no record holds yet).
 */
static int
write_entry(struct store *s, MDB_txn *txn,
    const uint8_t prefix[CRLC_PREFIX_LEN], const struct cert_issuers *ci,
    unsigned iss, unsigned scope_no, const struct crlc_crl_entry *e,
    int delta, int *append, int64_t *count)
{
	uint8_t key[CRLC_PREFIX_LEN + CRLC_SERIAL_MAX], val[CRLC_REV_LEN];
	MDB_val k = { 0, key }, v = { sizeof(val), val };
	int rc, had;

	if (e->serial.len == 0)
		return EINVAL;
	k.mv_size = ref_key(prefix, ci, iss, e->serial.p, e->serial.len, key);
	if (delta && e->reason == REASON_REMOVE_FROM_CRL) {
		if ((rc = rev_set(s, txn, key, k.mv_size, scope_no, NULL,
		    &had)) == 0 && had)
			(*count)--;
		return rc;
	}
	val[0] = (uint8_t)(scope_no >> 8);
	val[1] = (uint8_t)scope_no;
	crlc_put_i64(val + 2, e->revoked_at);
	val[10] = e->reason == CRLC_CRL_REASON_NONE ? CRLC_REASON_NONE :
	    (uint8_t)e->reason;
	val[11] = delta ? CRLC_REV_DELTA : 0;
	if (*append) {
		if ((rc = mdb_put(txn, s->rev, &k, &v, MDB_APPEND)) == 0) {
			(*count)++;
			return 0;
		}
		if (rc != MDB_KEYEXIST)
			return rc;
		*append = 0;	/* a key at or after this one is held */
	}
	if ((rc = rev_set(s, txn, key, k.mv_size, scope_no, val + 2,
	    &had)) == 0 && !had)
		(*count)++;
	return rc;
}

/*
 * Where a stored CRL's entries are read again, in LMDB's map, a split
 * ingest lets go of the pages read every this many entries: they would
 * otherwise all be resident beside the CRL being ingested.
 */
#define MAP_DROP_EVERY	65536
/*
 * The smallest revoked entry: SEQUENCE header (2), a one-octet INTEGER
 * (3), a UTCTime (15).  A CRL of len bytes lists at most len / this.
 */
#define ENTRY_DER_MIN	20

/*
 * The revoked entries of crl sorted by entry_ref_cmp into *out (the
 * caller frees it), *n of them, at most cap: a CRL lists at most
 * MAX_CRL_ENTRIES (checked before this, crl_verify), so this bounds the
 * array.  EINVAL: an entry is malformed.
 */
static int
entry_refs(struct wtxn *w, const struct crlc_crl *crl, size_t cap,
    struct entry_ref **out, size_t *n, struct cert_issuers *ci)
{
	struct entry_ref *refs;
	struct crlc_crl_entry e;
	struct crlc_span rest = crl->revoked;
	const uint8_t *at;
	const char *why;
	int r, iss = 0, rc = EINVAL;

	*out = NULL;
	*n = 0;
	ci->n = 0;
	ci->own_known = 0;
	if (crl->revoked.len > UINT32_MAX)
		return EFBIG;
	ci->issuer = crl->issuer;
	/* calloc maps a large array: pages never written stay unmapped */
	refs = xcalloc(cap > 0 ? cap : 1, sizeof(*refs));
	for (;;) {
		at = rest.p;
		if ((r = crlc_crl_entry_next(&rest, &e, &why)) != 1)
			break;
		if (*n == cap || e.serial.len == 0 ||
		    e.serial.len > REF_SERIAL_MAX || e.serial.p - at > UINT8_MAX) {
			r = -1;
			break;
		}
		/* RFC 5280 5.3.3: it names this entry's and the next ones'
		   certificate issuer */
		if (e.cert_issuer.len > 0 &&
		    (iss = cert_issuer_index(ci, &e.cert_issuer, &rc)) == -1) {
			r = -1;
			break;
		}
		refs[*n].at = (uint32_t)(e.serial.p - crl->revoked.p);
		refs[*n].len_hdr = (uint32_t)(e.serial.p - at) << 24 |
		    (uint32_t)iss << 16 | (uint32_t)e.serial.len;
		if (++*n % MAP_DROP_EVERY == 0 && w->split)
			map_drop(w->s);
	}
	if (r == -1) {
		free(refs);
		*n = 0;
		return rc;
	}
	qsort_r(refs, *n, sizeof(*refs), entry_ref_cmp,
	    (void *)crl->revoked.p);
	*out = refs;
	return 0;
}

/*
 * Delete scope_no's records of every serial a stored CRL lists (they may
 * be gone already); other scopes that list a serial keep theirs.  In key
 * order, like write_entries(): one pass over the "rev" pages, where CRL
 * order would dirty nearly every page of the scope in each transaction.
 */
static int
delete_entries(struct wtxn *w, const uint8_t prefix[CRLC_PREFIX_LEN],
    unsigned scope_no, const uint8_t *der, size_t len)
{
	uint8_t key[CRLC_PREFIX_LEN + CRLC_SERIAL_MAX];
	struct cert_issuers *ci;
	struct entry_ref *refs;
	struct crlc_crl crl;
	const char *why;
	size_t i, n;
	int had, rc;

	if (len == 0)
		return 0;
	if (crlc_crl_parse_stored(der, len, &crl, &why) == -1)
		return EINVAL;
	ci = xcalloc(1, sizeof(*ci));
	if ((rc = entry_refs(w, &crl, crl.revoked.len / ENTRY_DER_MIN, &refs,
	    &n, ci)) != 0) {
		free(ci);
		return rc;
	}
	for (i = 0; i < n && rc == 0; i++)
		if ((rc = rev_set(w->s, w->txn, key, ref_key(prefix, ci,
		    REF_ISS(&refs[i]), crl.revoked.p + refs[i].at,
		    REF_LEN(&refs[i]), key), scope_no, NULL, &had)) == 0)
			rc = wtxn_step(w);
	free(refs);
	free(ci);
	return rc;
}

/* Does a "rev" value hold a record of scope_no? */
static int
rev_has(const MDB_val *v, unsigned scope_no)
{
	const uint8_t *r = v->mv_data;
	size_t i;

	for (i = 0; i + CRLC_REV_LEN <= v->mv_size; i += CRLC_REV_LEN)
		if (((unsigned)r[i] << 8 | r[i + 1]) == scope_no)
			return 1;
	return 0;
}

/*
 * Delete every record of scope_no under prefix, walking the prefix's
 * "rev" keys in order: each page is read once, and no stored CRL is read
 * (a large one's serials in key order lie all over it).  The walk also
 * passes the records of the issuer key's other scopes.
 */
static int
drop_scope(struct wtxn *w, const uint8_t prefix[CRLC_PREFIX_LEN],
    unsigned scope_no)
{
	uint8_t at[CRLC_PREFIX_LEN + CRLC_SERIAL_MAX];
	size_t atlen = CRLC_PREFIX_LEN, seen = 0;
	MDB_cursor *cur = NULL;
	MDB_val k, v;
	int rc, had;

	memcpy(at, prefix, CRLC_PREFIX_LEN);
	for (;;) {
		if (cur != NULL)
			rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
		else if ((rc = mdb_cursor_open(w->txn, w->s->rev, &cur)) == 0) {
			k.mv_size = atlen;
			k.mv_data = at;
			rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
			/* at itself, when still held, is done */
			if (rc == 0 && k.mv_size == atlen &&
			    memcmp(k.mv_data, at, atlen) == 0)
				rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
		}
		if (rc == MDB_NOTFOUND || (rc == 0 &&
		    (k.mv_size < CRLC_PREFIX_LEN ||
		    memcmp(k.mv_data, prefix, CRLC_PREFIX_LEN) != 0))) {
			rc = 0;
			break;
		}
		if (rc != 0)
			break;
		if (++seen % MAP_DROP_EVERY == 0 && w->split)
			map_drop(w->s);
		if (!rev_has(&v, scope_no))
			continue;
		if (k.mv_size > sizeof(at)) {
			rc = EINVAL;
			break;
		}
		memcpy(at, k.mv_data, k.mv_size);
		atlen = k.mv_size;
		/* rev_set writes: reopen the cursor after it */
		mdb_cursor_close(cur);
		cur = NULL;
		if ((rc = rev_set(w->s, w->txn, at, atlen, scope_no, NULL,
		    &had)) != 0 || (rc = wtxn_step(w)) != 0)
			return rc;
	}
	mdb_cursor_close(cur);
	return rc;
}

/*
 * Write the entries of a CRL as scope_no's records under prefix.  A
 * delta's removeFromCRL entries delete that scope's record (RFC 5280
 * 5.2.4); *count tracks the entries the scope holds.
 *
 * They go in sorted by key, a serial listed twice keeping its last entry
 * as in CRL order.  While no held key comes after them -- the first CRL
 * of an issuer, whose new id is the highest -- they are appended, which
 * fills LMDB pages instead of splitting them half empty: for 1,000,000
 * random serials this halves the pages (and the write transaction's
 * memory) and the time.
 */
static int
write_entries(struct wtxn *w, const uint8_t prefix[CRLC_PREFIX_LEN],
    unsigned scope_no, const struct crlc_crl *crl, int delta, int64_t *count)
{
	struct cert_issuers *ci;
	struct entry_ref *refs;
	struct crlc_crl_entry e;
	struct crlc_span one;
	const char *why;
	size_t i, n;
	int rc, append = 1;

	if (crl->nrevoked == 0)
		return 0;
	if (crl->nrevoked > MAX_CRL_ENTRIES)
		return EFBIG;
	ci = xcalloc(1, sizeof(*ci));
	if ((rc = entry_refs(w, crl, crl->nrevoked, &refs, &n, ci)) != 0) {
		free(ci);
		return rc;
	}
	if (n != crl->nrevoked)
		rc = EINVAL;
	for (i = 0; i < n && rc == 0; i++) {
		one.p = crl->revoked.p + refs[i].at - REF_HDR(&refs[i]);
		one.len = crl->revoked.len - (refs[i].at - REF_HDR(&refs[i]));
		if (crlc_crl_entry_next(&one, &e, &why) != 1)
			rc = EINVAL;
		else if ((rc = write_entry(w->s, w->txn, prefix, ci,
		    REF_ISS(&refs[i]), scope_no, &e, delta, &append,
		    count)) == 0)
			rc = wtxn_step(w);
	}
	free(refs);
	free(ci);
	return rc;
}

/*
 * Write what a scope's complete CRL der and delta (may be empty) list as
 * scope_no's entries; *count is the number held.
 */
static int
write_scope_entries(struct wtxn *w, const uint8_t prefix[CRLC_PREFIX_LEN],
    unsigned scope_no, const struct crlc_span *der,
    const struct crlc_span *delta, int64_t *count)
{
	struct crlc_crl crl;
	const char *why;
	int rc;

	*count = 0;
	if (crlc_crl_parse(der->p, der->len, &crl, &why) == -1)
		return EINVAL;
	if ((rc = write_entries(w, prefix, scope_no, &crl, 0, count)) != 0 ||
	    delta->len == 0)
		return rc;
	if (crlc_crl_parse(delta->p, delta->len, &crl, &why) == -1)
		return EINVAL;
	return write_entries(w, prefix, scope_no, &crl, 1, count);
}

/* A scope number not yet used among the "crl" records under prefix. */
static int
next_scope_no(struct store *s, MDB_txn *txn,
    const uint8_t prefix[CRLC_PREFIX_LEN], unsigned *scope_no)
{
	struct crlc_crl_info ci;
	MDB_cursor *cur;
	MDB_val k = { CRLC_PREFIX_LEN, (void *)prefix }, v;
	int rc;

	*scope_no = 1;
	if ((rc = mdb_cursor_open(txn, s->crl, &cur)) != 0)
		return rc;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0 &&
	    k.mv_size >= CRLC_PREFIX_LEN &&
	    memcmp(k.mv_data, prefix, CRLC_PREFIX_LEN) == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
		if (crlc_crl_decode(k.mv_data, k.mv_size, v.mv_data, v.mv_size,
		    &ci) == 0 && ci.scope_no >= *scope_no)
			*scope_no = ci.scope_no + 1;
	mdb_cursor_close(cur);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return rc;
	return *scope_no > CRLC_SCOPE_NO_MAX ? ENOSPC : 0;
}

/*
 * Copy a signed CRL into the "crl" record.  consume: the source is the
 * ingest's own (the received body, or LMDB's map), let go as it is
 * copied, so that the body and LMDB's dirty copy of it are not both
 * resident.
 */
#define COPY_STEP	((size_t)1 << 20)

static void
copy_body(uint8_t *to, const uint8_t *from, size_t len, int consume)
{
	size_t done, n;

	for (done = 0; done < len; done += n) {
		n = len - done < COPY_STEP ? len - done : COPY_STEP;
		memcpy(to + done, from + done, n);
		if (consume)
			pages_release(from, done + n);
	}
}

/*
 * The "crlhash" record of a "crl" record (format.h): SHA-256 of its
 * value after the header, source || complete CRL || delta CRL.
 */
void
store_crl_hash(const struct crlc_crl_info *r, uint8_t out[CRLC_HASH_LEN])
{
	struct iovec iov[] = {
		{ (void *)r->source.p, r->source.len },
		{ (void *)r->der.p, r->der.len },
		{ (void *)r->delta.p, r->delta.len },
	};

	crlc_sha256_iov(iov, (int)(sizeof(iov) / sizeof(iov[0])), out);
}

/* Store the "crlhash" record of the "crl" record key, for r. */
static int
put_crl_hash(struct store *s, MDB_txn *txn, const MDB_val *k,
    const struct crlc_crl_info *r)
{
	uint8_t hash[CRLC_HASH_LEN];
	MDB_val v = { sizeof(hash), hash };

	store_crl_hash(r, hash);
	return mdb_put(txn, s->crlhash, (MDB_val *)k, &v, 0);
}

/* Remove a "crl" record and its "crlhash" record together. */
static int
del_scope(struct store *s, MDB_txn *txn, MDB_val *k)
{
	int rc;

	if ((rc = mdb_del(txn, s->crl, k, NULL)) != 0)
		return rc;
	rc = mdb_del(txn, s->crlhash, k, NULL);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

/*
 * Serialise the "crl" record (format.h) straight into the space LMDB
 * reserves for it: the signed CRL it carries is not copied twice.  Its
 * "crlhash" record first, while the CRL is still whole (consume).
 */
static int
put_scope(struct store *s, MDB_txn *txn, const uint8_t *key, size_t keylen,
    const struct crlc_crl_info *r, int consume)
{
	MDB_val k = { keylen, (void *)key }, v;
	uint8_t *h;
	int rc;

	v.mv_size = CRLC_CRL_HDR_LEN + r->source.len + r->der.len + r->delta.len;
	if (r->der.len > UINT32_MAX || r->delta.len > UINT32_MAX)
		return EFBIG;
	if ((rc = put_crl_hash(s, txn, &k, r)) != 0 ||
	    (rc = mdb_put(txn, s->crl, &k, &v, MDB_RESERVE)) != 0)
		return rc;
	h = v.mv_data;
	memset(h, 0, CRLC_CRL_HDR_LEN);
	h[0] = CRLC_CRL_RECORD_VERSION;
	h[1] = (uint8_t)r->flags;
	h[2] = (uint8_t)(r->scope_no >> 8);
	h[3] = (uint8_t)r->scope_no;
	crlc_put_u32(h + 4, r->entries);
	crlc_put_i64(h + 8, r->this_update);
	crlc_put_i64(h + 16, r->next_update);
	crlc_put_i64(h + 24, r->fetched_at);
	crlc_put_i64(h + 32, r->delta_this_update);
	crlc_put_i64(h + 40, r->delta_next_update);
	h[48] = (uint8_t)r->number.len;
	h[70] = (uint8_t)r->base.len;
	crlc_put_u32(h + 92, (uint32_t)r->source.len);
	crlc_put_u32(h + 96, (uint32_t)r->der.len);
	crlc_put_u32(h + 100, (uint32_t)r->delta.len);
	/* An absent part is an empty span whose pointer may be NULL. */
	if (r->number.len > 0)
		memcpy(h + 49, r->number.p, r->number.len);
	if (r->base.len > 0)
		memcpy(h + 71, r->base.p, r->base.len);
	if (r->source.len > 0)
		memcpy(h + CRLC_CRL_HDR_LEN, r->source.p, r->source.len);
	if (r->der.len > 0)
		copy_body(h + CRLC_CRL_HDR_LEN + r->source.len, r->der.p,
		    r->der.len, consume);
	if (r->delta.len > 0)
		copy_body(h + CRLC_CRL_HDR_LEN + r->source.len + r->der.len,
		    r->delta.p, r->delta.len, consume);
	return 0;
}

/*
 * Does [p, p + len) lie in LMDB's map?  A record the batch (BATCH) wrote
 * is in a dirty page, memory of the process, which madvise would zero.
 */
static int
in_map(const struct store *s, const uint8_t *p, size_t len)
{
	uintptr_t a = (uintptr_t)p;

	return s->map_hi != 0 && a >= s->map_lo && a <= s->map_hi &&
	    len <= s->map_hi - a;
}

/*
 * Are a and held the same bytes?  release: held is in LMDB's map (in_map),
 * and its pages are let go as they are compared: with the received body,
 * both would be resident.
 */
static int
same_bytes(const uint8_t *a, const uint8_t *held, size_t len, int release)
{
	size_t done, n;

	for (done = 0; done < len; done += n) {
		n = len - done < COPY_STEP ? len - done : COPY_STEP;
		if (memcmp(a + done, held + done, n) != 0)
			return 0;
		if (release)
			pages_release(held, done + n);
	}
	return 1;
}

/*
 * Decide whether c may replace what the scope holds (RFC 5280 5.2.3:
 * CRL numbers increase monotonically; 5.2.4: a delta applies onto a
 * complete CRL whose number is at least the delta's BaseCRLNumber).
 * Returns 1 to apply, 0 when c is what we already hold, -1 to reject.
 */
static int
admissible(const struct store *s, const struct crl *c,
    const struct crlc_crl_info *old, int have, char *err, size_t errlen)
{
	const uint8_t *held = have ? old->number.p : NULL;
	size_t heldlen = have ? old->number.len : 0;
	int cmp;

	if (c->is_delta) {
		/* The scope key holds the reasons: the base found has the
		   delta's scope and reasons (RFC 5280 5.2.4, 5.2.5); its
		   indirectCRL must be the base's too */
		if (have && (old->flags & CRLC_CRL_INDIRECT) !=
		    (c->idp_flags & CRLC_CRL_INDIRECT)) {
			snprintf(err, errlen, "delta CRL and its base CRL differ in "
			    "IDP indirectCRL (RFC 5280 5.2.4, 5.2.5)");
			return -1;
		}
		if (!have || numcmp(old->base.p, old->base.len, c->base, c->baselen) < 0) {
			snprintf(err, errlen, "delta CRL needs base CRL number >= its "
			    "BaseCRLNumber, with the same scope%s, which is not "
			    "held (RFC 5280 5.2.4)", c->reasons != CRLC_REASONS_ALL ?
			    " and onlySomeReasons (5.2.5)" : "");
			return -1;
		}
		cmp = numcmp(c->number, c->numlen, held, heldlen);
		if (cmp == 0 && c->this_update == old->delta_this_update)
			return 0;
		if (cmp <= 0) {
			snprintf(err, errlen, "rollback: delta CRL number is not newer "
			    "than the one held");
			return -1;
		}
		return 1;
	}
	if (!have)
		return 1;
	/*
	 * The complete CRL held, delivered again (a server without
	 * conditional GET): with a delta applied its number is below the
	 * delta's, as complete and delta CRLs share one sequence (5.2.3).
	 */
	if (c->derlen == old->der.len && same_bytes(c->der, old->der.p,
	    c->derlen, in_map(s, old->der.p, old->der.len)))
		return 0;
	/* v1 after v2: see read_numbers() in crl.c */
	if (c->p.version == 1 &&
	    old->number.len > 0) {
		snprintf(err, errlen, "v1 CRL without cRLNumber where a numbered "
		    "CRL is held (RFC 5280 5.2.3; `crlcache reset` clears the scope)");
		return -1;
	}
	if (c->numlen > 0 && old->number.len > 0) {
		cmp = numcmp(c->number, c->numlen, held, heldlen);
		if (cmp < 0) {
			snprintf(err, errlen, "rollback: CRL number is older than the "
			    "one held");
			return -1;
		}
		if (cmp == 0 && !(old->flags & CRLC_CRL_HAS_DELTA)) {
			snprintf(err, errlen, "CRL number reused with different "
			    "content (RFC 5280 5.2.3)");
			return -1;
		}
	}
	if (c->this_update < old->this_update) {
		snprintf(err, errlen, "rollback: thisUpdate is older than the one held");
		return -1;
	}
	return 1;
}

/*
 * Ingest c in w (split: struct wtxn).  Returns an enum ingest_result;
 * INGEST_CHANGED leaves the last transaction to commit.
 */
static int
ingest_txn(struct store *s, struct wtxn *w, const struct crl *c, char *err,
    size_t errlen)
{
	uint8_t key[CRLC_KEY_MAX], prefix[CRLC_PREFIX_LEN];
	size_t keylen;
	MDB_val k, v;
	struct crlc_crl_info old, rec;
	struct crlc_crl base;
	const char *why;
	char *source = NULL;
	int64_t count = 0;
	uint32_t id = 0, key_no = 0;
	unsigned scope_no;
	int have, rc, ok, ret = INGEST_FAILED;

	if ((rc = issuer_id(s, w->txn, c, &id)) != 0 ||
	    (rc = key_no_of(s, w->txn, id, c->issuer, &key_no)) != 0) {
		lmdb_err(err, errlen, "issuer id", rc);
		return INGEST_FAILED;
	}
	put_prefix(prefix, id, key_no);
	if (scope_key(prefix, c->scope, c->reasons, key, &keylen) == -1) {
		snprintf(err, errlen, "IDP URI too long");
		return INGEST_FAILED;
	}
	k.mv_size = keylen;
	k.mv_data = key;
	rc = mdb_get(w->txn, s->crl, &k, &v);
	if (rc != 0 && rc != MDB_NOTFOUND) {
		lmdb_err(err, errlen, "read scope", rc);
		return INGEST_FAILED;
	}
	/*
	 * The held record is read in LMDB's map, not copied (it holds a
	 * whole signed CRL): it stays committed and unchanged, its pages
	 * in use, until the last transaction replaces it.
	 */
	have = rc == 0;
	if (have && crlc_crl_decode(k.mv_data, k.mv_size, v.mv_data,
	    v.mv_size, &old) == -1) {
		snprintf(err, errlen, "index: stored CRL record is corrupt");
		return INGEST_FAILED;
	}
	if ((ok = admissible(s, c, &old, have, err, errlen)) <= 0)
		return ok < 0 ? INGEST_FAILED : INGEST_UNCHANGED;
	if (have)
		scope_no = old.scope_no;
	else if ((rc = next_scope_no(s, w->txn, prefix, &scope_no)) != 0) {
		lmdb_err(err, errlen, "scope number", rc);
		return INGEST_FAILED;
	}

	memset(&rec, 0, sizeof(rec));
	if (c->is_delta) {
		rec = old;
		rec.flags |= CRLC_CRL_HAS_DELTA;
		rec.delta_this_update = c->this_update;
		rec.delta_next_update = c->next_update;
		rec.number.p = c->number;
		rec.number.len = c->numlen;
		rec.delta.p = c->der;
		rec.delta.len = c->derlen;
		if (crlc_crl_parse(old.der.p, old.der.len, &base, &why) == -1) {
			snprintf(err, errlen, "index: stored base CRL unreadable");
			return INGEST_FAILED;
		}
	} else {
		rec.flags = c->idp_flags;
		rec.this_update = c->this_update;
		rec.next_update = c->next_update;
		rec.number.p = rec.base.p = c->number;
		rec.number.len = rec.base.len = c->numlen;
		rec.der.p = c->der;
		rec.der.len = c->derlen;
	}
	rec.scope_no = scope_no;
	rec.fetched_at = (int64_t)time(NULL);
	/* The record is published: the source without its credentials. */
	source = redact_userinfo(c->source);
	rec.source.p = (const uint8_t *)source;
	rec.source.len = strlen(source);
	/* Marked before the first commit, which a kill may follow. */
	if (mark_dirty(s, err, errlen) == -1)
		goto done;

	/* Rebuild the scope: drop what base and old delta listed, write anew. */
	w->scope_no = scope_no;
	w->key = key;
	w->keylen = keylen;
	rc = 0;
	/*
	 * A large scope's records are dropped in key order; a small one's
	 * by its CRLs' serials, not walking the issuer key's other scopes.
	 */
	if (have && old.entries > INGEST_CHUNK)
		rc = drop_scope(w, prefix, scope_no);
	else if (have && (rc = delete_entries(w, prefix, scope_no, old.der.p,
	    old.der.len)) == 0)
		rc = delete_entries(w, prefix, scope_no, old.delta.p,
		    old.delta.len);
	if (rc == 0)
		rc = write_entries(w, prefix, scope_no,
		    c->is_delta ? &base : &c->p, 0, &count);
	if (rc == 0 && c->is_delta)
		rc = write_entries(w, prefix, scope_no, &c->p, 1, &count);
	if (rc != 0) {
		if (rc == EINVAL)
			snprintf(err, errlen, "malformed revoked entry");
		else if (rc == E2BIG)
			snprintf(err, errlen, "indirect CRL names more than %d "
			    "certificate issuers (RFC 5280 5.3.3) not supported",
			    CERT_ISSUERS_MAX);
		else
			lmdb_err(err, errlen, "write entries", rc);
		goto done;
	}
	rec.entries = count < 0 ? 0 : count > UINT32_MAX ? UINT32_MAX :
	    (uint32_t)count;
	k.mv_size = strlen(CRLC_META_PENDING);
	k.mv_data = CRLC_META_PENDING;
	if ((rc = put_scope(s, w->txn, key, keylen, &rec,
	    w->split && !c->keep_body)) != 0 ||
	    (w->committed && (rc = mdb_del(w->txn, s->meta, &k, NULL)) != 0)) {
		lmdb_err(err, errlen, "write CRL record", rc);
		goto done;
	}
	ret = INGEST_CHANGED;
done:
	free(source);
	return ret;
}

/*
 * Make the "rev" records of the scope a split ingest left pending
 * (struct wtxn) those of its "crl" record again: delete every record of
 * its scope number under its prefix, write the entries of the record,
 * if there is one (there is none when the ingest was the scope's first),
 * and remove CRLC_META_PENDING.  In the caller's transaction.
 */
static int
recover_pending(struct store *s, MDB_txn *txn)
{
	MDB_val pk = { strlen(CRLC_META_PENDING), CRLC_META_PENDING };
	MDB_val k, v;
	struct crlc_crl_info ci;
	uint8_t key[CRLC_KEY_MAX];
	size_t keylen;
	unsigned scope_no;
	int64_t count;
	int rc;

	if ((rc = mdb_get(txn, s->meta, &pk, &v)) != 0)
		return rc == MDB_NOTFOUND ? 0 : rc;
	if (v.mv_size < 2 + CRLC_PREFIX_LEN || v.mv_size > 2 + CRLC_KEY_MAX)
		return EINVAL;
	scope_no = (unsigned)((const uint8_t *)v.mv_data)[0] << 8 |
	    ((const uint8_t *)v.mv_data)[1];
	keylen = v.mv_size - 2;
	memcpy(key, (const uint8_t *)v.mv_data + 2, keylen);
	if ((rc = drop_scope(ONE_TXN(s, txn), key, scope_no)) != 0)
		return rc;
	k.mv_size = keylen;
	k.mv_data = key;
	rc = mdb_get(txn, s->crl, &k, &v);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return rc;
	if (rc == 0 && (crlc_crl_decode(key, keylen, v.mv_data, v.mv_size,
	    &ci) == -1 || ci.scope_no != scope_no))
		return EINVAL;
	if (rc == 0 && (rc = write_scope_entries(ONE_TXN(s, txn), key,
	    scope_no, &ci.der, &ci.delta, &count)) != 0)
		return rc;
	return mdb_del(txn, s->meta, &pk, NULL);
}

/*
 * Format 1 to 2 (format.h VERSIONS), in the caller's transaction: every
 * "crl" record moves to key number 0 of its issuer with a scope number of
 * its own, and "rev" is written anew from the stored CRLs, one record per
 * scope.  One record in memory at a time; new records (version 2) sort
 * after, or are skipped by, the walk over the old ones.
 */
static int
migrate_v1(struct store *s, MDB_txn *txn)
{
	uint8_t last[CRLC_KEY_MAX + 1], key[CRLC_KEY_MAX];
	uint8_t prefix[CRLC_PREFIX_LEN], *copy;
	struct crlc_crl_info ci;
	MDB_cursor *cur;
	MDB_val k, v;
	size_t lastlen = 0, keylen;
	int64_t count;
	int rc;

	if ((rc = mdb_drop(txn, s->rev, 0)) != 0)
		return rc;
	for (;;) {
		if ((rc = mdb_cursor_open(txn, s->crl, &cur)) != 0)
			return rc;
		k.mv_size = lastlen;
		k.mv_data = last;
		rc = mdb_cursor_get(cur, &k, &v, lastlen > 0 ? MDB_SET_RANGE :
		    MDB_FIRST);
		while (rc == 0 && (v.mv_size < 1 || *(uint8_t *)v.mv_data != 1))
			rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
		mdb_cursor_close(cur);
		if (rc != 0)
			return rc == MDB_NOTFOUND ? 0 : rc;
		if (k.mv_size > CRLC_KEY_MAX)
			return EINVAL;
		memcpy(last, k.mv_data, k.mv_size);
		lastlen = k.mv_size;
		copy = xcalloc(1, v.mv_size);
		memcpy(copy, v.mv_data, v.mv_size);
		rc = crlc_crl_decode(last, lastlen, copy, v.mv_size, &ci) == -1 ?
		    EINVAL : 0;
		put_prefix(prefix, ci.issuer_id, 0);
		if (rc == 0 && ci.scope.len > CRLC_SCOPE_URI_MAX)
			rc = EINVAL;
		if (rc == 0) {
			memcpy(key, prefix, CRLC_PREFIX_LEN);
			memcpy(key + CRLC_PREFIX_LEN, ci.scope.p, ci.scope.len);
			keylen = CRLC_PREFIX_LEN + ci.scope.len;
			rc = next_scope_no(s, txn, prefix, &ci.scope_no);
		}
		if (rc == 0)
			rc = write_scope_entries(ONE_TXN(s, txn), prefix,
			    ci.scope_no, &ci.der, &ci.delta, &count);
		if (rc == 0) {
			ci.entries = count < 0 ? 0 : (uint32_t)count;
			k.mv_size = lastlen;
			k.mv_data = last;
			if ((rc = del_scope(s, txn, &k)) == 0)
				rc = put_scope(s, txn, key, keylen, &ci, 0);
		}
		free(copy);
		if (rc != 0)
			return rc;
	}
}

/*
 * Work format 2 -> 3: the "crlhash" record of every "crl" record, each
 * read in place (LMDB's map: nothing is copied, and the pages read are
 * clean pages of the file, which the kernel may take back).
 */
static int
hash_crls(struct store *s, MDB_txn *txn)
{
	struct crlc_crl_info ci;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc;

	if ((rc = mdb_cursor_open(txn, s->crl, &cur)) != 0)
		return rc;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (crlc_crl_decode(k.mv_data, k.mv_size, v.mv_data, v.mv_size,
		    &ci) == -1) {
			rc = EINVAL;
			break;
		}
		if ((rc = put_crl_hash(s, txn, &k, &ci)) != 0)
			break;
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

static X509_CRL *
crl_from_der(const uint8_t *der, size_t len)
{
	const unsigned char *p = der;

	return len == 0 ? NULL : d2i_X509_CRL(NULL, &p, (long)len);
}

/*
 * Is this "crl" record one a format 1 index left (key number 0)?  The key
 * first: reading the value of every record, the CRL, would map all of
 * them into the process (190 MB for 16,000 CRLs, each run).
 */
static int
is_legacy(const MDB_val *k, const MDB_val *v)
{
	const uint8_t *h = v->mv_data;

	return k->mv_size >= CRLC_PREFIX_LEN &&
	    crlc_get_u32((const uint8_t *)k->mv_data + CRLC_ISSUER_ID_LEN) == 0 &&
	    v->mv_size >= CRLC_CRL_HDR_LEN && h[0] == CRLC_CRL_RECORD_VERSION;
}

/*
 * Move one key-0 record to the key of the certificate in t that verifies
 * its CRL: 1 moved, 0 no such certificate (kept), else an LMDB error.
 */
static int
adopt_one(struct store *s, MDB_txn *txn, const struct trust *t,
    const uint8_t *key, size_t keylen, const MDB_val *val)
{
	uint8_t nkey[CRLC_KEY_MAX], prefix[CRLC_PREFIX_LEN], *copy;
	STACK_OF(X509) *cands = NULL;
	struct crlc_crl_info ci;
	X509_CRL *x = NULL;
	X509 *signer = NULL;
	MDB_val k = { keylen, (void *)key }, v;
	uint32_t key_no;
	int64_t count;
	int i, rc = 0;

	copy = xcalloc(1, val->mv_size);
	memcpy(copy, val->mv_data, val->mv_size);
	if (crlc_crl_decode(key, keylen, copy, val->mv_size, &ci) == -1 ||
	    (x = crl_from_der(ci.der.p, ci.der.len)) == NULL ||
	    (cands = trust_candidates(t, X509_CRL_get_issuer(x))) == NULL)
		goto done;
	for (i = 0; i < sk_X509_num(cands) && signer == NULL; i++)
		if (X509_CRL_verify(x, X509_get0_pubkey(sk_X509_value(cands,
		    i))) > 0)
			signer = sk_X509_value(cands, i);
	ERR_clear_error();
	if (signer == NULL)
		goto done;
	if ((rc = key_no_of(s, txn, ci.issuer_id, signer, &key_no)) != 0 ||
	    key_no == 0)
		goto done;	/* a dedicated CRL signer's: where it belongs */
	if ((rc = delete_entries(ONE_TXN(s, txn), key, ci.scope_no, ci.der.p,
	    ci.der.len)) != 0 ||
	    (rc = delete_entries(ONE_TXN(s, txn), key, ci.scope_no, ci.delta.p,
	    ci.delta.len)) != 0 ||
	    (rc = del_scope(s, txn, &k)) != 0)
		goto done;
	put_prefix(prefix, ci.issuer_id, key_no);
	memcpy(nkey, prefix, CRLC_PREFIX_LEN);
	memcpy(nkey + CRLC_PREFIX_LEN, ci.scope.p, ci.scope.len);
	k.mv_size = CRLC_PREFIX_LEN + ci.scope.len;
	k.mv_data = nkey;
	/* A record the key already has is newer than the format 1 one. */
	rc = mdb_get(txn, s->crl, &k, &v);
	if (rc == 0 || rc != MDB_NOTFOUND)
		goto moved;
	if ((rc = next_scope_no(s, txn, prefix, &ci.scope_no)) != 0 ||
	    (rc = write_scope_entries(ONE_TXN(s, txn), prefix, ci.scope_no,
	    &ci.der, &ci.delta, &count)) != 0)
		goto done;
	ci.entries = count < 0 ? 0 : (uint32_t)count;
	rc = put_scope(s, txn, nkey, k.mv_size, &ci, 0);
moved:
	if (rc == 0)
		rc = 1;
done:
	sk_X509_pop_free(cands, X509_free);
	X509_CRL_free(x);
	free(copy);
	return rc;
}

int
store_adopt_legacy(struct store *s, const struct trust *t)
{
	uint8_t last[CRLC_KEY_MAX + 1];
	size_t lastlen = 0, moved = 0, kept = 0;
	MDB_cursor *cur;
	MDB_txn *txn;
	MDB_val k, v;
	int rc;

	if (batch_end(s) != 0 || mdb_txn_begin(s->env, NULL, 0, &txn) != 0)
		return -1;
	for (;;) {
		if ((rc = mdb_cursor_open(txn, s->crl, &cur)) != 0)
			break;
		k.mv_size = lastlen;
		k.mv_data = last;
		rc = mdb_cursor_get(cur, &k, &v, lastlen > 0 ? MDB_SET_RANGE :
		    MDB_FIRST);
		while (rc == 0 && !is_legacy(&k, &v)) {
			map_read(s);
			rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
		}
		mdb_cursor_close(cur);
		if (rc != 0 || k.mv_size > CRLC_KEY_MAX)
			break;
		memcpy(last, k.mv_data, k.mv_size);
		lastlen = k.mv_size;
		if ((rc = adopt_one(s, txn, t, last, lastlen, &v)) < 0 || rc > 1)
			break;
		*(rc == 1 ? &moved : &kept) += 1;
		/* The smallest key after last: last || 00. */
		last[lastlen++] = 0;
	}
	if ((rc != MDB_NOTFOUND && rc != 0) || moved == 0) {
		mdb_txn_abort(txn);
		if (rc != MDB_NOTFOUND && rc != 0)
			return -1;
	} else if (mdb_txn_commit(txn) != 0)
		return -1;
	if (moved > 0)
		s->dirty = 1;
	if (moved + kept > 0)
		logx(1, "format 1 CRL records: %zu moved to their signer's key, "
		    "%zu kept under the issuer name (signed by a dedicated CRL "
		    "signer, or by no configured certificate)", moved, kept);
	return 0;
}

/*
 * Ingest c in a child transaction of the batch (BATCH).  *overflow: it
 * reached INGEST_CHUNK writes, nothing was written, and it is to be
 * ingested on its own.
 */
static int
ingest_nested(struct store *s, const struct crl *c, int *overflow,
    char *err, size_t errlen)
{
	struct wtxn w = { .s = s, .nested = 1 };
	int rc, res;

	*overflow = 0;
	if ((rc = batch_begin(s)) != 0 ||
	    (rc = mdb_txn_begin(s->env, s->batch, 0, &w.txn)) != 0) {
		lmdb_err(err, errlen, "begin", rc);
		return INGEST_FAILED;
	}
	res = ingest_txn(s, &w, c, err, errlen);
	*overflow = w.overflow;
	if (res != INGEST_CHANGED) {
		mdb_txn_abort(w.txn);
		return res;
	}
	if ((rc = mdb_txn_commit(w.txn)) != 0) {
		/* The batch may be unusable after it: give it up. */
		mdb_txn_abort(s->batch);
		s->batch = NULL;
		logx(0, "index: the last CRLs and source records were not "
		    "written; the next run fetches them again");
		lmdb_err(err, errlen, "commit", rc);
		return INGEST_FAILED;
	}
	if ((rc = batch_add(s, w.writes + 1)) != 0) {
		lmdb_err(err, errlen, "commit", rc);
		return INGEST_FAILED;
	}
	return res;
}

int
store_ingest(struct store *s, const struct crl *c, char *err, size_t errlen)
{
	struct wtxn w = { .s = s, .split = 1 };
	MDB_txn *txn;
	int overflow = 1, rc, res;

	if (s->pending) {
		snprintf(err, errlen, "index: an earlier CRL is half written");
		return INGEST_FAILED;
	}
	if (c->p.nrevoked < INGEST_CHUNK &&
	    ((res = ingest_nested(s, c, &overflow, err, errlen)) !=
	    INGEST_FAILED || !overflow))
		return res;
	if ((rc = batch_end(s)) != 0 ||
	    (rc = mdb_txn_begin(s->env, NULL, 0, &w.txn)) != 0) {
		lmdb_err(err, errlen, "begin", rc);
		return INGEST_FAILED;
	}
	res = ingest_txn(s, &w, c, err, errlen);
	if (res == INGEST_CHANGED && (rc = mdb_txn_commit(w.txn)) != 0) {
		lmdb_err(err, errlen, "commit", rc);
		res = INGEST_FAILED;
	} else if (res != INGEST_CHANGED)
		mdb_txn_abort(w.txn);	/* NULL after a failed chunk commit */
	map_drop(s);
	if (res != INGEST_FAILED || !w.committed)
		return res;
	/* Chunks were committed: put the scope back as it was. */
	if ((rc = mdb_txn_begin(s->env, NULL, 0, &txn)) == 0) {
		if ((rc = recover_pending(s, txn)) == 0)
			rc = mdb_txn_commit(txn);
		else
			mdb_txn_abort(txn);
	}
	if (rc != 0) {
		s->pending = 1;
		logx(0, "index: %s left half written (%s); the next run "
		    "rebuilds it", c->source, mdb_strerror(rc));
	} else
		logx(1, "index: %s: the transactions committed are undone",
		    c->source);
	return INGEST_FAILED;
}

int
store_has_scope(struct store *s, const uint8_t *key, size_t keylen)
{
	MDB_txn *txn;
	MDB_val k = { keylen, (void *)key }, v;
	int found;

	if (keylen == 0 || read_begin(s, &txn) != 0)
		return 0;
	found = mdb_get(txn, s->crl, &k, &v) == 0;
	read_end(s, txn);
	return found;
}


static char *
dup_span(const uint8_t *p, size_t len)
{
	char *s;

	if (len == 0)
		return NULL;
	s = xcalloc(1, len + 1);
	memcpy(s, p, len);
	return s;
}

/* Decode a "source" record (format.h) into rec, which the caller frees. */
static int
source_decode(const MDB_val *v, struct source_rec *rec)
{
	const uint8_t *h = v->mv_data;
	size_t e, m, r, kl;

	memset(rec, 0, sizeof(*rec));
	if (v->mv_size < CRLC_SRC_HDR_LEN)
		return -1;
	e = crlc_get_u32(h + 20);
	m = crlc_get_u32(h + 24);
	r = crlc_get_u32(h + 28);
	kl = crlc_get_u32(h + 32);
	if (CRLC_SRC_HDR_LEN + e + m + r + kl != v->mv_size || kl > CRLC_KEY_MAX)
		return -1;
	rec->last_attempt = crlc_get_i64(h);
	rec->last_success = crlc_get_i64(h + 8);
	rec->http_status = crlc_get_u32(h + 16);
	h += CRLC_SRC_HDR_LEN;
	rec->etag = dup_span(h, e);
	rec->last_modified = dup_span(h + e, m);
	rec->error = dup_span(h + e + m, r);
	if (kl > 0) {
		rec->scope_key = xcalloc(1, kl);
		memcpy(rec->scope_key, h + e + m + r, kl);
		rec->scope_keylen = kl;
	}
	return 0;
}

/*
 * Source records are keyed by the URL without its userinfo
 * (redact_userinfo): two URLs that differ only in their credentials share
 * one record.
 */
int
store_get_source(struct store *s, const char *url, struct source_rec *rec)
{
	char *key = redact_userinfo(url);
	MDB_txn *txn;
	MDB_val k = { strlen(key), key }, v;
	int ret = -1;

	memset(rec, 0, sizeof(*rec));
	if (k.mv_size == 0 || k.mv_size > CRLC_KEY_MAX ||
	    read_begin(s, &txn) != 0) {
		free(key);
		return -1;
	}
	if (mdb_get(txn, s->source, &k, &v) == 0)
		ret = source_decode(&v, rec);
	read_end(s, txn);
	free(key);
	return ret;
}

/*
 * Walk the source records of the working environment read-only, without
 * the update lock (LMDB's own reader lock keeps the view consistent).
 * Needs write access to STATE_DIR/work/lock.mdb, as an administrator or
 * the crlcache user has.  Returns 0, fn's non-zero value, or -1.
 */
int
store_foreach_source(const char *state_dir,
    int (*fn)(const char *url, const struct source_rec *, void *), void *arg)
{
	char path[PATH_MAX], url[CRLC_KEY_MAX + 1], *shown;
	struct source_rec rec;
	MDB_env *env = NULL;
	MDB_txn *txn = NULL;
	MDB_cursor *cur = NULL;
	MDB_dbi dbi;
	MDB_val k, v;
	int rc, ret = -1;

	snprintf(path, sizeof(path), "%s/%s", state_dir, WORK_NAME);
	if (mdb_env_create(&env) != 0 || mdb_env_set_maxdbs(env, CRLC_NUM_DBS) != 0 ||
	    mdb_env_open(env, path, MDB_RDONLY, 0600) != 0 ||
	    mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) != 0 ||
	    mdb_dbi_open(txn, CRLC_DB_SOURCE, 0, &dbi) != 0 ||
	    mdb_cursor_open(txn, dbi, &cur) != 0)
		goto done;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size > CRLC_KEY_MAX || source_decode(&v, &rec) == -1)
			continue;
		memcpy(url, k.mv_data, k.mv_size);
		url[k.mv_size] = '\0';
		/* Records older versions wrote may hold credentials. */
		shown = redact_userinfo(url);
		if (rec.error != NULL) {
			char *e = redact_userinfo(rec.error);

			free(rec.error);
			rec.error = e;
		}
		ret = fn(shown, &rec, arg);
		free(shown);
		source_rec_free(&rec);
		if (ret != 0)
			goto done;
	}
	ret = rc == MDB_NOTFOUND ? 0 : -1;
done:
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	if (env != NULL)
		mdb_env_close(env);
	return ret;
}

int
store_put_source(struct store *s, const char *url, const struct source_rec *rec)
{
	char *key = redact_userinfo(url);
	char *error = rec->error != NULL ? redact_userinfo(rec->error) : NULL;
	size_t e = rec->etag ? strlen(rec->etag) : 0;
	size_t m = rec->last_modified ? strlen(rec->last_modified) : 0;
	size_t r = error ? strlen(error) : 0;
	size_t kl = rec->scope_keylen;
	MDB_val k = { strlen(key), key }, v;
	uint8_t *h;
	int rc;

	if (k.mv_size == 0 || k.mv_size > CRLC_KEY_MAX) {
		free(key);
		free(error);
		return -1;
	}
	v.mv_size = CRLC_SRC_HDR_LEN + e + m + r + kl;
	h = xcalloc(1, v.mv_size);
	crlc_put_i64(h, rec->last_attempt);
	crlc_put_i64(h + 8, rec->last_success);
	crlc_put_u32(h + 16, (uint32_t)rec->http_status);
	crlc_put_u32(h + 20, (uint32_t)e);
	crlc_put_u32(h + 24, (uint32_t)m);
	crlc_put_u32(h + 28, (uint32_t)r);
	crlc_put_u32(h + 32, (uint32_t)kl);
	memcpy(h + CRLC_SRC_HDR_LEN, rec->etag, e);
	memcpy(h + CRLC_SRC_HDR_LEN + e, rec->last_modified, m);
	memcpy(h + CRLC_SRC_HDR_LEN + e + m, error, r);
	memcpy(h + CRLC_SRC_HDR_LEN + e + m + r, rec->scope_key, kl);
	v.mv_data = h;
	/* In the batch (BATCH), with the CRLs of the run. */
	if ((rc = batch_begin(s)) == 0 &&
	    (rc = mdb_put(s->batch, s->source, &k, &v, 0)) == 0)
		rc = batch_add(s, 1);
	free(h);
	free(key);
	free(error);
	return rc == 0 ? 0 : -1;
}

/*
 * crlcache reset: forget what one scope holds -- its "crl" record and the
 * entries its complete and delta CRLs listed -- in one transaction, so
 * that the rollback rule no longer binds it (and update, finding the
 * scope empty, fetches its sources unconditionally).  Returns 1 when
 * removed (what was held in *held), 0 when the scope holds nothing, -1 on
 * error.
 */
int
store_reset_scope(struct store *s, X509 *issuer, const char *scope,
    unsigned reasons, struct store_reset *held, char *err, size_t errlen)
{
	uint8_t key[CRLC_KEY_MAX];
	size_t keylen;
	MDB_txn *txn;
	MDB_val k, v;
	struct crlc_crl_info old;
	uint8_t *copy;
	int rc;

	memset(held, 0, sizeof(*held));
	if (store_scope_key(s, X509_get_subject_name(issuer), issuer, scope, reasons,
	    key, &keylen) == -1)
		return 0;	/* issuer never seen, or scope too long */
	if ((rc = batch_end(s)) != 0 ||
	    (rc = mdb_txn_begin(s->env, NULL, 0, &txn)) != 0) {
		lmdb_err(err, errlen, "begin", rc);
		return -1;
	}
	k.mv_size = keylen;
	k.mv_data = key;
	if ((rc = mdb_get(txn, s->crl, &k, &v)) == MDB_NOTFOUND) {
		mdb_txn_abort(txn);
		return 0;
	}
	if (rc != 0) {
		mdb_txn_abort(txn);
		lmdb_err(err, errlen, "read scope", rc);
		return -1;
	}
	copy = xcalloc(1, v.mv_size);
	memcpy(copy, v.mv_data, v.mv_size);
	if (crlc_crl_decode(key, keylen, copy, v.mv_size, &old) == -1 ||
	    old.number.len > sizeof(held->number)) {
		mdb_txn_abort(txn);
		free(copy);
		snprintf(err, errlen, "index: stored CRL record is corrupt");
		return -1;
	}
	held->entries = old.entries;
	held->this_update = old.this_update;
	memcpy(held->number, old.number.p, old.number.len);
	held->numlen = old.number.len;
	if ((rc = delete_entries(ONE_TXN(s, txn), key, old.scope_no, old.der.p,
	    old.der.len)) != 0 ||
	    (rc = delete_entries(ONE_TXN(s, txn), key, old.scope_no, old.delta.p,
	    old.delta.len)) != 0 ||
	    (rc = del_scope(s, txn, &k)) != 0) {
		mdb_txn_abort(txn);
		free(copy);
		lmdb_err(err, errlen, "reset scope", rc);
		return -1;
	}
	free(copy);
	if (mark_dirty(s, err, errlen) == -1) {
		mdb_txn_abort(txn);
		return -1;
	}
	if ((rc = mdb_txn_commit(txn)) != 0) {
		lmdb_err(err, errlen, "commit", rc);
		return -1;
	}
	return 1;
}

void
source_rec_free(struct source_rec *rec)
{
	free(rec->etag);
	free(rec->last_modified);
	free(rec->error);
	free(rec->scope_key);
	memset(rec, 0, sizeof(*rec));
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
full_fs(const char *dir, int rc)
{
	struct statvfs sv;

	if (rc == EIO && statvfs(dir, &sv) == 0 &&
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
	char marker[PATH_MAX];
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
		lmdb_err(err, errlen, "commit", full_fs(s->dir, rc));
		return -1;
	}
	if (!s->dirty && !force && !publish_needed(s->dir))
		return 0;
	if ((rc = stamp_generation(s, generation, &created)) != 0) {
		lmdb_err(err, errlen, "generation", full_fs(s->dir, rc));
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
	rc = publish(s->dir, &src, *generation, created, err, errlen);
	mdb_txn_abort(txn);
	if (rc == -1)
		return -1;
	s->dirty = 0;
	unpublished_path(s, marker, sizeof(marker));
	(void)unlink(marker);
	return 0;
}

/*
 * The "crl" key of the scope: the issuer by its name's canonical form,
 * the key signer's (key number 0 when the index does not know it: a
 * record a format 1 index left), the IDP URI.
 */
int
store_scope_key(struct store *s, const X509_NAME *name, X509 *signer,
    const char *scope, unsigned reasons, uint8_t *key, size_t *keylen)
{
	uint8_t canon[CRLC_HASH_LEN], kk[CRLC_ISSUER_ID_LEN + CRLC_HASH_LEN];
	uint8_t prefix[CRLC_PREFIX_LEN];
	MDB_txn *txn;
	MDB_val k = { CRLC_HASH_LEN, canon }, v;
	uint32_t id, key_no = 0;
	int ret = -1;

	*keylen = 0;
	if (name_canon_hash(name, canon) == -1 ||
	    cert_key_hash(signer, kk + CRLC_ISSUER_ID_LEN) == -1 ||
	    read_begin(s, &txn) != 0)
		return -1;
	if (mdb_get(txn, s->canon, &k, &v) == 0 && v.mv_size == 4) {
		id = crlc_get_u32(v.mv_data);
		crlc_put_u32(kk, id);
		k.mv_size = sizeof(kk);
		k.mv_data = kk;
		if (mdb_get(txn, s->key, &k, &v) == 0 &&
		    v.mv_size >= CRLC_KEY_NO_LEN)
			key_no = crlc_get_u32(v.mv_data);
		put_prefix(prefix, id, key_no);
		ret = scope_key(prefix, scope, reasons, key, keylen);
	}
	read_end(s, txn);
	return ret;
}
