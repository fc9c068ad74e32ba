/*
 * crlcache index reader: the lookup both the CLI and the provider use.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The on-disk layout is described in <crlcache/format.h>.
 */
#ifndef CRLCACHE_INDEX_H
#define CRLCACHE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include <crlcache/format.h>
#include <crlcache/tbs.h>

struct crlc_index;

/* Return codes of crlc_index_open(); crlc_index_strerror() names them. */
enum crlc_err {
	CRLC_OK = 0,
	CRLC_E_NOINDEX,		/* the file does not exist */
	CRLC_E_ACCESS,		/* cannot open or read it */
	CRLC_E_FORMAT,		/* not an index, or a newer format version */
	CRLC_E_CORRUPT,		/* truncated or internally inconsistent */
	CRLC_E_NOMEM,
};

/* Verdict states; their values are `crlcache check`'s exit codes. */
enum crlc_state {
	CRLC_GOOD = 0,
	CRLC_REVOKED = 1,
	CRLC_UNKNOWN = 2,
	CRLC_STALE = 3,
};

struct crlc_verdict {
	enum crlc_state	state;
	int64_t		revoked_at;	/* REVOKED: revocationDate */
	int		reason;		/* REVOKED: RFC 5280 5.3.1 code, or -1 */
	int64_t		this_update;	/* covering CRL, when one exists */
	int64_t		next_update;	/* covering CRL, 0 if it has none */
	int		issuer_held;	/* UNKNOWN: the index holds CRLs of the
					   issuer, none covers this certificate
					   for every reason */
	unsigned	reasons;	/* UNKNOWN: the reasons the covering CRLs
					   cover it for (<crlcache/reasons.h>
					   mask; 0: none covers) */
	int		crl_issuer_ambiguous; /* a cRLIssuer of the certificate
					   has several keys in the index: its
					   CRLs were not used */
};

/*
 * When a CRL stops being current, stale_grace before it counts as stale:
 * its nextUpdate, or, for a CRL that has none (RFC 5280 5.1.2.5: issuers
 * MUST include it; real ones omit it), its thisUpdate -- it promised no
 * time at all, and taking it as current for ever would let a replayed
 * or frozen CRL hide every later revocation.  The fetcher tries such a
 * CRL again on every run.
 */
static inline int64_t
crlc_crl_due(int64_t this_update, int64_t next_update)
{
	return next_update != 0 ? next_update : this_update;
}

/*
 * Open the published index (format 4: the top file at path, the page
 * and scope files in the "scope" directory beside it) read-only.  The path is not
 * trusted: its directory is opened (O_PATH), then the file in it with
 * O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, so that a FIFO, a
 * device or a symlink put there can neither block nor redirect the
 * caller, and the descriptor's fstat decides.  Refused with
 * CRLC_E_FORMAT: anything but a regular file, an older index (the
 * detail says to run `crlcache publish`), a newer format; with
 * CRLC_E_ACCESS: a symbolic link as the last component, a file that
 * group or others may write, a file owned by neither root nor the owner
 * of its directory (the crlcache account owns the state directory; no
 * user database is consulted), a directory that group or others may
 * write unless it is sticky, a scope directory owned by neither root nor
 * the file's owner or that group or others may write.  The whole top
 * file (at most CRLC_TOP_MAX bytes) is read into one private allocation
 * and checked -- length, header, checksum trailer, sections, record order
 * (format.h READER CHECKS) -- so that a truncated, damaged or rewritten
 * file is refused (CRLC_E_CORRUPT) and nothing done to it later can
 * fault a lookup.  The top names issuers, keys and pages only: its
 * size does not grow with the CRLs held.  Keeps one O_PATH descriptor
 * of the scope directory; reads no page file and maps no scope file yet.  Never blocks on the file.  On success *out
 * owns it all until crlc_index_close().  Returns CRLC_OK or an enum
 * crlc_err; on error *out is NULL and, when detail is not NULL, a static
 * string is stored there.
 */
int		 crlc_index_open(const char *path, struct crlc_index **out,
		    const char **detail);
/*
 * crlc_index_open() of name relative to the directory dirfd (as path is
 * to the working directory), with the same checks: for a caller that
 * holds the state directory open.
 */
int		 crlc_index_open_at(int dirfd, const char *name,
		    struct crlc_index **out, const char **detail);
/* Accepts NULL. */
void		 crlc_index_close(struct crlc_index *idx);
const char	*crlc_index_strerror(int err);

uint64_t	 crlc_index_generation(const struct crlc_index *idx);
int64_t		 crlc_index_created(const struct crlc_index *idx);

/* What the caller knows of the key that issued a certificate. */
struct crlc_issuer_key {
	/* SHA-256 of its subjectPublicKey (format.h "key"), or NULL */
	const uint8_t	*hash;
	/* else the certificate's authorityKeyIdentifier keyIdentifier */
	struct crlc_span aki;
};

/*
 * Decide one certificate, issued by the key key names (NULL: nothing is
 * known of it): only the CRLs that key signed count, or those of a
 * dedicated CRL signer of the name (format.h "key" says which).  REVOKED
 * if (issuer, key, serial) is listed; else
 * UNKNOWN if no CRL scope of the issuer covers it (a complete CRL, or a
 * partition whose IDP name equals a name of one of the certificate's
 * distribution points (<crlcache/dpname.h>), respecting
 * onlyContainsUserCerts / onlyContainsCACerts);
 * else STALE if now > nextUpdate + grace; else GOOD.  REVOKED only when
 * a covering scope lists the serial (RFC 5280 6.3.3; format 2 also
 * answered from scopes that do not cover the certificate), whatever the
 * freshness.  The page file that lists an issuer key's scopes of a
 * name is read and checked, and the scope file of a covering scope
 * mapped and checked, on the first lookup that needs it (format.h
 * READER CHECKS); after that a lookup makes no system call, allocates
 * nothing and takes no lock.  Thread-safe.  Returns 0, or -1 when a
 * page file or a covering scope's file is missing, untrusted or damaged
 * and no covering scope read lists the serial (the verdict is then
 * unspecified).
 */
int		 crlc_index_lookup(struct crlc_index *idx,
		    const struct crlc_tbs *cert,
		    const struct crlc_issuer_key *key, int64_t now,
		    int64_t grace, struct crlc_verdict *out);

/* The format version of the open index (format.h VERSIONS): 3. */
unsigned	 crlc_index_format(const struct crlc_index *idx);

/*
 * The serial form of the working environment's "rev" key (format.h) of a
 * serial's INTEGER content octets serial[0..len), len >= 1, into out;
 * returns its length.
 */
size_t		 crlc_serial_key(const uint8_t *serial, size_t len,
		    uint8_t out[CRLC_SERIAL_MAX]);

/*
 * The "rev" serial form (format.h INDIRECT CRLS) of an indirect CRL's
 * entry about the certificate serial[0..len) of the issuer whose Name has
 * the canonical hash canon (crlc_name_canon_hash()): 00 01 || SHA-256(
 * canon || serial), which no serial form of the CRL issuer's own
 * certificates is.  Its scope file slot: crlc_foreign_slot().
 */
void		 crlc_foreign_form(const uint8_t canon[CRLC_HASH_LEN],
		    const uint8_t *serial, size_t len,
		    uint8_t out[CRLC_FOREIGN_FORM_LEN]);
/* 1 when form[0..len) is a crlc_foreign_form(). */
int		 crlc_is_foreign_form(const uint8_t *form, size_t len);
/* The slot of a foreign form: its first 23 hash bytes, CRLC_SLOT_FOREIGN. */
void		 crlc_foreign_slot(const uint8_t form[CRLC_FOREIGN_FORM_LEN],
		    uint8_t slot[CRLC_SLOT_LEN]);

/*
 * The issuer id (the u32 of format.h) of the issuer Name DER name: by its
 * exact encoding, else by its canonical form; 0 when no CRL of that issuer
 * is in the index.  Returns 0.
 */
int		 crlc_index_issuer(struct crlc_index *idx,
		    const struct crlc_span *name, uint32_t *id);

/*
 * 1 when the index holds a CRL signed by the key whose SHA-256 (format.h
 * "key") is key, else 0.  A walk of the KEY records: for the fetcher,
 * never on a verification's path.
 */
int		 crlc_index_has_key(const struct crlc_index *idx,
		    const uint8_t key[CRLC_HASH_LEN]);

/* Entry counts of the published index. */
struct crlc_stats {
	uint64_t	issuers;	/* distinct issuers (CANON) */
	uint64_t	crls;		/* CRL scopes (SCOPE records) */
	uint64_t	revoked;	/* revocation entries of every scope */
	uint64_t	file_size;	/* bytes of the top, page and scope files */
};
/* Returns 0; sizes of the page and scope files that exist and can be read. */
int		 crlc_index_stats(struct crlc_index *idx, struct crlc_stats *out);

/*
 * One CRL scope: a SCOPE record of the index (crlc_index_foreach_crl())
 * or a "crl" record of the working environment (crlc_crl_decode()).
 */
struct crlc_crl_info {
	uint32_t	 issuer_id;
	uint32_t	 key_no;
	unsigned	 scope_no;
	struct crlc_span scope;		/* the key's scope part: IDP name and
					   reasons suffix (format.h) */
	struct crlc_span name;		/* IDP name, empty: whole issuer */
	unsigned	 reasons;	/* onlySomeReasons mask, or
					   CRLC_REASONS_ALL (<crlcache/reasons.h>) */
	unsigned	 flags;		/* CRLC_CRL_* */
	uint32_t	 entries;
	int64_t		 this_update, next_update, fetched_at;
	int64_t		 delta_this_update, delta_next_update;
	struct crlc_span number;	/* cRLNumber held (the delta's if any) */
	struct crlc_span base;		/* cRLNumber of the complete CRL */
	struct crlc_span source;	/* URL or file name */
	struct crlc_span der;		/* signed complete CRL */
	struct crlc_span delta;		/* signed delta CRL, may be empty */
	/*
	 * The signing key's subjectKeyIdentifier (KEY), set by
	 * crlc_index_foreach_crl(); empty for key number 0.
	 */
	struct crlc_span ski;
};

/*
 * Decode one "crl" record of the working environment (format.h) from its
 * key and value bytes; the spans point into them.  Returns 0, or -1 when
 * the record is malformed.
 */
int		 crlc_crl_decode(const void *key, size_t keylen, const void *val,
		    size_t vallen, struct crlc_crl_info *out);

/* What crlc_index_foreach_crl() reads of each scope besides its record. */
#define CRLC_WALK_RECORDS	0u	/* nothing: der and delta are empty */
#define CRLC_WALK_CRLS		1u	/* its signed CRLs, from its scope file */

/*
 * Call fn for every SCOPE record in key order from the one numbered from
 * (0: the first; the records before it are skipped unread), with its
 * CRLs read from its scope file into private memory when what has
 * CRLC_WALK_CRLS: the spans are valid only until fn returns; copy what
 * you keep.  fn returns 0 to go on, anything else stops the walk and is
 * returned.  Returns 0, fn's value, or -1 when a page file (or, with
 * CRLC_WALK_CRLS, a scope file) is missing, untrusted or damaged, or
 * memory is short.
 */
int		 crlc_index_foreach_crl(struct crlc_index *idx, uint64_t from,
		    unsigned what, int (*fn)(const struct crlc_crl_info *,
		    void *), void *arg);

/*
 * Call fn with the id of every page and scope file the index names
 * (format.h PAGE FILES, SCOPE FILES), without opening a scope file: the
 * writer's garbage collection keeps them.  fn returns 0 to go on,
 * anything else stops the walk and is returned.  Returns 0, fn's value,
 * or -1 when a page file cannot be read.
 */
int		 crlc_index_foreach_file_id(struct crlc_index *idx,
		    int (*fn)(const uint8_t id[CRLC_SCOPE_ID_LEN], void *),
		    void *arg);

/* Name of an RFC 5280 5.3.1 reason code, "unspecified" for -1. */
const char	*crlc_reason_name(int reason);

#endif /* CRLCACHE_INDEX_H */
