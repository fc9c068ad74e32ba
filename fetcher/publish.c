/*
 * A publish of index format 4 (<crlcache/format.h> PUBLISH): the CRL
 * scopes of the working environment into immutable scope files named by
 * their content, each issuer key's list of them into page files named by
 * their content, then a new top file renamed over index.mdb, then the
 * files no reader can need any more removed.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * A scope or a page whose content did not change since the last publish
 * keeps its file: a publish writes the top file (issuers, keys and pages:
 * small) and the files of the scopes that changed and of the pages that
 * list them, so one changed CRL costs about its own size, whatever the
 * size of the rest of the index.
 *
 * Writing the scope files, the pages and the top file follows one order
 * that keeps a crash safe (format.h PUBLISH), over one walk of one read
 * transaction; what may be removed after is pubkeep.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <lmdb.h>

#include <crlcache/hash.h>
#include <crlcache/index.h>
#include <crlcache/indexwrite.h>

#include "scopehash.h"
#include "entries.h"
#include "fetcher.h"
#include "pubkeep.h"
#include "publish.h"
#include "state.h"

#define SCOPE_NAME_LEN		(2 * CRLC_SCOPE_ID_LEN)
/*
 * Content ids: SHA-256 of this tag, the "crl" key, its header and the
 * "crlhash" of the rest (format.h PUBLISH).
 */
#define CONTENT_ID_TAG		"crlcache scope 3b"
/* The "crl" value's fetchedAt, left out of the content id. */
#define FETCHED_AT_OFF		24
#define FETCHED_AT_LEN		8
/*
 * Records of the top file, and CRL scopes.  Every program that verifies
 * a certificate reads the whole top (CRLC_TOP_MAX); the Web PKI has
 * about 16,000 CRLs and a few thousand issuer names and keys, so a
 * million of each is far beyond any real state yet keeps the top below
 * that bound.
 */
#define MAX_TOP_RECORDS		((size_t)1 << 20)
/*
 * Entries one scope file holds: a complete CRL plus a delta, each at most
 * MAX_CRL_ENTRIES (crl_verify); and u32 in a page's SCOPE record.
 */
#define MAX_SCOPE_ENTRIES	((size_t)2 * MAX_CRL_ENTRIES)
/* Scope numbers are u16 (format.h "crl" value offset 2). */
#define SCOPE_NOS		(CRLC_SCOPE_NO_MAX + 1)
/*
 * Bytes of the working map read before they are let go (map_release):
 * a publish reads the stored CRLs of the scopes it writes (and all of
 * them when "crlhash" records are missing), and its RSS must not grow to
 * the size of the working environment.
 */
#define RELEASE_BYTES		((size_t)16 << 20)
/*
 * What one read of the map makes resident: the kernel maps the page
 * cache pages around a faulting page too (fault-around: 64 KiB, Linux's
 * default fault_around_bytes).
 */
#define FAULT_WINDOW		((uintptr_t)64 << 10)

/*
 * A scope whose file is being written: streamed from the walk of its
 * "rev" range, or, when a serial came out of slot order, its entries
 * collected and sorted.
 */
struct scope_write {
	size_t			 scope;		/* in publish.scopes */
	struct crlc_span	 der, delta;
	int			 fd;		/* its temporary file, or -1 */
	char			 tmp[TEMP_NAME_SIZE];
	struct crlc_scope_out	*out;
	int			 sorted;	/* collect in e[], sort */
	struct crlc_scope_entry	*e;
	size_t			 n, cap;
};

struct publish {
	struct state		*st;
	const struct publish_src *src;
	int			 sfd;		/* STATE_DIR/scope */
	struct crlc_top_issuer	*alias, *canon;
	size_t			 nalias, ncanon;
	struct crlc_top_key	*keys;
	size_t			 nkeys;
	/* the scopes of the issuer key being read, its pages so far */
	struct crlc_top_scope	*scopes;
	/* each scope's URI, numbers and redacted source */
	uint8_t			**owned;
	size_t			 nscopes, capscopes, capowned, total;
	struct crlc_top_page	*pages;
	size_t			 npages, cappages;
	/* the prefix of the "crl" records being read, and its number */
	uint8_t			 prefix[CRLC_PREFIX_LEN];
	uint32_t		 prefix_no;
	uint32_t		*taken;	/* scope number -> prefix_no that has it */
	struct pub_keep		 keep;		/* files readers may need */
	size_t			 written, reused, pages_written, pages_reused;
	uintptr_t		 lo, hi;	/* working map span read */
	uintptr_t		 window;	/* the last FAULT_WINDOW read */
	size_t			 touched;
	char			*err;
	size_t			 errlen;
};

/* Room for one more of *n elements of size in *v (capacity *cap). */
static int
grow(void *v, size_t *cap, size_t n, size_t size)
{
	void **pv = v, *p;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap == 0 ? 64 : *cap * 2;
	if ((p = reallocarray(*pv, c, size)) == NULL)
		return -1;
	*pv = p;
	*cap = c;
	return 0;
}

static int
fail(struct publish *p, const char *what, int e)
{
	snprintf(p->err, p->errlen, "%s: %s", what, strerror(e));
	return -1;
}

static int
fail_lmdb(struct publish *p, const char *what, int rc)
{
	snprintf(p->err, p->errlen, "working index %s: %s", what,
	    mdb_strerror(rc));
	return -1;
}

/*
 * The working map read so far, [lo, hi), let go every RELEASE_BYTES made
 * resident: pointers into it stay valid, pages read again come from the
 * page cache.  A read makes its whole FAULT_WINDOW resident, so a walk
 * reading a 104-byte header from each of 16,000 CRLs counts 1 GB, not
 * 1.6 MB; the windows of a walk in address order count once.
 */
static void
map_touched(struct publish *p, const MDB_val *v)
{
	uintptr_t a = (uintptr_t)v->mv_data, b = a + v->mv_size, page;
	uintptr_t first = a / FAULT_WINDOW, last = (b - 1) / FAULT_WINDOW;

	if (v->mv_size == 0)
		return;
	if (a < p->lo)
		p->lo = a;
	if (b > p->hi)
		p->hi = b;
	p->touched += (last - first + (first != p->window)) * FAULT_WINDOW;
	p->window = last;
	if (p->touched < RELEASE_BYTES)
		return;
	page = (uintptr_t)sysconf(_SC_PAGESIZE);
	a = p->lo & ~(page - 1);
	b = (p->hi + page - 1) & ~(page - 1);
	(void)madvise((void *)a, b - a, MADV_DONTNEED);
	p->lo = UINTPTR_MAX;
	p->hi = 0;
	p->touched = 0;
}

/* An ALIAS or CANON section from "alias" or "canon". */
static int
read_issuers(struct publish *p, MDB_dbi dbi, const char *name,
    struct crlc_top_issuer **out, size_t *n)
{
	MDB_cursor *cur;
	MDB_val k, v;
	size_t cap = 0;
	int rc;

	if ((rc = mdb_cursor_open(p->src->txn, dbi, &cur)) != 0)
		return fail_lmdb(p, name, rc);
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size != CRLC_HASH_LEN ||
		    v.mv_size != CRLC_ISSUER_ID_LEN || *n >= MAX_TOP_RECORDS ||
		    grow(out, &cap, *n, sizeof(**out)) == -1) {
			rc = EINVAL;
			break;
		}
		memcpy((*out)[*n].hash, k.mv_data, CRLC_HASH_LEN);
		(*out)[*n].id = crlc_get_u32(v.mv_data);
		(*n)++;
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : fail_lmdb(p, name, rc);
}

/* The KEY section from "key" (format.h "key"). */
static int
read_keys(struct publish *p)
{
	const uint8_t *kv;
	MDB_cursor *cur;
	MDB_val k, v;
	struct crlc_top_key *t;
	size_t cap = 0, ski;
	int rc;

	if ((rc = mdb_cursor_open(p->src->txn, p->src->key, &cur)) != 0)
		return fail_lmdb(p, CRLC_DB_KEY, rc);
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		kv = v.mv_data;
		if (k.mv_size != CRLC_ISSUER_ID_LEN + CRLC_HASH_LEN ||
		    v.mv_size < CRLC_KEY_NO_LEN + 1 ||
		    (ski = kv[CRLC_KEY_NO_LEN]) > CRLC_SKI_MAX ||
		    v.mv_size != CRLC_KEY_NO_LEN + 1 + ski ||
		    p->nkeys >= MAX_TOP_RECORDS ||
		    grow(&p->keys, &cap, p->nkeys, sizeof(*p->keys)) == -1) {
			rc = EINVAL;
			break;
		}
		t = &p->keys[p->nkeys++];
		memset(t, 0, sizeof(*t));
		t->issuer_id = crlc_get_u32(k.mv_data);
		memcpy(t->hash, (const uint8_t *)k.mv_data + CRLC_ISSUER_ID_LEN,
		    CRLC_HASH_LEN);
		t->key_no = crlc_get_u32(kv);
		t->ski_len = (uint8_t)ski;
		memcpy(t->ski, kv + CRLC_KEY_NO_LEN + 1, ski);
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : fail_lmdb(p, CRLC_DB_KEY, rc);
}

/*
 * The content id of a "crl" record (format.h PUBLISH): from its header
 * and its "crlhash" record, so that the stored CRLs are not read; a
 * record without one (a damaged working environment) is hashed here.
 */
static void
content_id(struct publish *p, const MDB_val *k, const MDB_val *v,
    const struct crlc_crl_info *ci, uint8_t id[CRLC_SCOPE_ID_LEN])
{
	static const uint8_t zero[FETCHED_AT_LEN];
	const uint8_t *b = v->mv_data;
	uint8_t h[CRLC_HASH_LEN], body[CRLC_HASH_LEN];
	MDB_val hv;
	struct iovec iov[] = {
		{ (void *)CONTENT_ID_TAG, sizeof(CONTENT_ID_TAG) - 1 },
		{ k->mv_data, k->mv_size },
		{ (void *)b, FETCHED_AT_OFF },
		{ (void *)zero, sizeof(zero) },
		{ (void *)(b + FETCHED_AT_OFF + FETCHED_AT_LEN),
		    CRLC_CRL_HDR_LEN - FETCHED_AT_OFF - FETCHED_AT_LEN },
		{ body, sizeof(body) },
	};

	if (mdb_get(p->src->txn, p->src->crlhash, (MDB_val *)k, &hv) == 0 &&
	    hv.mv_size == sizeof(body))
		memcpy(body, hv.mv_data, sizeof(body));
	else
		crl_record_hash(ci, body);
	crlc_sha256_iov(iov, (int)(sizeof(iov) / sizeof(iov[0])), h);
	memcpy(id, h, CRLC_SCOPE_ID_LEN);
}

/*
 * Is scope/<id> there, whole, of this format: a regular file whose first
 * hlen bytes, into h, carry magic, version, the id at 16 and the file's
 * own size at 32 (scope and page files alike)?  Files are only ever
 * renamed into place complete and never changed, so the header stands
 * for the rest.
 */
static int
kept_file(struct publish *p, const uint8_t id[CRLC_SCOPE_ID_LEN],
    const char *magic, uint32_t version, uint8_t *h, size_t hlen)
{
	char name[SCOPE_NAME_LEN + 1];
	struct stat sb;
	int fd, ok;

	crlc_scope_name(id, name);
	if ((fd = openat(p->sfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return 0;
	ok = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    pread(fd, h, hlen, 0) == (ssize_t)hlen &&
	    memcmp(h, magic, CRLC_MAGIC_LEN) == 0 &&
	    crlc_get_u32(h + 8) == version &&
	    memcmp(h + 16, id, CRLC_SCOPE_ID_LEN) == 0 &&
	    crlc_get_u64(h + 32) == (uint64_t)sb.st_size;
	close(fd);
	return ok;
}

/*
 * The entry count of scope file id when it is there, whole, and the one
 * of that content (kept_file()); else -1 and it is written (anew).
 */
static int
scope_file_entries(struct publish *p, const uint8_t id[CRLC_SCOPE_ID_LEN],
    uint32_t *entries)
{
	uint8_t h[CRLC_SCOPE_HDR_LEN];
	uint64_t e;

	if (!kept_file(p, id, CRLC_SCOPE_MAGIC, CRLC_SCOPE_FILE_VERSION, h,
	    sizeof(h)) || crlc_get_u32(h + 12) != CRLC_SCOPE_ENTRY_LEN ||
	    (e = crlc_get_u64(h + 40)) > MAX_SCOPE_ENTRIES)
		return -1;
	*entries = (uint32_t)e;
	return 0;
}

/*
 * A temporary file in scope/, mode 0644 (readers need only read access;
 * the index holds public data), its name in tmp; -1 when it cannot be
 * made (reported, tmp empty).
 */
static int
tmp_create(struct publish *p, char tmp[TEMP_NAME_SIZE])
{
	int fd, e;

	if ((fd = state_mktemp(p->sfd, SCOPE_TEMP_PREFIX, 0600, tmp,
	    TEMP_NAME_SIZE)) == -1) {
		tmp[0] = '\0';
		return fail(p, SCOPE_NAME, errno);
	}
	if (fchmod(fd, 0644) == -1) {
		e = errno;
		close(fd);
		(void)unlinkat(p->sfd, tmp, 0);
		tmp[0] = '\0';
		return fail(p, SCOPE_NAME, e);
	}
	return fd;
}

/*
 * The temporary file *fd, tmp, written: fsync()ed, closed (*fd -1) and
 * renamed to scope/<name> (tmp emptied).  On failure, reported; the
 * caller closes what is left open and removes tmp if not empty.
 */
static int
tmp_install(struct publish *p, int *fd, char tmp[TEMP_NAME_SIZE],
    const char *name)
{
	char what[PATH_MAX + 16];
	int rc;

	snprintf(what, sizeof(what), SCOPE_NAME "/%s", name);
	if (fsync(*fd) == -1)
		return fail(p, what, errno);
	rc = close(*fd);
	*fd = -1;
	if (rc == -1 || renameat(p->sfd, tmp, p->sfd, name) == -1)
		return fail(p, what, errno);
	tmp[0] = '\0';
	return 0;
}

/* The temporary file of a scope, mode 0644, in scope/. */
static int
scope_tmp_open(struct publish *p, struct scope_write *w)
{
	if ((w->fd = tmp_create(p, w->tmp)) == -1)
		return -1;
	if ((w->out = malloc(sizeof(*w->out))) == NULL ||
	    crlc_scope_out_begin(w->out, w->fd) == -1)
		return fail(p, SCOPE_NAME, errno);
	return 0;
}

/* Write the rest of a scope's file, fsync it, rename it into scope/. */
static int
scope_tmp_finish(struct publish *p, struct scope_write *w)
{
	const uint8_t *id = p->scopes[w->scope].id;
	const struct crlc_span *delta = w->delta.len > 0 ? &w->delta : NULL;
	char name[SCOPE_NAME_LEN + 1], what[PATH_MAX + 16];
	int rc;

	crlc_scope_name(id, name);
	snprintf(what, sizeof(what), SCOPE_NAME "/%s", name);
	if (w->sorted) {
		w->n = crlc_scope_sort(w->e, w->n);
		rc = ftruncate(w->fd, 0) == -1 ? -1 :
		    crlc_scope_write(w->fd, id, w->e, w->n, &w->der, delta);
	} else {
		w->n = w->out->n;
		rc = crlc_scope_out_end(w->out, id, &w->der, delta);
	}
	if (rc == -1)
		return fail(p, what, errno);
	if (tmp_install(p, &w->fd, w->tmp, name) == -1)
		return -1;
	p->scopes[w->scope].entries = (uint32_t)w->n;
	p->written++;
	return 0;
}

/* The slot of a "rev" key's serial form (format.h "rev"). */
static void
form_slot(const uint8_t *form, size_t len, uint8_t slot[CRLC_SLOT_LEN])
{
	/* 00 00 || SHA-256 of the content octets, the hash a slot keeps. */
	if (len == CRLC_SERIAL_HASHED_LEN && form[0] == 0 && form[1] == 0) {
		memcpy(slot, form + 2, CRLC_SLOT_INLINE);
		slot[CRLC_SLOT_INLINE] = CRLC_SLOT_HASHED;
	} else if (crlc_is_foreign_form(form, len))
		crlc_foreign_slot(form, slot);	/* INDIRECT CRLS */
	else
		crlc_scope_slot(form, len, slot);
}

/*
 * One "rev" record of scope w into its file.  In the walk's key order,
 * serials of up to CRLC_SLOT_INLINE octets come in slot order (a slot is
 * the octets zero padded, then their count: the same order as LMDB's,
 * shorter first on a common prefix), so they are streamed to the file; a
 * longer one (a hashed slot) turns the scope to collecting every entry in
 * memory (again, on the second walk) and sorting them.  pass 2 collects.
 * Returns 0, -1 when it reported an error, or EINVAL / EFBIG.
 */
static int
collect(struct publish *p, struct scope_write *w, const MDB_val *k,
    const MDB_val *v, int pass)
{
	const uint8_t *r = v->mv_data;
	struct crlc_scope_entry e;

	if (v->mv_size != CRLC_REV_LEN || k->mv_size <= CRLC_REV_SCOPE_LEN)
		return EINVAL;
	form_slot((const uint8_t *)k->mv_data + CRLC_REV_SCOPE_LEN,
	    k->mv_size - CRLC_REV_SCOPE_LEN, e.slot);
	e.revoked_at = crlc_get_i64(r);
	e.reason = r[8];
	e.flags = r[9];
	if (pass == 1) {
		if (e.slot[CRLC_SLOT_INLINE] <= CRLC_SLOT_INLINE &&
		    crlc_scope_out_add(w->out, &e) == 0)
			return 0;
		/* a write error is one; out of slot order: pass 2 */
		if (e.slot[CRLC_SLOT_INLINE] <= CRLC_SLOT_INLINE &&
		    errno != EINVAL)
			return fail(p, SCOPE_NAME, errno);
		w->sorted = 1;
		return MDB_NOTFOUND;	/* the rest of the range: pass 2 */
	}
	if (w->n >= MAX_SCOPE_ENTRIES ||
	    grow(&w->e, &w->cap, w->n, sizeof(*w->e)) == -1)
		return EFBIG;
	w->e[w->n++] = e;
	return 0;
}

/* One walk of the "rev" range of the scope w writes (pass 1 or 2). */
static int
walk(struct publish *p, struct scope_write *w, int pass)
{
	uint8_t range[CRLC_REV_SCOPE_LEN];
	MDB_cursor *cur;
	MDB_val k = { sizeof(range), range }, v;
	int rc;

	store_rev_range(p->prefix, p->scopes[w->scope].scope_no, range);
	if ((rc = mdb_cursor_open(p->src->txn, p->src->rev, &cur)) != 0)
		return fail_lmdb(p, CRLC_DB_REV, rc);
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0 &&
	    k.mv_size >= sizeof(range) &&
	    memcmp(k.mv_data, range, sizeof(range)) == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if ((rc = collect(p, w, &k, &v, pass)) != 0)
			break;
		map_touched(p, &v);	/* the key lies beside it */
	}
	mdb_cursor_close(cur);
	if (rc == 0 || rc == MDB_NOTFOUND || rc == -1)
		return rc == -1 ? -1 : 0;
	if (rc == EINVAL || rc == EFBIG)
		return fail(p, "working index " CRLC_DB_REV, rc);
	return fail_lmdb(p, CRLC_DB_REV, rc);
}

/*
 * Write scope i's file (its "crl" record ci): one walk of its "rev" range
 * streams the entries, and when a serial came out of slot order a second
 * walk collects them to be sorted.
 */
static int
write_scope(struct publish *p, size_t i, const struct crlc_crl_info *ci)
{
	struct scope_write w;
	int ret = -1;

	memset(&w, 0, sizeof(w));
	w.scope = i;
	w.der = ci->der;
	w.delta = ci->delta;
	w.fd = -1;
	if (scope_tmp_open(p, &w) == -1 || walk(p, &w, 1) == -1)
		goto done;
	if (w.sorted) {
		/* Sized by the count the record holds: one allocation. */
		w.cap = ci->entries < MAX_SCOPE_ENTRIES ? ci->entries :
		    MAX_SCOPE_ENTRIES;
		if (w.cap > 0 && (w.e = reallocarray(NULL, w.cap,
		    sizeof(*w.e))) == NULL) {
			fail(p, "scope entries", ENOMEM);
			goto done;
		}
		if (walk(p, &w, 2) == -1)
			goto done;
	}
	if (scope_tmp_finish(p, &w) == -1)
		goto done;
	ret = 0;
done:
	if (w.fd != -1)
		close(w.fd);
	if (w.tmp[0] != '\0')
		(void)unlinkat(p->sfd, w.tmp, 0);
	free(w.out);
	free(w.e);
	return ret;
}

/*
 * A scope number a "crl" record of this prefix already has (a damaged
 * working index): both scopes' entries would be one range.  Records of a
 * prefix come one after the other, in key order.
 */
static int
scope_no_taken(struct publish *p, const MDB_val *k, unsigned scope_no)
{
	/* no issuer id is 0: the first prefix differs from the zeroes */
	if (memcmp(p->prefix, k->mv_data, CRLC_PREFIX_LEN) != 0) {
		memcpy(p->prefix, k->mv_data, CRLC_PREFIX_LEN);
		p->prefix_no++;
	}
	if (p->taken[scope_no] == p->prefix_no) {
		snprintf(p->err, p->errlen, "working index: scope number %u "
		    "used twice", scope_no);
		return 1;
	}
	p->taken[scope_no] = p->prefix_no;
	return 0;
}

/*
 * One page of the issuer key's (crlc_pages_build()): its PAGE record,
 * and its file unless it exists -- written to a temporary name in
 * scope/, fsync()ed and renamed, like a scope file.
 */
static int
page_out(const struct crlc_top_page *pg, const uint8_t *buf, size_t len,
    void *arg)
{
	struct publish *p = arg;
	uint8_t h[CRLC_TOP_HDR_LEN];
	char tmp[TEMP_NAME_SIZE], name[SCOPE_NAME_LEN + 1];
	int fd, rc;

	if (p->npages >= MAX_TOP_RECORDS || grow(&p->pages, &p->cappages,
	    p->npages, sizeof(*p->pages)) == -1)
		return fail(p, "pages", ENOMEM);
	p->pages[p->npages++] = *pg;
	if (buf == NULL)
		return 0;
	if (keep_add(&p->keep, pg->id) == -1)
		return fail(p, "page ids", ENOMEM);
	/* kept: there, whole, of its length (its id is its content's) */
	if (kept_file(p, pg->id, CRLC_PAGE_MAGIC, CRLC_FORMAT_VERSION, h,
	    sizeof(h)) && crlc_get_u64(h + 32) == len) {
		p->pages_reused++;
		return 0;
	}
	crlc_scope_name(pg->id, name);
	if ((fd = tmp_create(p, tmp)) == -1)
		return -1;
	if ((rc = crlc_write_all(fd, buf, len)) == -1)
		fail(p, SCOPE_NAME, errno);
	else
		rc = tmp_install(p, &fd, tmp, name);
	if (fd != -1)
		close(fd);
	if (tmp[0] != '\0')
		(void)unlinkat(p->sfd, tmp, 0);
	if (rc == -1)
		return -1;
	p->pages_written++;
	return 0;
}

/* The pages of the issuer key whose scopes were read; its scopes let go. */
static int
key_pages(struct publish *p)
{
	size_t i;
	int rc = 0;

	if (p->nscopes > 0 &&
	    (rc = crlc_pages_build(p->scopes, p->nscopes, page_out, p)) == -1)
		fail(p, "pages", errno);
	for (i = 0; i < p->nscopes; i++)
		free(p->owned[i]);
	p->nscopes = 0;
	return rc == 0 ? 0 : -1;
}

/* len bytes at *at, a copy of p; *at moves past them. */
static struct crlc_span
own(uint8_t **at, const uint8_t *p, size_t len)
{
	struct crlc_span s = { *at, len };

	if (len > 0)
		memcpy(*at, p, len);
	*at += len;
	return s;
}

/*
 * One "crl" record: its SCOPE record, and its file unless it exists.
 * Long: the record's fields are read and checked in one place.
 */
static int
scope(struct publish *p, const MDB_val *k, const MDB_val *v)
{
	struct crlc_crl_info ci;
	struct crlc_top_scope *t;
	size_t i = p->nscopes;
	char *src, *red;
	uint8_t *at;

	if (crlc_crl_decode(k->mv_data, k->mv_size, v->mv_data, v->mv_size,
	    &ci) == -1 || k->mv_size < CRLC_PREFIX_LEN || ci.der.len == 0) {
		snprintf(p->err, p->errlen, "working index: "
		    "malformed " CRLC_DB_CRL " record");
		return -1;
	}
	if (p->total++ >= MAX_TOP_RECORDS) {
		snprintf(p->err, p->errlen, "more than %zu CRL "
		    "scopes", MAX_TOP_RECORDS);
		return -1;
	}
	/* A new issuer key: the last one's pages first. */
	if (memcmp(p->prefix, k->mv_data, CRLC_PREFIX_LEN) != 0) {
		if (key_pages(p) == -1)
			return -1;
		i = 0;
	}
	if (grow(&p->scopes, &p->capscopes, i, sizeof(*p->scopes)) == -1 ||
	    grow(&p->owned, &p->capowned, i, sizeof(*p->owned)) == -1)
		return fail(p, "scopes", ENOMEM);
	t = &p->scopes[i];
	memset(t, 0, sizeof(*t));
	t->issuer_id = ci.issuer_id;
	t->key_no = ci.key_no;
	t->flags = ci.flags;
	t->scope_no = ci.scope_no;
	t->this_update = ci.this_update;
	t->next_update = ci.next_update;
	t->fetched_at = ci.fetched_at;
	t->delta_this_update = ci.delta_this_update;
	t->delta_next_update = ci.delta_next_update;
	/* The top is world-readable: the source without its credentials. */
	src = xcalloc(1, ci.source.len + 1);
	if (ci.source.len > 0)
		memcpy(src, ci.source.p, ci.source.len);
	red = redact_userinfo(src);
	free(src);
	/*
	 * Copied out of the map, which is let go as it is read (map_touched):
	 * written into the top at the end, they would map every record's
	 * pages in again.
	 */
	at = p->owned[i] = xcalloc(1, ci.scope.len + ci.number.len +
	    ci.base.len + strlen(red) + 1);
	t->uri = own(&at, ci.scope.p, ci.scope.len);
	t->number = own(&at, ci.number.p, ci.number.len);
	t->base = own(&at, ci.base.p, ci.base.len);
	t->source = own(&at, (const uint8_t *)red, strlen(red));
	free(red);
	p->nscopes++;
	if (scope_no_taken(p, k, ci.scope_no))
		return -1;
	content_id(p, k, v, &ci, t->id);
	if (keep_add(&p->keep, t->id) == -1)
		return fail(p, "scope ids", ENOMEM);
	if (scope_file_entries(p, t->id, &t->entries) == 0) {
		p->reused++;
		return 0;
	}
	return write_scope(p, i, &ci);
}

/* Every "crl" record in key order: the PAGE section, and the files. */
static int
read_scopes(struct publish *p)
{
	MDB_cursor *cur;
	MDB_val k, v, hdr;
	size_t reused;
	int rc;

	if ((rc = mdb_cursor_open(p->src->txn, p->src->crl, &cur)) != 0)
		return fail_lmdb(p, CRLC_DB_CRL, rc);
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		reused = p->reused;
		if (scope(p, &k, &v) == -1) {
			mdb_cursor_close(cur);
			return -1;
		}
		map_touched(p, &k);
		/*
		 * A kept scope's CRLs were not read (content_id): counting
		 * them would let go of the pages of the keys still to come.
		 */
		hdr.mv_data = v.mv_data;
		hdr.mv_size = CRLC_CRL_HDR_LEN;
		map_touched(p, p->reused != reused ? &hdr : &v);
	}
	mdb_cursor_close(cur);
	if (rc != MDB_NOTFOUND)
		return fail_lmdb(p, CRLC_DB_CRL, rc);
	return key_pages(p);
}

/*
 * STATE_DIR/scope: made mode 0755 by the account that owns the state
 * (the fetcher runs as it), which readers require of it.
 */
static int
open_scope_dir(struct publish *p, int dfd)
{
	struct stat sb;

	if (mkdirat(dfd, SCOPE_NAME, 0755) == -1 && errno != EEXIST)
		return fail(p, SCOPE_NAME, errno);
	if ((p->sfd = openat(dfd, SCOPE_NAME, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1 || fstat(p->sfd, &sb) == -1)
		return fail(p, SCOPE_NAME, errno);
	if (sb.st_uid != geteuid()) {
		snprintf(p->err, p->errlen, "%s/%s belongs to uid "
		    "%lu, not to this account", state_path(p->st), SCOPE_NAME,
		    (unsigned long)sb.st_uid);
		return -1;
	}
	/* Every local user's programs read it, whatever the umask. */
	if ((sb.st_mode & 07777) != 0755 && fchmod(p->sfd, 0755) == -1)
		return fail(p, SCOPE_NAME, errno);
	return 0;
}

/*
 * The top file: after the page and scope files' names are durable (it
 * must never name a missing one), to a temporary name, fsync()ed, renamed over
 * index.mdb, the directory fsync()ed.
 */
static int
write_top(struct publish *p, int dfd, uint64_t generation, int64_t created)
{
	char tmp[TEMP_NAME_SIZE];
	int fd, e;

	if (fsync(p->sfd) == -1)
		return fail(p, SCOPE_NAME, errno);
	if ((fd = state_mktemp(dfd, TOP_TEMP_PREFIX, 0600, tmp,
	    sizeof(tmp))) == -1)
		return fail(p, INDEX_NAME, errno);
	if (fchmod(fd, 0644) == -1 ||
	    crlc_top_write(fd, generation, created, p->alias, p->nalias,
	    p->canon, p->ncanon, p->keys, p->nkeys, p->pages,
	    p->npages) == -1 ||
	    fsync(fd) == -1) {
		e = errno;
		close(fd);
		(void)unlinkat(dfd, tmp, 0);
		return fail(p, INDEX_NAME, e);
	}
	if (close(fd) == -1) {
		e = errno;
		(void)unlinkat(dfd, tmp, 0);
		return fail(p, INDEX_NAME, e);
	}
	if (renameat(dfd, tmp, dfd, INDEX_NAME) == -1) {
		e = errno;
		(void)unlinkat(dfd, tmp, 0);
		return fail(p, "rename to " INDEX_NAME, e);
	}
	/* The new top survives a crash once its directory is synced. */
	if (fsync(dfd) == -1) {
		snprintf(p->err, p->errlen, "%s: fsync of the "
		    "directory failed", state_path(p->st));
		return -1;
	}
	return 0;
}

int
publish(struct state *st, const struct publish_src *src,
    uint64_t generation, int64_t created, char *err, size_t errlen)
{
	struct publish p;
	const char *base;
	size_t i, removed;
	int dfd, ret = -1;

	memset(&p, 0, sizeof(p));
	p.st = st;
	p.src = src;
	p.sfd = -1;
	p.err = err;
	p.errlen = errlen;
	p.lo = UINTPTR_MAX;
	p.taken = xcalloc(SCOPE_NOS, sizeof(*p.taken));
	/* The handle's descriptor: not closed here. */
	if ((dfd = state_dirfd(st, INDEX_NAME, &base)) == -1) {
		fail(&p, state_path(st), errno);
		goto done;
	}
	if (open_scope_dir(&p, dfd) == -1)
		goto done;
	keep_old(&p.keep, dfd, base);
	if (read_issuers(&p, src->alias, CRLC_DB_ALIAS, &p.alias,
	    &p.nalias) == -1 ||
	    read_issuers(&p, src->canon, CRLC_DB_CANON, &p.canon,
	    &p.ncanon) == -1 ||
	    read_keys(&p) == -1 || read_scopes(&p) == -1 ||
	    write_top(&p, dfd, generation, created) == -1)
		goto done;
	removed = keep_collect(&p.keep, p.sfd);
	logx(2, "published generation %llu: scope files %zu written, %zu "
	    "unchanged; page files %zu written, %zu unchanged; %zu files "
	    "removed", (unsigned long long)generation, p.written, p.reused,
	    p.pages_written, p.pages_reused, removed);
	ret = 0;
done:
	if (p.sfd != -1)
		close(p.sfd);
	for (i = 0; i < p.nscopes; i++)
		free(p.owned[i]);
	free(p.owned);
	free(p.scopes);
	free(p.pages);
	free(p.keys);
	free(p.alias);
	free(p.canon);
	keep_free(&p.keep);
	free(p.taken);
	return ret;
}

/*
 * Is index.mdb anything but a top file of this format that opens?  Then
 * the next update or import publishes even when nothing changed: an
 * older format's file is refused by every reader (and may hold what a
 * publish leaves out, such as the "source" database).
 */
int
publish_needed(struct state *st)
{
	struct crlc_index *idx;
	const char *base, *detail;
	int dfd, need;

	if ((dfd = state_dirfd(st, INDEX_NAME, &base)) == -1 ||
	    crlc_index_open_at(dfd, base, &idx, &detail) != CRLC_OK)
		return 1;
	need = crlc_index_format(idx) != CRLC_FORMAT_VERSION;
	crlc_index_close(idx);
	return need;
}
