/*
 * Read-only access to a published crlcache index, format 3 (format.h
 * TOP FILE, SCOPE FILES, READER CHECKS).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The top file is read into private memory and checked whole (length,
 * header, checksum trailer, sections, records) at open: nothing another
 * process does to the file afterwards can change what a lookup reads.
 * Scope files are mapped on the first lookup that needs one and checked
 * at map; every later access is bounded by the lengths checked then.
 *
 * One file past 900 lines on purpose: the checks at open and at map and
 * the lookups that rely on them share struct crlc_index's private layout,
 * which no header exposes, and the lookup path every handshake runs stays
 * static functions of one translation unit that the compiler inlines.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <crlcache/dpname.h>
#include <crlcache/format.h>
#include <crlcache/hash.h>
#include <crlcache/index.h>
#include <crlcache/indexwrite.h>
#include <crlcache/name.h>
#include <crlcache/reasons.h>

/* The directory of scope files beside the top file (format.h FILE). */
#define SCOPE_DIR	"scope"

/*
 * Issuers recently looked up in this index, found or not: a chain
 * verification meets the same two or three issuers again and again, and
 * a miss (an issuer no CRL covers) otherwise costs two binary searches
 * and a parse of the Name.  Direct-mapped by a SHA-256 of the name and
 * key; each entry holds the whole hash, so only an exact match is used.
 * Readers take no lock: an entry carries a sequence count, odd while a
 * writer fills it, and a read that saw it change is discarded (seqlock).
 */
#define ISSUER_CACHE	64

/*
 * Keys of one name walked to match an authorityKeyIdentifier: a rollover
 * adds one every few years; a hostile index cannot make a lookup long.
 */
#define KEY_WALK_MAX	64

/*
 * Scopes that may cover one certificate: its complete CRL, each DP name,
 * each for all reasons or for some (RFC 5280 5.2.5 onlySomeReasons), and
 * those of the cRLIssuers of its distribution points (indirect CRLs); a
 * certificate that more would cover is answered unknown.
 */
#define COVER_MAX	64
/* SCOPE records of one name walked (its reason partitions), at most. */
#define NAME_SCOPES_MAX	255

/* What a lookup needs to know about an issuer before its serial. */
struct issuer_info {
	uint32_t	id;		/* 0: not in the index */
	uint32_t	key_no;		/* format.h KEY; 0: any key */
	uint32_t	full;		/* complete CRL (the first of its reason
					   partitions): SCOPE record + 1, 0 none */
};

struct issuer_entry {
	atomic_uint		 seq;
	_Atomic uint64_t	 hash[CRLC_HASH_LEN / 8];
	atomic_uint		 id;
	atomic_uint		 key_no;
	atomic_uint		 full;
};

/* A scope file, mapped and checked (format.h SCOPE FILES). */
struct scope_map {
	void		*base;
	size_t		 len;
	const uint8_t	*ent;		/* nent records of CRLC_SCOPE_ENTRY_LEN */
	uint64_t	 nent;
	struct crlc_span der, delta;
};

/* A fixed-size section of the top file, checked at open. */
struct table {
	const uint8_t	*p;
	uint64_t	 n;
};

struct crlc_index {
	struct issuer_entry	 issuers[ISSUER_CACHE];
	uint8_t		*top;		/* private copy of the whole top file */
	size_t		 top_len;
	struct table	 alias, canon, key, sidx;
	const uint8_t	*sdata;		/* SCOPE_DATA */
	uint64_t	 sdata_len;
	uint64_t	 revoked;	/* sum of the SCOPE records' entries */
	int		 some_reasons;	/* a SCOPE record is a reason partition */
	/* One per SCOPE record: NULL until a lookup maps it. */
	_Atomic(struct scope_map *) *maps;
	int		 scopefd;	/* O_PATH of SCOPE_DIR, or -1 */
	uid_t		 scope_uid;	/* its owner */
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
		return "index read error";
	}
}

/*
 * Open path without trusting it (see index.h): the directory that holds
 * it, then the file in that directory, never following a symbolic link
 * in the last component, never blocking, and never opening anything but
 * a regular file on purpose.  On success returns the descriptor, its
 * fstat in *sb and the directory's O_PATH descriptor in *dirfd; else -1,
 * *err and *why (a static string).  No allocation and no user database
 * lookup: this runs inside every OpenSSL program.
 */
static int
open_trusted(const char *path, struct stat *sb, int *dirfd, int *err,
    const char **why)
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
	 * every program reads.  A sticky directory (such as /tmp) lets others
	 * create names but not replace the owner's: the file's owner check
	 * below then decides.
	 */
	if ((db.st_mode & (S_IWGRP | S_IWOTH)) && !(db.st_mode & S_ISVTX)) {
		*err = CRLC_E_ACCESS;
		*why = "its directory is writable by group or others; "
		    "refusing to read it";
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
	 * Every OpenSSL program reads this file and maps the scope files it
	 * names: one that anybody but its owner may rewrite is refused, and
	 * so is one owned by anybody but root or the owner of its directory
	 * (the crlcache account owns the state directory).
	 */
	if (sb->st_mode & (S_IWGRP | S_IWOTH)) {
		*err = CRLC_E_ACCESS;
		*why = "writable by group or others; refusing to read it";
		goto fail;
	}
	if (sb->st_uid != 0 && sb->st_uid != db.st_uid) {
		*err = CRLC_E_ACCESS;
		*why = "owned by neither root nor the owner of its directory; "
		    "refusing to read it";
		goto fail;
	}
	if (sb->st_size <= 0) {
		*err = CRLC_E_CORRUPT;
		*why = "empty file";
		goto fail;
	}
	*dirfd = dfd;
	return fd;
fail:
	close(fd);
	fd = -1;
done:
	close(dfd);
	return fd;
}

/*
 * LMDB 0.9's meta page magic, in page 0 after the page header (8 bytes
 * and a page number of size_t): formats 1 and 2 published an LMDB file
 * under the same name (format.h VERSIONS).
 */
#define LMDB_MAGIC	0xBEEFC0DEu

static int
is_lmdb(const uint8_t hdr[CRLC_TOP_HDR_LEN])
{
	static const size_t at[] = { 12, 16 };	/* 32- and 64-bit writers */
	uint32_t v;
	size_t i;

	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		memcpy(&v, hdr + at[i], sizeof(v));
		if (v == LMDB_MAGIC)
			return 1;
	}
	return 0;
}

/* n bytes at off of fd into buf, through short reads; 0 or -1. */
static int
read_at(int fd, void *buf, size_t n, off_t off)
{
	uint8_t *b = buf;
	ssize_t r;

	while (n > 0) {
		if ((r = pread(fd, b, n, off)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			return -1;	/* shorter than it was: truncated now */
		b += r;
		n -= (size_t)r;
		off += r;
	}
	return 0;
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

	if (size < CRLC_TOP_HDR_LEN || read_at(fd, hdr, sizeof(hdr), 0) == -1) {
		*why = "too short for a crlcache index";
		return CRLC_E_FORMAT;
	}
	if (memcmp(hdr, CRLC_TOP_MAGIC, CRLC_MAGIC_LEN) != 0) {
		*why = is_lmdb(hdr) ? "an older index format (LMDB, format 1 "
		    "or 2); run `crlcache update` to rewrite it in format 3" :
		    "not a crlcache index";
		return CRLC_E_FORMAT;
	}
	version = crlc_get_u32(hdr + 8);
	if (version != CRLC_FORMAT_VERSION) {
		*why = version > CRLC_FORMAT_VERSION ?
		    "index written by a newer crlcache (format version too high)" :
		    "index format version not supported";
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
	/*
	 * Its pages made at once (MAP_POPULATE), not faulted in one by one
	 * as pread() fills them: a 3.2 MB top (16,000 CRLs) cost a whole
	 * `openssl verify` process 29.4 ms instead of 23.9 ms.
	 */
	idx->top = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (idx->top == MAP_FAILED) {
		idx->top = NULL;
		return CRLC_E_NOMEM;
	}
	idx->top_len = (size_t)size;
	if (read_at(fd, idx->top, idx->top_len, 0) == -1) {
		*why = "cannot read the whole file";
		return CRLC_E_CORRUPT;
	}
	if (crlc_sum64(idx->top, idx->top_len - CRLC_TOP_TRAILER_LEN) !=
	    crlc_get_u64(idx->top + idx->top_len - CRLC_TOP_TRAILER_LEN)) {
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

/* The record size each required section must have. */
static const uint32_t section_rec[CRLC_SEC_REQUIRED + 1] = {
	[CRLC_SEC_ALIAS] = CRLC_ISSUER_REC_LEN,
	[CRLC_SEC_CANON] = CRLC_ISSUER_REC_LEN,
	[CRLC_SEC_KEY] = CRLC_KEY_REC_LEN,
	[CRLC_SEC_SCOPE_INDEX] = CRLC_SCOPE_INDEX_REC_LEN,
	[CRLC_SEC_SCOPE_DATA] = 0,
};

/*
 * The section descriptors: each inside the space between descriptors
 * and trailer, fixed-size ones exactly count records long, every
 * required id once.
 */
static int
top_sections(struct crlc_index *idx, const char **why)
{
	const uint8_t *d, *top = idx->top;
	uint64_t first, end, off, len, count;
	uint32_t n, i, id, rec, seen = 0;
	struct table *t;

	n = crlc_get_u32(top + 12);
	first = CRLC_TOP_HDR_LEN + (uint64_t)n * CRLC_TOP_DESC_LEN;
	end = idx->top_len - CRLC_TOP_TRAILER_LEN;
	if (n == 0 || n > CRLC_TOP_DESC_MAX || first > end) {
		*why = "bad section count";
		return CRLC_E_CORRUPT;
	}
	for (i = 0; i < n; i++) {
		d = top + CRLC_TOP_HDR_LEN + (size_t)i * CRLC_TOP_DESC_LEN;
		id = crlc_get_u32(d);
		rec = crlc_get_u32(d + 4);
		off = crlc_get_u64(d + 8);
		len = crlc_get_u64(d + 16);
		count = crlc_get_u64(d + 24);
		if (off < first || off > end || len > end - off) {
			*why = "a section lies outside the file";
			return CRLC_E_CORRUPT;
		}
		if (id == 0 || id > CRLC_SEC_REQUIRED)
			continue;	/* room to grow: ignored */
		if (seen & 1u << id || rec != section_rec[id] ||
		    (rec != 0 && (count > len / rec || count * rec != len))) {
			*why = "bad section descriptor";
			return CRLC_E_CORRUPT;
		}
		seen |= 1u << id;
		t = id == CRLC_SEC_ALIAS ? &idx->alias :
		    id == CRLC_SEC_CANON ? &idx->canon :
		    id == CRLC_SEC_KEY ? &idx->key :
		    id == CRLC_SEC_SCOPE_INDEX ? &idx->sidx : NULL;
		if (t != NULL) {
			t->p = top + off;
			t->n = count;
		} else {
			idx->sdata = top + off;
			idx->sdata_len = len;
		}
	}
	if (seen != ((1u << (CRLC_SEC_REQUIRED + 1)) - 2)) {
		*why = "a required section is missing";
		return CRLC_E_CORRUPT;
	}
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

static uint32_t
scope_uri_len(const uint8_t *rec)
{
	return (uint32_t)rec[8] << 8 | rec[9];
}

/*
 * The reasons a SCOPE record covers (offset 14, 0: all; format.h
 * SCOPE_DATA, <crlcache/reasons.h>).
 */
static unsigned
scope_reasons(const uint8_t *rec)
{
	unsigned m = (unsigned)rec[14] << 8 | rec[15];

	return m == 0 ? CRLC_REASONS_ALL : m;
}

/*
 * The reasons field of record r with scope key part of length u agrees
 * with the key: 0 without a reasons suffix, else the suffix's mask, some
 * reasons and no others (<crlcache/reasons.h>).
 */
static int
scope_reasons_ok(const uint8_t *r, uint32_t u)
{
	unsigned field = (unsigned)r[14] << 8 | r[15], key;
	size_t namelen;

	key = crlc_scope_reasons(r + CRLC_SCOPE_REC_HDR_LEN, u, &namelen);
	if (key == CRLC_REASONS_ALL)
		return field == 0;
	return field == key && key != 0 && (key & ~CRLC_REASONS_ALL) == 0;
}

/* SCOPE record i (checked at open by scopes_ok()). */
static const uint8_t *
scope_rec(const struct crlc_index *idx, uint64_t i)
{
	return idx->sdata + crlc_get_u32(idx->sidx.p +
	    i * CRLC_SCOPE_INDEX_REC_LEN);
}

/*
 * Every SCOPE record inside SCOPE_DATA with its URI and source, its
 * numbers of at most CRLC_CRLNUM_MAX octets, and the records strictly
 * ascending by key (format.h crlc_scope_cmp()); sums their entries.
 */
static int
scopes_ok(struct crlc_index *idx)
{
	const uint8_t *r, *prev = NULL;
	uint64_t i, off;
	uint32_t u;

	for (i = 0; i < idx->sidx.n; i++) {
		off = crlc_get_u32(idx->sidx.p + i * CRLC_SCOPE_INDEX_REC_LEN);
		if (off > idx->sdata_len ||
		    idx->sdata_len - off < CRLC_SCOPE_REC_HDR_LEN)
			return 0;
		r = idx->sdata + off;
		u = scope_uri_len(r);
		if (u > CRLC_SCOPE_URI_MAX || r[60] > CRLC_CRLNUM_MAX ||
		    r[82] > CRLC_CRLNUM_MAX || crlc_get_u32(r) == 0 ||
		    idx->sdata_len - off - CRLC_SCOPE_REC_HDR_LEN <
		    (uint64_t)u + crlc_get_u32(r + 120) ||
		    !scope_reasons_ok(r, u))
			return 0;
		if (prev != NULL && crlc_scope_cmp(prev,
		    prev + CRLC_SCOPE_REC_HDR_LEN, scope_uri_len(prev), r,
		    r + CRLC_SCOPE_REC_HDR_LEN, u) >= 0)
			return 0;
		prev = r;
		idx->revoked += crlc_get_u32(r + 16);
		idx->some_reasons |= r[14] != 0 || r[15] != 0;
	}
	return 1;
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

int
crlc_index_open(const char *path, struct crlc_index **out, const char **detail)
{
	struct crlc_index *idx = NULL;
	const char *why = NULL;
	struct stat sb;
	int fd, dfd = -1, ret = CRLC_OK;

	*out = NULL;
	if ((fd = open_trusted(path, &sb, &dfd, &ret, &why)) == -1)
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
	    !keys_ok(&idx->key) || !scopes_ok(idx)) {
		why = "a record is malformed or out of order";
		ret = CRLC_E_CORRUPT;
		goto done;
	}
	/* An index of no CRL needs no scope directory. */
	if (idx->sidx.n > 0 &&
	    (ret = scope_dir_open(idx, dfd, &sb, &why)) != CRLC_OK)
		goto done;
	idx->maps = calloc(idx->sidx.n > 0 ? (size_t)idx->sidx.n : 1,
	    sizeof(*idx->maps));
	if (idx->maps == NULL) {
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

static void
scope_unmap(struct scope_map *m)
{
	if (m == NULL)
		return;
	munmap(m->base, m->len);
	free(m);
}

void
crlc_index_close(struct crlc_index *idx)
{
	uint64_t i;

	if (idx == NULL)
		return;
	for (i = 0; idx->maps != NULL && i < idx->sidx.n; i++)
		scope_unmap(atomic_load(&idx->maps[i]));
	free(idx->maps);
	if (idx->scopefd != -1)
		close(idx->scopefd);
	if (idx->top != NULL)
		munmap(idx->top, idx->top_len);
	free(idx);
}

unsigned
crlc_index_format(const struct crlc_index *idx)
{
	(void)idx;
	return CRLC_FORMAT_VERSION;	/* the only one crlc_index_open() opens */
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

void
crlc_foreign_form(const uint8_t canon[CRLC_HASH_LEN], const uint8_t *serial,
    size_t len, uint8_t out[CRLC_FOREIGN_FORM_LEN])
{
	struct iovec iov[2] = { { (void *)canon, CRLC_HASH_LEN },
	    { (void *)serial, len } };

	out[0] = 0;
	out[1] = 1;
	crlc_sha256_iov(iov, 2, out + 2);
}

int
crlc_is_foreign_form(const uint8_t *form, size_t len)
{
	return len == CRLC_FOREIGN_FORM_LEN && form[0] == 0 && form[1] == 1;
}

void
crlc_foreign_slot(const uint8_t form[CRLC_FOREIGN_FORM_LEN],
    uint8_t slot[CRLC_SLOT_LEN])
{
	memcpy(slot, form + 2, CRLC_SLOT_INLINE);
	slot[CRLC_SLOT_INLINE] = CRLC_SLOT_FOREIGN;
}

void
crlc_scope_slot(const uint8_t *serial, size_t len, uint8_t slot[CRLC_SLOT_LEN])
{
	uint8_t h[CRLC_HASH_LEN];

	memset(slot, 0, CRLC_SLOT_LEN);
	if (len <= CRLC_SLOT_INLINE) {
		memcpy(slot, serial, len);
		slot[CRLC_SLOT_INLINE] = (uint8_t)len;
		return;
	}
	/* Over 20 octets breaks RFC 5280 4.1.2.2: still found, by hash. */
	crlc_sha256(serial, len, h);
	memcpy(slot, h, CRLC_SLOT_INLINE);
	slot[CRLC_SLOT_INLINE] = CRLC_SLOT_HASHED;
}

void
crlc_scope_name(const uint8_t id[CRLC_SCOPE_ID_LEN],
    char name[2 * CRLC_SCOPE_ID_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < CRLC_SCOPE_ID_LEN; i++) {
		name[2 * i] = hex[id[i] >> 4];
		name[2 * i + 1] = hex[id[i] & 0xf];
	}
	name[2 * CRLC_SCOPE_ID_LEN] = '\0';
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

/*
 * Map the scope file of SCOPE record rec and check it against the record
 * and itself (format.h READER CHECKS).  NULL on any failure: the caller
 * answers with an error, never from an unchecked file.
 */
static struct scope_map *
scope_map_open(const struct crlc_index *idx, const uint8_t *rec)
{
	char name[2 * CRLC_SCOPE_ID_LEN + 1];
	uint8_t h[CRLC_SCOPE_HDR_LEN];
	struct scope_map *m = NULL;
	uint64_t size, nent, eoff, doff, dlen, xoff, xlen;
	struct stat sb;
	void *base = MAP_FAILED;
	int fd;

	if (idx->scopefd == -1)
		return NULL;
	crlc_scope_name(rec + 104, name);
	fd = openat(idx->scopefd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW |
	    O_CLOEXEC | O_NOCTTY);
	if (fd == -1)
		return NULL;
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    (sb.st_mode & (S_IWGRP | S_IWOTH)) ||
	    (sb.st_uid != 0 && sb.st_uid != idx->scope_uid) ||
	    sb.st_size < CRLC_SCOPE_HDR_LEN ||
	    (uintmax_t)sb.st_size > SIZE_MAX)
		goto done;
	size = (uint64_t)sb.st_size;
	base = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		goto done;
	/* One private copy of the header: the checks and the use agree. */
	memcpy(h, base, sizeof(h));
	nent = crlc_get_u64(h + 40);
	eoff = crlc_get_u64(h + 48);
	doff = crlc_get_u64(h + 56);
	dlen = crlc_get_u64(h + 64);
	xoff = crlc_get_u64(h + 72);
	xlen = crlc_get_u64(h + 80);
	if (memcmp(h, CRLC_SCOPE_MAGIC, CRLC_MAGIC_LEN) != 0 ||
	    crlc_get_u32(h + 8) != CRLC_FORMAT_VERSION ||
	    crlc_get_u32(h + 12) != CRLC_SCOPE_ENTRY_LEN ||
	    memcmp(h + 16, rec + 104, CRLC_SCOPE_ID_LEN) != 0 ||
	    crlc_get_u64(h + 32) != size || nent != crlc_get_u32(rec + 16) ||
	    eoff < CRLC_SCOPE_HDR_LEN || eoff > size ||
	    nent > (size - eoff) / CRLC_SCOPE_ENTRY_LEN ||
	    doff < CRLC_SCOPE_HDR_LEN || doff > size || dlen == 0 ||
	    dlen > size - doff || xoff > size || xlen > size - xoff)
		goto done;
	if ((m = malloc(sizeof(*m))) == NULL)
		goto done;
	m->base = base;
	m->len = (size_t)size;
	m->ent = (const uint8_t *)base + eoff;
	m->nent = nent;
	m->der = (struct crlc_span){ (const uint8_t *)base + doff, (size_t)dlen };
	m->delta = (struct crlc_span){ (const uint8_t *)base + xoff,
	    (size_t)xlen };
	base = MAP_FAILED;
done:
	if (base != MAP_FAILED)
		munmap(base, (size_t)size);
	close(fd);
	return m;
}

/*
 * The mapped scope file of SCOPE record i, mapped now if no lookup did
 * before; NULL when it cannot be.  Once mapped: one atomic load.
 */
static const struct scope_map *
scope_get(struct crlc_index *idx, uint64_t i)
{
	struct scope_map *m, *none = NULL;

	if ((m = atomic_load_explicit(&idx->maps[i], memory_order_acquire)))
		return m;
	if ((m = scope_map_open(idx, scope_rec(idx, i))) == NULL)
		return NULL;
	/* Another thread mapped it meanwhile: use that one. */
	if (!atomic_compare_exchange_strong_explicit(&idx->maps[i], &none, m,
	    memory_order_acq_rel, memory_order_acquire)) {
		scope_unmap(m);
		return none;
	}
	return m;
}

/*
 * Lower bound of key[0..klen) among n records of size rec whose first
 * klen bytes ascend; 1 when the record there starts with key.
 */
static int
table_find(const struct table *t, size_t rec, const uint8_t *key,
    size_t klen, uint64_t *at)
{
	uint64_t lo = 0, hi = t->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (memcmp(t->p + mid * rec, key, klen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return lo < t->n && memcmp(t->p + lo * rec, key, klen) == 0;
}

/*
 * The SCOPE record of key (prefix, uri[0..ulen)): 1 and *at, or 0 and
 * *at its lower bound.
 */
static int
scope_find(const struct crlc_index *idx, const uint8_t prefix[CRLC_PREFIX_LEN],
    const uint8_t *uri, size_t ulen, uint64_t *at)
{
	uint64_t lo = 0, hi = idx->sidx.n, mid;
	const uint8_t *r;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		r = scope_rec(idx, mid);
		c = crlc_scope_cmp(r, r + CRLC_SCOPE_REC_HDR_LEN,
		    scope_uri_len(r), prefix, uri, ulen);
		if (c == 0) {
			*at = mid;
			return 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return 0;
}

/* The entry of slot in a mapped scope file, or NULL. */
static const uint8_t *
entry_find(const struct scope_map *m, const uint8_t slot[CRLC_SLOT_LEN])
{
	uint64_t lo = 0, hi = m->nent, mid;
	const uint8_t *e;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		e = m->ent + mid * CRLC_SCOPE_ENTRY_LEN;
		if ((c = memcmp(e, slot, CRLC_SLOT_LEN)) == 0)
			return e;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
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
 * Is SCOPE record i one of name uri[0..ulen) under prefix: the name
 * itself, or the name and a reasons suffix (<crlcache/reasons.h>)?
 */
static int
scope_of_name(const struct crlc_index *idx, uint64_t i,
    const uint8_t prefix[CRLC_PREFIX_LEN], const uint8_t *uri, size_t ulen)
{
	const uint8_t *r;
	uint32_t u;

	if (i >= idx->sidx.n)
		return 0;
	r = scope_rec(idx, i);
	u = scope_uri_len(r);
	/* the prefix as one u64, as crlc_scope_cmp(): no call */
	if (crlc_get_u64(r) != crlc_get_u64(prefix))
		return 0;
	if (u != ulen && (u != ulen + CRLC_REASONS_SUFFIX_LEN ||
	    r[CRLC_SCOPE_REC_HDR_LEN + ulen] != 0))
		return 0;
	return ulen == 0 || memcmp(r + CRLC_SCOPE_REC_HDR_LEN, uri, ulen) == 0;
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
	atomic_store(&e->seq, seq + 2);
}

/* KEY record fields (format.h KEY). */
static uint32_t
key_no_of(const uint8_t *r)
{
	return crlc_get_u32(r + CRLC_KEY_SORT_LEN);
}

static struct crlc_span
key_ski_of(const uint8_t *r)
{
	return (struct crlc_span){ r + CRLC_KEY_SORT_LEN + CRLC_KEY_NO_LEN + 1,
	    r[CRLC_KEY_SORT_LEN + CRLC_KEY_NO_LEN] };
}

/*
 * The key number of issuer id's key (format.h KEY): by its key hash when
 * known, else by the subjectKeyIdentifier its certificate's
 * authorityKeyIdentifier names, else the issuer's only key; 0 (the CRLs
 * that answer for any key of the name) when that key signed no CRL held,
 * or nothing names a key and the issuer has several.
 */
static uint32_t
key_lookup(const struct crlc_index *idx, uint32_t id,
    const struct crlc_issuer_key *ik)
{
	uint8_t kk[CRLC_KEY_SORT_LEN];
	struct crlc_span ski;
	const uint8_t *r;
	uint64_t at, n;
	int by_aki = ik != NULL && ik->aki.len > 0;

	crlc_put_u32(kk, id);
	if (ik != NULL && ik->hash != NULL) {
		memcpy(kk + CRLC_ISSUER_ID_LEN, ik->hash, CRLC_HASH_LEN);
		return table_find(&idx->key, CRLC_KEY_REC_LEN, kk,
		    CRLC_KEY_SORT_LEN, &at) ?
		    key_no_of(idx->key.p + at * CRLC_KEY_REC_LEN) : 0;
	}
	(void)table_find(&idx->key, CRLC_KEY_REC_LEN, kk, CRLC_ISSUER_ID_LEN,
	    &at);
	for (n = 0; at + n < idx->key.n && n < (by_aki ? KEY_WALK_MAX : 2);
	    n++) {
		r = idx->key.p + (at + n) * CRLC_KEY_REC_LEN;
		if (crlc_get_u32(r) != id)
			break;
		ski = key_ski_of(r);
		if (by_aki && ski.len == ik->aki.len &&
		    memcmp(ski.p, ik->aki.p, ski.len) == 0)
			return key_no_of(r);
	}
	/* Nothing names the key: the issuer's only one, if it has one. */
	return !by_aki && n == 1 ? key_no_of(idx->key.p + at *
	    CRLC_KEY_REC_LEN) : 0;
}

static void
put_prefix(uint8_t prefix[CRLC_PREFIX_LEN], uint32_t id, uint32_t key_no)
{
	crlc_put_u32(prefix, id);
	crlc_put_u32(prefix + CRLC_ISSUER_ID_LEN, key_no);
}

/*
 * What the index says of an issuer Name's DER and signing key (NULL:
 * unknown): its id (0: not in the index) by the exact encoding the
 * fetcher has seen (ALIAS), else by the canonical form of the same
 * issuer spelt differently (CANON); its key number; and its complete
 * CRL, if it has one.
 */
static void
issuer_lookup(struct crlc_index *idx, const struct crlc_span *name,
    const struct crlc_issuer_key *ik, struct issuer_info *info)
{
	uint64_t w[CRLC_HASH_LEN / 8], at;
	uint8_t hash[CRLC_HASH_LEN], prefix[CRLC_PREFIX_LEN];
	static const uint8_t tag_hash = 1, tag_aki = 2;
	struct iovec iov[3] = { { (void *)name->p, name->len } };
	const struct table *t = &idx->alias;
	int found;

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
		return;
	memset(info, 0, sizeof(*info));
	crlc_sha256(name->p, name->len, hash);
	found = table_find(t, CRLC_ISSUER_REC_LEN, hash, CRLC_HASH_LEN, &at);
	if (!found && crlc_name_canon_hash(name->p, name->len, hash) == 0) {
		t = &idx->canon;
		found = table_find(t, CRLC_ISSUER_REC_LEN, hash, CRLC_HASH_LEN,
		    &at);
	}
	if (found)
		info->id = crlc_get_u32(t->p + at * CRLC_ISSUER_REC_LEN +
		    CRLC_HASH_LEN);
	if (info->id != 0) {
		info->key_no = key_lookup(idx, info->id, ik);
		put_prefix(prefix, info->id, info->key_no);
		if (scope_find(idx, prefix, NULL, 0, &at) ||
		    scope_of_name(idx, at, prefix, NULL, 0))
			info->full = (uint32_t)at + 1;
	}
	issuer_remember(idx, w, info);
}

int
crlc_index_issuer(struct crlc_index *idx, const struct crlc_span *name,
    uint32_t *id)
{
	struct issuer_info info;

	issuer_lookup(idx, name, NULL, &info);
	*id = info.id;
	return 0;
}

/*
 * A scope that covers a certificate, for these reasons (RFC 5280
 * 6.3.3 (d): interim_reasons_mask), and whether the certificate is looked
 * up there as another issuer's (format.h INDIRECT CRLS).
 */
struct cover {
	uint64_t	at;		/* SCOPE record */
	unsigned	reasons;
	int		foreign;
};

/*
 * Add the SCOPE records of name uri[0..ulen) that cover cert for some of
 * dp_reasons, from record at, the name's lower bound: its record for all
 * reasons and its reason partitions (the name and a reasons suffix, which
 * sort right after it); only indirect CRLs (IDP indirectCRL) when
 * indirect, the certificate looked up there as another issuer's when
 * foreign.  A record reached again adds its reasons.  0, or -1 when more
 * records than NAME_SCOPES_MAX or COVER_MAX (unknown).
 */
static inline int
name_cover(const struct crlc_index *idx, uint64_t at,
    const uint8_t prefix[CRLC_PREFIX_LEN], const uint8_t *uri, size_t ulen,
    unsigned dp_reasons, const struct crlc_tbs *cert, int indirect,
    int foreign, struct cover *cover, size_t *n)
{
	const uint8_t *r;
	unsigned interim;
	size_t k, j;
	/* without reason partitions a name has one record at most */
	uint64_t last = idx->some_reasons ? idx->sidx.n : at + 1;

	for (k = 0; at + k < last &&
	    scope_of_name(idx, at + k, prefix, uri, ulen); k++) {
		if (k == NAME_SCOPES_MAX)
			return -1;
		r = scope_rec(idx, at + k);
		if ((interim = scope_reasons(r) & dp_reasons) == 0 ||
		    !flags_cover(r[10], cert) ||
		    (indirect && !(r[10] & CRLC_CRL_INDIRECT)))
			continue;
		for (j = 0; j < *n && (cover[j].at != at + k ||
		    cover[j].foreign != foreign); j++)
			;
		if (j == COVER_MAX)
			return -1;
		if (j == *n)
			cover[(*n)++] = (struct cover){ at + k, 0, foreign };
		cover[j].reasons |= interim;
	}
	return 0;
}

/*
 * name_cover() for the distribution point name uri[0..ulen): from its
 * SCOPE record, or, where reason partitions exist, from the lower bound
 * its partitions sort after.
 */
static inline int
dp_cover(const struct crlc_index *idx, const uint8_t prefix[CRLC_PREFIX_LEN],
    const uint8_t *uri, size_t ulen, unsigned dp_reasons,
    const struct crlc_tbs *cert, int indirect, int foreign,
    struct cover *cover, size_t *n)
{
	uint64_t at;

	if (!scope_find(idx, prefix, uri, ulen, &at) && !idx->some_reasons)
		return 0;
	return name_cover(idx, at, prefix, uri, ulen, dp_reasons, cert,
	    indirect, foreign, cover, n);
}

/* Does issuer id have more than one KEY record? */
static int
keys_several(const struct crlc_index *idx, uint32_t id)
{
	uint8_t kk[CRLC_ISSUER_ID_LEN];
	uint64_t at;

	crlc_put_u32(kk, id);
	return table_find(&idx->key, CRLC_KEY_REC_LEN, kk, CRLC_ISSUER_ID_LEN,
	    &at) && at + 1 < idx->key.n &&
	    crlc_get_u32(idx->key.p + (at + 1) * CRLC_KEY_REC_LEN) == id;
}

/*
 * The scopes of the distribution points with a cRLIssuer (RFC 5280
 * 6.3.3 (b)(1)): of the CRL issuer the cRLIssuer names, by its Name
 * (ALIAS, else CANON) and its only key (or key number 0: a dedicated CRL
 * signer), its indirect CRLs (IDP indirectCRL) whose IDP names the
 * distribution point's name, or has none (6.3.3 (b)(2)(i)), for the
 * reasons of the distribution point (name_cover).  A CRL issuer with
 * several keys is not used: nothing says which of them signs the CRLs
 * that cover this certificate (*ambiguous).  The certificate is another
 * issuer's there unless the cRLIssuer is its own issuer, own_id (which
 * RFC 5280 4.2.1.13 tells CAs not to write): the CRL then lists it as
 * its own, without certificateIssuer.  0, or -1 as name_cover.
 */
static int
covering_indirect(struct crlc_index *idx, const struct crlc_tbs *cert,
    uint32_t own_id, struct cover cover[COVER_MAX], size_t *n, int *ambiguous)
{
	uint8_t prefix[CRLC_PREFIX_LEN], uri[CRLC_SCOPE_URI_MAX];
	const struct crlc_tbs_idp *d;
	struct issuer_info x;
	unsigned reasons;
	size_t i, ulen;

	for (i = 0; i < cert->nind; i++) {
		d = &cert->ind[i];
		issuer_lookup(idx, &d->crl_issuer, NULL, &x);
		if (x.id == 0)
			continue;
		if (keys_several(idx, x.id)) {
			*ambiguous = 1;
			continue;
		}
		reasons = CRLC_REASONS_ALL & ~(unsigned)d->unnamed;
		put_prefix(prefix, x.id, x.key_no);
		if (x.full != 0 && name_cover(idx, x.full - 1, prefix, NULL, 0,
		    reasons, cert, 1, x.id != own_id, cover, n) == -1)
			return -1;
		if (crlc_ind_scope(d, uri, sizeof(uri), &ulen) == -1 ||
		    ulen == 0)
			continue;
		if (dp_cover(idx, prefix, uri, ulen, reasons, cert, 1,
		    x.id != own_id, cover, n) == -1)
			return -1;
	}
	return 0;
}

/*
 * The SCOPE records that cover cert (RFC 5280 6.3.3 (b)): the complete
 * CRLs of the issuer key, unless every distribution point of the
 * certificate names a cRLIssuer; then the partitions of each
 * distribution point name, each if its IDP flags admit the certificate
 * and its reasons meet the distribution point's (6.3.3 (d)), each once;
 * then the indirect CRLs of the cRLIssuers (covering_indirect).  0, or
 * -1 when too many.
 */
static int
covering(struct crlc_index *idx, const struct issuer_info *info,
    const struct crlc_tbs *cert, struct cover cover[COVER_MAX], size_t *n,
    int *ambiguous)
{
	uint8_t prefix[CRLC_PREFIX_LEN], uri[CRLC_SCOPE_URI_MAX];
	size_t i, ulen;

	*n = 0;
	put_prefix(prefix, info->id, info->key_no);
	if (info->full != 0 && !cert->dp_indirect_only &&
	    name_cover(idx, info->full - 1, prefix, NULL, 0, CRLC_REASONS_ALL,
	    cert, 0, 0, cover, n) == -1)
		return -1;
	for (i = 0; info->id != 0 && i < crlc_dp_count(cert); i++) {
		if (crlc_dp_scope(cert, i, uri, sizeof(uri), &ulen) == -1)
			continue;
		if (dp_cover(idx, prefix, uri, ulen, crlc_dp_reasons(cert, i),
		    cert, 0, 0, cover, n) == -1)
			return -1;
	}
	if (cert->nind > 0)
		return covering_indirect(idx, cert, info->id, cover, n,
		    ambiguous);
	return 0;
}

/*
 * The CRL times a verdict reports: of the first scope that covers all
 * reasons alone (the complete CRL when it covers); else, the reasons
 * assembled from several partitions, of the one whose nextUpdate comes
 * first (each must be current, RFC 5280 6.3.3 (a)).
 */
static inline void
cover_times(const struct crlc_index *idx, const struct cover *cover,
    size_t n, struct crlc_verdict *out)
{
	const uint8_t *r, *pick = NULL;
	int64_t next;
	size_t i;

	for (i = 0; i < n && pick == NULL; i++)
		if (cover[i].reasons == CRLC_REASONS_ALL)
			pick = scope_rec(idx, cover[i].at);
	for (i = 0; i < n && pick == NULL; i++) {
		r = scope_rec(idx, cover[i].at);
		next = crlc_get_i64(r + 28);
		if (next != 0 && (out->next_update == 0 ||
		    next < out->next_update)) {
			out->this_update = crlc_get_i64(r + 20);
			out->next_update = next;
		}
	}
	if (pick != NULL) {
		out->this_update = crlc_get_i64(pick + 20);
		out->next_update = crlc_get_i64(pick + 28);
	} else if (out->next_update == 0)
		out->this_update = crlc_get_i64(scope_rec(idx,
		    cover[0].at) + 20);
}

/*
 * The slot cert has among another issuer's entries of an indirect CRL
 * (format.h INDIRECT CRLS); -1 when its issuer Name has no canonical
 * form.
 */
static int
foreign_slot(const struct crlc_tbs *cert, uint8_t slot[CRLC_SLOT_LEN])
{
	uint8_t canon[CRLC_HASH_LEN], form[CRLC_FOREIGN_FORM_LEN];

	if (crlc_name_canon_hash(cert->issuer.p, cert->issuer.len, canon) == -1)
		return -1;
	crlc_foreign_form(canon, cert->serial.p, cert->serial.len, form);
	crlc_foreign_slot(form, slot);
	return 0;
}

int
crlc_index_lookup(struct crlc_index *idx, const struct crlc_tbs *cert,
    const struct crlc_issuer_key *ik, int64_t now, int64_t grace,
    struct crlc_verdict *out)
{
	uint8_t slot[CRLC_SLOT_LEN], fslot[CRLC_SLOT_LEN];
	struct cover cover[COVER_MAX];
	const struct scope_map *m;
	const uint8_t *e;
	struct issuer_info info;
	unsigned reasons = 0;
	size_t i, n;
	int failed = 0, have_fslot = -1;

	memset(out, 0, sizeof(*out));
	out->state = CRLC_UNKNOWN;
	out->reason = -1;
	issuer_lookup(idx, &cert->issuer, ik, &info);
	if (info.id == 0 && cert->nind == 0)
		return 0;	/* issuer not in the index: unknown */
	if (covering(idx, &info, cert, cover, &n,
	    &out->crl_issuer_ambiguous) == -1 || n == 0) {
		out->issuer_held = info.id != 0 || n > 0;
		return 0;
	}
	if (cert->serial.len > 0) {
		crlc_scope_slot(cert->serial.p, cert->serial.len, slot);
		for (i = 0; i < n; i++) {
			if (cover[i].foreign && have_fslot == -1)
				have_fslot = foreign_slot(cert, fslot) == 0;
			if (cover[i].foreign && !have_fslot) {
				failed = 1;
				continue;
			}
			/* A scope file that cannot be read is an error, never
			   "not revoked"; a revocation elsewhere still counts. */
			if ((m = scope_get(idx, cover[i].at)) == NULL) {
				failed = 1;
				continue;
			}
			if ((e = entry_find(m, cover[i].foreign ? fslot :
			    slot)) != NULL) {
				cover_times(idx, cover, n, out);
				out->state = CRLC_REVOKED;
				out->revoked_at = crlc_get_i64(e + 24);
				out->reason = e[32] == CRLC_REASON_NONE ? -1 :
				    e[32];
				return 0;
			}
		}
		if (failed)
			return -1;
	}
	/* RFC 5280 6.3.3 (j)-(k): good only once every reason is covered */
	for (i = 0; i < n; i++)
		reasons |= cover[i].reasons;
	if (reasons != CRLC_REASONS_ALL) {
		out->issuer_held = 1;
		out->reasons = reasons;
		return 0;
	}
	cover_times(idx, cover, n, out);
	out->state = out->next_update != 0 && now > out->next_update + grace ?
	    CRLC_STALE : CRLC_GOOD;
	return 0;
}

int
crlc_index_stats(struct crlc_index *idx, struct crlc_stats *out)
{
	char name[2 * CRLC_SCOPE_ID_LEN + 1];
	struct stat sb;
	uint64_t i;

	memset(out, 0, sizeof(*out));
	out->issuers = idx->canon.n;
	out->crls = idx->sidx.n;
	out->revoked = idx->revoked;
	out->file_size = idx->top_len;
	for (i = 0; i < idx->sidx.n && idx->scopefd != -1; i++) {
		crlc_scope_name(scope_rec(idx, i) + 104, name);
		if (fstatat(idx->scopefd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
			out->file_size += (uint64_t)sb.st_size;
	}
	return 0;
}

/*
 * The subjectKeyIdentifier stored for key number key_no of issuer id
 * (format.h KEY), pointing into the top; empty when not found among the
 * first KEY_WALK_MAX keys of the name.
 */
static struct crlc_span
key_ski(const struct crlc_index *idx, uint32_t id, uint32_t key_no)
{
	uint8_t kk[CRLC_ISSUER_ID_LEN];
	const uint8_t *r;
	uint64_t at, n;

	crlc_put_u32(kk, id);
	(void)table_find(&idx->key, CRLC_KEY_REC_LEN, kk, CRLC_ISSUER_ID_LEN,
	    &at);
	for (n = 0; at + n < idx->key.n && n < KEY_WALK_MAX; n++) {
		r = idx->key.p + (at + n) * CRLC_KEY_REC_LEN;
		if (crlc_get_u32(r) != id)
			break;
		if (key_no_of(r) == key_no)
			return key_ski_of(r);
	}
	return (struct crlc_span){ NULL, 0 };
}

/* SCOPE record r (format.h SCOPE_DATA) into ci, but for its CRLs. */
static void
scope_decode(const uint8_t *r, struct crlc_crl_info *ci)
{
	uint32_t u = scope_uri_len(r);

	memset(ci, 0, sizeof(*ci));
	ci->issuer_id = crlc_get_u32(r);
	ci->key_no = crlc_get_u32(r + 4);
	ci->scope_no = (unsigned)r[12] << 8 | r[13];
	ci->flags = r[10];
	ci->entries = crlc_get_u32(r + 16);
	ci->this_update = crlc_get_i64(r + 20);
	ci->next_update = crlc_get_i64(r + 28);
	ci->fetched_at = crlc_get_i64(r + 36);
	ci->delta_this_update = crlc_get_i64(r + 44);
	ci->delta_next_update = crlc_get_i64(r + 52);
	ci->number = (struct crlc_span){ r + 61, r[60] };
	ci->base = (struct crlc_span){ r + 83, r[82] };
	ci->scope = (struct crlc_span){ r + CRLC_SCOPE_REC_HDR_LEN, u };
	ci->reasons = scope_reasons(r);
	ci->name = (struct crlc_span){ ci->scope.p, u -
	    (ci->reasons == CRLC_REASONS_ALL ? 0 : CRLC_REASONS_SUFFIX_LEN) };
	ci->source = (struct crlc_span){ r + CRLC_SCOPE_REC_HDR_LEN + u,
	    crlc_get_u32(r + 120) };
}

int
crlc_index_foreach_crl(struct crlc_index *idx,
    int (*fn)(const struct crlc_crl_info *, void *), void *arg)
{
	struct crlc_crl_info ci;
	const struct scope_map *m;
	uint64_t i;
	int ret;

	for (i = 0; i < idx->sidx.n; i++) {
		scope_decode(scope_rec(idx, i), &ci);
		if ((m = scope_get(idx, i)) == NULL)
			return -1;
		ci.der = m->der;
		ci.delta = m->delta;
		if (ci.key_no != 0)
			ci.ski = key_ski(idx, ci.issuer_id, ci.key_no);
		if ((ret = fn(&ci, arg)) != 0)
			return ret;
	}
	return 0;
}

int
crlc_index_foreach_scope_id(struct crlc_index *idx,
    int (*fn)(const uint8_t id[CRLC_SCOPE_ID_LEN], void *), void *arg)
{
	uint64_t i;
	int ret;

	for (i = 0; i < idx->sidx.n; i++)
		if ((ret = fn(scope_rec(idx, i) + 104, arg)) != 0)
			return ret;
	return 0;
}

/* The work env's "crl" record (format 2, STATE_DIR/work/); the fetcher's. */
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
	ci->reasons = crlc_scope_reasons(ci->scope.p, ci->scope.len,
	    &ci->name.len);
	ci->name.p = ci->scope.p;
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

