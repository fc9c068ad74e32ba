/*
 * The files of a published index below its top (format.h PAGE FILES,
 * SCOPE FILES, READER CHECKS): page files, read into private memory and
 * checked whole on the first lookup that needs one, and scope files,
 * their header read and checked on the first lookup that needs one and
 * their entries read a block at a time as lookups need them -- nothing
 * is mapped; and the container checks top and page files share.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <crlcache/format.h>
#include <crlcache/hash.h>
#include <crlcache/hex.h>
#include <crlcache/indexwrite.h>
#include <crlcache/reasons.h>

#include "index_int.h"

int
idx_read_at(int fd, void *buf, size_t n, off_t off)
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

int
idx_sum_ok(const uint8_t *buf, size_t len)
{
	return crlc_sum64(buf, len - CRLC_TOP_TRAILER_LEN) ==
	    crlc_get_u64(buf + len - CRLC_TOP_TRAILER_LEN);
}

/* The record size of each known section (0: a blob). */
static const uint32_t section_rec[CRLC_SEC_IDS + 1] = {
	[CRLC_SEC_ALIAS] = CRLC_ISSUER_REC_LEN,
	[CRLC_SEC_CANON] = CRLC_ISSUER_REC_LEN,
	[CRLC_SEC_KEY] = CRLC_KEY_REC_LEN,
	[CRLC_SEC_SCOPE_INDEX] = CRLC_SCOPE_INDEX_REC_LEN,
	[CRLC_SEC_SCOPE_DATA] = 0,
	[CRLC_SEC_PAGE] = CRLC_PAGE_REC_LEN,
};

int
idx_sections(const uint8_t *buf, size_t len, uint32_t required,
    struct section sec[CRLC_SEC_IDS + 1], const char **why)
{
	const uint8_t *d;
	uint64_t first, end, off, slen, count;
	uint32_t n, i, id, rec, seen = 0;

	memset(sec, 0, (CRLC_SEC_IDS + 1) * sizeof(*sec));
	n = crlc_get_u32(buf + 12);
	first = CRLC_TOP_HDR_LEN + (uint64_t)n * CRLC_TOP_DESC_LEN;
	end = len - CRLC_TOP_TRAILER_LEN;
	if (n == 0 || n > CRLC_TOP_DESC_MAX || first > end) {
		*why = "bad section count";
		return CRLC_E_CORRUPT;
	}
	for (i = 0; i < n; i++) {
		d = buf + CRLC_TOP_HDR_LEN + (size_t)i * CRLC_TOP_DESC_LEN;
		id = crlc_get_u32(d);
		rec = crlc_get_u32(d + 4);
		off = crlc_get_u64(d + 8);
		slen = crlc_get_u64(d + 16);
		count = crlc_get_u64(d + 24);
		if (off < first || off > end || slen > end - off) {
			*why = "a section lies outside the file";
			return CRLC_E_CORRUPT;
		}
		if (id == 0 || id > CRLC_SEC_IDS || !(required & 1u << id))
			continue;	/* room to grow: ignored */
		if (seen & 1u << id || rec != section_rec[id] ||
		    (rec != 0 && (count > slen / rec || count * rec != slen))) {
			*why = "bad section descriptor";
			return CRLC_E_CORRUPT;
		}
		seen |= 1u << id;
		sec[id] = (struct section){ buf + off, slen, count };
	}
	if (seen != required) {
		*why = "a required section is missing";
		return CRLC_E_CORRUPT;
	}
	return CRLC_OK;
}

uint32_t
crlc_scope_page(const uint8_t *name, size_t len, uint32_t npages)
{
	return (uint32_t)(crlc_sum64(name, len) & (npages - 1));
}

const uint8_t *
idx_scope_rec(const struct page *pg, uint64_t k)
{
	return pg->sdata + crlc_get_u32(pg->sidx.p +
	    k * CRLC_SCOPE_INDEX_REC_LEN);
}

uint32_t
idx_scope_uri_len(const uint8_t *r)
{
	return (uint32_t)r[8] << 8 | r[9];
}

unsigned
idx_scope_reasons(const uint8_t *r)
{
	unsigned m = (unsigned)r[14] << 8 | r[15];

	return m == 0 ? CRLC_REASONS_ALL : m;
}

/*
 * The reasons field of record r with scope key part of length u agrees
 * with the key: 0 without a reasons suffix, else the suffix's mask, some
 * reasons and no others (<crlcache/reasons.h>); *namelen the key's name.
 */
static int
scope_reasons_ok(const uint8_t *r, uint32_t u, size_t *namelen)
{
	unsigned field = (unsigned)r[14] << 8 | r[15], key;

	key = crlc_scope_reasons(r + CRLC_SCOPE_REC_HDR_LEN, u, namelen);
	if (key == CRLC_REASONS_ALL)
		return field == 0;
	return field == key && key != 0 && (key & ~CRLC_REASONS_ALL) == 0;
}

/*
 * The SCOPE records of page pg, of PAGE record prec: each inside
 * SCOPE_DATA with its URI and source, its numbers of at most
 * CRLC_CRLNUM_MAX octets, of prec's issuer key and page, strictly
 * ascending by key (format.h crlc_scope_cmp()), their entries summing to
 * prec's.
 */
static int
scopes_ok(struct page *pg, const uint8_t *prec)
{
	const uint8_t *r, *prev = NULL;
	uint64_t i, off, entries = 0;
	uint32_t u, page_no = crlc_get_u32(prec + 8);
	uint32_t npages = crlc_get_u32(prec + 12);
	size_t namelen;

	for (i = 0; i < pg->sidx.n; i++) {
		off = crlc_get_u32(pg->sidx.p + i * CRLC_SCOPE_INDEX_REC_LEN);
		if (off > pg->sdata_len ||
		    pg->sdata_len - off < CRLC_SCOPE_REC_HDR_LEN)
			return 0;
		r = pg->sdata + off;
		u = idx_scope_uri_len(r);
		if (u > CRLC_SCOPE_URI_MAX || r[60] > CRLC_CRLNUM_MAX ||
		    r[82] > CRLC_CRLNUM_MAX ||
		    memcmp(r, prec, CRLC_PREFIX_LEN) != 0 ||
		    pg->sdata_len - off - CRLC_SCOPE_REC_HDR_LEN <
		    (uint64_t)u + crlc_get_u32(r + 120) ||
		    !scope_reasons_ok(r, u, &namelen) ||
		    crlc_scope_page(r + CRLC_SCOPE_REC_HDR_LEN, namelen,
		    npages) != page_no)
			return 0;
		if (prev != NULL && crlc_scope_cmp(prev,
		    prev + CRLC_SCOPE_REC_HDR_LEN, idx_scope_uri_len(prev), r,
		    r + CRLC_SCOPE_REC_HDR_LEN, u) >= 0)
			return 0;
		prev = r;
		entries += crlc_get_u32(r + 16);
		pg->some_reasons |= r[14] != 0 || r[15] != 0;
	}
	return entries == crlc_get_u64(prec + 24);
}

/*
 * File id in the scope directory, opened if it is one a reader may use
 * (format.h FILE): a regular file, not a symbolic link, owned by root or
 * the directory's owner, writable by nobody else, at least min bytes
 * and mappable; its size in *size.  -1 otherwise.
 */
static int
file_open(const struct crlc_index *idx, const uint8_t id[CRLC_SCOPE_ID_LEN],
    uint64_t min, uint64_t *size)
{
	char name[2 * CRLC_SCOPE_ID_LEN + 1];
	struct stat sb;
	int fd;

	if (idx->scopefd == -1)
		return -1;
	crlc_scope_name(id, name);
	fd = openat(idx->scopefd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW |
	    O_CLOEXEC | O_NOCTTY);
	if (fd == -1)
		return -1;
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    (sb.st_mode & (S_IWGRP | S_IWOTH)) ||
	    (sb.st_uid != 0 && sb.st_uid != idx->scope_uid) ||
	    sb.st_size < 0 || (uint64_t)sb.st_size < min ||
	    (uintmax_t)sb.st_size > SIZE_MAX) {
		close(fd);
		return -1;
	}
	*size = (uint64_t)sb.st_size;
	return fd;
}

int64_t
idx_file_size(const struct crlc_index *idx, const uint8_t id[CRLC_SCOPE_ID_LEN])
{
	char name[2 * CRLC_SCOPE_ID_LEN + 1];
	struct stat sb;

	crlc_scope_name(id, name);
	if (idx->scopefd == -1 ||
	    fstatat(idx->scopefd, name, &sb, AT_SYMLINK_NOFOLLOW) == -1)
		return -1;
	return (int64_t)sb.st_size;
}

/*
 * Read and check the page file of PAGE record prec (format.h READER
 * CHECKS): length, header, id, checksum trailer, sections, records.  NULL
 * on any failure: the caller answers with an error, never from an
 * unchecked file.
 */
static struct page *
page_load(const struct crlc_index *idx, const uint8_t *prec)
{
	struct section sec[CRLC_SEC_IDS + 1];
	struct page *pg = NULL;
	uint64_t size, n = crlc_get_u32(prec + 16);
	const char *why;
	int fd;

	if ((fd = file_open(idx, prec + 32, CRLC_TOP_HDR_LEN +
	    CRLC_TOP_TRAILER_LEN, &size)) == -1)
		return NULL;
	if (size > CRLC_TOP_MAX ||
	    (pg = calloc(1, sizeof(*pg) + n * sizeof(pg->scopes[0]))) == NULL ||
	    (pg->mem = malloc((size_t)size)) == NULL ||
	    idx_read_at(fd, pg->mem, (size_t)size, 0) == -1)
		goto fail;
	if (memcmp(pg->mem, CRLC_PAGE_MAGIC, CRLC_MAGIC_LEN) != 0 ||
	    crlc_get_u32(pg->mem + 8) != CRLC_FORMAT_VERSION ||
	    memcmp(pg->mem + CRLC_PAGE_ID_OFF, prec + 32,
	    CRLC_SCOPE_ID_LEN) != 0 || crlc_get_u64(pg->mem + 32) != size ||
	    !idx_sum_ok(pg->mem, (size_t)size) ||
	    idx_sections(pg->mem, (size_t)size, CRLC_PAGE_SECTIONS, sec,
	    &why) != CRLC_OK || sec[CRLC_SEC_SCOPE_INDEX].count != n)
		goto fail;
	pg->sidx = (struct table){ sec[CRLC_SEC_SCOPE_INDEX].p, n };
	pg->sdata = sec[CRLC_SEC_SCOPE_DATA].p;
	pg->sdata_len = sec[CRLC_SEC_SCOPE_DATA].len;
	if (!scopes_ok(pg, prec))
		goto fail;
	close(fd);
	return pg;
fail:
	close(fd);
	idx_page_free(pg);
	return NULL;
}

/* An issuer key's page that no scope falls on: no file to read. */
static struct page empty_page;

struct page *
idx_page(struct crlc_index *idx, uint64_t i)
{
	const uint8_t *prec = idx->page.p + i * CRLC_PAGE_REC_LEN;
	struct page *pg, *none = NULL;

	if ((pg = atomic_load_explicit(&idx->pages[i], memory_order_acquire)))
		return pg;
	if (crlc_get_u32(prec + 16) == 0)
		return &empty_page;
	if ((pg = page_load(idx, prec)) == NULL)
		return NULL;
	/* Another thread read it meanwhile: use that one. */
	if (!atomic_compare_exchange_strong_explicit(&idx->pages[i], &none, pg,
	    memory_order_acq_rel, memory_order_acquire)) {
		idx_page_free(pg);
		return none;
	}
	return pg;
}

int
idx_scope_find(const struct page *pg, const uint8_t prefix[CRLC_PREFIX_LEN],
    const uint8_t *uri, size_t ulen, uint64_t *at)
{
	uint64_t lo = 0, hi = pg->sidx.n, mid;
	const uint8_t *r;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		r = idx_scope_rec(pg, mid);
		c = crlc_scope_cmp(r, r + CRLC_SCOPE_REC_HDR_LEN,
		    idx_scope_uri_len(r), prefix, uri, ulen);
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

static void
scope_file_free(struct scope_file *s)
{
	uint64_t b;

	if (s == NULL)
		return;
	for (b = 0; b < s->nblk; b++)
		free(atomic_load(&s->blk[b]));
	free(s);
}

/*
 * Read the header of the scope file of SCOPE record rec and check it
 * against the record and the file (format.h READER CHECKS); *fd the file,
 * left open.  NULL on any failure.
 */
static struct scope_file *
scope_file_open(const struct crlc_index *idx, const uint8_t *rec, int *fd)
{
	uint8_t h[CRLC_SCOPE_HDR_LEN];
	struct scope_file *s;
	uint64_t size, nent, eoff, doff, dlen, xoff, xlen, nblk;

	if ((*fd = file_open(idx, rec + 104, CRLC_SCOPE_HDR_LEN, &size)) == -1 ||
	    idx_read_at(*fd, h, sizeof(h), 0) == -1)
		return NULL;
	nent = crlc_get_u64(h + 40);
	eoff = crlc_get_u64(h + 48);
	doff = crlc_get_u64(h + 56);
	dlen = crlc_get_u64(h + 64);
	xoff = crlc_get_u64(h + 72);
	xlen = crlc_get_u64(h + 80);
	if (memcmp(h, CRLC_SCOPE_MAGIC, CRLC_MAGIC_LEN) != 0 ||
	    crlc_get_u32(h + 8) != CRLC_SCOPE_FILE_VERSION ||
	    crlc_get_u32(h + 12) != CRLC_SCOPE_ENTRY_LEN ||
	    memcmp(h + 16, rec + 104, CRLC_SCOPE_ID_LEN) != 0 ||
	    crlc_get_u64(h + 32) != size || nent != crlc_get_u32(rec + 16) ||
	    eoff < CRLC_SCOPE_HDR_LEN || eoff > size ||
	    nent > (size - eoff) / CRLC_SCOPE_ENTRY_LEN ||
	    doff < CRLC_SCOPE_HDR_LEN || doff > size || dlen == 0 ||
	    dlen > size - doff || xoff > size || xlen > size - xoff)
		return NULL;
	nblk = (nent + SCOPE_BLOCK_ENTRIES - 1) / SCOPE_BLOCK_ENTRIES;
	if ((s = calloc(1, sizeof(*s) + nblk * sizeof(s->blk[0]))) == NULL)
		return NULL;
	memcpy(s->id, rec + 104, CRLC_SCOPE_ID_LEN);
	s->size = size;
	s->eoff = eoff;
	s->nent = nent;
	s->doff = doff;
	s->dlen = dlen;
	s->xoff = xoff;
	s->xlen = xlen;
	s->nblk = nblk;
	return s;
}

struct scope_file *
idx_scope_file(const struct crlc_index *idx, struct page *pg, uint64_t k,
    int *fd)
{
	struct scope_file *s, *none = NULL;

	if ((s = atomic_load_explicit(&pg->scopes[k], memory_order_acquire)))
		return s;
	if ((s = scope_file_open(idx, idx_scope_rec(pg, k), fd)) == NULL)
		return NULL;
	if (!atomic_compare_exchange_strong_explicit(&pg->scopes[k], &none, s,
	    memory_order_acq_rel, memory_order_acquire)) {
		scope_file_free(s);
		return none;
	}
	return s;
}

/*
 * s's file again, for a block or its CRLs: the trust checks of FILE and
 * the size its header was checked at (a file changed since is not read).
 */
static int
scope_reopen(const struct crlc_index *idx, const struct scope_file *s, int *fd)
{
	uint64_t size;

	if (*fd != -1)
		return 0;
	if ((*fd = file_open(idx, s->id, s->size, &size)) == -1)
		return -1;
	return size == s->size ? 0 : -1;
}

/* Block b of s's entries, read now if no lookup did before, or NULL. */
static const uint8_t *
scope_block(const struct crlc_index *idx, struct scope_file *s, uint64_t b,
    int *fd)
{
	uint8_t *blk, *none = NULL;
	uint64_t first = b * SCOPE_BLOCK_ENTRIES, n = s->nent - first;
	size_t len;

	if ((blk = atomic_load_explicit(&s->blk[b], memory_order_acquire)))
		return blk;
	if (n > SCOPE_BLOCK_ENTRIES)
		n = SCOPE_BLOCK_ENTRIES;
	len = (size_t)n * CRLC_SCOPE_ENTRY_LEN;
	if (scope_reopen(idx, s, fd) == -1 || (blk = malloc(len)) == NULL)
		return NULL;
	/* A file truncated since its header was read: a short read, refused. */
	if (idx_read_at(*fd, blk, len, (off_t)(s->eoff + first *
	    CRLC_SCOPE_ENTRY_LEN)) == -1) {
		free(blk);
		return NULL;
	}
	if (!atomic_compare_exchange_strong_explicit(&s->blk[b], &none, blk,
	    memory_order_acq_rel, memory_order_acquire)) {
		free(blk);
		return none;
	}
	return blk;
}

int
idx_entry_find(const struct crlc_index *idx, struct scope_file *s,
    const uint8_t slot[CRLC_SLOT_LEN], int *fd, const uint8_t **e)
{
	uint64_t lo = 0, hi = s->nent, mid;
	const uint8_t *blk, *p;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((blk = scope_block(idx, s, mid / SCOPE_BLOCK_ENTRIES,
		    fd)) == NULL)
			return -1;
		p = blk + (mid % SCOPE_BLOCK_ENTRIES) * CRLC_SCOPE_ENTRY_LEN;
		if ((c = memcmp(p, slot, CRLC_SLOT_LEN)) == 0) {
			*e = p;
			return 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int
idx_scope_crls(const struct crlc_index *idx, const struct scope_file *s,
    int *fd, uint8_t **buf, size_t *cap, struct crlc_span *der,
    struct crlc_span *delta)
{
	size_t need = (size_t)s->dlen + (size_t)s->xlen;
	uint8_t *nb;

	/* dlen and xlen each lie inside a file of at most SIZE_MAX bytes */
	if (need < s->dlen || scope_reopen(idx, s, fd) == -1)
		return -1;
	if (need > *cap) {
		if ((nb = realloc(*buf, need)) == NULL)
			return -1;
		*buf = nb;
		*cap = need;
	}
	if (idx_read_at(*fd, *buf, (size_t)s->dlen, (off_t)s->doff) == -1 ||
	    idx_read_at(*fd, *buf + s->dlen, (size_t)s->xlen,
	    (off_t)s->xoff) == -1)
		return -1;
	*der = (struct crlc_span){ *buf, (size_t)s->dlen };
	*delta = (struct crlc_span){ s->xlen > 0 ? *buf + s->dlen : NULL,
	    (size_t)s->xlen };
	return 0;
}

void
idx_page_free(struct page *pg)
{
	uint64_t k;

	if (pg == NULL || pg == &empty_page)
		return;
	for (k = 0; k < pg->sidx.n; k++)
		scope_file_free(atomic_load(&pg->scopes[k]));
	free(pg->mem);
	free(pg);
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
	crlc_hex_encode(id, CRLC_SCOPE_ID_LEN, name, 0);
}
