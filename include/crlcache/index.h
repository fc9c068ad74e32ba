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
	CRLC_E_LMDB,		/* any other LMDB failure */
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
					   issuer, none covers this certificate */
};

/*
 * Open the published index at path read-only (MDB_RDONLY | MDB_NOLOCK |
 * MDB_NOSUBDIR | MDB_NOTLS).  The path is not trusted: its directory is
 * opened (O_PATH), then the file in it with O_RDONLY | O_NONBLOCK |
 * O_NOFOLLOW | O_CLOEXEC, so that a FIFO, a device or a symlink put there
 * can neither block nor redirect the caller, and the descriptor's fstat
 * decides.  Refused with CRLC_E_FORMAT: anything but a regular file;
 * with CRLC_E_ACCESS: a symbolic link as the last component, a file that
 * group or others may write, a file owned by neither root nor the owner
 * of its directory (the crlcache account owns the state directory; no
 * user database is consulted), a directory that group or others may
 * write unless it is sticky, and no /proc/self/fd.  LMDB does not
 * validate the pages it maps, so the index is only as trustworthy as the
 * account that writes it.  LMDB then opens /proc/self/fd/N of that very
 * descriptor and must map the same inode.  The map is sized from the
 * file, not from the meta page (the writer's CRLC_MAP_SIZE), so that a
 * process under an address-space limit (ulimit -v, LimitAS=) can map it.
 * Before LMDB maps it, checks its meta pages, page size, length and
 * root pages from the descriptor (format.h READER CHECKS), so that a
 * truncated or damaged file is refused (CRLC_E_FORMAT, CRLC_E_CORRUPT)
 * instead of faulting later; then the format version.  Allocates (the handle, LMDB's environment) but never blocks on
 * the file.  On success *out owns the mapping until crlc_index_close().
 * Returns CRLC_OK or an enum crlc_err; on error *out is NULL and, when
 * detail is not NULL, a static string is stored there.
 */
int		 crlc_index_open(const char *path, struct crlc_index **out,
		    const char **detail);
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
 * else STALE if now > nextUpdate + grace; else GOOD.  A revoked entry is
 * reported whatever the freshness.  Thread-safe and lock-free: it reuses
 * one of a few read transactions kept per index (claimed with an atomic
 * exchange, renewed without allocating), and allocates only when more
 * threads look up at once than there are slots.  Returns 0, or -1 on an
 * LMDB error (the verdict is then unspecified).
 */
int		 crlc_index_lookup(struct crlc_index *idx,
		    const struct crlc_tbs *cert,
		    const struct crlc_issuer_key *key, int64_t now,
		    int64_t grace, struct crlc_verdict *out);

/* The format version of the open index (format.h VERSIONS). */
unsigned	 crlc_index_format(const struct crlc_index *idx);

/*
 * The serial form of the "rev" key (format.h) of a serial's INTEGER
 * content octets serial[0..len), len >= 1, into out; returns its length.
 */
size_t		 crlc_serial_key(const uint8_t *serial, size_t len,
		    uint8_t out[CRLC_SERIAL_MAX]);

/*
 * The issuer id (the u32 of format.h) of the issuer Name DER name: by its
 * exact encoding, else by its canonical form; 0 when no CRL of that issuer
 * is in the index.  Returns 0, or -1 on an LMDB error.
 */
int		 crlc_index_issuer(struct crlc_index *idx,
		    const struct crlc_span *name, uint32_t *id);

/* Entry counts of the published databases. */
struct crlc_stats {
	uint64_t	issuers;	/* distinct issuers ("canon") */
	uint64_t	crls;		/* CRL scopes ("crl") */
	uint64_t	revoked;	/* revocation entries ("rev") */
	uint64_t	file_size;	/* bytes of the index file */
};
int		 crlc_index_stats(struct crlc_index *idx, struct crlc_stats *out);

/* One "crl" record, decoded; spans point into the map (see foreach). */
struct crlc_crl_info {
	uint32_t	 issuer_id;
	uint32_t	 key_no;	/* format 1: 0 */
	unsigned	 scope_no;	/* format 1: 0 */
	struct crlc_span scope;		/* IDP URI, empty: whole issuer */
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
	 * The signing key's subjectKeyIdentifier ("key"), set by
	 * crlc_index_foreach_crl(); empty for key number 0 and format 1.
	 */
	struct crlc_span ski;
};

/*
 * Decode one "crl" record (format.h) from its key and value bytes; the
 * spans point into them.  Returns 0, or -1 when the record is malformed.
 */
int		 crlc_crl_decode(const void *key, size_t keylen, const void *val,
		    size_t vallen, struct crlc_crl_info *out);

/*
 * Call fn for every CRL record in key order, inside one read transaction:
 * the spans are valid only until fn returns; copy what you keep.  fn
 * returns 0 to go on, anything else stops the walk and is returned.
 * Returns 0, fn's value, or -1 on an LMDB error or a malformed record.
 */
int		 crlc_index_foreach_crl(struct crlc_index *idx,
		    int (*fn)(const struct crlc_crl_info *, void *), void *arg);

/*
 * Call fn with the id of every scope file the index names (format 3
 * SCOPE records, in order; none in older formats), without opening any:
 * the writer's garbage collection keeps them.  fn returns 0 to go on,
 * anything else stops the walk and is returned.  Returns 0 or fn's value.
 */
int		 crlc_index_foreach_scope_id(struct crlc_index *idx,
		    int (*fn)(const uint8_t id[CRLC_SCOPE_ID_LEN], void *),
		    void *arg);

/* Name of an RFC 5280 5.3.1 reason code, "unspecified" for -1. */
const char	*crlc_reason_name(int reason);

#endif /* CRLCACHE_INDEX_H */
