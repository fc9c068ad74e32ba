/*
 * CRLite clubcard filters: a hostile-input reader and its revocation query.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * A clubcard filter (Schanck, "Clubcards for the WebPKI", IEEE S&P 2025)
 * answers "is this certificate revoked?" for every CT-logged certificate
 * of the issuers it enrolls, over the CT logs and SCT times it covers.
 * Mozilla's CRLite publishes one full filter and deltas (each delta is a
 * filter of its own, with its own coverage).  The bytes come from the
 * network and are read by every process that verifies a certificate, so:
 * crlc_clubcard_parse() validates the whole file once and builds a small
 * index; crlc_clubcard_query() then allocates nothing, makes no system
 * call, takes no lock and reads only inside the buffer, even if the
 * buffer's bytes changed after the parse.
 *
 * THE TWO ENCODINGS READ
 *
 * Both start with two bytes: the version, 3 or 4, and reserved0, which
 * must be 0.  Anything else (versions 0-2 are the older Bloom cascades)
 * is refused.
 *
 * Version 4, C2SP upki-revocation ("Filter file format"): big-endian,
 * counts of elements (not bytes):
 *
 *	uint16 ncoverage; { opaque log_id[32]; uint64 low, high; }[ncoverage]
 *	uint32 nissuers;  { opaque issuer[32]; uint32 approx_m;
 *			    uint8 approx_rank; uint32 approx_offset;
 *			    uint32 exact_m; uint32 exact_offset;
 *			    uint8 inverted; uint16 nexceptions;
 *			    { uint8 len; opaque serial[len]; }[nexceptions]
 *			  }[nissuers]			(sorted by issuer)
 *	uint8 ncolumns;   { uint32 nwords; uint64 words[nwords]; }[ncolumns]
 *	uint32 nwords;    uint64 words[nwords];	(the exact filter)
 *
 * Version 3: bincode 1.x (little-endian, fixed-width integers, u64
 * lengths) of clubcard 0.3's Clubcard<4, CRLiteCoverage, ()> as
 * clubcard-crlite 0.3 and later serialize it, which is what Mozilla
 * publishes today:
 *
 *	u64 ncoverage;  { [u8; 32] log_id; u64 low, high; }[ncoverage]
 *	(the partition is (): no bytes)
 *	u64 nissuers;   { u64 keylen = 32; [u8; 32] issuer; u64 approx_m;
 *			  u64 exact_m; u64 approx_rank; u64 approx_offset;
 *			  u64 exact_offset; u8 inverted; u64 nexceptions;
 *			  { u64 len; [u8; len] serial }[nexceptions]
 *			}[nissuers]			(a BTreeMap: sorted)
 *	u64 ncolumns;   { u64 nwords; u64 words[nwords]; }[ncolumns]
 *	u64 nwords;     u64 words[nwords];
 *
 * (bincode's serialize() and deserialize() functions: fixint, little
 * endian, trailing bytes allowed; the file is exactly the filter, so
 * bytes after it are refused here, as version 4 refuses them.)
 *
 * The same rules hold for both; version 3 is also held to the field
 * widths of version 4 (rank and columns at most 255, m and offsets at
 * most 2^32 - 1, serials of exceptions at most 255 bytes), so that every
 * version 3 file read has a version 4 form: a refusal names the field.
 * Refused: a count or length past the end, bytes after the exact filter,
 * a coverage log twice, issuers out of order or twice, an issuer key not
 * 32 bytes, an exception of 0 bytes ("Per-issuer index":
 * Exception<1..2^8-1>), a rank above the number of columns
 * (upki-revocation "Approximate filter": MUST be treated as malformed),
 * inverted other
 * than 0 or 1 ("Per-issuer index": MUST reject), files over
 * CRLC_CLUBCARD_MAX_LEN and coverage lists over CRLC_CLUBCARD_MAX_LOGS.
 * Not assumed: any relation between the columns' lengths and the blocks'
 * rows (bits past a column's words read as 0, "Approximate filter").
 *
 * THE QUERY
 *
 * Inputs (upki-revocation "Inputs"): the SHA-256 of the issuer's whole
 * SubjectPublicKeyInfo DER (the key that signed the certificate), the
 * certificate's serial as the INTEGER's content octets with any leading
 * 0x00 kept, and the (log id, timestamp in ms) of the SCTs embedded in it
 * (<crlcache/sct.h> reads them).  One filter answers (upki-revocation
 * "Step 2"): NOT_COVERED when no SCT falls inside its coverage (log id
 * equal, low <= timestamp <= high), NOT_ENROLLED when the issuer has no
 * block, else the clubcard query on SHA-256(issuer || serial) decides
 * REVOKED or GOOD.  That query (Schanck 2025 section 3, as clubcard 0.3
 * evaluates it, W = 4): the key's 32 bytes as four little-endian 64-bit
 * limbs with bit 0 set are 256 coefficients a, its last limb t.  A block
 * with approx_m 0 holds nothing (GOOD; REVOKED when inverted).  Else the
 * key is a member when, for each of the block's approx_rank columns, the
 * product of a with bits [r, r + 256) of the column (bit i: bit i % 64 of
 * word i / 64; past the words, 0) at r = approx_offset + t mod approx_m
 * is 0 over GF(2), the same holds in the exact column at r = exact_offset
 * + t mod exact_m (mod 1 when exact_m is 0), and the serial is none of
 * the block's exceptions; inverted flips member and not.
 *
 * A set of filters (a full filter and its deltas) answers REVOKED when
 * any filter does, else GOOD when any does, else NOT_ENROLLED when any
 * does, else NOT_COVERED ("Step 3").
 */
#ifndef CRLCACHE_CLUBCARD_H
#define CRLCACHE_CLUBCARD_H

#include <stddef.h>
#include <stdint.h>

#include <crlcache/sct.h>

/*
 * The largest filter read: Mozilla's full filter is about 6 MB and a
 * delta about 175 KB (2026); ten times the full filter leaves room for
 * growth, and keeps every offset in 32 bits.
 */
#define CRLC_CLUBCARD_MAX_LEN	((size_t)64 << 20)
/*
 * The most CT logs one filter may cover: fewer than 200 logs were ever
 * in a browser's list; this bounds the duplicate check at parse (n^2 / 2
 * comparisons) and the coverage scan of every query.
 */
#define CRLC_CLUBCARD_MAX_LOGS	1024
/* Room for a refusal's reason, with the byte offset and numbers in it. */
#define CRLC_CLUBCARD_WHY_LEN	160

enum crlc_clubcard_answer {
	CRLC_CLUBCARD_NOT_COVERED,	/* no SCT in the coverage: no word */
	CRLC_CLUBCARD_NOT_ENROLLED,	/* covered, but the issuer has no
					   block: no word either */
	CRLC_CLUBCARD_GOOD,		/* covered, enrolled, not revoked */
	CRLC_CLUBCARD_REVOKED,		/* covered, enrolled, revoked */
};

/* A parsed filter: opaque; see crlc_clubcard_parse(). */
struct crlc_clubcard;

/*
 * What one certificate asks: fill it with crlc_clubcard_query_init().
 * The serial and SCTs are the caller's and must outlive the queries.
 */
struct crlc_clubcard_query {
	uint8_t			 issuer[CRLC_SCT_HASH_LEN];
					/* SHA-256 of the issuer's SPKI DER */
	const uint8_t		*serial;	/* INTEGER content octets */
	size_t			 serial_len;
	uint8_t			 key[CRLC_SCT_HASH_LEN];
					/* SHA-256(issuer || serial) */
	const struct crlc_sct	*scts;
	size_t			 nscts;
};

/*
 * Validate buf[0..len) as one filter of version 3 or 4 and index it.
 * On success returns 0 and *out, which borrows buf: the caller keeps buf
 * alive and unchanged (an mmap of a file that is replaced by rename, never
 * rewritten in place) until crlc_clubcard_free(*out).  Allocates 4 KiB
 * and 4 bytes per issuer (Mozilla's delta of 2026-06-24: 969 issuers,
 * parsed in about 0.15 ms).  On failure returns -1, sets *out to NULL
 * and writes a reason (NUL-terminated, at most whylen bytes; why may be
 * NULL) such as "at byte 1234, issuer 17: rank 9 above the 8
 * approximate columns".
 * The whole file is refused: no part of a malformed filter is used.
 */
int	crlc_clubcard_parse(const uint8_t *buf, size_t len,
	    struct crlc_clubcard **out, char *why, size_t whylen);
/* Release what crlc_clubcard_parse() allocated (not buf).  NULL is fine. */
void	crlc_clubcard_free(struct crlc_clubcard *cc);

/* What a parsed filter is, for logs and freshness checks. */
struct crlc_clubcard_info {
	int		 version;	/* 3 or 4: the encoding read */
	size_t		 issuers;	/* issuers enrolled */
	size_t		 logs;		/* CT logs covered */
	uint64_t	 newest;	/* the newest timestamp (ms) covered in
					   any log, 0 when none: how fresh */
};
void	crlc_clubcard_info(const struct crlc_clubcard *cc,
	    struct crlc_clubcard_info *out);

/*
 * Whether the filter has a block for the issuer whose SPKI DER hashes
 * (SHA-256) to issuer: its CT-logged certificates are answered for
 * within the filter's coverage.
 */
int	crlc_clubcard_enrolls(const struct crlc_clubcard *cc,
	    const uint8_t issuer[CRLC_SCT_HASH_LEN]);

/*
 * Fill *q for a certificate: issuer is the SHA-256 of its issuer's
 * SubjectPublicKeyInfo DER, serial[0..serial_len) the content octets of
 * its serialNumber (leading 0x00 kept), scts[0..nscts) its embedded SCTs.
 * Computes q->key with one SHA-256 (no allocation).  Borrows serial and
 * scts.
 */
void	crlc_clubcard_query_init(struct crlc_clubcard_query *q,
	    const uint8_t issuer[CRLC_SCT_HASH_LEN], const uint8_t *serial,
	    size_t serial_len, const struct crlc_sct *scts, size_t nscts);

/*
 * One filter's answer for q.  No allocation, system call or lock; reads
 * only inside the filter's buffer.  Should the buffer's bytes change after
 * the parse (a file rewritten in place, against the contract), the answer
 * is meaningless but every read stays inside the buffer.
 */
enum crlc_clubcard_answer crlc_clubcard_query(const struct crlc_clubcard *cc,
	    const struct crlc_clubcard_query *q);
/*
 * The answer of the set cc[0..n) (a full filter and its deltas, in any
 * order; NULL entries are skipped): REVOKED if any filter says so (the
 * rest are not asked), else GOOD if any says so, else NOT_ENROLLED if any
 * says so, else NOT_COVERED.  *which, when not NULL, is set to the index
 * of the filter that gave the answer (n for NOT_COVERED).  The caller
 * must pass every filter of a full-plus-deltas chain: a delta alone says
 * GOOD of a certificate the full filter has revoked.
 */
enum crlc_clubcard_answer crlc_clubcard_query_set(
	    const struct crlc_clubcard *const *cc, size_t n,
	    const struct crlc_clubcard_query *q, size_t *which);

/*
 * THE PARTS OF A FILTER, for a reader that lays them out anew
 * (lib/crlitelookup.c, <crlcache/crlite.h> LOOKUP FILE).
 */
/* Schanck 2025 4.3 and upki-revocation "Clubcard Parameters": W = 4. */
#define CRLC_CLUBCARD_LIMBS	4
/* The words a row's 256 bits touch: four, and one more when unaligned. */
#define CRLC_CLUBCARD_WINDOW	(CRLC_CLUBCARD_LIMBS + 1)

/* Issuer i's block (in sorted order), as crlc_clubcard_parse() read it. */
struct crlc_clubcard_block {
	const uint8_t	*issuer;	/* 32 bytes, in the filter's buffer */
	uint64_t	 approx_m, approx_offset, exact_m, exact_offset;
	unsigned	 rank;		/* at most the filter's columns */
	int		 inverted;
	size_t		 nexceptions;
};
/* 0 and *out, or -1 when i is not an issuer of cc. */
int	crlc_clubcard_block(const struct crlc_clubcard *cc, size_t i,
	    struct crlc_clubcard_block *out);
/*
 * Issuer i's exceptions as { u8 len; serial[len] }...: the bytes they
 * take (written to out when outlen holds them), -1 when i is none.
 */
long	crlc_clubcard_exceptions(const struct crlc_clubcard *cc, size_t i,
	    uint8_t *out, size_t outlen);
/*
 * Word i of approximate column c, or of the exact column when c is at
 * least the number of columns; 0 past the column's words.
 */
uint64_t crlc_clubcard_word(const struct crlc_clubcard *cc, unsigned c,
	    uint64_t i);
/* Coverage entry i (below crlc_clubcard_info() logs). */
void	crlc_clubcard_log(const struct crlc_clubcard *cc, size_t i,
	    const uint8_t **log_id, uint64_t *low, uint64_t *high);
/* The query's 256 coefficients a and its row picker t (THE QUERY). */
void	crlc_clubcard_query_limbs(const struct crlc_clubcard_query *q,
	    uint64_t a[CRLC_CLUBCARD_LIMBS], uint64_t *t);
/*
 * The parity of a times the 256 bits from bit shift (0 to 63) of the
 * words w (bit i: bit i % 64 of word i / 64).
 */
int	crlc_clubcard_window_odd(const uint64_t w[CRLC_CLUBCARD_WINDOW],
	    unsigned shift, const uint64_t a[CRLC_CLUBCARD_LIMBS]);

/* "not covered", "not enrolled", "good", "revoked". */
const char *crlc_clubcard_answer_name(enum crlc_clubcard_answer a);

#endif /* CRLCACHE_CLUBCARD_H */
