/*
 * The files of a format 3 publish: a scope file per CRL scope and the top
 * file (format.h TOP FILE, SCOPE FILES).  Encoding only: the caller owns
 * the names, fsync() and rename().
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <crlcache/format.h>
#include <crlcache/hash.h>
#include <crlcache/indexwrite.h>
#include <crlcache/reasons.h>

/* Every byte of p[0..n) to fd, through short writes and signals. */
static int
write_all(int fd, const void *p, size_t n)
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
		if (write_all(o->fd, o->buf, o->used) == -1)
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
	if (write_all(o->fd, o->buf, o->used) == -1)
		return -1;
	o->used = 0;
	der_off = CRLC_SCOPE_HDR_LEN + o->n * CRLC_SCOPE_ENTRY_LEN;
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, CRLC_SCOPE_MAGIC, CRLC_MAGIC_LEN);
	crlc_put_u32(hdr + 8, CRLC_FORMAT_VERSION);
	crlc_put_u32(hdr + 12, CRLC_SCOPE_ENTRY_LEN);
	memcpy(hdr + 16, id, CRLC_SCOPE_ID_LEN);
	crlc_put_u64(hdr + 32, der_off + der->len + dlen);
	crlc_put_u64(hdr + 40, o->n);
	crlc_put_u64(hdr + 48, CRLC_SCOPE_HDR_LEN);
	crlc_put_u64(hdr + 56, der_off);
	crlc_put_u64(hdr + 64, der->len);
	crlc_put_u64(hdr + 72, der_off + der->len);
	crlc_put_u64(hdr + 80, dlen);
	if (write_all(o->fd, der->p, der->len) == -1 ||
	    (dlen > 0 && write_all(o->fd, delta->p, dlen) == -1))
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

/* One section of the top file being laid out. */
struct section {
	uint32_t	id, rec;	/* rec: record size, 0 for a blob */
	uint64_t	off, len, count;
};

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

/* Bytes of a SCOPE record, or 0 when one of its fields does not fit. */
static uint64_t
scope_rec_len(const struct crlc_top_scope *s)
{
	if (s->issuer_id == 0 || s->uri.len > CRLC_SCOPE_URI_MAX ||
	    (s->uri.len > 0 && s->uri.p == NULL) || s->flags > 0xff ||
	    s->scope_no > CRLC_SCOPE_NO_MAX ||
	    s->number.len > CRLC_CRLNUM_MAX || s->base.len > CRLC_CRLNUM_MAX ||
	    s->source.len > CRLC_TOP_MAX || (s->source.len > 0 &&
	    s->source.p == NULL) || scope_reasons_field(s) == -1)
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

/*
 * Lay out the sections after the header and descriptors; the file
 * length in *total, or 0 when an argument is out of order or too large.
 */
static uint64_t
top_layout(struct section sec[CRLC_SEC_REQUIRED], size_t nalias,
    size_t ncanon, size_t nkeys, const struct crlc_top_scope *scopes,
    size_t nscopes)
{
	uint64_t off, data = 0, r;
	size_t i;

	for (i = 0; i < nscopes; i++) {
		if ((r = scope_rec_len(&scopes[i])) == 0 ||
		    (i > 0 && !scope_before(&scopes[i - 1], &scopes[i])))
			return 0;
		if ((data += r) > CRLC_TOP_MAX)
			return 0;
	}
	if (nalias > CRLC_TOP_MAX || ncanon > CRLC_TOP_MAX ||
	    nkeys > CRLC_TOP_MAX || nscopes > CRLC_TOP_MAX)
		return 0;
	sec[0] = (struct section){ CRLC_SEC_ALIAS, CRLC_ISSUER_REC_LEN, 0,
	    0, nalias };
	sec[1] = (struct section){ CRLC_SEC_CANON, CRLC_ISSUER_REC_LEN, 0,
	    0, ncanon };
	sec[2] = (struct section){ CRLC_SEC_KEY, CRLC_KEY_REC_LEN, 0, 0,
	    nkeys };
	sec[3] = (struct section){ CRLC_SEC_SCOPE_INDEX,
	    CRLC_SCOPE_INDEX_REC_LEN, 0, 0, nscopes };
	sec[4] = (struct section){ CRLC_SEC_SCOPE_DATA, 0, 0, data, nscopes };
	off = CRLC_TOP_HDR_LEN + CRLC_SEC_REQUIRED * CRLC_TOP_DESC_LEN;
	for (i = 0; i < CRLC_SEC_REQUIRED; i++) {
		if (sec[i].rec != 0)
			sec[i].len = sec[i].count * sec[i].rec;
		sec[i].off = off;
		off += sec[i].len;
	}
	off += CRLC_TOP_TRAILER_LEN;
	return off <= CRLC_TOP_MAX ? off : 0;
}

int
crlc_top_write(int fd, uint64_t generation, int64_t created,
    const struct crlc_top_issuer *alias, size_t nalias,
    const struct crlc_top_issuer *canon, size_t ncanon,
    const struct crlc_top_key *keys, size_t nkeys,
    const struct crlc_top_scope *scopes, size_t nscopes)
{
	struct section sec[CRLC_SEC_REQUIRED];
	uint8_t *buf = NULL, *p, *d;
	uint64_t total, at;
	size_t i;
	int ret = -1;

	if (!issuers_ok(alias, nalias) || !issuers_ok(canon, ncanon) ||
	    !keys_ok(keys, nkeys)) {
		errno = EINVAL;
		return -1;
	}
	/* A top too large for readers (CRLC_TOP_MAX) is not written. */
	if ((total = top_layout(sec, nalias, ncanon, nkeys, scopes,
	    nscopes)) == 0) {
		errno = EINVAL;
		return -1;
	}
	if ((buf = calloc(1, (size_t)total)) == NULL)
		goto done;
	memcpy(buf, CRLC_TOP_MAGIC, CRLC_MAGIC_LEN);
	crlc_put_u32(buf + 8, CRLC_FORMAT_VERSION);
	crlc_put_u32(buf + 12, CRLC_SEC_REQUIRED);
	crlc_put_u64(buf + 16, generation);
	crlc_put_i64(buf + 24, created);
	crlc_put_u64(buf + 32, total);
	for (i = 0; i < CRLC_SEC_REQUIRED; i++) {
		d = buf + CRLC_TOP_HDR_LEN + i * CRLC_TOP_DESC_LEN;
		crlc_put_u32(d, sec[i].id);
		crlc_put_u32(d + 4, sec[i].rec);
		crlc_put_u64(d + 8, sec[i].off);
		crlc_put_u64(d + 16, sec[i].len);
		crlc_put_u64(d + 24, sec[i].count);
	}
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
	for (i = 0, at = 0; i < nscopes; i++) {
		crlc_put_u32(buf + sec[3].off + i * CRLC_SCOPE_INDEX_REC_LEN,
		    (uint32_t)at);
		scope_encode(buf + sec[4].off + at, &scopes[i]);
		at += scope_rec_len(&scopes[i]);
	}
	crlc_put_u64(buf + total - CRLC_TOP_TRAILER_LEN,
	    crlc_sum64(buf, (size_t)(total - CRLC_TOP_TRAILER_LEN)));
	ret = write_all(fd, buf, (size_t)total);
done:
	free(buf);
	return ret;
}
