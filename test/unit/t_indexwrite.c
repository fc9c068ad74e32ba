/*
 * Unit test of the format 4 writer (lib/indexwrite.c): the bytes it
 * writes are checked at the offsets <crlcache/format.h> documents, not
 * through the reader, so that the header is the contract under test.
 * Slots (inline, the 23-octet edge, hashed), sort and de-duplication,
 * scope files, page files (layout, content id, which page a scope is
 * on), the top file, arguments out of order refused with EINVAL, the
 * checksum trailers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include <crlcache/format.h>
#include <crlcache/hash.h>
#include <crlcache/indexwrite.h>

/* The whole of what fd holds (a temporary file), into *len bytes. */
static uint8_t *
slurp(FILE *f, size_t *len)
{
	uint8_t *buf;
	long n;

	fflush(f);
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0)
		abort();
	rewind(f);
	if ((buf = malloc((size_t)n + 1)) == NULL ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n)
		abort();
	*len = (size_t)n;
	return buf;
}

static void
test_slot(void)
{
	uint8_t s[CRLC_SLOT_LEN], want[CRLC_SLOT_LEN], h[CRLC_HASH_LEN];
	uint8_t serial[30];
	size_t i;

	for (i = 0; i < sizeof(serial); i++)
		serial[i] = (uint8_t)(i + 1);
	crlc_scope_slot(serial, 1, s);
	memset(want, 0, sizeof(want));
	want[0] = 1;
	want[23] = 1;
	CHECK(memcmp(s, want, sizeof(s)) == 0);
	/* 23 octets: the last inline length. */
	crlc_scope_slot(serial, 23, s);
	CHECK(memcmp(s, serial, 23) == 0 && s[23] == 23);
	/* 24: hashed, marked 0xff (no inline length is). */
	crlc_scope_slot(serial, 24, s);
	crlc_sha256(serial, 24, h);
	CHECK(memcmp(s, h, 23) == 0 && s[23] == CRLC_SLOT_HASHED);
	/* Leading 00 kept: 00 80 and 80 are different serials. */
	serial[0] = 0x00;
	serial[1] = 0x80;
	crlc_scope_slot(serial, 2, s);
	crlc_scope_slot(serial + 1, 1, want);
	CHECK(memcmp(s, want, sizeof(s)) != 0);
}

static void
test_sort(void)
{
	struct crlc_scope_entry e[5];
	uint8_t ser;
	size_t n, i;

	memset(e, 0, sizeof(e));
	for (i = 0; i < 5; i++) {
		ser = (uint8_t)(5 - i);
		crlc_scope_slot(&ser, 1, e[i].slot);
		e[i].revoked_at = 100 + (int64_t)i;
	}
	/* A duplicate of serial 3 with an earlier date: that one kept. */
	ser = 3;
	crlc_scope_slot(&ser, 1, e[4].slot);
	e[4].revoked_at = 50;
	n = crlc_scope_sort(e, 5);
	CHECK(n == 4);
	for (i = 1; i < n; i++)
		CHECK(memcmp(e[i - 1].slot, e[i].slot, CRLC_SLOT_LEN) < 0);
	CHECK(e[1].slot[0] == 3 && e[1].revoked_at == 50);
	CHECK(crlc_scope_sort(e, 0) == 0);
}

static void
test_scope_write(void)
{
	static const uint8_t der[] = { 0x30, 0x03, 0x02, 0x01, 0x05 };
	static const uint8_t dlt[] = { 0x30, 0x00 };
	struct crlc_span d = { der, sizeof(der) }, dd = { dlt, sizeof(dlt) };
	struct crlc_scope_entry e[3];
	uint8_t id[CRLC_SCOPE_ID_LEN], ser, *b;
	char name[2 * CRLC_SCOPE_ID_LEN + 1];
	size_t len, i;
	FILE *f;

	for (i = 0; i < sizeof(id); i++)
		id[i] = (uint8_t)(0xa0 + i);
	crlc_scope_name(id, name);
	CHECK(strcmp(name, "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf") == 0);
	memset(e, 0, sizeof(e));
	for (i = 0; i < 3; i++) {
		ser = (uint8_t)(i + 1);
		crlc_scope_slot(&ser, 1, e[i].slot);
		e[i].revoked_at = 1000 + (int64_t)i;
		e[i].reason = i == 0 ? CRLC_REASON_NONE : 1;
		e[i].flags = i == 2 ? CRLC_REV_DELTA : 0;
	}
	if ((f = tmpfile()) == NULL)
		abort();
	CHECK(crlc_scope_write(fileno(f), id, e, 3, &d, &dd) == 0);
	b = slurp(f, &len);
	CHECK(len == 96 + 3 * 34 + sizeof(der) + sizeof(dlt));
	CHECK(memcmp(b, "CRLCSCP\n", 8) == 0);
	CHECK(crlc_get_u32(b + 8) == 3 && crlc_get_u32(b + 12) == 34);
	CHECK(memcmp(b + 16, id, 16) == 0);
	CHECK(crlc_get_u64(b + 32) == len && crlc_get_u64(b + 40) == 3);
	CHECK(crlc_get_u64(b + 48) == 96);
	CHECK(crlc_get_u64(b + 56) == 96 + 3 * 34 &&
	    crlc_get_u64(b + 64) == sizeof(der));
	CHECK(crlc_get_u64(b + 72) == 96 + 3 * 34 + sizeof(der) &&
	    crlc_get_u64(b + 80) == sizeof(dlt));
	for (i = 88; i < 96; i++)
		CHECK(b[i] == 0);
	CHECK(b[96] == 1 && b[96 + 23] == 1);
	CHECK(crlc_get_i64(b + 96 + 34 + 24) == 1001);
	CHECK(b[96 + 32] == CRLC_REASON_NONE && b[96 + 2 * 34 + 33] ==
	    CRLC_REV_DELTA);
	CHECK(memcmp(b + 96 + 3 * 34, der, sizeof(der)) == 0);
	CHECK(memcmp(b + len - sizeof(dlt), dlt, sizeof(dlt)) == 0);
	free(b);
	fclose(f);

	/* No delta, no entries. */
	if ((f = tmpfile()) == NULL)
		abort();
	CHECK(crlc_scope_write(fileno(f), id, NULL, 0, &d, NULL) == 0);
	b = slurp(f, &len);
	CHECK(len == 96 + sizeof(der) && crlc_get_u64(b + 80) == 0);
	free(b);

	/* Refused: unsorted or duplicate entries, an empty CRL. */
	e[1] = e[0];
	errno = 0;
	CHECK(crlc_scope_write(fileno(f), id, e, 3, &d, NULL) == -1 &&
	    errno == EINVAL);
	d.len = 0;
	errno = 0;
	CHECK(crlc_scope_write(fileno(f), id, NULL, 0, &d, NULL) == -1 &&
	    errno == EINVAL);
	fclose(f);
	/* A write error is reported. */
	d.len = sizeof(der);
	CHECK(crlc_scope_write(-1, id, NULL, 0, &d, NULL) == -1 &&
	    errno == EBADF);
}

/* The descriptor of section id in a top file b, or NULL. */
static const uint8_t *
desc(const uint8_t *b, uint32_t id)
{
	uint32_t i, n = crlc_get_u32(b + 12);

	for (i = 0; i < n; i++)
		if (crlc_get_u32(b + 64 + 32 * i) == id)
			return b + 64 + 32 * i;
	return NULL;
}

/* What crlc_pages_build() passed on: records and copies of the files. */
struct built {
	struct crlc_top_page	 pg[8];
	uint8_t			*file[8];
	size_t			 len[8], n;
};

static int
built_page(const struct crlc_top_page *pg, const uint8_t *buf, size_t len,
    void *arg)
{
	struct built *b = arg;

	if (b->n == 8)
		return 7;
	b->pg[b->n] = *pg;
	b->file[b->n] = NULL;
	if (buf != NULL && (b->file[b->n] = malloc(len)) != NULL)
		memcpy(b->file[b->n], buf, len);
	b->len[b->n++] = len;
	return 0;
}

static void
built_free(struct built *b)
{
	while (b->n > 0)
		free(b->file[--b->n]);
}

/* Three scopes of issuer 1 key 1, in key order. */
static void
three_scopes(struct crlc_top_scope sc[3])
{
	size_t i;

	memset(sc, 0, 3 * sizeof(*sc));
	/* Order: complete CRL (no URI), then "http://a" before "http://ab". */
	for (i = 0; i < 3; i++) {
		sc[i].issuer_id = 1;
		sc[i].key_no = 1;
		sc[i].scope_no = (unsigned)i + 1;
		sc[i].entries = (uint32_t)i;
		sc[i].this_update = 10;
		sc[i].next_update = 20;
		sc[i].id[0] = (uint8_t)i;
		sc[i].source = (struct crlc_span){ (const uint8_t *)"src", 3 };
	}
	sc[1].uri = (struct crlc_span){ (const uint8_t *)"http://a", 8 };
	sc[2].uri = (struct crlc_span){ (const uint8_t *)"http://ab", 9 };
	sc[2].flags = CRLC_CRL_HAS_DELTA;
	sc[2].number = (struct crlc_span){ (const uint8_t *)"\x07", 1 };
	sc[2].base = (struct crlc_span){ (const uint8_t *)"\x06", 1 };
	sc[2].delta_next_update = 30;
}

/* A page file's bytes at the offsets format.h documents. */
static void
test_page_file(void)
{
	struct crlc_top_scope sc[3];
	struct built bt = { .n = 0 };
	uint8_t h[CRLC_HASH_LEN];
	const uint8_t *b, *d, *data, *rec;
	size_t len;

	three_scopes(sc);
	CHECK(crlc_page_count(1) == 1 && crlc_page_count(16) == 1 &&
	    crlc_page_count(17) == 2 && crlc_page_count(1000) == 64 &&
	    crlc_page_count(65536) == CRLC_PAGES_MAX);
	CHECK(crlc_pages_build(sc, 3, built_page, &bt) == 0 && bt.n == 1);
	if (bt.n != 1 || bt.file[0] == NULL)
		return;
	CHECK(bt.pg[0].issuer_id == 1 && bt.pg[0].key_no == 1 &&
	    bt.pg[0].page_no == 0 && bt.pg[0].npages == 1 &&
	    bt.pg[0].nscopes == 3 && bt.pg[0].entries == 3);
	b = bt.file[0];
	len = bt.len[0];
	CHECK(memcmp(b, "CRLCPAG\n", 8) == 0 && crlc_get_u32(b + 8) == 4);
	CHECK(crlc_get_u32(b + 12) == 2 && crlc_get_u64(b + 32) == len);
	CHECK(memcmp(b + 16, bt.pg[0].id, 16) == 0);
	/* the id: SHA-256 of everything after it but the trailer */
	crlc_sha256(b + 32, len - 32 - 8, h);
	CHECK(memcmp(h, bt.pg[0].id, 16) == 0);
	CHECK(crlc_get_u64(b + len - 8) == crlc_sum64(b, len - 8));
	CHECK((d = desc(b, CRLC_SEC_SCOPE_DATA)) != NULL &&
	    crlc_get_u32(d + 4) == 0 &&
	    crlc_get_u64(d + 16) == 3 * (124 + 3) + 8 + 9);
	data = d != NULL ? b + crlc_get_u64(d + 8) : b;
	CHECK((d = desc(b, CRLC_SEC_SCOPE_INDEX)) != NULL &&
	    crlc_get_u64(d + 24) == 3 && crlc_get_u64(d + 8) == 64 + 2 * 32);
	if (d != NULL) {
		CHECK(crlc_get_u32(b + crlc_get_u64(d + 8)) == 0);
		CHECK(crlc_get_u32(b + crlc_get_u64(d + 8) + 4) == 127);
		rec = data + crlc_get_u32(b + crlc_get_u64(d + 8) + 8);
		CHECK(crlc_get_u32(rec) == 1 && crlc_get_u32(rec + 4) == 1);
		CHECK(rec[8] == 0 && rec[9] == 9 && rec[10] == CRLC_CRL_HAS_DELTA);
		CHECK(rec[13] == 3 && crlc_get_u32(rec + 16) == 2);
		CHECK(crlc_get_i64(rec + 20) == 10 && crlc_get_i64(rec + 28) == 20);
		CHECK(crlc_get_i64(rec + 52) == 30);
		CHECK(rec[60] == 1 && rec[61] == 7 && rec[82] == 1 && rec[83] == 6);
		CHECK(rec[104] == 2 && crlc_get_u32(rec + 120) == 3);
		CHECK(memcmp(rec + 124, "http://absrc", 12) == 0);
	}
	built_free(&bt);
	/* refused: out of order, two keys, none */
	sc[1].uri = (struct crlc_span){ (const uint8_t *)"http://ab", 9 };
	errno = 0;
	CHECK(crlc_pages_build(sc, 3, built_page, &bt) == -1 &&
	    errno == EINVAL && bt.n == 0);
	three_scopes(sc);
	sc[2].key_no = 2;
	errno = 0;
	CHECK(crlc_pages_build(sc, 3, built_page, &bt) == -1 &&
	    errno == EINVAL && bt.n == 0);
	errno = 0;
	CHECK(crlc_pages_build(sc, 0, built_page, &bt) == -1 &&
	    errno == EINVAL && bt.n == 0);
	/* the callback's value stops the walk and is returned */
	three_scopes(sc);
	bt.n = 8;
	CHECK(crlc_pages_build(sc, 3, built_page, &bt) == 7);
	bt.n = 0;
}

/*
 * 40 scopes of one key: 4 pages; each scope on the page its name (the
 * URI without its reasons suffix) hashes to, a name's reason partition
 * beside it; a page no scope falls on has no file.
 */
static void
test_pages_split(void)
{
	static char uri[40][40];
	struct crlc_top_scope sc[40];
	struct built bt = { .n = 0 };
	uint32_t seen[4] = { 0 }, want[4] = { 0 }, b;
	size_t i, namelen;

	memset(sc, 0, sizeof(sc));
	for (i = 0; i < 40; i++) {
		/* "http://x/NN.crl", the odd ones a partition of the one
		   before: its name and 00 || u16 mask (keyCompromise) */
		snprintf(uri[i], sizeof(uri[i]), "http://x/%02zu.crl", i & ~(size_t)1);
		namelen = strlen(uri[i]);
		sc[i].uri = (struct crlc_span){ (const uint8_t *)uri[i],
		    namelen + ((i & 1) ? 3 : 0) };
		if (i & 1)
			memcpy(uri[i] + namelen, "\0\0\x02", 3);
		sc[i].issuer_id = 3;
		sc[i].key_no = 1;
		sc[i].scope_no = (unsigned)i;
		sc[i].entries = 1;
		sc[i].id[0] = (uint8_t)i;
		want[crlc_scope_page((const uint8_t *)uri[i], namelen, 4)]++;
	}
	CHECK(crlc_pages_build(sc, 40, built_page, &bt) == 0 && bt.n == 4);
	for (i = 0; i < bt.n; i++) {
		b = bt.pg[i].page_no;
		CHECK(b == i && bt.pg[i].npages == 4 &&
		    bt.pg[i].nscopes == want[b] && bt.pg[i].entries == want[b]);
		CHECK((bt.file[i] == NULL) == (want[b] == 0));
		seen[b] += bt.pg[i].nscopes;
	}
	CHECK(seen[0] + seen[1] + seen[2] + seen[3] == 40);
	/* both scopes of a name on one page: counts are even */
	CHECK(want[0] % 2 == 0 && want[1] % 2 == 0 && want[2] % 2 == 0 &&
	    want[3] % 2 == 0);
	built_free(&bt);
}

static void
test_top_write(void)
{
	struct crlc_top_issuer alias[2], canon[1];
	struct crlc_top_key keys[2];
	struct crlc_top_page pg[3];
	uint8_t *b;
	const uint8_t *d, *rec;
	size_t len;
	FILE *f;

	memset(alias, 0, sizeof(alias));
	memset(canon, 0, sizeof(canon));
	memset(keys, 0, sizeof(keys));
	memset(pg, 0, sizeof(pg));
	alias[0].hash[0] = 1;
	alias[0].id = 1;
	alias[1].hash[0] = 2;
	alias[1].id = 1;
	canon[0].hash[0] = 9;
	canon[0].id = 1;
	keys[0].issuer_id = 1;
	keys[0].hash[0] = 5;
	keys[0].key_no = 2;
	keys[1].issuer_id = 1;
	keys[1].hash[0] = 6;
	keys[1].key_no = 1;
	keys[1].ski_len = 3;
	memcpy(keys[1].ski, "\x01\x02\x03", 3);
	/* key 1 of issuer 1 on one page, key 2 on two (the second empty) */
	pg[0] = (struct crlc_top_page){ 1, 1, 0, 1, 3, 5, { 0xa0 } };
	pg[1] = (struct crlc_top_page){ 1, 2, 0, 2, 1, 7, { 0xb0 } };
	pg[2] = (struct crlc_top_page){ 1, 2, 1, 2, 0, 0, { 0 } };

	if ((f = tmpfile()) == NULL)
		abort();
	CHECK(crlc_top_write(fileno(f), 7, 1234, alias, 2, canon, 1, keys, 2,
	    pg, 3) == 0);
	b = slurp(f, &len);
	fclose(f);
	CHECK(memcmp(b, "CRLCTOP\n", 8) == 0 && crlc_get_u32(b + 8) == 4);
	CHECK(crlc_get_u32(b + 12) == 4 && crlc_get_u64(b + 16) == 7 &&
	    crlc_get_i64(b + 24) == 1234 && crlc_get_u64(b + 32) == len);
	CHECK(crlc_get_u64(b + len - 8) == crlc_sum64(b, len - 8));
	CHECK((d = desc(b, CRLC_SEC_ALIAS)) != NULL && crlc_get_u32(d + 4) ==
	    36 && crlc_get_u64(d + 16) == 72 && crlc_get_u64(d + 24) == 2);
	CHECK(d != NULL && crlc_get_u64(d + 8) == 64 + 4 * 32 &&
	    b[crlc_get_u64(d + 8) + 36] == 2 &&
	    crlc_get_u32(b + crlc_get_u64(d + 8) + 68) == 1);
	CHECK((d = desc(b, CRLC_SEC_KEY)) != NULL && crlc_get_u32(d + 4) ==
	    105 && crlc_get_u64(d + 24) == 2);
	if (d != NULL) {
		rec = b + crlc_get_u64(d + 8) + 105;
		CHECK(crlc_get_u32(rec) == 1 && rec[4] == 6 &&
		    crlc_get_u32(rec + 36) == 1 && rec[40] == 3 &&
		    memcmp(rec + 41, "\x01\x02\x03", 3) == 0);
	}
	CHECK((d = desc(b, CRLC_SEC_PAGE)) != NULL && crlc_get_u32(d + 4) ==
	    48 && crlc_get_u64(d + 16) == 3 * 48 && crlc_get_u64(d + 24) == 3);
	CHECK(desc(b, CRLC_SEC_SCOPE_INDEX) == NULL &&
	    desc(b, CRLC_SEC_SCOPE_DATA) == NULL);
	if (d != NULL) {
		rec = b + crlc_get_u64(d + 8) + 48;
		CHECK(crlc_get_u32(rec) == 1 && crlc_get_u32(rec + 4) == 2 &&
		    crlc_get_u32(rec + 8) == 0 && crlc_get_u32(rec + 12) == 2 &&
		    crlc_get_u32(rec + 16) == 1 && crlc_get_u32(rec + 20) == 0 &&
		    crlc_get_u64(rec + 24) == 7 && rec[32] == 0xb0);
	}
	free(b);

	/* Out of order, duplicate or incomplete: refused, nothing written. */
	if ((f = tmpfile()) == NULL)
		abort();
	CHECK(crlc_top_write(fileno(f), 1, 0, alias + 1, 1, canon, 1, keys, 2,
	    pg, 3) == 0);
	alias[1].hash[0] = 0;
	errno = 0;
	CHECK(crlc_top_write(fileno(f), 1, 0, alias, 2, canon, 1, keys, 2,
	    pg, 3) == -1 && errno == EINVAL);
	alias[1].hash[0] = 2;
	keys[1].hash[0] = 5;
	errno = 0;
	CHECK(crlc_top_write(fileno(f), 1, 0, alias, 2, canon, 1, keys, 2,
	    pg, 3) == -1 && errno == EINVAL);
	keys[1].hash[0] = 6;
	/* a key's pages not all there, or a key twice */
	errno = 0;
	CHECK(crlc_top_write(fileno(f), 1, 0, alias, 2, canon, 1, keys, 2,
	    pg, 2) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(crlc_top_write(fileno(f), 1, 0, alias, 2, canon, 1, keys, 2,
	    pg + 1, 1) == -1 && errno == EINVAL);
	pg[1].key_no = 1;
	pg[2].key_no = 1;
	errno = 0;
	CHECK(crlc_top_write(fileno(f), 1, 0, alias, 2, canon, 1, keys, 2,
	    pg, 3) == -1 && errno == EINVAL);
	/* a page count that is not a power of two */
	pg[1] = (struct crlc_top_page){ 1, 2, 0, 3, 1, 7, { 0xb0 } };
	errno = 0;
	CHECK(crlc_top_write(fileno(f), 1, 0, alias, 2, canon, 1, keys, 2,
	    pg, 2) == -1 && errno == EINVAL);
	CHECK(crlc_top_write(fileno(f), 1, 0, alias, 2, canon, 1, keys, 2,
	    pg, 1) == 0);
	/* An empty index is a valid one. */
	CHECK(crlc_top_write(fileno(f), 1, 0, NULL, 0, NULL, 0, NULL, 0,
	    NULL, 0) == 0);
	fclose(f);
}

int
main(void)
{
	test_slot();
	test_sort();
	test_scope_write();
	test_page_file();
	test_pages_split();
	test_top_write();
	return check_result();
}
