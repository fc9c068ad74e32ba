/*
 * The CRLite set in force (<crlcache/crlite.h>): its set file, read by
 * the fetcher and every reader alike, and its answer for one
 * certificate, shared by the provider and `crlcache check`.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The files belong to the state's owner, who could truncate one while a
 * reader has it mapped: a mapping would then fault (SIGBUS) in every
 * process that verifies certificates.  So nothing is mapped: the set
 * file and the lookup file's head are read whole at open; then each
 * issuer a process meets costs a few pread(2) calls (its entry by a
 * binary search, then its record: its part of every filter) into
 * private memory, held until the set is freed within
 * CRLC_CRLITESET_HELD_MAX in all, so that later lookups of the issuer
 * make no system call.  A record too large to hold (over 64 KiB) is
 * held as its part headers, its rows read a few words a filter at each
 * lookup; an issuer met once the bound is reached is read anew at each
 * lookup.  What a reader holds is at most CRLC_CRLITE_LOOKUP_HEAD_MAX +
 * CRLC_CRLITESET_HELD_MAX bytes, 4 KiB of slots and, during a lookup, one
 * record of at most 64 KiB, whatever the files say; a file truncated or
 * rewritten after the open costs the lookups that read it
 * (NOT_COVERED), never a fault.
 */
#ifndef CRLCACHE_CRLITESET_H
#define CRLCACHE_CRLITESET_H

#include <stddef.h>
#include <stdint.h>

#include <crlcache/clubcard.h>
#include <crlcache/crlite.h>
#include <crlcache/tbs.h>

/* Room for the reason a set was refused (file name, byte offset). */
#define CRLC_CRLITESET_WHY_LEN	(CRLC_CLUBCARD_WHY_LEN + 160)
/*
 * The issuers' records a reader holds at most: a process meets a few
 * issuers; Mozilla's record of a small issuer is a few KiB over 90
 * deltas; above this, records are read at each lookup.
 */
#define CRLC_CRLITESET_HELD_MAX	((size_t)256 << 10)

/* The set file (<crlcache/crlite.h> FILES), checked. */
struct crlc_crliteset_file {
	uint32_t	 n;		/* filters, the full one first */
	int64_t		 installed;	/* s */
	uint64_t	 newest;	/* ms; 0: none */
	unsigned	 source;	/* CRLC_CRLITE_SRC_* */
	uint64_t	 sum;		/* its checksum: the lookup file's name */
	uint64_t	 bytes;		/* the filters' sizes added */
	struct {
		uint8_t	 hash[CRLC_SCT_HASH_LEN];	/* the file's name */
		uint64_t size;
		unsigned kind;		/* CRLC_CRLITE_FULL or _DELTA */
	} f[CRLC_CRLITE_FILTERS_MAX];
};

/*
 * Read the set file of dir (STATE_DIR/crlite): 0 and *out; 1 when none
 * is installed; -1 when refused (why, at most whylen bytes).  Refused:
 * anything but <crlcache/crlite.h>'s layout, a filter named twice, a
 * delta first or a full filter after the first, a total over
 * CRLC_CRLITE_SET_MAX_BYTES.
 */
int	crlc_crliteset_read(const char *dir, struct crlc_crliteset_file *out,
	    char *why, size_t whylen);
/*
 * The same of the directory open at dfd (the fetcher's state handle),
 * which stays open.  No 1 for a missing directory: the caller has it.
 */
int	crlc_crliteset_read_at(int dfd, struct crlc_crliteset_file *out,
	    char *why, size_t whylen);

struct crlc_crliteset;

/*
 * Open the set in force in dir and its lookup file.  0: *out is the set;
 * 1: no set is installed (no directory or no set file: *out NULL,
 * nothing to say); -1: refused, *out NULL and the reason in why (at most
 * whylen bytes, NUL-terminated).  Reads the set file and the lookup
 * file's head; keeps the lookup file open until crlc_crliteset_free().
 */
int	crlc_crliteset_open(const char *dir, struct crlc_crliteset **out,
	    char *why, size_t whylen);
/* The same of the directory open at dfd, which stays open. */
int	crlc_crliteset_open_at(int dfd, struct crlc_crliteset **out,
	    char *why, size_t whylen);
/* Release the set, its file and what it holds.  NULL is fine. */
void	crlc_crliteset_free(struct crlc_crliteset *set);
/* How many filters, and the bytes the set holds in memory now. */
void	crlc_crliteset_size(const struct crlc_crliteset *set, size_t *filters,
	    size_t *bytes);
/* The set file the set was opened from (installed, newest, ...). */
const struct crlc_crliteset_file *crlc_crliteset_header(
	    const struct crlc_crliteset *set);

/*
 * The set's answer for a certificate: issuer_spki is the SHA-256 of its
 * issuer's SubjectPublicKeyInfo DER, serial its serialNumber's content
 * octets, sct_list its embedded SCT list extension's extnValue content
 * (struct crlc_tbs sct_list).  A list that does not parse, or none,
 * is NOT_COVERED, as is a lookup whose read of the lookup file fails.
 * *newest, when not NULL, is set to the newest SCT time (ms) the
 * answering filter covers (0 for NOT_COVERED): how fresh the answer is.
 * Safe from many threads at once.  No lock; the first lookup of an
 * issuer in the set reads its record (a few pread(2) calls) and
 * allocates; later ones make no system call and allocate nothing while
 * the record is held.
 */
enum crlc_clubcard_answer crlc_crliteset_ask(struct crlc_crliteset *set,
	    const uint8_t issuer_spki[CRLC_SCT_HASH_LEN],
	    const struct crlc_span *serial, const struct crlc_span *sct_list,
	    uint64_t *newest);

/*
 * Whether a filter of the set enrolls the issuer whose SPKI DER hashes
 * to issuer_spki (a NULL set enrolls none; neither does one whose
 * lookup file cannot be read).
 */
int	crlc_crliteset_enrolls(struct crlc_crliteset *set,
	    const uint8_t issuer_spki[CRLC_SCT_HASH_LEN]);

/*
 * When a set whose header says installed (s) and newest (ms) stops
 * vouching "good": CRLC_CRLITE_FRESH_MAX after min(newest / 1000,
 * installed) (<crlcache/crlite.h> FRESHNESS).  A set that covers no
 * SCT (newest 0) is stale from the epoch on.
 */
int64_t	crlc_crlite_stale_at(int64_t installed, uint64_t newest);
/* crlc_crlite_stale_at() of an open set's header.  No system call. */
int64_t	crlc_crliteset_stale_at(const struct crlc_crliteset *set);

/*
 * THE LOOKUP FILE, written by the fetcher (lib/crlitelookup.c)
 *
 * The lookup file of the set whose checksum is set_sum, from its
 * filters cc[0..n), parsed, in the set's order: 0 and *out (malloc'd,
 * *outlen bytes), or -1 with why.
 */
int	crlc_crlite_lookup_build(const struct crlc_clubcard *const *cc,
	    size_t n, uint64_t set_sum, uint8_t **out, size_t *outlen,
	    char *why, size_t whylen);
/* Its name: 16 hex digits of the set's checksum and the suffix. */
#define CRLC_CRLITE_LOOKUP_NAME_LEN	(16 + sizeof(CRLC_CRLITE_LOOKUP_SUFFIX))
void	crlc_crlite_lookup_name(uint64_t set_sum, char *out, size_t len);

#endif /* CRLCACHE_CRLITESET_H */
