/*
 * Mozilla's OneCRL in the state directory: the contract between the
 * fetcher, which installs the records of the content-signed collection
 * security-state/onecrl (fetcher/onecrl.c), and every reader (the
 * provider, `crlcache check` and `status`), and the reader itself.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * WHAT IT IS
 *	OneCRL is the list of CA certificates (intermediates mostly) that
 *	Mozilla revokes in Firefox whatever their CRLs say.  Each record
 *	names a certificate by issuer Name and serialNumber, or by subject
 *	Name and the SHA-256 of its SubjectPublicKeyInfo; every certificate
 *	so named is refused, CA certificates and leaves alike.
 *
 * FILE
 *	STATE_DIR/crlite/onecrl (CRLC_ONECRL_NAME), beside the CRLite set
 *	(<crlcache/crlite.h>: the same directory and owner), mode 0644,
 *	written whole to a temporary name, synced and renamed into place:
 *	  0  8   magic CRLC_ONECRL_MAGIC "CRLCOCRL"
 *	  8  u32 version CRLC_ONECRL_VERSION (1)
 *	 12  u32 NI, issuer-and-serial records (0 .. CRLC_ONECRL_MAX)
 *	 16  u32 NS, subject-and-key records (0 .. CRLC_ONECRL_MAX)
 *	 20  u32 records the fetcher skipped as malformed (for status)
 *	 24  i64 installed: when the fetcher installed the file (s)
 *	 32  i64 the collection's timestamp (ms since the epoch): how
 *	         fresh the data is
 *	 40  NI records of CRLC_ONECRL_REC_LEN (64):
 *	       SHA-256 of the issuer Name DER || SHA-256 of the serial
 *	       number's INTEGER content octets, as the record gives them
 *	     then NS records of 64:
 *	       SHA-256 of the subject Name DER || the SHA-256 of the
 *	       SubjectPublicKeyInfo DER the record gives (pubKeyHash)
 *	     each run in strictly ascending byte order (memcmp): sorted and
 *	     without repeats, so that a reader can search it
 *	 last 8: u64 CRLCSUM64 of every byte before it (<crlcache/hash.h>)
 *	Integers are big-endian.  Names and serials are compared as encoded,
 *	byte for byte, as Firefox's cert_storage compares them.
 *
 * READERS
 *	Open it relative to the directory, O_NOFOLLOW | O_NONBLOCK, as a
 *	regular file of the directory's owner (or root) writable by nobody
 *	else, read it whole into memory of their own and check all of the
 *	above (length from the counts, checksum, order) before any record is
 *	used.  Anything else refuses the whole file with the reason said
 *	once: a reader answers from all the records or none.
 *
 * WHAT IS INSTALLED
 *	Only a collection whose content signature verifies (the signer and
 *	root of the CRLite collection, crlite_root); a failure keeps the
 *	file in force.
 */
#ifndef CRLCACHE_ONECRL_H
#define CRLCACHE_ONECRL_H

#include <stddef.h>
#include <stdint.h>

#include <crlcache/tbs.h>

#define CRLC_ONECRL_NAME	"onecrl"
/*
 * Beside it, the last verified changeset of the collection (as
 * CRLC_CRLITE_RS_HELD for cert-revocations, <crlcache/crlite.h>): the
 * records an answer to _since is merged with.  The timestamp in force is
 * the greater of its and the file's: an older changeset is refused.
 */
#define CRLC_ONECRL_RS_HELD	"onecrl.json"
#define CRLC_ONECRL_MAGIC	"CRLCOCRL"
#define CRLC_ONECRL_MAGIC_LEN	8
#define CRLC_ONECRL_VERSION	1u
#define CRLC_ONECRL_HDR_LEN	40
#define CRLC_ONECRL_REC_LEN	64
#define CRLC_ONECRL_KEY_LEN	32
#define CRLC_ONECRL_TRAILER_LEN	8
/*
 * Records of each kind: OneCRL held about 2,100 in 2026 (a few dozen by
 * subject and key); 65536 is 30 times that and bounds a file at 8 MiB.
 */
#define CRLC_ONECRL_MAX		65536u
#define CRLC_ONECRL_MAX_LEN	(CRLC_ONECRL_HDR_LEN + 2 * \
	(size_t)CRLC_ONECRL_MAX * CRLC_ONECRL_REC_LEN + CRLC_ONECRL_TRAILER_LEN)
/* Room for the reason a file was refused. */
#define CRLC_ONECRL_WHY_LEN	160

struct crlc_onecrl;

/* What a file says of itself. */
struct crlc_onecrl_info {
	size_t		 issuer_serial;	/* NI */
	size_t		 subject_key;	/* NS */
	size_t		 skipped;	/* malformed records left out */
	int64_t		 installed;	/* s */
	int64_t		 timestamp;	/* ms */
};

/* How a certificate is listed. */
enum crlc_onecrl_hit {
	CRLC_ONECRL_NONE = 0,
	CRLC_ONECRL_ISSUER_SERIAL,
	CRLC_ONECRL_SUBJECT_KEY,
};

/*
 * The record reader: buf[0..len) (copied) checked as FILE says.  0 and
 * *out, or -1 with the reason in why.
 */
int	crlc_onecrl_parse(const uint8_t *buf, size_t len,
	    struct crlc_onecrl **out, char *why, size_t whylen);
/*
 * The file reader: CRLC_ONECRL_NAME in dir (STATE_DIR/crlite), as
 * READERS say.  0: *out; 1: none installed (nothing to say); -1:
 * refused, the reason in why.
 */
int	crlc_onecrl_open(const char *dir, struct crlc_onecrl **out,
	    char *why, size_t whylen);
/* The same of the directory open at dfd, which stays open. */
int	crlc_onecrl_open_at(int dfd, struct crlc_onecrl **out,
	    char *why, size_t whylen);
/* NULL is fine. */
void	crlc_onecrl_free(struct crlc_onecrl *o);
void	crlc_onecrl_info(const struct crlc_onecrl *o,
	    struct crlc_onecrl_info *info);
/*
 * Is the certificate whose issuer and subject Name TLVs, serial content
 * octets and SubjectPublicKeyInfo DER these are listed?  spki may be
 * empty (the key is then not looked at).  SHA-256 of the names first;
 * a serial or key is hashed only when a record has the name.  No
 * allocation, system call or lock.
 */
enum crlc_onecrl_hit crlc_onecrl_lookup(const struct crlc_onecrl *o,
	    const struct crlc_span *issuer, const struct crlc_span *serial,
	    const struct crlc_span *subject, const struct crlc_span *spki);

/*
 * The two steps of a lookup, for a reader that keeps the hashes of the
 * names it meets (the provider): which records have as their name the
 * Name whose SHA-256 is h (CRLC_ONECRL_NAMES_* bits), and whether the
 * record of that kind h || SHA-256(second) is listed.
 */
#define CRLC_ONECRL_NAMES_ISSUER	1u	/* an issuer-and-serial record */
#define CRLC_ONECRL_NAMES_SUBJECT	2u	/* a subject-and-key record */
unsigned crlc_onecrl_named(const struct crlc_onecrl *o,
	    const uint8_t h[CRLC_ONECRL_KEY_LEN]);
int	crlc_onecrl_listed(const struct crlc_onecrl *o,
	    enum crlc_onecrl_hit kind, const uint8_t h[CRLC_ONECRL_KEY_LEN],
	    const struct crlc_span *second);
/* Different for every list a process parsed: what a hash memo is of. */
uint64_t crlc_onecrl_id(const struct crlc_onecrl *o);

#endif /* CRLCACHE_ONECRL_H */
