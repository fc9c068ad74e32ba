/*
 * crlcache index writer: the files of a publish.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The layouts are those of <crlcache/format.h> (TOP FILE, PAGE FILES,
 * SCOPE FILES); this header only encodes them.  Used by the fetcher's
 * publish, never by the provider.  Callers own the files' names, fsync()
 * and rename().  crlc_scope_slot(), crlc_scope_page() and
 * crlc_scope_name() are the readers' too: lib/index.c defines them, so
 * that the provider links no writer code.
 */
#ifndef CRLCACHE_INDEXWRITE_H
#define CRLCACHE_INDEXWRITE_H

#include <stddef.h>
#include <stdint.h>

#include <crlcache/format.h>
#include <crlcache/tbs.h>

/* An ALIAS or CANON record: an issuer Name's hash and its issuer id. */
struct crlc_top_issuer {
	uint8_t		hash[CRLC_HASH_LEN];
	uint32_t	id;
};

/* A KEY record. */
struct crlc_top_key {
	uint32_t	issuer_id;
	uint8_t		hash[CRLC_HASH_LEN];
	uint32_t	key_no;
	uint8_t		ski_len;
	uint8_t		ski[CRLC_SKI_MAX];
};

/* A PAGE record (format.h PAGE); nscopes 0: no file, id zero. */
struct crlc_top_page {
	uint32_t	issuer_id, key_no, page_no, npages, nscopes;
	uint64_t	entries;
	uint8_t		id[CRLC_SCOPE_ID_LEN];
};

/* A SCOPE record. */
struct crlc_top_scope {
	uint32_t		issuer_id, key_no;
	struct crlc_span	uri;	/* scope URI; empty: a complete CRL */
	unsigned		flags, scope_no;
	uint32_t		entries;
	int64_t			this_update, next_update, fetched_at;
	int64_t			delta_this_update, delta_next_update;
	struct crlc_span	number, base, source;
	uint8_t			id[CRLC_SCOPE_ID_LEN];
};

/* One revocation entry of a scope file. */
struct crlc_scope_entry {
	uint8_t		slot[CRLC_SLOT_LEN];
	int64_t		revoked_at;
	uint8_t		reason, flags;
};

/* The slot of a serial's INTEGER content octets serial[0..len), len >= 1. */
void	crlc_scope_slot(const uint8_t *serial, size_t len,
	    uint8_t slot[CRLC_SLOT_LEN]);

/*
 * Sort by slot and drop duplicate slots; the new count.  Of entries with
 * one slot, the first by (revocationDate, reason, flags) is kept, so
 * the result does not depend on the order they were collected in.
 */
size_t	crlc_scope_sort(struct crlc_scope_entry *e, size_t n);

/*
 * A scope file written entry by entry, for entries that arrive sorted
 * (the publish walks the working index in key order): no array of them
 * in memory.  begin() leaves room for the header, add() takes entries
 * strictly ascending by slot (EINVAL otherwise), end() writes the signed
 * CRLs and then the header.  Returns 0, or -1 with errno set.
 */
#define CRLC_SCOPE_OUT_BUF	16384
struct crlc_scope_out {
	int		fd;
	uint64_t	n;
	uint8_t		last[CRLC_SLOT_LEN];
	size_t		used;
	uint8_t		buf[CRLC_SCOPE_OUT_BUF];
};
int	crlc_scope_out_begin(struct crlc_scope_out *o, int fd);
int	crlc_scope_out_add(struct crlc_scope_out *o,
	    const struct crlc_scope_entry *e);
int	crlc_scope_out_end(struct crlc_scope_out *o,
	    const uint8_t id[CRLC_SCOPE_ID_LEN], const struct crlc_span *der,
	    const struct crlc_span *delta);

/*
 * Write a whole scope file to fd: entries sorted and unique, der the
 * signed complete CRL (not empty), delta the signed delta CRL or NULL.
 * Returns 0, or -1 with errno set (EINVAL for bad arguments).
 */
int	crlc_scope_write(int fd, const uint8_t id[CRLC_SCOPE_ID_LEN],
	    const struct crlc_scope_entry *e, size_t n,
	    const struct crlc_span *der, const struct crlc_span *delta);

/* Every byte of p[0..n) to fd, through short writes and signals; 0 or -1. */
int	crlc_write_all(int fd, const void *p, size_t n);

/* The number of pages of an issuer key with n scopes (format.h PAGE). */
uint32_t crlc_page_count(size_t n);

/*
 * The pages of one issuer key's scopes s[0..n) (1 <= n <= 65,536, one
 * issuer id and key number, strictly ascending as format.h says; EINVAL
 * if not): for each of its crlc_page_count(n) page numbers in order,
 * fn(its PAGE record, its page file's bytes, their length, arg), the
 * bytes NULL for a page no scope falls on.  fn returns 0 to go on, else
 * that is returned.  Returns 0, or -1 with errno set.
 */
int	crlc_pages_build(const struct crlc_top_scope *s, size_t n,
	    int (*fn)(const struct crlc_top_page *, const uint8_t *, size_t,
	    void *), void *arg);

/*
 * Write a whole top file to fd; every array sorted as format.h says, each
 * issuer key's pages all there (EINVAL if not).  Returns 0, or -1 with
 * errno set.
 */
int	crlc_top_write(int fd, uint64_t generation, int64_t created,
	    const struct crlc_top_issuer *alias, size_t nalias,
	    const struct crlc_top_issuer *canon, size_t ncanon,
	    const struct crlc_top_key *keys, size_t nkeys,
	    const struct crlc_top_page *pages, size_t npages);

/*
 * The page, of npages (a power of two), of the scopes of name
 * name[0..len): a scope key without its reasons suffix (format.h PAGE).
 */
uint32_t crlc_scope_page(const uint8_t *name, size_t len, uint32_t npages);

/* The file name of a scope or page id: 32 lower-case hex digits. */
void	crlc_scope_name(const uint8_t id[CRLC_SCOPE_ID_LEN],
	    char name[2 * CRLC_SCOPE_ID_LEN + 1]);

#endif /* CRLCACHE_INDEXWRITE_H */
