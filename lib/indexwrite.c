/*
 * The files of a publish: a scope file per CRL scope, the page files that
 * list the scopes of each issuer key, and the top file (format.h TOP FILE,
 * PAGE FILES, SCOPE FILES).  Encoding only: the caller owns
 * the names, fsync() and rename().
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <crlcache/dpname.h>
#include <crlcache/format.h>
#include <crlcache/hash.h>
#include <crlcache/indexwrite.h>
#include <crlcache/reasons.h>

int
crlc_write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, b, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * By slot; equal slots by the rest of the entry, so that the entry kept
 * does not depend on the order the caller collected them in.
 */
static int
entry_cmp(const void *a, const void *b)
{
	const struct crlc_scope_entry *x = a, *y = b;
	int c;

	if ((c = memcmp(x->slot, y->slot, CRLC_SLOT_LEN)) != 0)
		return c;
	if (x->revoked_at != y->revoked_at)
		return x->revoked_at < y->revoked_at ? -1 : 1;
	if (x->reason != y->reason)
		return x->reason < y->reason ? -1 : 1;
	return (x->flags > y->flags) - (x->flags < y->flags);
}

size_t
crlc_scope_sort(struct crlc_scope_entry *e, size_t n)
{
	size_t i, out;

	if (n == 0)
		return 0;
	qsort(e, n, sizeof(*e), entry_cmp);
	for (i = 1, out = 1; i < n; i++)
		if (memcmp(e[i].slot, e[out - 1].slot, CRLC_SLOT_LEN) != 0)
			e[out++] = e[i];
	return out;
}

static void
entry_encode(uint8_t *p, const struct crlc_scope_entry *e)
{
	memcpy(p, e->slot, CRLC_SLOT_LEN);
	crlc_put_i64(p + 24, e->revoked_at);
	p[32] = e->reason;
	p[33] = e->flags;
}

int
crlc_scope_out_begin(struct crlc_scope_out *o, int fd)
{
	o->fd = fd;
	o->n = 0;
	o->used = 0;
	/* The header goes last, when the entry count is known. */
	return lseek(fd, CRLC_SCOPE_HDR_LEN, SEEK_SET) == -1 ? -1 : 0;
}

int
crlc_scope_out_add(struct crlc_scope_out *o, const struct crlc_scope_entry *e)
{
	if ((o->n > 0 && memcmp(o->last, e->slot, CRLC_SLOT_LEN) >= 0) ||
	    o->n >= (UINT64_MAX - CRLC_SCOPE_HDR_LEN) / CRLC_SCOPE_ENTRY_LEN) {
		errno = EINVAL;
		return -1;
	}
	if (o->used + CRLC_SCOPE_ENTRY_LEN > sizeof(o->buf)) {
		if (crlc_write_all(o->fd, o->buf, o->used) == -1)
			return -1;
		o->used = 0;
	}
	entry_encode(o->buf + o->used, e);
	o->used += CRLC_SCOPE_ENTRY_LEN;
	memcpy(o->last, e->slot, CRLC_SLOT_LEN);
	o->n++;
	return 0;
}

int
crlc_scope_out_end(struct crlc_scope_out *o, const uint8_t id[CRLC_SCOPE_ID_LEN],
    const struct crlc_span *der, const struct crlc_span *delta)
{
	uint8_t hdr[CRLC_SCOPE_HDR_LEN];
	uint64_t der_off, dlen = delta != NULL ? delta->len : 0;
	ssize_t w;

	if (der == NULL || der->len == 0 || (dlen > 0 && delta->p == NULL)) {
		errno = EINVAL;
		return -1;
	}
	if (crlc_write_all(o->fd, o->buf, o->used) == -1)
		return -1;
	o->used = 0;
	der_off = CRLC_SCOPE_HDR_LEN + o->n * CRLC_SCOPE_ENTRY_LEN;
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, CRLC_SCOPE_MAGIC, CRLC_MAGIC_LEN);
	crlc_put_u32(hdr + 8, CRLC_SCOPE_FILE_VERSION);
	crlc_put_u32(hdr + 12, CRLC_SCOPE_ENTRY_LEN);
	memcpy(hdr + 16, id, CRLC_SCOPE_ID_LEN);
	crlc_put_u64(hdr + 32, der_off + der->len + dlen);
	crlc_put_u64(hdr + 40, o->n);
	crlc_put_u64(hdr + 48, CRLC_SCOPE_HDR_LEN);
	crlc_put_u64(hdr + 56, der_off);
	crlc_put_u64(hdr + 64, der->len);
	crlc_put_u64(hdr + 72, der_off + der->len);
	crlc_put_u64(hdr + 80, dlen);
	if (crlc_write_all(o->fd, der->p, der->len) == -1 ||
	    (dlen > 0 && crlc_write_all(o->fd, delta->p, dlen) == -1))
		return -1;
	do
		w = pwrite(o->fd, hdr, sizeof(hdr), 0);
	while (w == -1 && errno == EINTR);
	if (w != (ssize_t)sizeof(hdr)) {
		if (w >= 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

int
crlc_scope_write(int fd, const uint8_t id[CRLC_SCOPE_ID_LEN],
    const struct crlc_scope_entry *e, size_t n,
    const struct crlc_span *der, const struct crlc_span *delta)
{
	struct crlc_scope_out *o;
	size_t i;
	int ret = -1, saved;

	if (der == NULL || der->len == 0) {
		errno = EINVAL;
		return -1;
	}
	if ((o = malloc(sizeof(*o))) == NULL)
		return -1;
	if (crlc_scope_out_begin(o, fd) == -1)
		goto done;
	for (i = 0; i < n; i++)
		if (crlc_scope_out_add(o, &e[i]) == -1)
			goto done;
	ret = crlc_scope_out_end(o, id, der, delta);
done:
	saved = errno;
	free(o);
	errno = saved;
	return ret;
}

/* One section of a top or page file being laid out. */
struct section {
	uint32_t	id, rec;	/* rec: record size, 0 for a blob */
	uint64_t	off, len, count;
};

/*
 * A zeroed top or page file (format.h TOP FILE, PAGE FILES) of the
 * sections sec[0..n), their lengths and counts set: header and
 * descriptors filled in, each sec[].off set; its length in *total.  NULL
 * when it would exceed CRLC_TOP_MAX (EINVAL) or memory is short.
 */
static uint8_t *
container_new(const char *magic, struct section *sec, size_t n,
    uint64_t *total)
{
	uint8_t *buf, *d;
	uint64_t off;
	size_t i;

	off = CRLC_TOP_HDR_LEN + n * CRLC_TOP_DESC_LEN;
	for (i = 0; i < n; i++) {
		if (sec[i].rec != 0)
			sec[i].len = sec[i].count * sec[i].rec;
		if (sec[i].count > CRLC_TOP_MAX || sec[i].len > CRLC_TOP_MAX) {
			errno = EINVAL;
			return NULL;
		}
		sec[i].off = off;
		off += sec[i].len;
	}
	off += CRLC_TOP_TRAILER_LEN;
	if (off > CRLC_TOP_MAX) {
		errno = EINVAL;
		return NULL;
	}
	if ((buf = calloc(1, (size_t)off)) == NULL)
		return NULL;
	memcpy(buf, magic, CRLC_MAGIC_LEN);
	crlc_put_u32(buf + 8, CRLC_FORMAT_VERSION);
	crlc_put_u32(buf + 12, (uint32_t)n);
	crlc_put_u64(buf + 32, off);
	for (i = 0; i < n; i++) {
		d = buf + CRLC_TOP_HDR_LEN + i * CRLC_TOP_DESC_LEN;
		crlc_put_u32(d, sec[i].id);
		crlc_put_u32(d + 4, sec[i].rec);
		crlc_put_u64(d + 8, sec[i].off);
		crlc_put_u64(d + 16, sec[i].len);
		crlc_put_u64(d + 24, sec[i].count);
	}
	*total = off;
	return buf;
}

/* The checksum trailer of a whole file of total bytes (TOP CHECKSUM). */
static void
container_seal(uint8_t *buf, uint64_t total)
{
	crlc_put_u64(buf + total - CRLC_TOP_TRAILER_LEN,
	    crlc_sum64(buf, (size_t)(total - CRLC_TOP_TRAILER_LEN)));
}

/* Strictly ascending issuer records, ids not 0. */
static int
issuers_ok(const struct crlc_top_issuer *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].id == 0 || (i > 0 &&
		    memcmp(v[i - 1].hash, v[i].hash, CRLC_HASH_LEN) >= 0))
			return 0;
	return 1;
}

static void
key_encode(uint8_t *p, const struct crlc_top_key *k)
{
	memset(p, 0, CRLC_KEY_REC_LEN);
	crlc_put_u32(p, k->issuer_id);
	memcpy(p + CRLC_ISSUER_ID_LEN, k->hash, CRLC_HASH_LEN);
	crlc_put_u32(p + CRLC_KEY_SORT_LEN, k->key_no);
	p[CRLC_KEY_SORT_LEN + CRLC_KEY_NO_LEN] = k->ski_len;
	memcpy(p + CRLC_KEY_SORT_LEN + CRLC_KEY_NO_LEN + 1, k->ski, k->ski_len);
}

/* Strictly ascending by (issuer id, key hash), sane fields. */
static int
keys_ok(const struct crlc_top_key *v, size_t n)
{
	uint8_t a[CRLC_KEY_REC_LEN], b[CRLC_KEY_REC_LEN];
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i].issuer_id == 0 || v[i].key_no == 0 ||
		    v[i].ski_len > CRLC_SKI_MAX)
			return 0;
		key_encode(b, &v[i]);
		if (i > 0 && memcmp(a, b, CRLC_KEY_SORT_LEN) >= 0)
			return 0;
		memcpy(a, b, sizeof(a));
	}
	return 1;
}

/*
 * The reasons field of a SCOPE record (format.h offset 14): the mask of
 * the key's reasons suffix, 0 for all reasons; -1 for a suffix readers
 * refuse (no reason, or unknown bits: <crlcache/reasons.h>).
 */
static int
scope_reasons_field(const struct crlc_top_scope *s)
{
	size_t namelen;
	unsigned m = crlc_scope_reasons(s->uri.p, s->uri.len, &namelen);

	if (m == CRLC_REASONS_ALL)
		return 0;
	return m == 0 || (m & ~CRLC_REASONS_ALL) != 0 ? -1 : (int)m;
}

/*
 * A kind component of the key (format.h SCOPE KINDS) is that of the
 * record's flags; a key without one may have any (an earlier writer's).
 */
static int
scope_kind_ok(const struct crlc_top_scope *s)
{
	size_t namelen;
	unsigned kind;

	(void)crlc_scope_reasons(s->uri.p, s->uri.len, &namelen);
	kind = crlc_scope_kind(s->uri.p, namelen, &namelen);
	return kind == 0 || kind == (s->flags & CRLC_CRL_KIND);
}

/* Bytes of a SCOPE record, or 0 when one of its fields does not fit. */
static uint64_t
scope_rec_len(const struct crlc_top_scope *s)
{
	if (s->issuer_id == 0 || s->uri.len > CRLC_SCOPE_URI_MAX ||
	    (s->uri.len > 0 && s->uri.p == NULL) || s->flags > 0xff ||
	    s->scope_no > CRLC_SCOPE_NO_MAX ||
	    s->number.len > CRLC_CRLNUM_MAX || s->base.len > CRLC_CRLNUM_MAX ||
	    s->source.len > CRLC_TOP_MAX || (s->source.len > 0 &&
	    s->source.p == NULL) || scope_reasons_field(s) == -1 ||
	    !scope_kind_ok(s))
		return 0;
	return CRLC_SCOPE_REC_HDR_LEN + (uint64_t)s->uri.len + s->source.len;
}

static void
scope_encode(uint8_t *p, const struct crlc_top_scope *s)
{
	memset(p, 0, CRLC_SCOPE_REC_HDR_LEN);
	crlc_put_u32(p, s->issuer_id);
	crlc_put_u32(p + 4, s->key_no);
	p[8] = (uint8_t)(s->uri.len >> 8);
	p[9] = (uint8_t)s->uri.len;
	p[10] = (uint8_t)s->flags;
	p[12] = (uint8_t)(s->scope_no >> 8);
	p[13] = (uint8_t)s->scope_no;
	p[14] = (uint8_t)(scope_reasons_field(s) >> 8);
	p[15] = (uint8_t)scope_reasons_field(s);
	crlc_put_u32(p + 16, s->entries);
	crlc_put_i64(p + 20, s->this_update);
	crlc_put_i64(p + 28, s->next_update);
	crlc_put_i64(p + 36, s->fetched_at);
	crlc_put_i64(p + 44, s->delta_this_update);
	crlc_put_i64(p + 52, s->delta_next_update);
	p[60] = (uint8_t)s->number.len;
	if (s->number.len > 0)
		memcpy(p + 61, s->number.p, s->number.len);
	p[82] = (uint8_t)s->base.len;
	if (s->base.len > 0)
		memcpy(p + 83, s->base.p, s->base.len);
	memcpy(p + 104, s->id, CRLC_SCOPE_ID_LEN);
	crlc_put_u32(p + 120, (uint32_t)s->source.len);
	if (s->uri.len > 0)
		memcpy(p + CRLC_SCOPE_REC_HDR_LEN, s->uri.p, s->uri.len);
	if (s->source.len > 0)
		memcpy(p + CRLC_SCOPE_REC_HDR_LEN + s->uri.len, s->source.p,
		    s->source.len);
}

/* Strictly ascending scope keys (format.h crlc_scope_cmp()). */
static int
scope_before(const struct crlc_top_scope *a, const struct crlc_top_scope *b)
{
	uint8_t pa[CRLC_PREFIX_LEN], pb[CRLC_PREFIX_LEN];

	crlc_put_u32(pa, a->issuer_id);
	crlc_put_u32(pa + CRLC_ISSUER_ID_LEN, a->key_no);
	crlc_put_u32(pb, b->issuer_id);
	crlc_put_u32(pb + CRLC_ISSUER_ID_LEN, b->key_no);
	return crlc_scope_cmp(pa, a->uri.p, a->uri.len, pb, b->uri.p,
	    b->uri.len) < 0;
}

/* The page of npages scope s is on (crlc_scope_page()). */
static uint32_t
scope_page_of(const struct crlc_top_scope *s, uint32_t npages)
{
	size_t namelen;

	(void)crlc_scope_reasons(s->uri.p, s->uri.len, &namelen);
	return crlc_scope_page(s->uri.p, namelen, npages);
}

uint32_t
crlc_page_count(size_t nscopes)
{
	uint32_t n = 1;

	while (n < CRLC_PAGES_MAX && (size_t)n * CRLC_PAGE_SCOPES < nscopes)
		n *= 2;
	return n;
}

/*
 * The page file of scopes s[0..n) (one issuer key's, ascending) into
 * *out, and its PAGE record's fields but the page number and count.
 */
static int
page_build(const struct crlc_top_scope *const *s, size_t n,
    struct crlc_top_page *pg, uint8_t **out, uint64_t *total)
{
	struct section sec[2] = {
		{ CRLC_SEC_SCOPE_INDEX, CRLC_SCOPE_INDEX_REC_LEN, 0, 0, n },
		{ CRLC_SEC_SCOPE_DATA, 0, 0, 0, n },
	};
	uint8_t h[CRLC_HASH_LEN], *buf;
	uint64_t at, r;
	size_t i;

	pg->entries = 0;
	for (i = 0; i < n; i++) {
		if ((r = scope_rec_len(s[i])) == 0 ||
		    (sec[1].len += r) > CRLC_TOP_MAX) {
			errno = EINVAL;
			return -1;
		}
		pg->entries += s[i]->entries;
	}
	if ((buf = container_new(CRLC_PAGE_MAGIC, sec, 2, total)) == NULL)
		return -1;
	for (i = 0, at = 0; i < n; i++) {
		crlc_put_u32(buf + sec[0].off + i * CRLC_SCOPE_INDEX_REC_LEN,
		    (uint32_t)at);
		scope_encode(buf + sec[1].off + at, s[i]);
		at += scope_rec_len(s[i]);
	}
	/* Its content id: of everything after the id but the trailer. */
	crlc_sha256(buf + CRLC_PAGE_ID_OFF + CRLC_SCOPE_ID_LEN, (size_t)(*total -
	    CRLC_PAGE_ID_OFF - CRLC_SCOPE_ID_LEN - CRLC_TOP_TRAILER_LEN), h);
	memcpy(pg->id, h, CRLC_SCOPE_ID_LEN);
	memcpy(buf + CRLC_PAGE_ID_OFF, pg->id, CRLC_SCOPE_ID_LEN);
	container_seal(buf, *total);
	pg->nscopes = (uint32_t)n;
	*out = buf;
	return 0;
}

/*
 * Long: the input checked, the scopes sorted into pages (counting sort),
 * then each page built and handed to fn; one done: frees the three arrays.
 */
int
crlc_pages_build(const struct crlc_top_scope *s, size_t n,
    int (*fn)(const struct crlc_top_page *, const uint8_t *, size_t, void *),
    void *arg)
{
	const struct crlc_top_scope **on = NULL;
	struct crlc_top_page pg;
	size_t *start = NULL, i, k;
	uint32_t *page = NULL, b;
	uint8_t *buf;
	uint64_t len;
	int ret = -1;

	for (i = 0; i < n; i++)
		if (s[i].issuer_id != s[0].issuer_id ||
		    s[i].key_no != s[0].key_no || scope_rec_len(&s[i]) == 0 ||
		    (i > 0 && !scope_before(&s[i - 1], &s[i]))) {
			errno = EINVAL;
			return -1;
		}
	if (n == 0 || n > (size_t)CRLC_SCOPE_NO_MAX + 1) {
		errno = EINVAL;
		return -1;
	}
	memset(&pg, 0, sizeof(pg));
	pg.issuer_id = s[0].issuer_id;
	pg.key_no = s[0].key_no;
	pg.npages = crlc_page_count(n);
	if ((start = calloc((size_t)pg.npages + 1, sizeof(*start))) == NULL ||
	    (page = calloc(n, sizeof(*page))) == NULL ||
	    (on = calloc(n, sizeof(*on))) == NULL)
		goto done;
	/* Each page's scopes, in key order: a stable counting sort. */
	for (i = 0; i < n; i++)
		start[(page[i] = scope_page_of(&s[i], pg.npages)) + 1]++;
	for (b = 0; b < pg.npages; b++)
		start[b + 1] += start[b];
	for (i = 0; i < n; i++)
		on[start[page[i]]++] = &s[i];
	/* start[b] is now where page b + 1 begins */
	for (b = 0; b < pg.npages; b++) {
		i = b == 0 ? 0 : start[b - 1];
		k = start[b] - i;
		pg.page_no = b;
		buf = NULL;
		len = 0;
		if (k == 0) {
			pg.nscopes = 0;
			pg.entries = 0;
			memset(pg.id, 0, sizeof(pg.id));
		} else if (page_build(on + i, k, &pg, &buf, &len) == -1) {
			ret = -1;
			goto done;
		}
		ret = fn(&pg, buf, (size_t)len, arg);
		free(buf);
		if (ret != 0)
			goto done;
	}
	ret = 0;
done:
	free(start);
	free(page);
	free(on);
	return ret;
}

/* Strictly ascending PAGE records, each issuer key's pages complete. */
static int
pages_ok(const struct crlc_top_page *v, size_t n)
{
	const struct crlc_top_page *a;
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i].issuer_id == 0 || v[i].npages == 0 ||
		    v[i].npages > CRLC_PAGES_MAX ||
		    (v[i].npages & (v[i].npages - 1)) != 0 ||
		    v[i].page_no >= v[i].npages)
			return 0;
		a = i > 0 ? &v[i - 1] : NULL;
		if (v[i].page_no == 0) {
			/* a new key: the one before complete, and before it */
			if (a != NULL && (a->page_no != a->npages - 1 ||
			    a->issuer_id > v[i].issuer_id ||
			    (a->issuer_id == v[i].issuer_id &&
			    a->key_no >= v[i].key_no)))
				return 0;
		} else if (a == NULL || a->issuer_id != v[i].issuer_id ||
		    a->key_no != v[i].key_no || a->npages != v[i].npages ||
		    a->page_no + 1 != v[i].page_no)
			return 0;
	}
	return n == 0 || v[n - 1].page_no == v[n - 1].npages - 1;
}

static void
page_encode(uint8_t *p, const struct crlc_top_page *pg)
{
	crlc_put_u32(p, pg->issuer_id);
	crlc_put_u32(p + 4, pg->key_no);
	crlc_put_u32(p + 8, pg->page_no);
	crlc_put_u32(p + 12, pg->npages);
	crlc_put_u32(p + 16, pg->nscopes);
	crlc_put_u64(p + 24, pg->entries);
	memcpy(p + 32, pg->id, CRLC_SCOPE_ID_LEN);
}

int
crlc_top_write(int fd, uint64_t generation, int64_t created,
    const struct crlc_top_issuer *alias, size_t nalias,
    const struct crlc_top_issuer *canon, size_t ncanon,
    const struct crlc_top_key *keys, size_t nkeys,
    const struct crlc_top_page *pages, size_t npages)
{
	struct section sec[4] = {
		{ CRLC_SEC_ALIAS, CRLC_ISSUER_REC_LEN, 0, 0, nalias },
		{ CRLC_SEC_CANON, CRLC_ISSUER_REC_LEN, 0, 0, ncanon },
		{ CRLC_SEC_KEY, CRLC_KEY_REC_LEN, 0, 0, nkeys },
		{ CRLC_SEC_PAGE, CRLC_PAGE_REC_LEN, 0, 0, npages },
	};
	uint8_t *buf, *p;
	uint64_t total;
	size_t i;
	int ret;

	if (!issuers_ok(alias, nalias) || !issuers_ok(canon, ncanon) ||
	    !keys_ok(keys, nkeys) || !pages_ok(pages, npages)) {
		errno = EINVAL;
		return -1;
	}
	/* A top too large for readers (CRLC_TOP_MAX) is not written. */
	if ((buf = container_new(CRLC_TOP_MAGIC, sec, 4, &total)) == NULL)
		return -1;
	crlc_put_u64(buf + 16, generation);
	crlc_put_i64(buf + 24, created);
	for (i = 0, p = buf + sec[0].off; i < nalias; i++, p += CRLC_ISSUER_REC_LEN) {
		memcpy(p, alias[i].hash, CRLC_HASH_LEN);
		crlc_put_u32(p + CRLC_HASH_LEN, alias[i].id);
	}
	for (i = 0, p = buf + sec[1].off; i < ncanon; i++, p += CRLC_ISSUER_REC_LEN) {
		memcpy(p, canon[i].hash, CRLC_HASH_LEN);
		crlc_put_u32(p + CRLC_HASH_LEN, canon[i].id);
	}
	for (i = 0, p = buf + sec[2].off; i < nkeys; i++, p += CRLC_KEY_REC_LEN)
		key_encode(p, &keys[i]);
	for (i = 0, p = buf + sec[3].off; i < npages; i++, p += CRLC_PAGE_REC_LEN)
		page_encode(p, &pages[i]);
	container_seal(buf, total);
	ret = crlc_write_all(fd, buf, (size_t)total);
	free(buf);
	return ret;
}
