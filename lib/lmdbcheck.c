/*
 * LMDB trusts every page it maps: a meta page that names pages past the
 * end of the file, or a root page that is not one, makes the first
 * lookup fault in every verifying program.  Check here, from the
 * descriptor, what the two meta pages and the main database's root page
 * promise, before LMDB is handed the file (format.h READER CHECKS).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <crlcache/index.h>

#include "lmdbcheck.h"

/*
 * LMDB 0.9's on-disk layout (mdb.c: MDB_page, MDB_meta, MDB_db,
 * MDB_node), which lmdb.h does not export.  Native byte order; pgno_t,
 * txnid_t and the sizes are size_t wide (W); offsets are in bytes.
 */
#define W		sizeof(size_t)
#define PAGE_HDR	(W + 8)		/* pgno, pad u16, flags u16, lower/upper u16 */
#define PAGE_FLAGS	(W + 2)
#define PAGE_LOWER	(W + 4)
#define PAGE_UPPER	(W + 6)
#define P_BRANCH	0x01
#define P_LEAF		0x02
#define P_META		0x08
#define P_LEAF2		0x20
#define P_SUBP		0x40
/* MDB_meta, at PAGE_HDR in pages 0 and 1 */
#define META_MAGIC	0		/* u32 */
#define META_VERSION	4		/* u32 */
#define META_DBS	(8 + 2 * W)	/* after mm_address, mm_mapsize */
#define DB_LEN		(8 + 5 * W)
#define DB_ROOT		(8 + 4 * W)	/* MDB_db md_root */
#define META_PSIZE	META_DBS	/* the free DB's md_pad */
#define META_LAST_PG	(META_DBS + 2 * DB_LEN)
#define META_TXNID	(META_LAST_PG + W)
#define META_LEN	(META_TXNID + W)
#define FREE_DBI	0
#define MAIN_DBI	1
#define NUM_METAS	2
#define LMDB_MAGIC	0xBEEFC0DEu
#define LMDB_DATA_VERSION 1u
/* MDB_node: data size u32 (as two u16 halves), flags u16, key size u16 */
#define NODE_HDR	8
#define F_BIGDATA	0x01
#define F_SUBDATA	0x02
#define P_INVALID	(~(size_t)0)
/* mdb.c MAX_PAGESIZE: LMDB never writes larger pages. */
#define LMDB_MAX_PAGESIZE 0x8000

static size_t
word(const uint8_t *p)
{
	size_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static unsigned
u16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t
u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The page size the writer uses: LMDB takes the system's, capped at its
 * MAX_PAGESIZE; the publisher runs on this host (format.h FILE).
 */
static size_t
writer_psize(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	if (ps <= 0)
		return 0;
	return (size_t)ps > LMDB_MAX_PAGESIZE ? LMDB_MAX_PAGESIZE : (size_t)ps;
}

/* Meta page n of a file of pages psize bytes long into m. */
static int
meta_read(int fd, unsigned n, size_t psize, uint8_t m[META_LEN],
    const char **why)
{
	uint8_t buf[PAGE_HDR + META_LEN];

	if (pread(fd, buf, sizeof(buf), (off_t)(n * psize)) !=
	    (ssize_t)sizeof(buf)) {
		*why = "file shorter than its meta pages";
		return CRLC_E_CORRUPT;
	}
	if (!(u16(buf + PAGE_FLAGS) & P_META) ||
	    u32(buf + PAGE_HDR + META_MAGIC) != LMDB_MAGIC) {
		*why = "no LMDB meta page";
		return CRLC_E_FORMAT;
	}
	if (u32(buf + PAGE_HDR + META_VERSION) != LMDB_DATA_VERSION) {
		*why = "LMDB data version not supported";
		return CRLC_E_FORMAT;
	}
	memcpy(m, buf + PAGE_HDR, META_LEN);
	return CRLC_OK;
}

/* A root page number: the database is empty, or the page is in the file. */
static int
root_ok(size_t root, size_t last_pg)
{
	return root == P_INVALID || (root >= NUM_METAS && root <= last_pg);
}

/*
 * The main database names the others (mdb.c F_SUBDATA nodes holding an
 * MDB_db): the published file's six fit one leaf page, whose records'
 * root page numbers must be pages of the file.
 */
static int
main_root_check(int fd, size_t root, size_t psize, size_t last_pg,
    const char **why)
{
	uint8_t *pg;
	size_t i, n, lower, upper, off, dsize, ksize;
	unsigned flags;
	int ret = CRLC_E_CORRUPT;

	if (root == P_INVALID)
		return CRLC_OK;
	if ((pg = malloc(psize)) == NULL) {
		*why = "out of memory";
		return CRLC_E_NOMEM;
	}
	*why = "the main database's root page is not a leaf page of the file";
	if (pread(fd, pg, psize, (off_t)(root * psize)) != (ssize_t)psize ||
	    word(pg) != root)
		goto done;
	flags = u16(pg + PAGE_FLAGS);
	lower = u16(pg + PAGE_LOWER);
	upper = u16(pg + PAGE_UPPER);
	if ((flags & (P_LEAF | P_BRANCH | P_LEAF2 | P_SUBP | P_META)) !=
	    P_LEAF || lower < PAGE_HDR || lower > upper || upper > psize)
		goto done;
	n = (lower - PAGE_HDR) / 2;
	*why = "a database record points outside the file";
	for (i = 0; i < n; i++) {
		off = u16(pg + PAGE_HDR + 2 * i);
		if (off < upper || off > psize - NODE_HDR)
			goto done;
		dsize = u32(pg + off);
		flags = u16(pg + off + 4);
		ksize = u16(pg + off + 6);
		if (flags & F_BIGDATA || psize - off - NODE_HDR < ksize ||
		    psize - off - NODE_HDR - ksize < dsize)
			goto done;
		if (!(flags & F_SUBDATA))
			continue;
		if (dsize != DB_LEN || !root_ok(word(pg + off + NODE_HDR +
		    ksize + DB_ROOT), last_pg))
			goto done;
	}
	ret = CRLC_OK;
done:
	free(pg);
	return ret;
}

int
crlc_lmdb_check(int fd, uint64_t size, const char **why)
{
	uint8_t m[NUM_METAS][META_LEN];
	const uint8_t *pick;
	size_t psize = writer_psize(), last_pg;
	unsigned i;
	int ret;

	if (psize == 0 || size % psize != 0) {
		*why = "file size not a whole number of pages";
		return CRLC_E_CORRUPT;
	}
	for (i = 0; i < NUM_METAS; i++) {
		if ((ret = meta_read(fd, i, psize, m[i], why)) != CRLC_OK)
			return ret;
		if (u32(m[i] + META_PSIZE) != psize) {
			*why = "page size is not the one this host writes";
			return CRLC_E_FORMAT;
		}
	}
	/* The one LMDB reads: the higher transaction id, else page 0. */
	pick = word(m[1] + META_TXNID) > word(m[0] + META_TXNID) ? m[1] : m[0];
	last_pg = word(pick + META_LAST_PG);
	if (last_pg < NUM_METAS - 1 || last_pg >= size / psize) {
		*why = "file shorter than its last page";
		return CRLC_E_CORRUPT;
	}
	if (!root_ok(word(pick + META_DBS + FREE_DBI * DB_LEN + DB_ROOT),
	    last_pg) ||
	    !root_ok(word(pick + META_DBS + MAIN_DBI * DB_LEN + DB_ROOT),
	    last_pg)) {
		*why = "a root page number beyond the last page";
		return CRLC_E_CORRUPT;
	}
	return main_root_check(fd, word(pick + META_DBS + MAIN_DBI * DB_LEN +
	    DB_ROOT), psize, last_pg, why);
}
