/*
 * Opening a published crlcache index, format 4 (format.h FILE, TOP FILE,
 * READER CHECKS): the path not trusted, the top file read into private
 * memory and checked whole.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Nothing another process does to the top file after the open can change
 * what a lookup (lib/index.c) reads.  It names issuers, keys and pages
 * only, so its cost does not grow with the CRLs held.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <crlcache/format.h>
#include <crlcache/hash.h>
#include <crlcache/index.h>

#include "index_int.h"

/* The directory of page and scope files beside the top file (format.h FILE). */
#define SCOPE_DIR	"scope"

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
		return "index read error";
	}
}

/*
 * path's directory into dir[PATH_MAX] ("." for a bare name); returns its
 * last component, or NULL with *err and *why.
 */
static const char *
split_path(const char *path, char dir[PATH_MAX], int *err, const char **why)
{
	const char *base, *slash;
	size_t n;

	if ((slash = strrchr(path, '/')) == NULL) {
		memcpy(dir, ".", 2);
		base = path;
	} else {
		n = slash == path ? 1 : (size_t)(slash - path);
		if (n >= PATH_MAX) {
			*err = CRLC_E_ACCESS;
			*why = "path too long";
			return NULL;
		}
		memcpy(dir, path, n);
		dir[n] = '\0';
		base = slash + 1;
	}
	if (*base == '\0') {
		*err = CRLC_E_FORMAT;
		*why = "not a regular file";
		return NULL;
	}
	return base;
}

/*
 * The directory that holds the index, as an O_PATH descriptor with its
 * fstat in *db, refused when others may replace its entries; -1, *err and
 * *why otherwise.
 */
static int
open_dir(int at, const char *dir, struct stat *db, int *err, const char **why)
{
	int dfd;

	/* O_PATH: a directory of mode 0711 will do. */
	if ((dfd = openat(at, dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1) {
		*err = errno == ENOENT ? CRLC_E_NOINDEX : CRLC_E_ACCESS;
		*why = errno == ENOENT ? "no such directory" :
		    "cannot open the directory that holds it";
		return -1;
	}
	if (fstat(dfd, db) == -1) {
		*err = CRLC_E_ACCESS;
		*why = "cannot stat the directory that holds it";
		goto fail;
	}
	/*
	 * Whoever may create or rename entries in the directory chooses what
	 * every program reads.  A sticky directory (such as /tmp) lets others
	 * create names but not replace the owner's: the file's owner check
	 * (check_file) then decides.
	 */
	if ((db->st_mode & (S_IWGRP | S_IWOTH)) && !(db->st_mode & S_ISVTX)) {
		*err = CRLC_E_ACCESS;
		*why = "its directory is writable by group or others; "
		    "refusing to read it";
		goto fail;
	}
	return dfd;
fail:
	close(dfd);
	return -1;
}

/*
 * base in dfd opened for reading if it is a regular file and not a
 * symbolic link; -1, *err and *why otherwise.
 */
static int
open_entry(int dfd, const char *base, int *err, const char **why)
{
	struct stat pre;
	int fd;

	/* Look before opening: no open() of a device, FIFO or socket. */
	if (fstatat(dfd, base, &pre, AT_SYMLINK_NOFOLLOW) == -1) {
		*err = errno == ENOENT ? CRLC_E_NOINDEX : CRLC_E_ACCESS;
		*why = crlc_index_strerror(*err);
		return -1;
	}
	if (S_ISLNK(pre.st_mode)) {
		*err = CRLC_E_ACCESS;
		*why = "a symbolic link; the index path must name the file "
		    "itself";
		return -1;
	}
	if (!S_ISREG(pre.st_mode)) {
		*err = CRLC_E_FORMAT;
		*why = "not a regular file";
		return -1;
	}
	/*
	 * It may have been replaced since: O_NONBLOCK so that a FIFO put
	 * there now cannot block the open, O_NOFOLLOW against a symlink, and
	 * what counts is the fstat of the descriptor (check_file).
	 */
	fd = openat(dfd, base, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC |
	    O_NOCTTY);
	if (fd == -1) {
		*err = errno == ENOENT ? CRLC_E_NOINDEX : CRLC_E_ACCESS;
		*why = errno == ELOOP ? "a symbolic link; the index path must "
		    "name the file itself" : crlc_index_strerror(*err);
	}
	return fd;
}

/*
 * The open file's fstat into *sb, and the checks on it: a regular file
 * that only its owner may rewrite, owned by root or by the owner of its
 * directory (db), not empty.  0, or -1 with *err and *why.
 */
static int
check_file(int fd, const struct stat *db, struct stat *sb, int *err,
    const char **why)
{
	if (fstat(fd, sb) == -1) {
		*err = CRLC_E_ACCESS;
		*why = "cannot stat the open file";
		return -1;
	}
	if (!S_ISREG(sb->st_mode)) {
		*err = CRLC_E_FORMAT;
		*why = "not a regular file";
		return -1;
	}
	/*
	 * Every OpenSSL program reads this file and the page and scope files it
	 * names: one that anybody but its owner may rewrite is refused, and
	 * so is one owned by anybody but root or the owner of its directory
	 * (the crlcache account owns the state directory).
	 */
	if (sb->st_mode & (S_IWGRP | S_IWOTH)) {
		*err = CRLC_E_ACCESS;
		*why = "writable by group or others; refusing to read it";
		return -1;
	}
	if (sb->st_uid != 0 && sb->st_uid != db->st_uid) {
		*err = CRLC_E_ACCESS;
		*why = "owned by neither root nor the owner of its directory; "
		    "refusing to read it";
		return -1;
	}
	if (sb->st_size <= 0) {
		*err = CRLC_E_CORRUPT;
		*why = "empty file";
		return -1;
	}
	return 0;
}

/*
 * Open path (relative to at, a directory descriptor or AT_FDCWD) without
 * trusting it (see index.h): the directory that holds it, then the file
 * in that directory, never following a symbolic link
 * in the last component, never blocking, and never opening anything but
 * a regular file on purpose.  On success returns the descriptor, its
 * fstat in *sb and the directory's O_PATH descriptor in *dirfd; else -1,
 * *err and *why (a static string).  No allocation and no user database
 * lookup: this runs inside every OpenSSL program.
 */
static int
open_trusted(int at, const char *path, struct stat *sb, int *dirfd,
    int *err, const char **why)
{
	char dir[PATH_MAX];
	const char *base;
	struct stat db;
	int dfd, fd;

	if ((base = split_path(path, dir, err, why)) == NULL ||
	    (dfd = open_dir(at, dir, &db, err, why)) == -1)
		return -1;
	if ((fd = open_entry(dfd, base, err, why)) != -1 &&
	    check_file(fd, &db, sb, err, why) == -1) {
		close(fd);
		fd = -1;
	}
	if (fd == -1)
		close(dfd);
	else
		*dirfd = dfd;
	return fd;
}

/*
 * Read the whole top file (size bytes by its fstat) into idx->top and
 * check what the header promises: magic, version, length, trailer.
 */
static int
top_read(struct crlc_index *idx, int fd, uint64_t size, const char **why)
{
	uint8_t hdr[CRLC_TOP_HDR_LEN];
	uint32_t version;

	if (size < CRLC_TOP_HDR_LEN || idx_read_at(fd, hdr, sizeof(hdr), 0) == -1) {
		*why = "too short for a crlcache index";
		return CRLC_E_FORMAT;
	}
	if (memcmp(hdr, CRLC_TOP_MAGIC, CRLC_MAGIC_LEN) != 0) {
		*why = "not a crlcache index";
		return CRLC_E_FORMAT;
	}
	version = crlc_get_u32(hdr + 8);
	if (version != CRLC_FORMAT_VERSION) {
		*why = version > CRLC_FORMAT_VERSION ?
		    "index written by a newer crlcache (format version too high)" :
		    "an older index format; `crlcache publish` (or the next "
		    "`crlcache update`) rewrites it";
		return CRLC_E_FORMAT;
	}
	if (crlc_get_u64(hdr + 32) != size) {
		*why = "file length differs from the length its header records";
		return CRLC_E_CORRUPT;
	}
	/* Checked against its own trailer below, but bounded first. */
	if (size > CRLC_TOP_MAX || size < CRLC_TOP_HDR_LEN + CRLC_TOP_TRAILER_LEN) {
		*why = "top file length out of range";
		return CRLC_E_CORRUPT;
	}
	/* Issuers, keys and pages only: a page file's allocation will do. */
	if ((idx->top = malloc((size_t)size)) == NULL)
		return CRLC_E_NOMEM;
	idx->top_len = (size_t)size;
	if (idx_read_at(fd, idx->top, idx->top_len, 0) == -1) {
		*why = "cannot read the whole file";
		return CRLC_E_CORRUPT;
	}
	if (!idx_sum_ok(idx->top, idx->top_len)) {
		*why = "checksum trailer does not match the contents";
		return CRLC_E_CORRUPT;
	}
	/* The copy may differ from the header read first: use the copy. */
	if (memcmp(idx->top, hdr, sizeof(hdr)) != 0) {
		*why = "rewritten while being read";
		return CRLC_E_CORRUPT;
	}
	idx->generation = crlc_get_u64(hdr + 16);
	idx->created = crlc_get_i64(hdr + 24);
	return CRLC_OK;
}

/* The top's sections (format.h TOP FILE). */
static int
top_sections(struct crlc_index *idx, const char **why)
{
	struct section sec[CRLC_SEC_IDS + 1];
	int rc;

	if ((rc = idx_sections(idx->top, idx->top_len, CRLC_TOP_SECTIONS, sec,
	    why)) != CRLC_OK)
		return rc;
	idx->alias = (struct table){ sec[CRLC_SEC_ALIAS].p,
	    sec[CRLC_SEC_ALIAS].count };
	idx->canon = (struct table){ sec[CRLC_SEC_CANON].p,
	    sec[CRLC_SEC_CANON].count };
	idx->key = (struct table){ sec[CRLC_SEC_KEY].p, sec[CRLC_SEC_KEY].count };
	idx->page = (struct table){ sec[CRLC_SEC_PAGE].p,
	    sec[CRLC_SEC_PAGE].count };
	return CRLC_OK;
}

/*
 * memcmp(a, b, n) < 0 for n >= 8: the first 8 bytes as one big-endian
 * word decide but for a tie (keys of the whole top are checked at every
 * open: a memcmp call a record cost more than the rest of its checks).
 */
static int
before(const uint8_t *a, const uint8_t *b, size_t n)
{
	uint64_t x = crlc_get_u64(a), y = crlc_get_u64(b);

	return x != y ? x < y : memcmp(a + 8, b + 8, n - 8) < 0;
}

/* Issuer records strictly ascending by hash, ids not 0. */
static int
issuers_ok(const struct table *t)
{
	const uint8_t *r;
	uint64_t i;

	for (i = 0, r = t->p; i < t->n; i++, r += CRLC_ISSUER_REC_LEN)
		if (crlc_get_u32(r + CRLC_HASH_LEN) == 0 || (i > 0 &&
		    !before(r - CRLC_ISSUER_REC_LEN, r, CRLC_HASH_LEN)))
			return 0;
	return 1;
}

/* KEY records strictly ascending by (issuer id, key hash), sane. */
static int
keys_ok(const struct table *t)
{
	const uint8_t *r;
	uint64_t i;

	for (i = 0, r = t->p; i < t->n; i++, r += CRLC_KEY_REC_LEN)
		if (r[CRLC_KEY_SORT_LEN + CRLC_KEY_NO_LEN] > CRLC_SKI_MAX ||
		    crlc_get_u32(r + CRLC_KEY_SORT_LEN) == 0 || (i > 0 &&
		    !before(r - CRLC_KEY_REC_LEN, r, CRLC_KEY_SORT_LEN)))
			return 0;
	return 1;
}

/*
 * PAGE records strictly ascending by (issuer id, key number, page
 * number), each issuer key's pages numbered 0 .. npages - 1 with one
 * npages, a power of two of at most CRLC_PAGES_MAX, issuer ids not 0, an
 * empty page's id zero; sums their scopes and entries.
 */
static int
pages_ok(struct crlc_index *idx)
{
	static const uint8_t zero[CRLC_SCOPE_ID_LEN];
	const uint8_t *r, *prev = NULL;
	uint32_t no, n, prev_n = 0;
	uint64_t i;

	for (i = 0, r = idx->page.p; i < idx->page.n; i++,
	    r += CRLC_PAGE_REC_LEN) {
		no = crlc_get_u32(r + 8);
		n = crlc_get_u32(r + 12);
		if (crlc_get_u32(r) == 0 || n == 0 || n > CRLC_PAGES_MAX ||
		    (n & (n - 1)) != 0 || no >= n ||
		    crlc_get_u32(r + 16) > CRLC_SCOPE_NO_MAX + 1 ||
		    (crlc_get_u32(r + 16) == 0 &&
		    memcmp(r + 32, zero, sizeof(zero)) != 0))
			return 0;
		/* page 0 starts a key, after the last one's last page */
		if (no == 0 ? prev != NULL && (crlc_get_u32(prev + 8) !=
		    prev_n - 1 || !before(prev, r, CRLC_PREFIX_LEN)) :
		    prev == NULL || prev_n != n || crlc_get_u32(prev + 8) + 1 !=
		    no || memcmp(prev, r, CRLC_PREFIX_LEN) != 0)
			return 0;
		prev = r;
		prev_n = n;
		idx->scopes += crlc_get_u32(r + 16);
		idx->revoked += crlc_get_u64(r + 24);
	}
	return prev == NULL || crlc_get_u32(prev + 8) == prev_n - 1;
}

/*
 * The directory of scope files, beside the top file: trusted as the top
 * file's own directory is, owned by root or the top file's owner and
 * writable by nobody else (no sticky exception: nobody else has a reason
 * to create a name there).
 */
static int
scope_dir_open(struct crlc_index *idx, int dfd, const struct stat *top,
    const char **why)
{
	struct stat sb;

	idx->scopefd = openat(dfd, SCOPE_DIR, O_PATH | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (idx->scopefd == -1) {
		*why = errno == ENOENT ? "no scope directory beside it" :
		    "cannot open the scope directory beside it";
		return errno == ENOENT ? CRLC_E_CORRUPT : CRLC_E_ACCESS;
	}
	if (fstat(idx->scopefd, &sb) == -1) {
		*why = "cannot stat the scope directory";
		return CRLC_E_ACCESS;
	}
	if ((sb.st_uid != 0 && sb.st_uid != top->st_uid) ||
	    (sb.st_mode & (S_IWGRP | S_IWOTH))) {
		*why = "scope directory owned by another account or writable "
		    "by group or others; refusing to map its files";
		return CRLC_E_ACCESS;
	}
	idx->scope_uid = sb.st_uid;
	return CRLC_OK;
}

/* crlc_index_open() of path relative to at (AT_FDCWD or a directory). */
static int
index_open_in(int at, const char *path, struct crlc_index **out,
    const char **detail)
{
	struct crlc_index *idx = NULL;
	const char *why = NULL;
	struct stat sb;
	int fd, dfd = -1, ret = CRLC_OK;

	*out = NULL;
	if ((fd = open_trusted(at, path, &sb, &dfd, &ret, &why)) == -1)
		goto done;
	if ((idx = calloc(1, sizeof(*idx))) == NULL) {
		ret = CRLC_E_NOMEM;
		goto done;
	}
	idx->scopefd = -1;
	if ((ret = top_read(idx, fd, (uint64_t)sb.st_size, &why)) != CRLC_OK ||
	    (ret = top_sections(idx, &why)) != CRLC_OK)
		goto done;
	if (!issuers_ok(&idx->alias) || !issuers_ok(&idx->canon) ||
	    !keys_ok(&idx->key) || !pages_ok(idx)) {
		why = "a record is malformed or out of order";
		ret = CRLC_E_CORRUPT;
		goto done;
	}
	/* An index of no CRL needs no scope directory. */
	if (idx->page.n > 0 &&
	    (ret = scope_dir_open(idx, dfd, &sb, &why)) != CRLC_OK)
		goto done;
	idx->pages = calloc(idx->page.n > 0 ? (size_t)idx->page.n : 1,
	    sizeof(*idx->pages));
	if (idx->pages == NULL) {
		ret = CRLC_E_NOMEM;
		goto done;
	}
	*out = idx;
	idx = NULL;
done:
	if (fd != -1)
		close(fd);
	if (dfd != -1)
		close(dfd);
	crlc_index_close(idx);
	if (detail != NULL)
		*detail = why != NULL ? why : crlc_index_strerror(ret);
	return ret;
}

int
crlc_index_open(const char *path, struct crlc_index **out, const char **detail)
{
	return index_open_in(AT_FDCWD, path, out, detail);
}

int
crlc_index_open_at(int dirfd, const char *name, struct crlc_index **out,
    const char **detail)
{
	return index_open_in(dirfd, name, out, detail);
}

void
crlc_index_close(struct crlc_index *idx)
{
	uint64_t i;

	if (idx == NULL)
		return;
	for (i = 0; idx->pages != NULL && i < idx->page.n; i++)
		idx_page_free(atomic_load(&idx->pages[i]));
	free(idx->pages);
	if (idx->scopefd != -1)
		close(idx->scopefd);
	free(idx->top);
	free(idx);
}

int
crlc_index_has_key(const struct crlc_index *idx,
    const uint8_t key[CRLC_HASH_LEN])
{
	uint64_t i;

	/* KEY is sorted by issuer first: a walk, for the fetcher only. */
	for (i = 0; i < idx->key.n; i++)
		if (memcmp(idx->key.p + i * CRLC_KEY_REC_LEN + CRLC_ISSUER_ID_LEN,
		    key, CRLC_HASH_LEN) == 0)
			return 1;
	return 0;
}

unsigned
crlc_index_format(const struct crlc_index *idx)
{
	(void)idx;
	return CRLC_FORMAT_VERSION;	/* the only one crlc_index_open() opens */
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
