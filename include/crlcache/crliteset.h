/*
 * Reading the CRLite set in force (<crlcache/crlite.h>) into private
 * memory, and asking it about one certificate: shared by the provider
 * and `crlcache check`.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The files belong to the state's owner, who could truncate one while a
 * reader has it mapped: a mapping would then fault (SIGBUS) in every
 * process that verifies certificates.  So each filter is read(2) whole
 * into memory of the reader's own and parsed there; the file is not
 * looked at again, and a file rewritten in place after the read changes
 * nothing.  A file of another size than the set says, cut short while
 * being read, or not a well-formed filter refuses the whole set.
 */
#ifndef CRLCACHE_CRLITESET_H
#define CRLCACHE_CRLITESET_H

#include <stddef.h>
#include <stdint.h>

#include <crlcache/clubcard.h>
#include <crlcache/tbs.h>

/* Room for the reason a set was refused (file name, byte offset). */
#define CRLC_CRLITESET_WHY_LEN	(CRLC_CLUBCARD_WHY_LEN + 160)

struct crlc_crliteset;

/*
 * Read the set in force in dir (STATE_DIR/crlite).  0: *out is the set;
 * 1: no set is installed (no directory or no set file: *out NULL,
 * nothing to say); -1: refused, *out NULL and the reason in why (at most
 * whylen bytes, NUL-terminated).
 */
int	crlc_crliteset_open(const char *dir, struct crlc_crliteset **out,
	    char *why, size_t whylen);
/* Release the set and its filters' memory.  NULL is fine. */
void	crlc_crliteset_free(struct crlc_crliteset *set);
/* How many filters and bytes the set holds in memory. */
void	crlc_crliteset_size(const struct crlc_crliteset *set, size_t *filters,
	    size_t *bytes);

/*
 * The set's answer for a certificate: issuer_spki is the SHA-256 of its
 * issuer's SubjectPublicKeyInfo DER, serial its serialNumber's content
 * octets, sct_list its embedded SCT list extension's extnValue content
 * (struct crlc_tbs sct_list).  A list that does not parse, or none,
 * is NOT_COVERED.  *newest, when not NULL, is set to the newest SCT time
 * (ms) the answering filter covers (0 for NOT_COVERED): how fresh the
 * answer is.  No allocation, system call or lock.
 */
enum crlc_clubcard_answer crlc_crliteset_ask(const struct crlc_crliteset *set,
	    const uint8_t issuer_spki[CRLC_SCT_HASH_LEN],
	    const struct crlc_span *serial, const struct crlc_span *sct_list,
	    uint64_t *newest);

/*
 * Whether a filter of the set enrolls the issuer whose SPKI DER hashes
 * to issuer_spki (a NULL set enrolls none).
 */
int	crlc_crliteset_enrolls(const struct crlc_crliteset *set,
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

#endif /* CRLCACHE_CRLITESET_H */
