/*
 * The reader's private layout, shared by lib/indexopen.c (the top file),
 * lib/index.c (lookups, walks) and lib/indexpage.c (the checks of a top
 * or page file's container, page files, scope files).  No other file
 * includes it.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_INDEX_INT_H
#define CRLCACHE_INDEX_INT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <crlcache/format.h>
#include <crlcache/index.h>

/*
 * Issuers recently looked up in an index, found or not (lib/index.c
 * issuer_lookup): a chain verification meets the same two or three
 * issuers again and again, and a miss (an issuer no CRL covers)
 * otherwise costs two binary searches and a parse of the Name.
 * Direct-mapped by a SHA-256 of the name and key; each entry holds the
 * whole hash, so only an exact match is used.  Readers take no lock: an
 * entry carries a sequence count, odd while a writer fills it, and a
 * read that saw it change is discarded (seqlock).
 */
#define ISSUER_CACHE	64

/* A fixed-size section, checked when its file was read. */
struct table {
	const uint8_t	*p;
	uint64_t	 n;
};

/* One section of a top or page file, as its descriptor says. */
struct section {
	const uint8_t	*p;
	uint64_t	 len, count;
};

/*
 * A scope file, its header read and checked (format.h SCOPE FILES,
 * READER CHECKS), never mapped: its owner could truncate a mapping under
 * the program.  Its entries are read into private memory a block of
 * SCOPE_BLOCK_ENTRIES at a time, by the first lookup that needs the
 * block, and kept: a lookup reads only the blocks its binary search
 * visits (about log2 of the blocks), and once they are held it makes no
 * system call.  A block read is one pread(); its pointer is installed
 * like a page's (one atomic load once read).  120 entries of
 * CRLC_SCOPE_ENTRY_LEN (34) are 4,080 bytes: a block is one 4 KiB page
 * of memory, as a mapping's page fault would have brought in.
 */
#define SCOPE_BLOCK_ENTRIES	120

struct scope_file {
	uint8_t		 id[CRLC_SCOPE_ID_LEN];
	uint64_t	 size;		/* the file's, checked against its header */
	uint64_t	 eoff, nent;	/* the entries */
	uint64_t	 doff, dlen;	/* the signed complete CRL */
	uint64_t	 xoff, xlen;	/* the delta, xlen 0: none */
	uint64_t	 nblk;
	_Atomic(uint8_t *) blk[];	/* NULL until a lookup reads it */
};

/* A page file, read and checked (format.h PAGE FILES). */
struct page {
	uint8_t		*mem;		/* private copy of the whole file */
	struct table	 sidx;		/* SCOPE_INDEX */
	const uint8_t	*sdata;		/* SCOPE_DATA */
	uint64_t	 sdata_len;
	int		 some_reasons;	/* a SCOPE record is a reason partition */
	/* One per SCOPE record: NULL until a lookup opens its scope file. */
	_Atomic(struct scope_file *) scopes[];
};

struct issuer_entry {
	atomic_uint		 seq;
	_Atomic uint64_t	 hash[CRLC_HASH_LEN / 8];
	atomic_uint		 id;
	atomic_uint		 key_no;
	atomic_uint		 page0;
};

struct crlc_index {
	struct issuer_entry	 issuers[ISSUER_CACHE];
	uint8_t		*top;		/* private copy of the whole top file */
	size_t		 top_len;
	struct table	 alias, canon, key, page;
	uint64_t	 scopes;	/* sum of the PAGE records' scopes */
	uint64_t	 revoked;	/* and of their entries */
	/* One per PAGE record: NULL until a lookup reads it. */
	_Atomic(struct page *) *pages;
	int		 scopefd;	/* O_PATH of the scope directory, or -1 */
	uid_t		 scope_uid;	/* its owner */
	uint64_t	 generation;
	int64_t		 created;
};

/* n bytes at off of fd into buf, through short reads; 0 or -1. */
int	idx_read_at(int fd, void *buf, size_t n, off_t off);

/*
 * The sections of a top or page file buf[0..len) whose header and
 * trailer were checked: each descriptor inside the file, fixed-size
 * sections exactly count records long, every id of the mask required
 * (as 1 << id) present once; sec[id] for ids 1..CRLC_SEC_IDS.  CRLC_OK,
 * else CRLC_E_CORRUPT and *why.
 */
int	idx_sections(const uint8_t *buf, size_t len, uint32_t required,
	    struct section sec[CRLC_SEC_IDS + 1], const char **why);

/* Is the checksum trailer of buf[0..len) right (format.h TOP CHECKSUM)? */
int	idx_sum_ok(const uint8_t *buf, size_t len);

/*
 * PAGE record i's page, read and checked now if no lookup did before;
 * NULL when it cannot be (missing, untrusted, damaged file, memory).
 * Once read: one atomic load.
 */
struct page	*idx_page(struct crlc_index *idx, uint64_t i);
void		 idx_page_free(struct page *pg);

/* SCOPE record k of a page, and its fields (format.h SCOPE_DATA). */
const uint8_t	*idx_scope_rec(const struct page *pg, uint64_t k);
uint32_t	 idx_scope_uri_len(const uint8_t *r);
unsigned	 idx_scope_reasons(const uint8_t *r);

/*
 * The SCOPE record of key (prefix, uri[0..ulen)) in a page: 1 and *at,
 * or 0 and *at its lower bound.
 */
int	idx_scope_find(const struct page *pg,
	    const uint8_t prefix[CRLC_PREFIX_LEN], const uint8_t *uri,
	    size_t ulen, uint64_t *at);

/*
 * The scope file of SCOPE record k of pg, its header read and checked
 * now if no lookup did before; NULL when it cannot be.  Once read: one
 * atomic load.  *fd is -1, or the file's descriptor when it was opened
 * now: the caller closes it (idx_entry_find() and idx_scope_crls() use
 * it rather than open the file again).
 */
struct scope_file *idx_scope_file(const struct crlc_index *idx,
	    struct page *pg, uint64_t k, int *fd);

/*
 * The entry of slot in scope file s: 1 and *e (in a block held until the
 * index is closed), 0 when s has none, -1 when a block it needs cannot
 * be read.  Opens the file into *fd (-1: not yet) only when a block is
 * not held yet; the caller closes it.
 */
int		 idx_entry_find(const struct crlc_index *idx,
	    struct scope_file *s, const uint8_t slot[CRLC_SLOT_LEN], int *fd,
	    const uint8_t **e);

/*
 * The signed CRLs of scope file s, read into *buf (of *cap bytes, grown
 * with realloc(); the caller frees it) and spanned by *der and *delta;
 * *fd as for idx_entry_find().  0, or -1 when they cannot be read.
 */
int		 idx_scope_crls(const struct crlc_index *idx,
	    const struct scope_file *s, int *fd, uint8_t **buf, size_t *cap,
	    struct crlc_span *der, struct crlc_span *delta);

/* The size of file id in the scope directory, or -1. */
int64_t		 idx_file_size(const struct crlc_index *idx,
	    const uint8_t id[CRLC_SCOPE_ID_LEN]);

#endif /* CRLCACHE_INDEX_INT_H */
