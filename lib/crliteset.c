/*
 * The CRLite set in force: its set file, and lookups read from its
 * lookup file an issuer at a time (<crlcache/crliteset.h>; the layouts
 * are <crlcache/crlite.h>'s).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <crlcache/crlite.h>
#include <crlcache/crliteset.h>
#include <crlcache/format.h>
#include <crlcache/hash.h>
#include <crlcache/sct.h>
#include <crlcache/statefile.h>

/* The largest set file: a header, the most records, the trailer. */
#define SET_MAX_LEN	(CRLC_CRLITE_HDR_LEN + \
	CRLC_CRLITE_FILTERS_MAX * CRLC_CRLITE_REC_LEN + CRLC_CRLITE_TRAILER_LEN)
/*
 * Issuers a set remembers (held or not): a verifying process meets a
 * handful; a busy client a few hundred of Mozilla's ~1,500.  Probing
 * stops at a free slot, so a full table costs a scan of it.
 */
#define SLOTS		512
/*
 * An issuer's record held whole up to this; a larger one (Let's
 * Encrypt's in the full filter: hundreds of KiB) is held as its part
 * headers, and its rows read at each lookup, two pread(2) calls a filter.
 */
#define RECORD_HELD_MAX	((size_t)64 << 10)
/* Exceptions are scanned from the file this many bytes at a time. */
#define SCAN_LEN	4096
/* A row of the widest part: the window's words of 255 columns. */
#define ROW_MAX		(CRLC_CLUBCARD_WINDOW * 255 * 8)

/* An issuer met: where its record is, and what of it is held. */
struct entry {
	uint8_t		 issuer[CRLC_SCT_HASH_LEN];
	uint64_t	 off;		/* the record's offset in the file */
	uint32_t	 len, n;	/* its length, its parts (0: none) */
	size_t		 held;		/* bytes of it in mem */
	uint8_t		 mem[];
};

struct crlc_crliteset {
	struct crlc_crliteset_file file;
	int		 fd;		/* the lookup file */
	uint64_t	 flen;
	uint32_t	 nlogs, nissuers;
	uint8_t		*head;		/* header, fanout, logs, coverage */
	size_t		 headlen;
	uint64_t	 newest[CRLC_CRLITE_FILTERS_MAX];
	_Atomic(struct entry *) slot[SLOTS];
	atomic_size_t	 held;		/* bytes of the entries in slots */
};

/* The set file's bytes into buf (SET_MAX_LEN): its length, or -1. */
static long
read_set(int dfd, const struct stat *dir, uint8_t *buf, char *why,
    size_t whylen, int *none)
{
	struct stat sb;
	long ret = -1;
	int fd;

	if ((fd = crlc_state_open(dfd, dir, CRLC_CRLITE_SET_NAME, &sb)) == -1) {
		*none = errno == ENOENT;
		return crlc_refuse(why, whylen, "%s: %s", CRLC_CRLITE_SET_NAME,
		    crlc_state_open_why(errno));
	}
	if (sb.st_size < CRLC_CRLITE_HDR_LEN + CRLC_CRLITE_TRAILER_LEN ||
	    sb.st_size > (off_t)SET_MAX_LEN) {
		crlc_refuse(why, whylen, "%s: %lld bytes, not a set of 1 to %u "
		    "filters", CRLC_CRLITE_SET_NAME, (long long)sb.st_size,
		    CRLC_CRLITE_FILTERS_MAX);
		goto done;
	}
	if (crlc_read_exact(fd, buf, (size_t)sb.st_size) == -1) {
		crlc_refuse(why, whylen, "%s: changed while read",
		    CRLC_CRLITE_SET_NAME);
		goto done;
	}
	ret = (long)sb.st_size;
done:
	close(fd);
	return ret;
}

/* Check the set's header and trailer; its filter count, or 0. */
static size_t
set_count(const uint8_t *b, size_t len, char *why, size_t whylen)
{
	uint32_t n;

	if (memcmp(b, CRLC_CRLITE_MAGIC, CRLC_CRLITE_MAGIC_LEN) != 0 ||
	    crlc_get_u32(b + 8) != CRLC_CRLITE_VERSION) {
		crlc_refuse(why, whylen, "%s: not a set of version %u",
		    CRLC_CRLITE_SET_NAME, CRLC_CRLITE_VERSION);
		return 0;
	}
	n = crlc_get_u32(b + 12);
	if (n == 0 || n > CRLC_CRLITE_FILTERS_MAX ||
	    len != CRLC_CRLITE_HDR_LEN + (size_t)n * CRLC_CRLITE_REC_LEN +
	    CRLC_CRLITE_TRAILER_LEN || crlc_get_u32(b + 36) != 0) {
		crlc_refuse(why, whylen, "%s: %u filters in %zu bytes",
		    CRLC_CRLITE_SET_NAME, n, len);
		return 0;
	}
	if (crlc_sum64(b, len - CRLC_CRLITE_TRAILER_LEN) !=
	    crlc_get_u64(b + len - CRLC_CRLITE_TRAILER_LEN)) {
		crlc_refuse(why, whylen, "%s: checksum mismatch",
		    CRLC_CRLITE_SET_NAME);
		return 0;
	}
	return n;
}

/* Record i of the set into out: -1 when it breaks a rule of the set. */
static int
set_record(struct crlc_crliteset_file *out, size_t i, const uint8_t *rec,
    char *why, size_t whylen)
{
	uint64_t size = crlc_get_u64(rec + CRLC_SCT_HASH_LEN);
	size_t k;

	/* a kind, then 7 zero bytes */
	if (rec[40] != (i == 0 ? CRLC_CRLITE_FULL : CRLC_CRLITE_DELTA) ||
	    (crlc_get_u64(rec + 40) & 0x00ffffffffffffffu) != 0 ||
	    size == 0 || size > CRLC_CLUBCARD_MAX_LEN)
		return crlc_refuse(why, whylen, "%s: record %zu malformed "
		    "(kind %u, %llu bytes)", CRLC_CRLITE_SET_NAME, i, rec[40],
		    (unsigned long long)size);
	for (k = 0; k < i; k++)
		if (memcmp(out->f[k].hash, rec, CRLC_SCT_HASH_LEN) == 0)
			return crlc_refuse(why, whylen, "%s: record %zu names "
			    "the filter of record %zu again",
			    CRLC_CRLITE_SET_NAME, i, k);
	if ((out->bytes += size) > CRLC_CRLITE_SET_MAX_BYTES)
		return crlc_refuse(why, whylen, "%s: filters of more than "
		    "%llu bytes", CRLC_CRLITE_SET_NAME,
		    (unsigned long long)CRLC_CRLITE_SET_MAX_BYTES);
	memcpy(out->f[i].hash, rec, CRLC_SCT_HASH_LEN);
	out->f[i].size = size;
	out->f[i].kind = rec[40];
	return 0;
}

/* The set file of the directory dfd into out: 0, 1 none, -1. */
static int
set_parse(int dfd, const struct stat *dsb, struct crlc_crliteset_file *out,
    char *why, size_t whylen)
{
	uint8_t b[SET_MAX_LEN];
	long len;
	size_t i, n;
	int none = 0;

	memset(out, 0, sizeof(*out));
	if ((len = read_set(dfd, dsb, b, why, whylen, &none)) == -1)
		return none ? 1 : -1;
	if ((n = set_count(b, (size_t)len, why, whylen)) == 0)
		return -1;
	for (i = 0; i < n; i++)
		if (set_record(out, i, b + CRLC_CRLITE_HDR_LEN +
		    i * CRLC_CRLITE_REC_LEN, why, whylen) == -1)
			return -1;
	out->n = (uint32_t)n;
	out->installed = crlc_get_i64(b + 16);
	out->newest = crlc_get_u64(b + 24);
	out->source = crlc_get_u32(b + 32);
	out->sum = crlc_get_u64(b + len - CRLC_CRLITE_TRAILER_LEN);
	return 0;
}

/* The directory, opened as readers must: its fd, or -1 (1 in *none). */
static int
dir_open(const char *dir, char *why, size_t whylen, int *none)
{
	int dfd;

	*none = 0;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		*none = errno == ENOENT;
		return crlc_refuse(why, whylen, "%s", strerror(errno));
	}
	return dfd;
}

/* The open directory as readers must have it: its stat into dsb, or -1. */
static int
dir_check(int dfd, struct stat *dsb, char *why, size_t whylen)
{
	if (fstat(dfd, dsb) == -1 || (dsb->st_mode & (S_IWGRP | S_IWOTH)))
		return crlc_refuse(why, whylen, "the directory is writable by "
		    "others than its owner");
	return 0;
}

int
crlc_crliteset_read_at(int dfd, struct crlc_crliteset_file *out, char *why,
    size_t whylen)
{
	struct stat dsb;

	if (dir_check(dfd, &dsb, why, whylen) == -1)
		return -1;
	return set_parse(dfd, &dsb, out, why, whylen);
}

int
crlc_crliteset_read(const char *dir, struct crlc_crliteset_file *out,
    char *why, size_t whylen)
{
	int dfd, none, ret;

	if ((dfd = dir_open(dir, why, whylen, &none)) == -1)
		return none ? 1 : -1;
	ret = crlc_crliteset_read_at(dfd, out, why, whylen);
	close(dfd);
	return ret;
}

/* Exactly len bytes of the lookup file at off into buf, or -1. */
static int
read_at(const struct crlc_crliteset *set, void *buf, size_t len, uint64_t off)
{
	ssize_t r;

	if (off > set->flen || len > set->flen - off)
		return -1;
	do
		r = pread(set->fd, buf, len, (off_t)off);
	while (r == -1 && errno == EINTR);
	return r == (ssize_t)len ? 0 : -1;
}

/* Coverage of log l by filter f: its low and high. */
static const uint8_t *
coverage(const struct crlc_crliteset *set, size_t l, size_t f)
{
	return set->head + CRLC_CRLITE_LOOKUP_LOGS_AT +
	    set->nlogs * CRLC_CRLITE_LOOKUP_LOG_LEN +
	    (l * set->file.n + f) * CRLC_CRLITE_LOOKUP_COV_LEN;
}

/* The lookup file's head: checked against the set and the file's size. */
static int
head_read(struct crlc_crliteset *set, const char *name, char *why,
    size_t whylen)
{
	uint8_t h[CRLC_CRLITE_LOOKUP_LOGS_AT];
	const uint8_t *c;
	uint64_t need;
	size_t b, l, f;

	if (read_at(set, h, sizeof(h), 0) == -1 ||
	    memcmp(h, CRLC_CRLITE_LOOKUP_MAGIC, CRLC_CRLITE_MAGIC_LEN) != 0 ||
	    crlc_get_u32(h + 8) != CRLC_CRLITE_LOOKUP_VERSION)
		return crlc_refuse(why, whylen, "%s: not a lookup file of "
		    "version %u", name, CRLC_CRLITE_LOOKUP_VERSION);
	set->nlogs = crlc_get_u32(h + 24);
	set->nissuers = crlc_get_u32(h + 28);
	if (crlc_get_u32(h + 12) != set->file.n ||
	    crlc_get_u64(h + 16) != set->file.sum ||
	    crlc_get_u64(h + 32) != set->flen)
		return crlc_refuse(why, whylen, "%s: not the lookup file of "
		    "this set (%u filters, %llu bytes)", name,
		    crlc_get_u32(h + 12), (unsigned long long)set->flen);
	need = CRLC_CRLITE_LOOKUP_LOGS_AT + (uint64_t)set->nlogs *
	    (CRLC_CRLITE_LOOKUP_LOG_LEN + (uint64_t)set->file.n *
	    CRLC_CRLITE_LOOKUP_COV_LEN);
	if (set->nlogs > CRLC_CLUBCARD_MAX_LOGS ||
	    need > CRLC_CRLITE_LOOKUP_HEAD_MAX || need + (uint64_t)
	    set->nissuers * CRLC_CRLITE_LOOKUP_ISSUER_LEN > set->flen)
		return crlc_refuse(why, whylen, "%s: %u logs and %u issuers "
		    "in %llu bytes", name, set->nlogs, set->nissuers,
		    (unsigned long long)set->flen);
	for (b = 0; b < CRLC_CRLITE_LOOKUP_FANOUT; b++)
		if (crlc_get_u32(h + CRLC_CRLITE_LOOKUP_HDR_LEN + 4 * b) >
		    (b + 1 < CRLC_CRLITE_LOOKUP_FANOUT ? crlc_get_u32(h +
		    CRLC_CRLITE_LOOKUP_HDR_LEN + 4 * (b + 1)) : set->nissuers) ||
		    (b + 1 == CRLC_CRLITE_LOOKUP_FANOUT && crlc_get_u32(h +
		    CRLC_CRLITE_LOOKUP_HDR_LEN + 4 * b) != set->nissuers))
			return crlc_refuse(why, whylen, "%s: fanout entry %zu "
			    "out of order", name, b);
	set->headlen = (size_t)need;
	if ((set->head = malloc(set->headlen)) == NULL)
		return crlc_refuse(why, whylen, "out of memory");
	if (read_at(set, set->head, set->headlen, 0) == -1 ||
	    memcmp(set->head, h, sizeof(h)) != 0)
		return crlc_refuse(why, whylen, "%s: changed while read", name);
	for (l = 0; l < set->nlogs; l++)
		for (f = 0; f < set->file.n; f++) {
			c = coverage(set, l, f);
			if (crlc_get_u64(c) <= crlc_get_u64(c + 8) &&
			    crlc_get_u64(c + 8) > set->newest[f])
				set->newest[f] = crlc_get_u64(c + 8);
		}
	return 0;
}

int
crlc_crliteset_open(const char *dir, struct crlc_crliteset **out, char *why,
    size_t whylen)
{
	int dfd, none, ret;

	*out = NULL;
	if ((dfd = dir_open(dir, why, whylen, &none)) == -1)
		return none ? 1 : -1;
	ret = crlc_crliteset_open_at(dfd, out, why, whylen);
	close(dfd);
	return ret;
}

int
crlc_crliteset_open_at(int dfd, struct crlc_crliteset **out, char *why,
    size_t whylen)
{
	char name[CRLC_CRLITE_LOOKUP_NAME_LEN];
	struct crlc_crliteset *set = NULL;
	struct stat dsb, sb;
	int r, ret = -1;

	*out = NULL;
	if (dir_check(dfd, &dsb, why, whylen) == -1)
		return -1;
	if ((set = calloc(1, sizeof(*set))) == NULL) {
		crlc_refuse(why, whylen, "out of memory");
		goto done;
	}
	set->fd = -1;
	if ((r = set_parse(dfd, &dsb, &set->file, why, whylen)) != 0) {
		ret = r;
		goto done;
	}
	crlc_crlite_lookup_name(set->file.sum, name, sizeof(name));
	if ((set->fd = crlc_state_open(dfd, &dsb, name, &sb)) == -1) {
		crlc_refuse(why, whylen, "%s: %s", name,
		    crlc_state_open_why(errno));
		goto done;
	}
	set->flen = (uint64_t)sb.st_size;
	if (head_read(set, name, why, whylen) == -1)
		goto done;
	*out = set;
	set = NULL;
	ret = 0;
done:
	crlc_crliteset_free(set);
	return ret;
}

void
crlc_crliteset_free(struct crlc_crliteset *set)
{
	size_t i;

	if (set == NULL)
		return;
	for (i = 0; i < SLOTS; i++)
		free(atomic_load(&set->slot[i]));
	if (set->fd != -1)
		close(set->fd);
	free(set->head);
	free(set);
}

void
crlc_crliteset_size(const struct crlc_crliteset *set, size_t *filters,
    size_t *bytes)
{
	*filters = set->file.n;
	*bytes = set->headlen + atomic_load(&set->held);
}

const struct crlc_crliteset_file *
crlc_crliteset_header(const struct crlc_crliteset *set)
{
	return &set->file;
}

/*
 * Issuer's entry in the table, by the fanout and a binary search, read
 * with its record's held part into a new entry: NULL when a read fails
 * or the entry does not fit the file.
 */
static struct entry *
entry_read(const struct crlc_crliteset *set, const uint8_t *issuer)
{
	uint8_t e[CRLC_CRLITE_LOOKUP_ISSUER_LEN];
	const uint8_t *fan = set->head + CRLC_CRLITE_LOOKUP_HDR_LEN;
	uint64_t table = set->headlen, off = 0;
	uint32_t lo = crlc_get_u32(fan + 4 * issuer[0]),
	    hi = crlc_get_u32(fan + 4 * (issuer[0] + 1)), mid, len = 0, n = 0;
	struct entry *en;
	size_t held;
	int r;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (read_at(set, e, sizeof(e), table +
		    (uint64_t)mid * CRLC_CRLITE_LOOKUP_ISSUER_LEN) == -1)
			return NULL;
		if ((r = memcmp(e, issuer, CRLC_SCT_HASH_LEN)) == 0) {
			off = crlc_get_u64(e + 32);
			len = crlc_get_u32(e + 40);
			n = crlc_get_u32(e + 44);
			break;
		}
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (n > set->file.n || (uint64_t)n * CRLC_CRLITE_LOOKUP_PART_LEN > len ||
	    off > set->flen || len > set->flen - off)
		return NULL;
	held = len <= RECORD_HELD_MAX ? len : n * CRLC_CRLITE_LOOKUP_PART_LEN;
	if ((en = malloc(sizeof(*en) + held)) == NULL)
		return NULL;
	memcpy(en->issuer, issuer, CRLC_SCT_HASH_LEN);
	en->off = off;
	en->len = len;
	en->n = n;
	en->held = held;
	if (read_at(set, en->mem, held, off) == -1) {
		free(en);
		return NULL;
	}
	return en;
}

/*
 * The issuer's entry: held in a slot, or read now (*own: the caller's to
 * free, when the slots are full or the bytes held would pass the bound).
 */
static struct entry *
entry_get(struct crlc_crliteset *set, const uint8_t *issuer, int *own)
{
	struct entry *en, *cur, *none;
	size_t i, k, cost;

	*own = 0;
	k = (size_t)crlc_get_u32(issuer + 4) % SLOTS;
	for (i = 0; i < SLOTS; i++) {
		cur = atomic_load_explicit(&set->slot[(k + i) % SLOTS],
		    memory_order_acquire);
		if (cur == NULL)
			break;
		if (memcmp(cur->issuer, issuer, CRLC_SCT_HASH_LEN) == 0)
			return cur;
	}
	if ((en = entry_read(set, issuer)) == NULL)
		return NULL;
	cost = sizeof(*en) + en->held;
	if (atomic_fetch_add(&set->held, cost) + cost > CRLC_CRLITESET_HELD_MAX) {
		atomic_fetch_sub(&set->held, cost);
		*own = 1;
		return en;
	}
	for (; i < SLOTS; i++) {
		none = NULL;
		if (atomic_compare_exchange_strong(&set->slot[(k + i) % SLOTS],
		    &none, en))
			return en;
		/* another thread filled it meanwhile: with this issuer? */
		if (memcmp(none->issuer, issuer, CRLC_SCT_HASH_LEN) == 0) {
			atomic_fetch_sub(&set->held, cost);
			free(en);
			return none;
		}
	}
	atomic_fetch_sub(&set->held, cost);
	*own = 1;
	return en;
}

/*
 * len bytes at off of the entry's record: in memory when held, else read
 * into buf; NULL past the record or when the read fails.
 */
static const uint8_t *
rec_get(const struct crlc_crliteset *set, const struct entry *en, uint64_t off,
    size_t len, uint8_t *buf)
{
	if (off > en->len || len > en->len - off)
		return NULL;
	if (off + len <= en->held)
		return en->mem + off;
	return read_at(set, buf, len, en->off + off) == 0 ? buf : NULL;
}

/*
 * The parity of a times the window at row r of a region of rows of width
 * words (the column c of each), rows in all: rows past it read as 0.
 */
static int
region_odd(const struct crlc_crliteset *set, const struct entry *en,
    uint64_t at, uint64_t rows, unsigned width, uint64_t r, unsigned ncols,
    const uint64_t a[CRLC_CLUBCARD_LIMBS], uint8_t *buf)
{
	uint64_t w[CRLC_CLUBCARD_WINDOW], first = r / 64, have;
	const uint8_t *p = NULL;
	unsigned c, i;

	have = first >= rows ? 0 : rows - first;
	if (have > CRLC_CLUBCARD_WINDOW)
		have = CRLC_CLUBCARD_WINDOW;
	if (have != 0 && (p = rec_get(set, en, at + first * width * 8,
	    (size_t)have * width * 8, buf)) == NULL)
		return -1;
	for (c = 0; c < ncols; c++) {
		for (i = 0; i < CRLC_CLUBCARD_WINDOW; i++)
			w[i] = i < have ? crlc_get_u64(p + 8 * (i * width + c)) : 0;
		if (crlc_clubcard_window_odd(w, (unsigned)(r % 64), a))
			return 1;
	}
	return 0;
}

/* 1 when the serial is one of the count exceptions at off, 0 not, -1. */
static int
exception_find(const struct crlc_crliteset *set, const struct entry *en,
    uint64_t off, uint64_t end, uint32_t count,
    const struct crlc_clubcard_query *q)
{
	uint8_t buf[SCAN_LEN];
	const uint8_t *p;
	size_t got, i;

	while (count > 0 && off < end) {
		got = end - off < SCAN_LEN ? (size_t)(end - off) : SCAN_LEN;
		if ((p = rec_get(set, en, off, got, buf)) == NULL)
			return -1;
		for (i = 0; count > 0 && i < got && i + 1 + p[i] <= got;
		    i += 1 + (size_t)p[i], count--)
			if (p[i] == q->serial_len &&
			    memcmp(p + i + 1, q->serial, q->serial_len) == 0)
				return 1;
		if (i == 0)
			return -1;	/* an exception longer than it says */
		off += i;
	}
	return 0;
}

/*
 * Part hdr of the entry: 1 when the key is a member of its filter's block
 * (the clubcard query of <crlcache/clubcard.h> on the part's rows), 0
 * not, -1 when the record does not read.
 */
static int
part_member(const struct crlc_crliteset *set, const struct entry *en,
    const uint8_t *hdr, const struct crlc_clubcard_query *q,
    const uint64_t a[CRLC_CLUBCARD_LIMBS], uint64_t t)
{
	uint8_t buf[ROW_MAX];
	uint64_t am = crlc_get_u32(hdr + 4), em = crlc_get_u32(hdr + 8),
	    rows = crlc_get_u32(hdr + 16), words = crlc_get_u32(hdr + 20),
	    body = crlc_get_u32(hdr + 24), x = crlc_get_u32(hdr + 28);
	unsigned rank = hdr[12], inv = hdr[13] != 0;
	int r;

	/*
	 * upki-revocation: Exception<1..2^8-1> exceptions<0..2^16-1>; so
	 * the scan below reads a bounded number of bytes, whatever X says.
	 */
	if (hdr[14] > 63 || hdr[15] > 63 || crlc_get_u32(hdr + 32) > UINT16_MAX ||
	    x > (uint64_t)crlc_get_u32(hdr + 32) * (1 + UINT8_MAX))
		return -1;
	if (am == 0)
		return (int)inv;
	if ((r = region_odd(set, en, body, rows, rank, hdr[14] + t % am, rank,
	    a, buf)) != 0)
		return r == 1 ? (int)inv : -1;
	/* clubcard 0.3: a modulus of 0 is taken as 1 */
	if ((r = region_odd(set, en, body + rows * rank * 8, words, 1,
	    hdr[15] + t % (em == 0 ? 1 : em), 1, a, buf)) != 0)
		return r == 1 ? (int)inv : -1;
	body += (rows * rank + words) * 8;
	if ((r = exception_find(set, en, body, body + x,
	    crlc_get_u32(hdr + 32), q)) != 0)
		return r == 1 ? (int)inv : -1;
	return !inv;
}

/* Which filters an SCT of the list falls in the coverage of. */
static int
covered(const struct crlc_crliteset *set, const struct crlc_sct *scts,
    size_t nscts, uint8_t *in)
{
	const uint8_t *logs = set->head + CRLC_CRLITE_LOOKUP_LOGS_AT, *c;
	size_t i, lo, hi, mid, f;
	int any = 0, r;

	memset(in, 0, set->file.n);
	for (i = 0; i < nscts; i++)
		for (lo = 0, hi = set->nlogs; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			r = memcmp(logs + mid * CRLC_CRLITE_LOOKUP_LOG_LEN,
			    scts[i].log_id, CRLC_SCT_HASH_LEN);
			if (r < 0) {
				lo = mid + 1;
				continue;
			}
			if (r > 0) {
				hi = mid;
				continue;
			}
			for (f = 0; f < set->file.n; f++) {
				c = coverage(set, mid, f);
				if (crlc_get_u64(c) <= scts[i].timestamp &&
				    scts[i].timestamp <= crlc_get_u64(c + 8))
					any = in[f] = 1;
			}
			break;
		}
	return any;
}

/*
 * upki-revocation "Step 3" over the entry's parts: REVOKED if a covering
 * filter says so, else GOOD, else NOT_ENROLLED, else NOT_COVERED; *which
 * the filter; NOT_COVERED too when the record does not read.
 */
static enum crlc_clubcard_answer
entry_ask(const struct crlc_crliteset *set, const struct entry *en,
    const uint8_t *in, const struct crlc_clubcard_query *q, size_t *which)
{
	enum crlc_clubcard_answer best = CRLC_CLUBCARD_NOT_COVERED, a;
	uint8_t buf[CRLC_CRLITE_LOOKUP_PART_LEN];
	uint64_t lim[CRLC_CLUBCARD_LIMBS], t;
	const uint8_t *hdr = NULL;
	uint32_t p = 0, pf = UINT32_MAX;
	size_t f;
	int mine, r;

	crlc_clubcard_query_limbs(q, lim, &t);
	*which = set->file.n;
	for (f = 0; f < set->file.n; f++) {
		if (p < en->n && (pf == UINT32_MAX || pf < f)) {
			if ((hdr = rec_get(set, en, (uint64_t)p *
			    CRLC_CRLITE_LOOKUP_PART_LEN,
			    CRLC_CRLITE_LOOKUP_PART_LEN, buf)) == NULL)
				return CRLC_CLUBCARD_NOT_COVERED;
			if ((uint64_t)crlc_get_u32(hdr) < f ||
			    crlc_get_u32(hdr) >= set->file.n)
				return CRLC_CLUBCARD_NOT_COVERED;
			pf = crlc_get_u32(hdr);
		}
		if ((mine = pf == f))
			p++;
		if (!in[f])
			continue;
		a = CRLC_CLUBCARD_NOT_ENROLLED;
		if (mine) {
			if ((r = part_member(set, en, hdr, q, lim, t)) == -1)
				return CRLC_CLUBCARD_NOT_COVERED;
			a = r ? CRLC_CLUBCARD_REVOKED : CRLC_CLUBCARD_GOOD;
		}
		if (a > best) {
			best = a;
			*which = f;
		}
		if (a == CRLC_CLUBCARD_REVOKED)
			break;
	}
	return best;
}

enum crlc_clubcard_answer
crlc_crliteset_ask(struct crlc_crliteset *set,
    const uint8_t issuer_spki[CRLC_SCT_HASH_LEN],
    const struct crlc_span *serial, const struct crlc_span *sct_list,
    uint64_t *newest)
{
	struct crlc_sct scts[CRLC_SCT_MAX];
	struct crlc_clubcard_query q;
	enum crlc_clubcard_answer a;
	uint8_t in[CRLC_CRLITE_FILTERS_MAX];
	struct entry *en;
	const char *why;
	size_t nscts, which;
	int own;

	if (newest != NULL)
		*newest = 0;
	if (sct_list->len == 0 || crlc_sct_list(sct_list->p, sct_list->len,
	    scts, &nscts, &why) == -1 || !covered(set, scts, nscts, in))
		return CRLC_CLUBCARD_NOT_COVERED;
	if ((en = entry_get(set, issuer_spki, &own)) == NULL)
		return CRLC_CLUBCARD_NOT_COVERED;
	crlc_clubcard_query_init(&q, issuer_spki, serial->p, serial->len,
	    scts, nscts);
	a = entry_ask(set, en, in, &q, &which);
	if (newest != NULL && which < set->file.n)
		*newest = set->newest[which];
	if (own)
		free(en);
	return a;
}

int
crlc_crliteset_enrolls(struct crlc_crliteset *set,
    const uint8_t issuer_spki[CRLC_SCT_HASH_LEN])
{
	struct entry *en;
	int own, r;

	if (set == NULL || (en = entry_get(set, issuer_spki, &own)) == NULL)
		return 0;
	r = en->n > 0;
	if (own)
		free(en);
	return r;
}

int64_t
crlc_crlite_stale_at(int64_t installed, uint64_t newest)
{
	int64_t data = (int64_t)(newest / 1000);

	return (data < installed ? data : installed) + CRLC_CRLITE_FRESH_MAX;
}

int64_t
crlc_crliteset_stale_at(const struct crlc_crliteset *set)
{
	return crlc_crlite_stale_at(set->file.installed, set->file.newest);
}
