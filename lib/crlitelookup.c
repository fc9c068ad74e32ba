/*
 * The lookup file of a CRLite set, written by the fetcher from the
 * filters it verified (<crlcache/crlite.h> LOOKUP FILE): each issuer's
 * part of every filter in one place, so that a reader reads one range
 * of one file where it would read every filter whole.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <crlcache/crlite.h>
#include <crlcache/crliteset.h>
#include <crlcache/format.h>
#include <crlcache/statefile.h>

/* One issuer's block in one filter, for sorting by (issuer, filter). */
struct member {
	const uint8_t	*issuer;
	uint32_t	 filter;
	uint32_t	 block;
};

/* What one part holds, and its length in the record. */
struct part {
	struct crlc_clubcard_block b;
	uint64_t	 rows, words;	/* Wa, We */
	long		 xlen;		/* the exceptions' bytes */
	uint64_t	 len;		/* header and body */
};

static int
by_id(const void *a, const void *b)
{
	return memcmp(*(const uint8_t *const *)a, *(const uint8_t *const *)b,
	    CRLC_SCT_HASH_LEN);
}

static int
by_issuer(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	int r = memcmp(x->issuer, y->issuer, CRLC_SCT_HASH_LEN);

	return r != 0 ? r : (x->filter > y->filter) - (x->filter < y->filter);
}

/* The words of a column from offset on that rows [0, m) touch. */
static uint64_t
window_words(uint64_t offset, uint64_t m)
{
	return (offset % 64 + m - 1) / 64 + CRLC_CLUBCARD_WINDOW;
}

static int
part_plan(const struct crlc_clubcard *cc, uint32_t block, struct part *p)
{
	if (crlc_clubcard_block(cc, block, &p->b) == -1 ||
	    (p->xlen = crlc_clubcard_exceptions(cc, block, NULL, 0)) < 0)
		return -1;
	p->rows = p->words = 0;
	if (p->b.approx_m != 0) {
		p->rows = window_words(p->b.approx_offset, p->b.approx_m);
		p->words = window_words(p->b.exact_offset,
		    p->b.exact_m == 0 ? 1 : p->b.exact_m);
	}
	p->len = CRLC_CRLITE_LOOKUP_PART_LEN + 8 * (p->rows * p->b.rank +
	    p->words) + (uint64_t)p->xlen;
	return 0;
}

/* Part p of filter f: its header at hdr, its body at out + body. */
static void
part_write(const struct crlc_clubcard *cc, uint32_t f, uint32_t block,
    const struct part *p, uint8_t *hdr, uint8_t *out, uint64_t body)
{
	uint8_t *w = out + body;
	uint64_t i, a0 = p->b.approx_offset / 64, e0 = p->b.exact_offset / 64;
	unsigned c;

	memset(hdr, 0, CRLC_CRLITE_LOOKUP_PART_LEN);
	crlc_put_u32(hdr, f);
	crlc_put_u32(hdr + 4, (uint32_t)p->b.approx_m);
	crlc_put_u32(hdr + 8, (uint32_t)p->b.exact_m);
	hdr[12] = (uint8_t)p->b.rank;
	hdr[13] = (uint8_t)p->b.inverted;
	hdr[14] = (uint8_t)(p->b.approx_offset % 64);
	hdr[15] = (uint8_t)(p->b.exact_offset % 64);
	crlc_put_u32(hdr + 16, (uint32_t)p->rows);
	crlc_put_u32(hdr + 20, (uint32_t)p->words);
	crlc_put_u32(hdr + 24, (uint32_t)body);
	crlc_put_u32(hdr + 28, (uint32_t)p->xlen);
	crlc_put_u32(hdr + 32, (uint32_t)p->b.nexceptions);
	for (i = 0; i < p->rows; i++)
		for (c = 0; c < p->b.rank; c++, w += 8)
			crlc_put_u64(w, crlc_clubcard_word(cc, c, a0 + i));
	for (i = 0; i < p->words; i++, w += 8)
		crlc_put_u64(w, crlc_clubcard_word(cc, UINT32_MAX, e0 + i));
	crlc_clubcard_exceptions(cc, block, w, (size_t)p->xlen);
}

/* The sorted distinct log ids of cc[0..n) into *logs: their number. */
static size_t
logs_collect(const struct crlc_clubcard *const *cc, size_t n,
    const uint8_t ***logs)
{
	struct crlc_clubcard_info info;
	uint64_t lo, hi;
	size_t f, i, k = 0, total = 0;

	for (f = 0; f < n; f++) {
		crlc_clubcard_info(cc[f], &info);
		total += info.logs;
	}
	if ((*logs = calloc(total + 1, sizeof(**logs))) == NULL)
		return SIZE_MAX;
	for (f = 0; f < n; f++) {
		crlc_clubcard_info(cc[f], &info);
		for (i = 0; i < info.logs; i++)
			crlc_clubcard_log(cc[f], i, &(*logs)[k++], &lo, &hi);
	}
	qsort(*logs, total, sizeof(**logs), by_id);
	for (i = k = 0; i < total; i++)
		if (k == 0 || memcmp((*logs)[k - 1], (*logs)[i],
		    CRLC_SCT_HASH_LEN) != 0)
			(*logs)[k++] = (*logs)[i];
	return k;
}

/* The head: header, fanout (filled later), logs and coverage. */
static void
head_write(const struct crlc_clubcard *const *cc, size_t n, uint64_t sum,
    const uint8_t **logs, size_t nlogs, uint8_t *out)
{
	struct crlc_clubcard_info info;
	const uint8_t *id, **hit;
	uint64_t lo, hi;
	uint8_t *cov = out + CRLC_CRLITE_LOOKUP_LOGS_AT +
	    nlogs * CRLC_CRLITE_LOOKUP_LOG_LEN, *e;
	size_t f, i, l;

	memcpy(out, CRLC_CRLITE_LOOKUP_MAGIC, CRLC_CRLITE_MAGIC_LEN);
	crlc_put_u32(out + 8, CRLC_CRLITE_LOOKUP_VERSION);
	crlc_put_u32(out + 12, (uint32_t)n);
	crlc_put_u64(out + 16, sum);
	crlc_put_u32(out + 24, (uint32_t)nlogs);
	for (l = 0; l < nlogs; l++) {
		memcpy(out + CRLC_CRLITE_LOOKUP_LOGS_AT +
		    l * CRLC_CRLITE_LOOKUP_LOG_LEN, logs[l], CRLC_SCT_HASH_LEN);
		for (f = 0; f < n; f++) {
			e = cov + (l * n + f) * CRLC_CRLITE_LOOKUP_COV_LEN;
			crlc_put_u64(e, 1);	/* low 1, high 0: none */
		}
	}
	for (f = 0; f < n; f++) {
		crlc_clubcard_info(cc[f], &info);
		for (i = 0; i < info.logs; i++) {
			crlc_clubcard_log(cc[f], i, &id, &lo, &hi);
			hit = bsearch(&id, logs, nlogs, sizeof(*logs), by_id);
			l = (size_t)(hit - logs);
			e = cov + (l * n + f) * CRLC_CRLITE_LOOKUP_COV_LEN;
			crlc_put_u64(e, lo);
			crlc_put_u64(e + 8, hi);
		}
	}
}

/* Every (issuer, filter) of cc[0..n), sorted: their number, or -1. */
static long
members_collect(const struct crlc_clubcard *const *cc, size_t n,
    struct member **out)
{
	struct crlc_clubcard_info info;
	struct crlc_clubcard_block b;
	size_t f, i, k = 0, total = 0;

	for (f = 0; f < n; f++) {
		crlc_clubcard_info(cc[f], &info);
		total += info.issuers;
	}
	if ((*out = calloc(total + 1, sizeof(**out))) == NULL)
		return -1;
	for (f = 0; f < n; f++) {
		crlc_clubcard_info(cc[f], &info);
		for (i = 0; i < info.issuers; i++) {
			if (crlc_clubcard_block(cc[f], i, &b) == -1)
				return -1;
			(*out)[k].issuer = b.issuer;
			(*out)[k].filter = (uint32_t)f;
			(*out)[k++].block = (uint32_t)i;
		}
	}
	qsort(*out, k, sizeof(**out), by_issuer);
	return (long)k;
}

/*
 * The records of m[0..k) from offset at on, their entries in the table
 * at offset table (out NULL: only measured): the file's length, or 0
 * when a record passes 4 GiB.
 */
static uint64_t
records_write(const struct crlc_clubcard *const *cc, const struct member *m,
    size_t k, uint64_t table, uint64_t at, uint8_t *out)
{
	struct part p;
	uint64_t body;
	uint8_t *e;
	size_t i, j, x, u = 0;

	for (i = 0; i < k; i = j, u++) {
		for (j = i; j < k && memcmp(m[j].issuer, m[i].issuer,
		    CRLC_SCT_HASH_LEN) == 0; j++)
			;
		body = (j - i) * CRLC_CRLITE_LOOKUP_PART_LEN;
		for (x = i; x < j; x++) {
			if (part_plan(cc[m[x].filter], m[x].block, &p) == -1)
				return 0;
			if (out != NULL)
				part_write(cc[m[x].filter], m[x].filter,
				    m[x].block, &p, out + at + (x - i) *
				    CRLC_CRLITE_LOOKUP_PART_LEN, out + at, body);
			body += p.len - CRLC_CRLITE_LOOKUP_PART_LEN;
		}
		if (body > UINT32_MAX)
			return 0;
		if (out != NULL) {
			e = out + table + u * CRLC_CRLITE_LOOKUP_ISSUER_LEN;
			memcpy(e, m[i].issuer, CRLC_SCT_HASH_LEN);
			crlc_put_u64(e + 32, at);
			crlc_put_u32(e + 40, (uint32_t)body);
			crlc_put_u32(e + 44, (uint32_t)(j - i));
		}
		at += body;
	}
	return at;
}

/* The fanout of the table's u issuers (entry b: those below byte b). */
static void
fanout_write(uint8_t *out, uint64_t table, size_t u)
{
	size_t b, i = 0;

	for (b = 0; b < CRLC_CRLITE_LOOKUP_FANOUT; b++) {
		while (i < u && (b == 256 || out[table + i *
		    CRLC_CRLITE_LOOKUP_ISSUER_LEN] < b))
			i++;
		crlc_put_u32(out + CRLC_CRLITE_LOOKUP_HDR_LEN + 4 * b,
		    (uint32_t)i);
	}
}

void
crlc_crlite_lookup_name(uint64_t sum, char *out, size_t len)
{
	snprintf(out, len, "%016llx%s", (unsigned long long)sum,
	    CRLC_CRLITE_LOOKUP_SUFFIX);
}

int
crlc_crlite_lookup_build(const struct crlc_clubcard *const *cc, size_t n,
    uint64_t set_sum, uint8_t **out, size_t *outlen, char *why,
    size_t whylen)
{
	const uint8_t **logs = NULL;
	struct member *m = NULL;
	uint64_t head, table, len;
	size_t nlogs, u, i;
	long k;
	int ret = -1;

	*out = NULL;
	if ((nlogs = logs_collect(cc, n, &logs)) == SIZE_MAX ||
	    (k = members_collect(cc, n, &m)) == -1) {
		crlc_refuse(why, whylen, "out of memory");
		goto done;
	}
	head = CRLC_CRLITE_LOOKUP_LOGS_AT + nlogs * (CRLC_CRLITE_LOOKUP_LOG_LEN +
	    n * CRLC_CRLITE_LOOKUP_COV_LEN);
	if (nlogs > CRLC_CLUBCARD_MAX_LOGS || head > CRLC_CRLITE_LOOKUP_HEAD_MAX) {
		crlc_refuse(why, whylen, "%zu CT logs in %zu filters: a lookup "
		    "head of more than %zu bytes", nlogs, n,
		    CRLC_CRLITE_LOOKUP_HEAD_MAX);
		goto done;
	}
	for (u = 0, i = 0; i < (size_t)k; i++)
		u += i == 0 || memcmp(m[i].issuer, m[i - 1].issuer,
		    CRLC_SCT_HASH_LEN) != 0;
	table = head;
	if ((len = records_write(cc, m, (size_t)k, table, table + u *
	    CRLC_CRLITE_LOOKUP_ISSUER_LEN, NULL)) == 0 || len > SIZE_MAX) {
		crlc_refuse(why, whylen, "an issuer's record of more than 4 GiB");
		goto done;
	}
	if ((*out = calloc(1, (size_t)len)) == NULL) {
		crlc_refuse(why, whylen, "out of memory for %llu bytes",
		    (unsigned long long)len);
		goto done;
	}
	head_write(cc, n, set_sum, logs, nlogs, *out);
	crlc_put_u32(*out + 28, (uint32_t)u);
	crlc_put_u64(*out + 32, len);
	records_write(cc, m, (size_t)k, table, table + u *
	    CRLC_CRLITE_LOOKUP_ISSUER_LEN, *out);
	fanout_write(*out, table, u);
	*outlen = (size_t)len;
	ret = 0;
done:
	free(logs);
	free(m);
	return ret;
}
