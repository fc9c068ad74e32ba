/*
 * CRLite clubcard filters, versions 3 and 4: validated once, then queried
 * without allocation (see <crlcache/clubcard.h> for both layouts).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The two encodings carry the same fields in other widths, byte orders
 * and (within an issuer's block) order, so one reader walks both, driven
 * by a table of the wire's shape.  Every count is checked against the
 * bytes left before it is used, and every value against the width
 * version 4 gives it.
 */
#include <endian.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <crlcache/clubcard.h>
#include <crlcache/hash.h>

/* Schanck 2025 4.3 and upki-revocation "Clubcard Parameters": W = 4. */
#define QUERY_LIMBS		CRLC_CLUBCARD_LIMBS
/* log id, low, high: 48 bytes in both encodings */
#define COVERAGE_ENTRY_LEN	(CRLC_SCT_HASH_LEN + 8 + 8)
/* The most approximate columns: version 4's uint8 count. */
#define MAX_COLUMNS		255

/* The fields of an issuer's block (IssuerBlock), by meaning. */
enum block_field {
	F_APPROX_M, F_RANK, F_APPROX_OFFSET, F_EXACT_M, F_EXACT_OFFSET,
	F_INVERTED, NFIELDS
};
static const char *const field_name[NFIELDS] = {
	"approx_m", "approx_rank", "approx_offset", "exact_m",
	"exact_offset", "inverted"
};
/* The largest value of each: version 4's widths; inverted is 0 or 1. */
static const uint64_t field_max[NFIELDS] = {
	UINT32_MAX, UINT8_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, 1
};

/* The shape of one encoding on the wire; widths in bytes. */
struct wire {
	int		 version;
	int		 little;	/* bincode: little-endian */
	unsigned	 coverage_count;
	unsigned	 issuer_count;
	unsigned	 key_prefix;	/* the issuer key's length; 0: none */
	enum block_field order[NFIELDS];
	unsigned	 width[NFIELDS];	/* of the field at each place */
	unsigned	 exception_count;
	unsigned	 exception_len;
	unsigned	 column_count;
	unsigned	 word_count;
};

/* upki-revocation "Filter file format". */
static const struct wire wire_v4 = {
	4, 0, 2, 4, 0,
	{ F_APPROX_M, F_RANK, F_APPROX_OFFSET, F_EXACT_M, F_EXACT_OFFSET,
	  F_INVERTED },
	{ 4, 1, 4, 4, 4, 1 },
	2, 1, 1, 4
};
/*
 * bincode 1.x of clubcard 0.3's ClubcardIndexEntry: usize fields as u64
 * in declaration order, bool as one byte, Vec lengths as u64.
 */
static const struct wire wire_v3 = {
	3, 1, 8, 8, 8,
	{ F_APPROX_M, F_EXACT_M, F_RANK, F_APPROX_OFFSET, F_EXACT_OFFSET,
	  F_INVERTED },
	{ 8, 8, 8, 8, 8, 1 },
	8, 8, 8, 8
};

struct column {
	const uint8_t	*words;
	uint64_t	 nwords;
};

struct crlc_clubcard {
	const struct wire *wire;
	const uint8_t	*buf;		/* the caller's */
	const uint8_t	*coverage;	/* ncoverage entries of 48 bytes */
	size_t		 ncoverage;
	uint32_t	*issuer_at;	/* offset of each issuer's key */
	size_t		 nissuers;
	size_t		 index_end;	/* offset just past the last block */
	struct column	 columns[MAX_COLUMNS];
	unsigned	 ncolumns;
	struct column	 exact;
};

/*
 * A cursor over buf, with where a refusal's reason goes (NULL: none) and
 * the issuer being read (-1: none), which the reason names.
 */
struct cursor {
	const struct wire *wire;
	const uint8_t	*buf, *p, *end;
	char		*why;
	size_t		 whylen;
	long		 issuer;
};

/* An issuer's block, decoded. */
struct block {
	const uint8_t	*issuer;
	uint64_t	 f[NFIELDS];
	uint64_t	 nexceptions;
	struct cursor	 exceptions;	/* from the first exception to the
					   block's end */
};

static int
refuse(const struct cursor *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->why == NULL || c->whylen == 0)
		return -1;
	if (c->issuer >= 0)
		n = snprintf(c->why, c->whylen, "at byte %zu, issuer %ld: ",
		    (size_t)(c->p - c->buf), c->issuer);
	else
		n = snprintf(c->why, c->whylen, "at byte %zu: ",
		    (size_t)(c->p - c->buf));
	if (n >= 0 && (size_t)n < c->whylen) {
		va_start(ap, fmt);
		vsnprintf(c->why + n, c->whylen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* One 64-bit word: a load and a byte swap at most (every query's loop). */
static uint64_t
load64(const uint8_t *p, int little)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return little ? le64toh(v) : be64toh(v);
}

static uint64_t
load(const uint8_t *p, unsigned width, int little)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < width; i++)
		v |= (uint64_t)p[little ? i : width - 1 - i] << (8 * i);
	return v;
}

/* An unsigned integer of width bytes, at most max. */
static int
get(struct cursor *c, unsigned width, uint64_t max, uint64_t *v,
    const char *what)
{
	if ((size_t)(c->end - c->p) < width)
		return refuse(c, "%s past the end", what);
	*v = load(c->p, width, c->wire->little);
	if (*v > max)
		return refuse(c, "%s %llu above %llu", what,
		    (unsigned long long)*v, (unsigned long long)max);
	c->p += width;
	return 0;
}

/*
 * A count of elements of at least min_len bytes each: no more than the
 * bytes left can hold, so that nothing is sized by an unchecked field.
 */
static int
get_count(struct cursor *c, unsigned width, size_t min_len, uint64_t max,
    uint64_t *n, const char *what)
{
	uint64_t left = (uint64_t)(c->end - c->p);

	if (get(c, width, max, n, what) == -1)
		return -1;
	left -= width;
	if (*n > left / min_len)
		return refuse(c, "%s %llu, more than the %llu bytes left hold",
		    what, (unsigned long long)*n, (unsigned long long)left);
	return 0;
}

static int
coverage_read(struct cursor *c, struct crlc_clubcard *cc)
{
	uint64_t n;
	size_t i, j;

	if (get_count(c, c->wire->coverage_count, COVERAGE_ENTRY_LEN,
	    CRLC_CLUBCARD_MAX_LOGS, &n, "coverage count") == -1)
		return -1;
	cc->coverage = c->p;
	cc->ncoverage = (size_t)n;
	for (i = 0; i < n; i++) {
		const uint8_t *e = cc->coverage + i * COVERAGE_ENTRY_LEN;

		for (j = 0; j < i; j++)
			if (memcmp(e, cc->coverage + j * COVERAGE_ENTRY_LEN,
			    CRLC_SCT_HASH_LEN) == 0)
				return refuse(c, "coverage log %zu is log %zu "
				    "again", i, j);
	}
	c->p += n * COVERAGE_ENTRY_LEN;
	return 0;
}

/* An issuer's key and fixed fields; c is left at its first exception. */
static int
block_read(struct cursor *c, struct block *b)
{
	const struct wire *w = c->wire;
	uint64_t v;
	unsigned i;

	if (w->key_prefix != 0 && get(c, w->key_prefix, UINT64_MAX, &v,
	    "issuer key length") == -1)
		return -1;
	if (w->key_prefix != 0 && v != CRLC_SCT_HASH_LEN)
		return refuse(c, "an issuer key of %llu bytes, not 32",
		    (unsigned long long)v);
	if ((size_t)(c->end - c->p) < CRLC_SCT_HASH_LEN)
		return refuse(c, "issuer key past the end");
	b->issuer = c->p;
	c->p += CRLC_SCT_HASH_LEN;
	for (i = 0; i < NFIELDS; i++)
		if (get(c, w->width[i], field_max[w->order[i]],
		    &b->f[w->order[i]], field_name[w->order[i]]) == -1)
			return -1;
	if (get_count(c, w->exception_count, w->exception_len, UINT16_MAX,
	    &b->nexceptions, "exception count") == -1)
		return -1;
	b->exceptions = *c;
	return 0;
}

/*
 * Walk b's exceptions: 1 when serial[0..len) is one of them, 0 when not
 * (serial NULL: validate only), -1 when malformed.  Leaves b->exceptions
 * past the last one.
 */
static int
exception_find(struct block *b, const uint8_t *serial, size_t len)
{
	struct cursor *c = &b->exceptions;
	uint64_t i, n;

	for (i = 0; i < b->nexceptions; i++) {
		if (get(c, c->wire->exception_len, UINT8_MAX, &n,
		    "exception length") == -1)
			return -1;
		if (n == 0)	/* upki-revocation: Exception<1..2^8-1> */
			return refuse(c, "an exception of 0 bytes");
		if ((uint64_t)(c->end - c->p) < n)
			return refuse(c, "exception of %llu bytes past the end",
			    (unsigned long long)n);
		if (serial != NULL && n == len && memcmp(c->p, serial, n) == 0)
			return 1;
		c->p += n;
	}
	return 0;
}

static int
index_read(struct cursor *c, struct crlc_clubcard *cc)
{
	const struct wire *w = c->wire;
	const uint8_t *prev = NULL;
	struct block b;
	size_t min_len = w->key_prefix + CRLC_SCT_HASH_LEN + w->exception_count;
	uint64_t n, i;

	for (i = 0; i < NFIELDS; i++)
		min_len += w->width[i];
	if (get_count(c, w->issuer_count, min_len, UINT32_MAX, &n,
	    "issuer count") == -1)
		return -1;
	if ((cc->issuer_at = calloc(n == 0 ? 1 : (size_t)n,
	    sizeof(*cc->issuer_at))) == NULL)
		return refuse(c, "out of memory for %llu issuers",
		    (unsigned long long)n);
	cc->nissuers = (size_t)n;
	for (i = 0; i < n; i++) {
		c->issuer = (long)i;
		if (block_read(c, &b) == -1 || exception_find(&b, NULL, 0) == -1)
			return -1;
		if (prev != NULL && memcmp(prev, b.issuer, CRLC_SCT_HASH_LEN) >= 0) {
			c->p = b.issuer;
			return refuse(c, "not after the issuer before it "
			    "(sorted, each once)");
		}
		prev = b.issuer;
		cc->issuer_at[i] = (uint32_t)(b.issuer - c->buf);
		c->p = b.exceptions.p;
	}
	c->issuer = -1;
	cc->index_end = (size_t)(c->p - c->buf);
	return 0;
}

static int
column_read(struct cursor *c, struct column *col, const char *what)
{
	if (get_count(c, c->wire->word_count, 8, UINT64_MAX, &col->nwords,
	    what) == -1)
		return -1;
	col->words = c->p;
	c->p += col->nwords * 8;
	return 0;
}

/* Issuer i's block from a cursor of its own bytes (why: none). */
static int
block_at(const struct crlc_clubcard *cc, size_t i, struct block *b)
{
	struct cursor c = { cc->wire, cc->buf, NULL, NULL, NULL, 0, -1 };

	c.p = cc->buf + cc->issuer_at[i] - cc->wire->key_prefix;
	c.end = i + 1 < cc->nissuers ?
	    cc->buf + cc->issuer_at[i + 1] - cc->wire->key_prefix :
	    cc->buf + cc->index_end;
	return block_read(&c, b);
}

/* upki-revocation "Approximate filter": a rank above count is malformed. */
static int
ranks_check(struct cursor *c, const struct crlc_clubcard *cc)
{
	struct block b;
	size_t i;

	for (i = 0; i < cc->nissuers; i++)
		if (block_at(cc, i, &b) == -1 ||
		    b.f[F_RANK] > cc->ncolumns) {
			c->p = cc->buf + cc->issuer_at[i];
			c->issuer = (long)i;
			return refuse(c, "rank %llu above the %u approximate "
			    "columns", (unsigned long long)b.f[F_RANK],
			    cc->ncolumns);
		}
	return 0;
}

static int
filter_read(struct cursor *c, struct crlc_clubcard *cc)
{
	uint64_t n;
	unsigned i;

	if (coverage_read(c, cc) == -1 || index_read(c, cc) == -1)
		return -1;
	if (get_count(c, c->wire->column_count, c->wire->word_count,
	    MAX_COLUMNS, &n, "approximate column count") == -1)
		return -1;
	cc->ncolumns = (unsigned)n;
	for (i = 0; i < cc->ncolumns; i++)
		if (column_read(c, &cc->columns[i], "column word count") == -1)
			return -1;
	if (column_read(c, &cc->exact, "exact filter word count") == -1)
		return -1;
	if (c->p != c->end)
		return refuse(c, "%zu bytes after the exact filter",
		    (size_t)(c->end - c->p));
	return ranks_check(c, cc);
}

int
crlc_clubcard_parse(const uint8_t *buf, size_t len, struct crlc_clubcard **out,
    char *why, size_t whylen)
{
	struct cursor c = { NULL, buf, buf, buf + len, why, whylen, -1 };
	struct crlc_clubcard *cc;

	*out = NULL;
	if (len > CRLC_CLUBCARD_MAX_LEN)
		return refuse(&c, "%zu bytes, more than the %zu a filter may "
		    "have", len, CRLC_CLUBCARD_MAX_LEN);
	if (len < 2)
		return refuse(&c, "no version and reserved0 bytes");
	if (buf[0] != 3 && buf[0] != 4)
		return refuse(&c, "version %u: only 3 and 4 are read "
		    "(0 to 2 are Bloom cascades)", buf[0]);
	if (buf[1] != 0)
		return refuse(&c, "reserved0 %u, not 0 (upki-revocation)",
		    buf[1]);
	if ((cc = calloc(1, sizeof(*cc))) == NULL)
		return refuse(&c, "out of memory");
	c.wire = cc->wire = buf[0] == 3 ? &wire_v3 : &wire_v4;
	cc->buf = buf;
	c.p = buf + 2;
	if (filter_read(&c, cc) == -1) {
		crlc_clubcard_free(cc);
		return -1;
	}
	*out = cc;
	return 0;
}

void
crlc_clubcard_free(struct crlc_clubcard *cc)
{
	if (cc == NULL)
		return;
	free(cc->issuer_at);
	free(cc);
}

/* Coverage entry i's low (end 0) or high (end 1) timestamp. */
static uint64_t
coverage_time(const struct crlc_clubcard *cc, size_t i, int end)
{
	return load64(cc->coverage + i * COVERAGE_ENTRY_LEN + CRLC_SCT_HASH_LEN +
	    8 * end, cc->wire->little);
}

void
crlc_clubcard_info(const struct crlc_clubcard *cc,
    struct crlc_clubcard_info *out)
{
	size_t i;

	out->version = cc->wire->version;
	out->issuers = cc->nissuers;
	out->logs = cc->ncoverage;
	out->newest = 0;
	for (i = 0; i < cc->ncoverage; i++)
		if (coverage_time(cc, i, 1) > out->newest)
			out->newest = coverage_time(cc, i, 1);
}

void
crlc_clubcard_query_init(struct crlc_clubcard_query *q,
    const uint8_t issuer[CRLC_SCT_HASH_LEN], const uint8_t *serial,
    size_t serial_len, const struct crlc_sct *scts, size_t nscts)
{
	struct iovec iov[2];

	memcpy(q->issuer, issuer, CRLC_SCT_HASH_LEN);
	q->serial = serial;
	q->serial_len = serial_len;
	q->scts = scts;
	q->nscts = nscts;
	iov[0].iov_base = q->issuer;
	iov[0].iov_len = CRLC_SCT_HASH_LEN;
	iov[1].iov_base = (void *)(uintptr_t)serial;
	iov[1].iov_len = serial_len;
	crlc_sha256_iov(iov, 2, q->key);
}

/* upki-revocation "Step 2" 1: some SCT inside the coverage. */
static int
covered(const struct crlc_clubcard *cc, const struct crlc_clubcard_query *q)
{
	size_t i, j;
	uint64_t t;

	for (i = 0; i < q->nscts; i++)
		for (j = 0; j < cc->ncoverage; j++) {
			if (memcmp(q->scts[i].log_id, cc->coverage +
			    j * COVERAGE_ENTRY_LEN, CRLC_SCT_HASH_LEN) != 0)
				continue;
			t = q->scts[i].timestamp;
			if (coverage_time(cc, j, 0) <= t &&
			    t <= coverage_time(cc, j, 1))
				return 1;
		}
	return 0;
}

/* The issuer's index in the sorted list, or -1. */
static long
issuer_find(const struct crlc_clubcard *cc, const uint8_t *issuer)
{
	size_t lo = 0, hi = cc->nissuers, mid;
	int r;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		r = memcmp(cc->buf + cc->issuer_at[mid], issuer,
		    CRLC_SCT_HASH_LEN);
		if (r == 0)
			return (long)mid;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

uint64_t
crlc_clubcard_word(const struct crlc_clubcard *cc, unsigned column, uint64_t i)
{
	const struct column *col = column < cc->ncolumns ?
	    &cc->columns[column] : &cc->exact;

	return i < col->nwords ? load64(col->words + 8 * i, cc->wire->little) : 0;
}

int
crlc_clubcard_window_odd(const uint64_t w[CRLC_CLUBCARD_WINDOW],
    unsigned shift, const uint64_t a[CRLC_CLUBCARD_LIMBS])
{
	uint64_t v, r = 0;
	unsigned i;

	for (i = 0; i < CRLC_CLUBCARD_LIMBS; i++) {
		v = w[i] >> shift;
		if (shift != 0)
			v |= w[i + 1] << (64 - shift);
		r ^= v & a[i];
	}
	return __builtin_parityll(r);
}

/*
 * The parity of the product of the 256 coefficients a with bits
 * [s, s + 256) of column c: bit i is bit i % 64 of word i / 64, and bits
 * past the column's words are 0 (upki-revocation "Approximate filter").
 */
static int
column_odd(const struct crlc_clubcard *cc, unsigned c, uint64_t s,
    const uint64_t a[QUERY_LIMBS])
{
	uint64_t w[CRLC_CLUBCARD_WINDOW];
	unsigned i;

	for (i = 0; i < CRLC_CLUBCARD_WINDOW; i++)
		w[i] = crlc_clubcard_word(cc, c, s / 64 + i);
	return crlc_clubcard_window_odd(w, (unsigned)(s % 64), a);
}

void
crlc_clubcard_query_limbs(const struct crlc_clubcard_query *q,
    uint64_t a[CRLC_CLUBCARD_LIMBS], uint64_t *t)
{
	unsigned c;

	for (c = 0; c < QUERY_LIMBS; c++)
		a[c] = load64(q->key + 8 * c, 1);
	a[0] |= 1;
	*t = a[QUERY_LIMBS - 1];
}

/*
 * Schanck 2025 section 3 Query, as clubcard 0.3 evaluates it: the key's
 * four little-endian limbs with the lowest bit set are the equation, its
 * top limb t picks the row (offset + t mod m) in each filter.  A member
 * passes every approximate column and the exact column and is no
 * exception; inverted flips the answer.  An empty block (approx_m 0)
 * holds nothing.  -1: the block's bytes no longer read as at the parse.
 */
static int
member(const struct crlc_clubcard *cc, size_t i,
    const struct crlc_clubcard_query *q)
{
	uint64_t a[QUERY_LIMBS], t, m;
	struct block b;
	int inv, r;
	unsigned c;

	if (block_at(cc, i, &b) == -1 || b.f[F_RANK] > cc->ncolumns)
		return -1;
	inv = (int)b.f[F_INVERTED];
	if (b.f[F_APPROX_M] == 0)
		return inv;
	crlc_clubcard_query_limbs(q, a, &t);
	for (c = 0; c < b.f[F_RANK]; c++)
		if (column_odd(cc, c, b.f[F_APPROX_OFFSET] +
		    t % b.f[F_APPROX_M], a))
			return inv;
	/* clubcard 0.3: a modulus of 0 is taken as 1 */
	m = b.f[F_EXACT_M] == 0 ? 1 : b.f[F_EXACT_M];
	if (column_odd(cc, cc->ncolumns, b.f[F_EXACT_OFFSET] + t % m, a))
		return inv;
	if ((r = exception_find(&b, q->serial, q->serial_len)) != 0)
		return r == 1 ? inv : -1;
	return !inv;
}

int
crlc_clubcard_block(const struct crlc_clubcard *cc, size_t i,
    struct crlc_clubcard_block *out)
{
	struct block b;

	if (i >= cc->nissuers || block_at(cc, i, &b) == -1)
		return -1;
	out->issuer = b.issuer;
	out->approx_m = b.f[F_APPROX_M];
	out->rank = (unsigned)b.f[F_RANK];
	out->approx_offset = b.f[F_APPROX_OFFSET];
	out->exact_m = b.f[F_EXACT_M];
	out->exact_offset = b.f[F_EXACT_OFFSET];
	out->inverted = (int)b.f[F_INVERTED];
	out->nexceptions = (size_t)b.nexceptions;
	return 0;
}

long
crlc_clubcard_exceptions(const struct crlc_clubcard *cc, size_t i,
    uint8_t *out, size_t outlen)
{
	struct cursor *c;
	struct block b;
	uint64_t k, n;
	size_t len = 0;

	if (i >= cc->nissuers || block_at(cc, i, &b) == -1)
		return -1;
	c = &b.exceptions;
	for (k = 0; k < b.nexceptions; k++) {
		if (get(c, c->wire->exception_len, UINT8_MAX, &n,
		    "exception length") == -1 || n == 0 ||
		    (uint64_t)(c->end - c->p) < n)
			return -1;
		if (out != NULL && len + 1 + n <= outlen) {
			out[len] = (uint8_t)n;
			memcpy(out + len + 1, c->p, (size_t)n);
		}
		len += 1 + (size_t)n;
		c->p += n;
	}
	return (long)len;
}

void
crlc_clubcard_log(const struct crlc_clubcard *cc, size_t i,
    const uint8_t **log_id, uint64_t *low, uint64_t *high)
{
	*log_id = cc->coverage + i * COVERAGE_ENTRY_LEN;
	*low = coverage_time(cc, i, 0);
	*high = coverage_time(cc, i, 1);
}

int
crlc_clubcard_enrolls(const struct crlc_clubcard *cc,
    const uint8_t issuer[CRLC_SCT_HASH_LEN])
{
	return issuer_find(cc, issuer) != -1;
}

enum crlc_clubcard_answer
crlc_clubcard_query(const struct crlc_clubcard *cc,
    const struct crlc_clubcard_query *q)
{
	long i;
	int r;

	if (!covered(cc, q))
		return CRLC_CLUBCARD_NOT_COVERED;
	if ((i = issuer_find(cc, q->issuer)) == -1)
		return CRLC_CLUBCARD_NOT_ENROLLED;
	if ((r = member(cc, (size_t)i, q)) == -1)
		return CRLC_CLUBCARD_NOT_COVERED;
	return r ? CRLC_CLUBCARD_REVOKED : CRLC_CLUBCARD_GOOD;
}

enum crlc_clubcard_answer
crlc_clubcard_query_set(const struct crlc_clubcard *const *cc, size_t n,
    const struct crlc_clubcard_query *q, size_t *which)
{
	enum crlc_clubcard_answer best = CRLC_CLUBCARD_NOT_COVERED, a;
	size_t i, at = n;

	for (i = 0; i < n; i++) {
		if (cc[i] == NULL)
			continue;
		a = crlc_clubcard_query(cc[i], q);
		if (a > best) {
			best = a;
			at = i;
		}
		if (a == CRLC_CLUBCARD_REVOKED)
			break;
	}
	if (which != NULL)
		*which = at;
	return best;
}

const char *
crlc_clubcard_answer_name(enum crlc_clubcard_answer a)
{
	static const char *const name[] = {
		"not covered", "not enrolled", "good", "revoked"
	};

	return (unsigned)a < sizeof(name) / sizeof(name[0]) ?
	    name[a] : "unknown";
}
