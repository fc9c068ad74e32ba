/*
 * Read-only access to a published crlcache index (format.h).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <lmdb.h>

#include <crlcache/dpname.h>
#include <crlcache/format.h>
#include <crlcache/hash.h>
#include <crlcache/index.h>
#include <crlcache/name.h>

#include "lmdbcheck.h"

/*
 * Read transactions kept for reuse: mdb_txn_begin() allocates, while
 * mdb_txn_renew() of a reset transaction only re-reads the meta page.
 * A lookup claims a free slot with one atomic exchange; when all are
 * busy it falls back to a transaction of its own.
 */
#define TXN_SLOTS	16

struct txn_slot {
	atomic_int	 busy;
	MDB_txn		*txn;
};

/*
 * Issuers recently looked up in this snapshot, found or not: a chain
 * verification meets the same two or three issuers again and again, and
 * a miss (an issuer no CRL covers) otherwise costs two B-tree lookups and
 * a parse of the Name.  Direct-mapped by the issuer's SHA-256; each entry
 * holds the whole hash, so only an exact match is used.  Readers take no
 * lock: an entry carries a sequence count, odd while a writer fills it,
 * and a read that saw it change is discarded (seqlock).
 */
#define ISSUER_CACHE	64

/* What a lookup needs to know about an issuer before its serial. */
struct issuer_info {
	uint32_t	id;		/* 0: not in the index */
	uint32_t	key_no;		/* format.h "key"; 0 in format 1 */
	unsigned	full;		/* complete CRL: 0 none, else 1 | flags << 1 */
	int64_t		this_update;	/* of the complete CRL */
	int64_t		next_update;
};

struct issuer_entry {
	atomic_uint		 seq;
	_Atomic uint64_t	 hash[CRLC_HASH_LEN / 8];
	atomic_uint		 id;
	atomic_uint		 key_no;
	atomic_uint		 full;
	_Atomic int64_t		 this_update;
	_Atomic int64_t		 next_update;
};

struct crlc_index {
	struct issuer_entry	 issuers[ISSUER_CACHE];
	struct txn_slot	 slots[TXN_SLOTS];
	MDB_env		*env;
	MDB_dbi		 canon;
	MDB_dbi		 alias;
	MDB_dbi		 rev;
	MDB_dbi		 crl;
	MDB_dbi		 key;		/* format 2 only */
	unsigned	 format;
	uint64_t	 generation;
	int64_t		 created;
};

static const char *const reason_names[] = {
	"unspecified", "keyCompromise", "cACompromise", "affiliationChanged",
	"superseded", "cessationOfOperation", "certificateHold",
	"value7", "removeFromCRL", "privilegeWithdrawn", "aACompromise",
};

const char *
crlc_reason_name(int reason)
{
	if (reason < 0 || (size_t)reason >= sizeof(reason_names) /
	    sizeof(reason_names[0]))
		return "unspecified";
	return reason_names[reason];
}

const char *
crlc_index_strerror(int err)
{
	switch (err) {
	case CRLC_OK:
		return "success";
	case CRLC_E_NOINDEX:
		return "no index file";
	case CRLC_E_ACCESS:
		return "index file not readable or not trusted";
	case CRLC_E_FORMAT:
		return "not a crlcache index of a supported format";
	case CRLC_E_CORRUPT:
		return "index file truncated or corrupt";
	case CRLC_E_NOMEM:
		return "out of memory";
	default:
		return "LMDB error";
	}
}

static int
get_meta(MDB_txn *txn, MDB_dbi meta, const char *name, size_t want,
    MDB_val *val)
{
	MDB_val key = { strlen(name), (void *)name };

	if (mdb_get(txn, meta, &key, val) != 0 || val->mv_size != want)
		return -1;
	return 0;
}

/*
 * Refuse a file shorter than its own meta page says (it would SIGBUS):
 * crlc_lmdb_check() said so of the bytes it read, and this is what LMDB
 * read, should the file have been rewritten in place in between.
 */
static int
check_length(MDB_env *env)
{
	MDB_envinfo info;
	MDB_stat st;
	struct stat sb;
	int fd;

	if (mdb_env_get_fd(env, &fd) != 0 || fstat(fd, &sb) == -1 ||
	    mdb_env_info(env, &info) != 0 || mdb_env_stat(env, &st) != 0)
		return -1;
	if (st.ms_psize == 0 ||
	    ((uint64_t)info.me_last_pgno + 1) * st.ms_psize > (uint64_t)sb.st_size)
		return -1;
	return 0;
}

static int
open_dbs(struct crlc_index *idx, const char **detail)
{
	MDB_txn *txn = NULL;
	MDB_dbi meta;
	MDB_val v;
	int ret = CRLC_E_FORMAT;

	if (mdb_txn_begin(idx->env, NULL, MDB_RDONLY, &txn) != 0) {
		*detail = "cannot begin a read transaction";
		return CRLC_E_LMDB;
	}
	if (mdb_dbi_open(txn, CRLC_DB_META, 0, &meta) != 0 ||
	    mdb_dbi_open(txn, CRLC_DB_CANON, 0, &idx->canon) != 0 ||
	    mdb_dbi_open(txn, CRLC_DB_ALIAS, 0, &idx->alias) != 0 ||
	    mdb_dbi_open(txn, CRLC_DB_REV, 0, &idx->rev) != 0 ||
	    mdb_dbi_open(txn, CRLC_DB_CRL, 0, &idx->crl) != 0) {
		*detail = "a required database is missing";
		goto done;
	}
	if (get_meta(txn, meta, CRLC_META_FORMAT, 4, &v) == -1) {
		*detail = "no format record";
		goto done;
	}
	idx->format = crlc_get_u32(v.mv_data);
	if (idx->format > CRLC_FORMAT_VERSION || idx->format < CRLC_FORMAT_OLDEST) {
		*detail = idx->format > CRLC_FORMAT_VERSION ?
		    "index written by a newer crlcache (format version too high)" :
		    "index format version not supported";
		goto done;
	}
	if (idx->format >= 2 &&
	    mdb_dbi_open(txn, CRLC_DB_KEY, 0, &idx->key) != 0) {
		*detail = "a required database is missing";
		goto done;
	}
	if (get_meta(txn, meta, CRLC_META_GENERATION, 8, &v) == -1) {
		*detail = "no generation record";
		goto done;
	}
	idx->generation = crlc_get_u64(v.mv_data);
	if (get_meta(txn, meta, CRLC_META_CREATED, 8, &v) == -1) {
		*detail = "no creation time record";
		goto done;
	}
	idx->created = crlc_get_i64(v.mv_data);
	/* Committing a read-only txn keeps the DBI handles for the env. */
	ret = mdb_txn_commit(txn) == 0 ? CRLC_OK : CRLC_E_LMDB;
	txn = NULL;
done:
	mdb_txn_abort(txn);
	return ret;
}

/*
 * Open path without trusting it (see index.h): the directory that holds
 * it, then the file in that directory, never following a symbolic link
 * in the last component, never blocking, and never opening anything but
 * a regular file on purpose.  On success returns the descriptor and its
 * fstat in *sb; else -1, *err and *why (a static string).  No allocation
 * and no user database lookup: this runs inside every OpenSSL program.
 */
static int
open_trusted(const char *path, struct stat *sb, int *err, const char **why)
{
	char dir[PATH_MAX];
	const char *base, *slash;
	struct stat db, pre;
	size_t n;
	int dfd, fd = -1;

	if ((slash = strrchr(path, '/')) == NULL) {
		memcpy(dir, ".", 2);
		base = path;
	} else {
		n = slash == path ? 1 : (size_t)(slash - path);
		if (n >= sizeof(dir)) {
			*err = CRLC_E_ACCESS;
			*why = "path too long";
			return -1;
		}
		memcpy(dir, path, n);
		dir[n] = '\0';
		base = slash + 1;
	}
	if (*base == '\0') {
		*err = CRLC_E_FORMAT;
		*why = "not a regular file";
		return -1;
	}
	/* O_PATH: a directory of mode 0711 will do. */
	if ((dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1) {
		*err = errno == ENOENT ? CRLC_E_NOINDEX : CRLC_E_ACCESS;
		*why = errno == ENOENT ? "no such directory" :
		    "cannot open the directory that holds it";
		return -1;
	}
	if (fstat(dfd, &db) == -1) {
		*err = CRLC_E_ACCESS;
		*why = "cannot stat the directory that holds it";
		goto done;
	}
	/*
	 * Whoever may create or rename entries in the directory chooses what
	 * every program maps.  A sticky directory (such as /tmp) lets others
	 * create names but not replace the owner's: the file's owner check
	 * below then decides.
	 */
	if ((db.st_mode & (S_IWGRP | S_IWOTH)) && !(db.st_mode & S_ISVTX)) {
		*err = CRLC_E_ACCESS;
		*why = "its directory is writable by group or others; "
		    "refusing to map it";
		goto done;
	}
	/* Look before opening: no open() of a device, FIFO or socket. */
	if (fstatat(dfd, base, &pre, AT_SYMLINK_NOFOLLOW) == -1) {
		*err = errno == ENOENT ? CRLC_E_NOINDEX : CRLC_E_ACCESS;
		*why = crlc_index_strerror(*err);
		goto done;
	}
	if (S_ISLNK(pre.st_mode)) {
		*err = CRLC_E_ACCESS;
		*why = "a symbolic link; the index path must name the file "
		    "itself";
		goto done;
	}
	if (!S_ISREG(pre.st_mode)) {
		*err = CRLC_E_FORMAT;
		*why = "not a regular file";
		goto done;
	}
	/*
	 * It may have been replaced since: O_NONBLOCK so that a FIFO put
	 * there now cannot block the open, O_NOFOLLOW against a symlink, and
	 * what counts is the fstat of the descriptor.
	 */
	fd = openat(dfd, base, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC |
	    O_NOCTTY);
	if (fd == -1) {
		*err = errno == ENOENT ? CRLC_E_NOINDEX : CRLC_E_ACCESS;
		*why = errno == ELOOP ? "a symbolic link; the index path must "
		    "name the file itself" : crlc_index_strerror(*err);
		goto done;
	}
	if (fstat(fd, sb) == -1) {
		*err = CRLC_E_ACCESS;
		*why = "cannot stat the open file";
		goto fail;
	}
	if (!S_ISREG(sb->st_mode)) {
		*err = CRLC_E_FORMAT;
		*why = "not a regular file";
		goto fail;
	}
	/*
	 * LMDB trusts the pages it maps, and every OpenSSL program maps this
	 * file: one that anybody but its owner may rewrite is refused, and
	 * so is one owned by anybody but root or the owner of its directory
	 * (the crlcache account owns the state directory).
	 */
	if (sb->st_mode & (S_IWGRP | S_IWOTH)) {
		*err = CRLC_E_ACCESS;
		*why = "writable by group or others; refusing to map it";
		goto fail;
	}
	if (sb->st_uid != 0 && sb->st_uid != db.st_uid) {
		*err = CRLC_E_ACCESS;
		*why = "owned by neither root nor the owner of its directory; "
		    "refusing to map it";
		goto fail;
	}
	if (sb->st_size <= 0) {
		*err = CRLC_E_CORRUPT;
		*why = "empty file";
		goto fail;
	}
#if SIZE_MAX < UINTMAX_MAX
	if ((uintmax_t)sb->st_size > SIZE_MAX) {
		*err = CRLC_E_NOMEM;
		*why = "larger than this process can map";
		goto fail;
	}
#endif
	goto done;
fail:
	close(fd);
	fd = -1;
done:
	close(dfd);
	return fd;
}

/*
 * mdb_env_open() takes a path: give it the descriptor's own, and check
 * that it mapped that very file.  The map is sized from the file, not
 * from the writer's mapsize in the meta page (CRLC_MAP_SIZE, 8 GiB),
 * which a process under an address-space limit (ulimit -v, LimitAS=)
 * cannot reserve; LMDB raises it to the meta page's last page if the
 * file claims more, and check_length() refuses that file.
 */
static int
env_open_fd(MDB_env *env, int fd, const struct stat *sb, const char **why)
{
	char proc[sizeof("/proc/self/fd/") + 3 * sizeof(int)];
	struct stat lb;
	int rc, lfd, flags;

	if ((rc = mdb_env_set_mapsize(env, (size_t)sb->st_size)) != 0) {
		*why = mdb_strerror(rc);
		return CRLC_E_LMDB;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	rc = mdb_env_open(env, proc, MDB_RDONLY | MDB_NOLOCK | MDB_NOSUBDIR |
	    MDB_NOTLS | MDB_NORDAHEAD, 0444);
	if (rc == ENOENT) {
		*why = "/proc/self/fd is not available; refusing to map the "
		    "index by its path";
		return CRLC_E_ACCESS;
	}
	if (rc != 0) {
		*why = mdb_strerror(rc);
		return rc == EACCES ? CRLC_E_ACCESS :
		    rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH ?
		    CRLC_E_FORMAT : CRLC_E_CORRUPT;
	}
	if (mdb_env_get_fd(env, &lfd) != 0 || fstat(lfd, &lb) == -1 ||
	    lb.st_dev != sb->st_dev || lb.st_ino != sb->st_ino) {
		*why = "LMDB did not open the file checked; refusing to map it";
		return CRLC_E_ACCESS;
	}
	/*
	 * LMDB 0.9 opens it without O_CLOEXEC: do not hand it to the
	 * programs this one executes (a fork+exec in another thread just
	 * now may still inherit it).
	 */
	if ((flags = fcntl(lfd, F_GETFD)) != -1)
		(void)fcntl(lfd, F_SETFD, flags | FD_CLOEXEC);
	return CRLC_OK;
}

int
crlc_index_open(const char *path, struct crlc_index **out, const char **detail)
{
	struct crlc_index *idx = NULL;
	const char *why = NULL;
	struct stat sb;
	int fd, ret = CRLC_OK;

	*out = NULL;
	if ((fd = open_trusted(path, &sb, &ret, &why)) == -1)
		goto done;
	if ((ret = crlc_lmdb_check(fd, (uint64_t)sb.st_size, &why)) != CRLC_OK)
		goto done;
	if ((idx = calloc(1, sizeof(*idx))) == NULL) {
		ret = CRLC_E_NOMEM;
		goto done;
	}
	if (mdb_env_create(&idx->env) != 0 ||
	    mdb_env_set_maxdbs(idx->env, CRLC_NUM_DBS) != 0) {
		ret = CRLC_E_LMDB;
		goto done;
	}
	if ((ret = env_open_fd(idx->env, fd, &sb, &why)) != CRLC_OK)
		goto done;
	if (check_length(idx->env) == -1) {
		why = "file shorter than its last page";
		ret = CRLC_E_CORRUPT;
		goto done;
	}
	if ((ret = open_dbs(idx, &why)) != CRLC_OK)
		goto done;
	*out = idx;
	idx = NULL;
done:
	if (fd != -1)
		close(fd);
	crlc_index_close(idx);
	if (detail != NULL)
		*detail = why != NULL ? why : crlc_index_strerror(ret);
	return ret;
}

void
crlc_index_close(struct crlc_index *idx)
{
	size_t i;

	if (idx == NULL)
		return;
	for (i = 0; i < TXN_SLOTS; i++)
		mdb_txn_abort(idx->slots[i].txn);
	if (idx->env != NULL)
		mdb_env_close(idx->env);
	free(idx);
}

unsigned
crlc_index_format(const struct crlc_index *idx)
{
	return idx->format;
}

size_t
crlc_serial_key(const uint8_t *serial, size_t len, uint8_t out[CRLC_SERIAL_MAX])
{
	if (len <= CRLC_SERIAL_MAX) {
		memcpy(out, serial, len);
		return len;
	}
	out[0] = out[1] = 0;
	crlc_sha256(serial, len, out + 2);
	return CRLC_SERIAL_HASHED_LEN;
}

uint64_t
crlc_index_generation(const struct crlc_index *idx)
{
	return idx->generation;
}

int64_t
crlc_index_created(const struct crlc_index *idx)
{
	return idx->created;
}

/* Does a CRL with IDP flags cover this certificate (RFC 5280 5.2.5)? */
static int
flags_cover(unsigned flags, const struct crlc_tbs *cert)
{
	if ((flags & CRLC_CRL_USER_ONLY) && cert->is_ca)
		return 0;
	if ((flags & CRLC_CRL_CA_ONLY) && !cert->is_ca)
		return 0;
	return 1;
}

/*
 * Does the "crl" record under key cover this certificate?  Fills
 * this/next update when it does; -1 on an LMDB error.
 */
static int
scope_covers(MDB_txn *txn, MDB_dbi crl, const uint8_t *key, size_t klen,
    const struct crlc_tbs *cert, struct crlc_verdict *out)
{
	MDB_val k = { klen, (void *)key }, v;
	const uint8_t *h;
	int rc;

	if ((rc = mdb_get(txn, crl, &k, &v)) != 0)
		return rc == MDB_NOTFOUND ? 0 : -1;
	if (v.mv_size < CRLC_CRL_HDR_LEN)
		return 0;
	h = v.mv_data;
	if (!flags_cover(h[1], cert))
		return 0;
	out->this_update = crlc_get_i64(h + 8);
	out->next_update = crlc_get_i64(h + 16);
	return 1;
}

static struct issuer_entry *
issuer_slot(struct crlc_index *idx, const uint64_t w[CRLC_HASH_LEN / 8])
{
	return &idx->issuers[w[0] % ISSUER_CACHE];
}

/* 1 and *info when the cache knows this issuer. */
static int
issuer_cached(struct crlc_index *idx, const uint64_t w[CRLC_HASH_LEN / 8],
    struct issuer_info *info)
{
	struct issuer_entry *e = issuer_slot(idx, w);
	struct issuer_info got;
	unsigned before, after;
	size_t i;
	int same = 1;

	before = atomic_load(&e->seq);
	if (before & 1)
		return 0;
	for (i = 0; i < CRLC_HASH_LEN / 8; i++)
		same &= atomic_load(&e->hash[i]) == w[i];
	got.id = atomic_load(&e->id);
	got.key_no = atomic_load(&e->key_no);
	got.full = atomic_load(&e->full);
	got.this_update = atomic_load(&e->this_update);
	got.next_update = atomic_load(&e->next_update);
	after = atomic_load(&e->seq);
	if (!same || before != after || before == 0)
		return 0;
	*info = got;
	return 1;
}

static void
issuer_remember(struct crlc_index *idx, const uint64_t w[CRLC_HASH_LEN / 8],
    const struct issuer_info *info)
{
	struct issuer_entry *e = issuer_slot(idx, w);
	unsigned seq = atomic_load(&e->seq);
	size_t i;

	/* Another writer is at it: let it win, this is only a cache. */
	if ((seq & 1) || !atomic_compare_exchange_strong(&e->seq, &seq, seq + 1))
		return;
	for (i = 0; i < CRLC_HASH_LEN / 8; i++)
		atomic_store(&e->hash[i], w[i]);
	atomic_store(&e->id, info->id);
	atomic_store(&e->key_no, info->key_no);
	atomic_store(&e->full, info->full);
	atomic_store(&e->this_update, info->this_update);
	atomic_store(&e->next_update, info->next_update);
	atomic_store(&e->seq, seq + 2);
}

/*
 * Keys of one name walked to match an authorityKeyIdentifier: a rollover
 * adds one every few years; a hostile index cannot make a lookup long.
 */
#define KEY_WALK_MAX	64

/* Does a "key" value's subjectKeyIdentifier equal aki? */
static int
ski_is(const MDB_val *v, const struct crlc_span *aki)
{
	const uint8_t *p = v->mv_data;

	return v->mv_size > CRLC_KEY_NO_LEN &&
	    p[CRLC_KEY_NO_LEN] == aki->len &&
	    v->mv_size >= CRLC_KEY_NO_LEN + 1 + aki->len &&
	    memcmp(p + CRLC_KEY_NO_LEN + 1, aki->p, aki->len) == 0;
}

/*
 * The key number of issuer id's key (format.h "key"): by its key hash
 * when known, else by the subjectKeyIdentifier its certificate's
 * authorityKeyIdentifier names, else the issuer's only key; 0 (the CRLs
 * that answer for any key of the name) when that key signed no CRL held,
 * or nothing names a key and the issuer has several.  Returns -1 on an
 * LMDB error.
 */
static int
key_lookup(struct crlc_index *idx, MDB_txn *txn, uint32_t id,
    const struct crlc_issuer_key *ik, uint32_t *key_no)
{
	uint8_t kk[CRLC_ISSUER_ID_LEN + CRLC_HASH_LEN];
	MDB_val k = { sizeof(kk), kk }, v;
	MDB_cursor *cur;
	uint32_t first = 0;
	int rc, n = 0, by_aki = ik != NULL && ik->aki.len > 0;

	*key_no = 0;
	crlc_put_u32(kk, id);
	if (ik != NULL && ik->hash != NULL) {
		memcpy(kk + CRLC_ISSUER_ID_LEN, ik->hash, CRLC_HASH_LEN);
		rc = mdb_get(txn, idx->key, &k, &v);
		if (rc == 0 && v.mv_size >= CRLC_KEY_NO_LEN)
			*key_no = crlc_get_u32(v.mv_data);
		return rc == 0 || rc == MDB_NOTFOUND ? 0 : -1;
	}
	if (mdb_cursor_open(txn, idx->key, &cur) != 0)
		return -1;
	k.mv_size = CRLC_ISSUER_ID_LEN;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	    rc == 0 && n < (by_aki ? KEY_WALK_MAX : 2);
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size < CRLC_ISSUER_ID_LEN ||
		    crlc_get_u32(k.mv_data) != id || v.mv_size < CRLC_KEY_NO_LEN)
			break;
		if (n++ == 0)
			first = crlc_get_u32(v.mv_data);
		if (by_aki && ski_is(&v, &ik->aki)) {
			*key_no = crlc_get_u32(v.mv_data);
			break;
		}
	}
	mdb_cursor_close(cur);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return -1;
	/* Nothing names the key: the issuer's only one, if it has one. */
	if (!by_aki && n == 1)
		*key_no = first;
	return 0;
}

/*
 * Write the "crl" / "rev" key prefix of an issuer into key: the issuer id,
 * and in format 2 its key number.  Returns its length.
 */
static size_t
put_prefix(const struct crlc_index *idx, const struct issuer_info *info,
    uint8_t *key)
{
	crlc_put_u32(key, info->id);
	if (idx->format < 2)
		return CRLC_ISSUER_ID_LEN;
	crlc_put_u32(key + CRLC_ISSUER_ID_LEN, info->key_no);
	return CRLC_PREFIX_LEN;
}

/*
 * What the index says of an issuer Name's DER and signing key (NULL:
 * unknown): its id (0: not in the index) by the exact encoding the
 * fetcher has seen ("alias"), else by the canonical form of the same
 * issuer spelt differently ("canon"); its key number; and its complete
 * CRL, if it has one.  Returns -1 on an LMDB error.
 */
static int
issuer_lookup(struct crlc_index *idx, MDB_txn *txn,
    const struct crlc_span *name, const struct crlc_issuer_key *ik,
    struct issuer_info *info)
{
	uint64_t w[CRLC_HASH_LEN / 8];
	uint8_t hash[CRLC_HASH_LEN], key[CRLC_PREFIX_LEN];
	static const uint8_t tag_hash = 1, tag_aki = 2;
	struct iovec iov[3] = { { (void *)name->p, name->len } };
	MDB_val k = { sizeof(hash), hash }, v;
	const uint8_t *h;
	int rc;

	/* The cache knows (name, key): the same name may have several. */
	if (ik != NULL && ik->hash != NULL) {
		iov[1] = (struct iovec){ (void *)&tag_hash, 1 };
		iov[2] = (struct iovec){ (void *)ik->hash, CRLC_HASH_LEN };
	} else if (ik != NULL && ik->aki.len > 0) {
		iov[1] = (struct iovec){ (void *)&tag_aki, 1 };
		iov[2] = (struct iovec){ (void *)ik->aki.p, ik->aki.len };
	}
	crlc_sha256_iov(iov, iov[1].iov_len > 0 ? 3 : 1, hash);
	memcpy(w, hash, sizeof(w));
	if (issuer_cached(idx, w, info))
		return 0;
	memset(info, 0, sizeof(*info));
	crlc_sha256(name->p, name->len, hash);
	rc = mdb_get(txn, idx->alias, &k, &v);
	if (rc == MDB_NOTFOUND &&
	    crlc_name_canon_hash(name->p, name->len, hash) == 0)
		rc = mdb_get(txn, idx->canon, &k, &v);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return -1;
	if (rc == 0 && v.mv_size == CRLC_ISSUER_ID_LEN)
		info->id = crlc_get_u32(v.mv_data);
	if (info->id != 0 && idx->format >= 2 &&
	    key_lookup(idx, txn, info->id, ik, &info->key_no) == -1)
		return -1;
	if (info->id != 0) {
		k.mv_size = put_prefix(idx, info, key);
		k.mv_data = key;
		rc = mdb_get(txn, idx->crl, &k, &v);
		if (rc != 0 && rc != MDB_NOTFOUND)
			return -1;
		if (rc == 0 && v.mv_size >= CRLC_CRL_HDR_LEN) {
			h = v.mv_data;
			info->full = 1u | (unsigned)h[1] << 1;
			info->this_update = crlc_get_i64(h + 8);
			info->next_update = crlc_get_i64(h + 16);
		}
	}
	issuer_remember(idx, w, info);
	return 0;
}


/* A read transaction: a reused one from a slot (*slot >= 0), or a new one. */
static MDB_txn *
txn_acquire(struct crlc_index *idx, int *slot)
{
	static atomic_uint next_hint;
	static _Thread_local unsigned hint = UINT_MAX;
	MDB_txn *txn = NULL;
	unsigned i, k;

	if (hint == UINT_MAX)
		hint = atomic_fetch_add(&next_hint, 1);
	for (k = 0; k < TXN_SLOTS; k++) {
		struct txn_slot *s = &idx->slots[(hint + k) % TXN_SLOTS];

		if (atomic_exchange(&s->busy, 1))
			continue;
		i = (hint + k) % TXN_SLOTS;
		if (s->txn != NULL && mdb_txn_renew(s->txn) != 0) {
			mdb_txn_abort(s->txn);
			s->txn = NULL;
		}
		if (s->txn == NULL &&
		    mdb_txn_begin(idx->env, NULL, MDB_RDONLY, &s->txn) != 0) {
			s->txn = NULL;
			atomic_store(&s->busy, 0);
			break;
		}
		*slot = (int)i;
		return s->txn;
	}
	*slot = -1;
	if (mdb_txn_begin(idx->env, NULL, MDB_RDONLY, &txn) != 0)
		return NULL;
	return txn;
}

static void
txn_release(struct crlc_index *idx, MDB_txn *txn, int slot)
{
	if (txn == NULL)
		return;
	if (slot < 0) {
		mdb_txn_abort(txn);
		return;
	}
	mdb_txn_reset(txn);
	atomic_store(&idx->slots[slot].busy, 0);
}

int
crlc_index_issuer(struct crlc_index *idx, const struct crlc_span *name,
    uint32_t *id)
{
	struct issuer_info info;
	MDB_txn *txn;
	int slot, ret;

	*id = 0;
	if ((txn = txn_acquire(idx, &slot)) == NULL)
		return -1;
	if ((ret = issuer_lookup(idx, txn, name, NULL, &info)) == 0)
		*id = info.id;
	txn_release(idx, txn, slot);
	return ret;
}

/* A "rev" value (format.h): its first record, or -1 when malformed. */
static int
rev_decode(const struct crlc_index *idx, const MDB_val *v,
    struct crlc_verdict *out)
{
	const uint8_t *r = v->mv_data;

	if (idx->format >= 2) {
		if (v->mv_size < CRLC_REV_LEN || v->mv_size % CRLC_REV_LEN != 0)
			return -1;
		r += 2;		/* the scope number */
	} else if (v->mv_size != CRLC_REV_V1_LEN)
		return -1;
	out->state = CRLC_REVOKED;
	out->revoked_at = crlc_get_i64(r);
	out->reason = r[8] == CRLC_REASON_NONE ? -1 : r[8];
	return 0;
}

int
crlc_index_lookup(struct crlc_index *idx, const struct crlc_tbs *cert,
    const struct crlc_issuer_key *ik, int64_t now, int64_t grace,
    struct crlc_verdict *out)
{
	uint8_t key[CRLC_KEY_MAX];
	struct issuer_info info;
	MDB_txn *txn;
	MDB_val k, v;
	size_t i, plen, slen;
	int covered = 0, slot, rc, ret = -1;

	memset(out, 0, sizeof(*out));
	out->state = CRLC_UNKNOWN;
	out->reason = -1;
	if ((txn = txn_acquire(idx, &slot)) == NULL)
		return -1;
	if (issuer_lookup(idx, txn, &cert->issuer, ik, &info) == -1)
		goto done;
	if (info.id == 0) {
		ret = 0;	/* issuer not in the index: unknown */
		goto done;
	}
	plen = put_prefix(idx, &info, key);

	/* Format 1 never stored a serial longer than CRLC_SERIAL_MAX. */
	if (cert->serial.len > 0 &&
	    (idx->format >= 2 || cert->serial.len <= CRLC_SERIAL_MAX)) {
		k.mv_size = plen + crlc_serial_key(cert->serial.p,
		    cert->serial.len, key + plen);
		k.mv_data = key;
		/* A damaged tree is an error, never "not revoked". */
		rc = mdb_get(txn, idx->rev, &k, &v);
		if (rc != 0 && rc != MDB_NOTFOUND)
			goto done;
		if (rc == 0 && rev_decode(idx, &v, out) == 0) {
			ret = 0;
			goto done;
		}
	}

	/* A complete CRL (empty scope URI), else a matching partition. */
	if (info.full != 0 && flags_cover(info.full >> 1, cert)) {
		covered = 1;
		out->this_update = info.this_update;
		out->next_update = info.next_update;
	}
	for (i = 0; !covered && i < crlc_dp_count(cert); i++) {
		if (crlc_dp_scope(cert, i, key + plen, CRLC_KEY_MAX - plen,
		    &slen) == -1)
			continue;
		if ((covered = scope_covers(txn, idx->crl, key, plen + slen,
		    cert, out)) == -1)
			goto done;
	}
	out->issuer_held = !covered;
	if (covered)
		out->state = out->next_update != 0 &&
		    now > out->next_update + grace ? CRLC_STALE : CRLC_GOOD;
	ret = 0;
done:
	txn_release(idx, txn, slot);
	return ret;
}

int
crlc_index_stats(struct crlc_index *idx, struct crlc_stats *out)
{
	MDB_txn *txn;
	MDB_stat st;
	struct stat sb;
	int fd, ret = -1;

	memset(out, 0, sizeof(*out));
	if (mdb_env_get_fd(idx->env, &fd) == 0 && fstat(fd, &sb) == 0)
		out->file_size = (uint64_t)sb.st_size;
	if (mdb_txn_begin(idx->env, NULL, MDB_RDONLY, &txn) != 0)
		return -1;
	if (mdb_stat(txn, idx->canon, &st) != 0)
		goto done;
	out->issuers = st.ms_entries;
	if (mdb_stat(txn, idx->crl, &st) != 0)
		goto done;
	out->crls = st.ms_entries;
	if (mdb_stat(txn, idx->rev, &st) != 0)
		goto done;
	out->revoked = st.ms_entries;
	ret = 0;
done:
	mdb_txn_abort(txn);
	return ret;
}

int
crlc_crl_decode(const void *key, size_t keylen, const void *val, size_t vallen,
    struct crlc_crl_info *ci)
{
	const uint8_t *h = val;
	uint64_t u, d, dl;
	size_t plen;

	if (vallen < CRLC_CRL_HDR_LEN || h[0] < 1 ||
	    h[0] > CRLC_CRL_RECORD_VERSION || h[48] > CRLC_CRLNUM_MAX ||
	    h[70] > CRLC_CRLNUM_MAX)
		return -1;
	/* Record version 1 (format 1): no key number in the key. */
	plen = h[0] == 1 ? CRLC_ISSUER_ID_LEN : CRLC_PREFIX_LEN;
	if (keylen < plen)
		return -1;
	u = crlc_get_u32(h + 92);
	d = crlc_get_u32(h + 96);
	dl = crlc_get_u32(h + 100);
	if (CRLC_CRL_HDR_LEN + u + d + dl != vallen)
		return -1;
	memset(ci, 0, sizeof(*ci));
	ci->issuer_id = crlc_get_u32(key);
	if (h[0] >= 2) {
		ci->key_no = crlc_get_u32((const uint8_t *)key +
		    CRLC_ISSUER_ID_LEN);
		ci->scope_no = (unsigned)h[2] << 8 | h[3];
	}
	ci->scope.p = (const uint8_t *)key + plen;
	ci->scope.len = keylen - plen;
	ci->flags = h[1];
	ci->entries = crlc_get_u32(h + 4);
	ci->this_update = crlc_get_i64(h + 8);
	ci->next_update = crlc_get_i64(h + 16);
	ci->fetched_at = crlc_get_i64(h + 24);
	ci->delta_this_update = crlc_get_i64(h + 32);
	ci->delta_next_update = crlc_get_i64(h + 40);
	ci->number.p = h + 49;
	ci->number.len = h[48];
	ci->base.p = h + 71;
	ci->base.len = h[70];
	ci->source.p = h + CRLC_CRL_HDR_LEN;
	ci->source.len = u;
	ci->der.p = ci->source.p + u;
	ci->der.len = d;
	ci->delta.p = ci->der.p + d;
	ci->delta.len = dl;
	return 0;
}

/*
 * The subjectKeyIdentifier stored for key number key_no of issuer id
 * (format.h "key") into ski, pointing into the map; left empty when not
 * found among the first KEY_WALK_MAX keys of the name.
 */
static int
key_ski(struct crlc_index *idx, MDB_txn *txn, uint32_t id, uint32_t key_no,
    struct crlc_span *ski)
{
	uint8_t kk[CRLC_ISSUER_ID_LEN];
	MDB_val k = { sizeof(kk), kk }, v;
	MDB_cursor *cur;
	const uint8_t *p;
	int rc, n = 0;

	if (mdb_cursor_open(txn, idx->key, &cur) != 0)
		return -1;
	crlc_put_u32(kk, id);
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	    rc == 0 && n++ < KEY_WALK_MAX;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		p = v.mv_data;
		if (k.mv_size < CRLC_ISSUER_ID_LEN ||
		    crlc_get_u32(k.mv_data) != id)
			break;
		if (v.mv_size > CRLC_KEY_NO_LEN &&
		    crlc_get_u32(p) == key_no &&
		    v.mv_size >= CRLC_KEY_NO_LEN + 1u + p[CRLC_KEY_NO_LEN]) {
			ski->p = p + CRLC_KEY_NO_LEN + 1;
			ski->len = p[CRLC_KEY_NO_LEN];
			break;
		}
	}
	mdb_cursor_close(cur);
	return rc == 0 || rc == MDB_NOTFOUND ? 0 : -1;
}

int
crlc_index_foreach_crl(struct crlc_index *idx,
    int (*fn)(const struct crlc_crl_info *, void *), void *arg)
{
	struct crlc_crl_info ci;
	MDB_cursor *cur = NULL;
	MDB_txn *txn;
	MDB_val k, v;
	int rc, ret = -1;

	if (mdb_txn_begin(idx->env, NULL, MDB_RDONLY, &txn) != 0)
		return -1;
	if (mdb_cursor_open(txn, idx->crl, &cur) != 0)
		goto done;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (crlc_crl_decode(k.mv_data, k.mv_size, v.mv_data, v.mv_size,
		    &ci) == -1)
			goto done;
		if (idx->format >= 2 && ci.key_no != 0 &&
		    key_ski(idx, txn, ci.issuer_id, ci.key_no, &ci.ski) == -1)
			goto done;
		if ((ret = fn(&ci, arg)) != 0)
			goto done;
	}
	ret = rc == MDB_NOTFOUND ? 0 : -1;
done:
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	return ret;
}

int
crlc_index_foreach_scope_id(struct crlc_index *idx,
    int (*fn)(const uint8_t id[CRLC_SCOPE_ID_LEN], void *), void *arg)
{
	/* Formats 1 and 2 keep every CRL inside the one file. */
	(void)idx;
	(void)fn;
	(void)arg;
	return 0;
}
