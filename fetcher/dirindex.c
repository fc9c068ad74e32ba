/*
 * The issuer directory's index: where each entry lies in the directory
 * file and whose name it bears, so that a run reads the entries it looks
 * up, not the file.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * A hint run (`update --hints`) proves a few certificates and fetches
 * their issuers' CRLs while a program waits; reading the whole directory
 * first (the Web PKI's 4,000 CA certificates, ~15 MB of base64, every
 * certificate decoded) cost it most of a second before its first CRL
 * request.  With the index, a certification path search asks the
 * directory for each issuer name it meets (certpool_set_fill), and only
 * the entries of that subject are read (pread) and decoded; an hourly
 * run finds its enrolled issuers' URLs by fingerprint the same way.
 *
 * STATE_DIR/work/directory.index, written whole after the directory file
 * (state_replace), the crlcache account's only (LF line ends):
 *
 *	crlcache-directory-index 1
 *	directory BUILT SIZE        the directory file it describes: its
 *	                            "built" line and its size in bytes
 *	entries N
 *	entry FP NAME OFF LEN       N times, in the directory's order (FP
 *	                            strictly ascending)
 *	end
 *
 * FP is the entry's SHA-256 in 64 uppercase hex digits, NAME the first 8
 * bytes of its subject's canonical name hash (name_canon_hash, as the
 * index of CRLs and the provider compare names) in 16 lowercase hex
 * digits, OFF and LEN where its lines ("cert" and its "url" lines) lie.
 * An index whose directory line is not the directory file's (a crash
 * between the two writes, a file edited by hand) is not used, and an
 * entry is used only when the bytes at OFF are its own "cert FP" line
 * and URLs (dir_entry_parse); either way the run reads the directory
 * whole, as without an index.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/x509.h>

#include "chain.h"
#include "conf.h"
#include "direntry.h"
#include "dirindex.h"
#include "fetcher.h"
#include "name.h"
#include "state.h"
#include "trust.h"

#define INDEX_FORMAT	"crlcache-directory-index 1"
/* One line: "entry", a fingerprint, a name hash and two numbers. */
#define INDEX_LINE_MAX	128
/* The index file: DIR_MAX_ENTRIES lines. */
#define INDEX_MAX_FILE	((size_t)DIR_MAX_ENTRIES * INDEX_LINE_MAX + 256)
/*
 * Bytes of one entry: its certificate in base64 (DIR_MAX_CERT, a third
 * more) and DIR_MAX_URLS lines of a URL of at most CRLC_KEY_MAX bytes.
 */
#define ENTRY_MAX	((size_t)(DIR_MAX_CERT / 3 + 1) * 4 + 128 + \
			    (size_t)DIR_MAX_URLS * (CRLC_KEY_MAX + 16))
/* The head of the directory file: its format and "built" lines. */
#define HEAD_MAX	64

struct ix_entry {
	uint8_t		 fp[CRLC_HASH_LEN];
	uint64_t	 name;		/* subject's canonical hash, 8 bytes */
	struct dir_span	 at;
	int		 given;		/* read into the pool already */
};

struct dir_index {
	int		 fd;		/* the directory file */
	struct ix_entry	*v;		/* in the directory's order */
	size_t		 n;
	size_t		*byname;	/* v's positions sorted by name */
	size_t		 given;		/* entries read into the pool */
};

static uint64_t
name_key(const X509_NAME *name)
{
	uint8_t h[CRLC_HASH_LEN];
	uint64_t k = 0;
	int i;

	if (name_canon_hash(name, h) == -1)
		return 0;
	for (i = 0; i < 8; i++)
		k = k << 8 | h[i];
	return k;
}

int
dir_index_write(struct state *st, const struct directory *d,
    const struct dir_span *at, size_t len)
{
	char hex[2 * CRLC_HASH_LEN + 1], *text = NULL;
	size_t i, tlen = 0;
	FILE *f;
	int ret = -1;

	if ((f = open_memstream(&text, &tlen)) == NULL)
		return -1;
	fprintf(f, INDEX_FORMAT "\ndirectory %lld %zu\nentries %zu\n",
	    (long long)d->built, len, d->n);
	for (i = 0; i < d->n; i++) {
		crlc_hex_encode(d->v[i].fp, CRLC_HASH_LEN, hex, 1);
		fprintf(f, "entry %s %016llx %llu %llu\n", hex,
		    (unsigned long long)name_key(X509_get_subject_name(
		    d->v[i].cert)), (unsigned long long)at[i].off,
		    (unsigned long long)at[i].len);
	}
	fputs("end\n", f);
	/* the crlcache account's only, as the directory file */
	if (fclose(f) == 0 && state_replace(st, DIR_INDEX_FILE, text, tlen,
	    0600) == 0)
		ret = 0;
	free(text);
	return ret;
}

/* "directory BUILT SIZE": is it the open directory file? */
static int
describes(const char *line, int fd)
{
	char head[HEAD_MAX + 1], want[HEAD_MAX + 1];
	long long built;
	size_t size;
	struct stat sb;
	ssize_t n;

	if (sscanf(line, "directory %lld %zu", &built, &size) != 2 ||
	    fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    (uint64_t)sb.st_size != size ||
	    (n = pread(fd, head, HEAD_MAX, 0)) <= 0)
		return 0;
	head[n] = '\0';
	snprintf(want, sizeof(want), DIR_FORMAT "\nbuilt %lld\n", built);
	return strncmp(head, want, strlen(want)) == 0;
}

int
dir_index_current(struct state *st)
{
	char head[2 * INDEX_LINE_MAX + 1], *second, *end;
	ssize_t n = -1;
	int dfd, fd, ok = 0;

	if ((dfd = state_openat(st, DIR_FILE, O_RDONLY | O_NONBLOCK, 0)) == -1)
		return 0;
	if ((fd = state_openat(st, DIR_INDEX_FILE, O_RDONLY | O_NONBLOCK,
	    0)) != -1) {
		n = pread(fd, head, sizeof(head) - 1, 0);
		close(fd);
	}
	if (n > 0) {
		head[n] = '\0';
		/* the second line, after the format line and its LF */
		second = head + sizeof(INDEX_FORMAT);
		if (strncmp(head, INDEX_FORMAT "\n", sizeof(INDEX_FORMAT)) == 0 &&
		    (end = strchr(second, '\n')) != NULL) {
			*end = '\0';
			ok = describes(second, dfd);
		}
	}
	close(dfd);
	return ok;
}

/* One "entry" line into e, its span within a file of size bytes. */
static int
entry_line(const char *line, struct ix_entry *e, uint64_t size)
{
	char fphex[2 * CRLC_HASH_LEN + 1];
	unsigned long long name, off, len;
	int end = 0;

	if (sscanf(line, "entry %64s %16llx %llu %llu%n", fphex, &name, &off,
	    &len, &end) != 4 || line[end] != '\0' ||
	    crlc_hex_decode(fphex, strlen(fphex), e->fp, CRLC_HASH_LEN) == -1 ||
	    len == 0 || len > ENTRY_MAX || off > size || len > size - off)
		return -1;
	e->name = name;
	e->at.off = off;
	e->at.len = len;
	return 0;
}

static int
cmp_byname(const void *a, const void *b, void *arg)
{
	const struct ix_entry *v = arg;
	uint64_t x = v[*(const size_t *)a].name, y = v[*(const size_t *)b].name;

	return x < y ? -1 : x > y;
}

/* Parse the index (NUL-terminated buf) for the open directory file. */
static int
index_parse(struct dir_index *ix, char *buf)
{
	char *line = buf, *next;
	long long n;
	uint64_t size;
	struct stat sb;
	size_t i;

	if (fstat(ix->fd, &sb) == -1)
		return -1;
	size = (uint64_t)sb.st_size;
	for (i = 0; ; i++, line = next) {
		if ((next = strchr(line, '\n')) == NULL ||
		    next - line >= INDEX_LINE_MAX)
			return -1;
		*next++ = '\0';
		if (i == 0 ? strcmp(line, INDEX_FORMAT) != 0 :
		    i == 1 ? !describes(line, ix->fd) :
		    i == 2 ? strncmp(line, "entries ", 8) != 0 ||
		    parse_number(line + 8, DIR_MAX_ENTRIES, 0, &n) == -1 : 0)
			return -1;
		if (i == 2)
			ix->v = xcalloc((size_t)n + 1, sizeof(*ix->v));
		if (i < 3)
			continue;
		if (strcmp(line, "end") == 0)
			break;
		if (ix->n == (size_t)n || entry_line(line, &ix->v[ix->n],
		    size) == -1 || (ix->n > 0 && memcmp(ix->v[ix->n - 1].fp,
		    ix->v[ix->n].fp, CRLC_HASH_LEN) >= 0))
			return -1;
		ix->n++;
	}
	if (*next != '\0' || ix->n != (size_t)n)
		return -1;
	ix->byname = xcalloc(ix->n + 1, sizeof(*ix->byname));
	for (i = 0; i < ix->n; i++)
		ix->byname[i] = i;
	qsort_r(ix->byname, ix->n, sizeof(*ix->byname), cmp_byname, ix->v);
	return 0;
}

/* The index of the directory file as it is now, or NULL (why logged). */
static struct dir_index *
dirix_open(struct state *st)
{
	char err[ERRLEN];
	struct dir_index *ix = xcalloc(1, sizeof(*ix));
	uint8_t *buf = NULL;
	size_t len;

	/* As state_read: no link followed, no FIFO waited on. */
	if ((ix->fd = state_openat(st, DIR_FILE, O_RDONLY | O_NONBLOCK,
	    0)) == -1)
		goto fail;
	if (state_read(st, DIR_INDEX_FILE, INDEX_MAX_FILE, &buf, &len, err,
	    sizeof(err)) == -1 || memchr(buf, '\0', len) != NULL ||
	    index_parse(ix, (char *)buf) == -1)
		goto fail;
	free(buf);
	return ix;
fail:
	if (ix->fd != -1 || errno != ENOENT)
		logx(2, "directory: no index of the directory file as it "
		    "is; read whole");
	free(buf);
	dir_index_free(ix);
	return NULL;
}

/* Entry i's lines, parsed into e (with its certificate when with_cert). */
static int
entry_read(const struct dir_index *ix, size_t i, int with_cert,
    struct dir_entry *e)
{
	const struct ix_entry *x = &ix->v[i];
	char *buf = xcalloc(1, (size_t)x->at.len + 1);
	size_t got = 0;
	ssize_t r;
	int ret = -1;

	while (got < x->at.len) {
		r = pread(ix->fd, buf + got, (size_t)x->at.len - got,
		    (off_t)(x->at.off + got));
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			goto done;
		got += (size_t)r;
	}
	ret = dir_entry_parse(buf, x->fp, with_cert, e);
done:
	free(buf);
	return ret;
}

static int
cmp_fp(const void *a, const void *b)
{
	return memcmp(a, b, CRLC_HASH_LEN);
}

int
dir_index_find(struct state *st, const struct fpset *only,
    struct directory *d)
{
	struct dir_index *ix;
	struct ix_entry *x;
	size_t i;
	int ret = 0;

	memset(d, 0, sizeof(*d));
	if ((ix = dirix_open(st)) == NULL)
		return -1;
	d->v = xcalloc(only->n + 1, sizeof(*d->v));
	for (i = 0; i < only->n && ret == 0; i++) {
		/* the entry's fingerprint is its first member */
		if ((x = bsearch(only->v[i], ix->v, ix->n, sizeof(*ix->v),
		    cmp_fp)) == NULL)
			continue;
		if (entry_read(ix, (size_t)(x - ix->v), 0, &d->v[d->n]) == -1)
			ret = -1;
		else
			d->n++;
	}
	dir_index_free(ix);
	if (ret == -1)
		directory_free(d);
	return ret;
}

/* certpool_fill_fn: the entries of name's subject, read once each. */
static void
index_fill(void *arg, struct certpool *p, const X509_NAME *name)
{
	struct dir_index *ix = arg;
	struct dir_entry e;
	uint64_t k = name_key(name);
	size_t lo = 0, hi = ix->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ix->v[ix->byname[mid]].name < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ix->n && ix->v[ix->byname[lo]].name == k; lo++) {
		if (ix->v[ix->byname[lo]].given)
			continue;
		ix->v[ix->byname[lo]].given = 1;
		if (entry_read(ix, ix->byname[lo], 1, &e) == -1) {
			logx(0, "directory: an entry is not what its index "
			    "says; not used until the next refresh");
			continue;
		}
		if (certpool_add(p, e.cert) == 0)
			ix->given++;
		X509_free(e.cert);
		strlist_free(&e.urls);
	}
}

int
dir_index_attach(struct trust *t, struct state *st)
{
	struct dir_index *ix;

	if (state_exists(st, DIR_FILE) == 0)
		return 0;	/* no directory: nothing to look up */
	if ((ix = dirix_open(st)) == NULL)
		return -1;
	dir_index_free(t->dir);
	t->dir = ix;
	certpool_set_fill(t->pool, index_fill, ix);
	logx(2, "directory: %zu entries, read by name as searches ask", ix->n);
	return 0;
}

void
dir_index_free(struct dir_index *ix)
{
	if (ix == NULL)
		return;
	if (ix->given > 0)
		logx(2, "directory: %zu of %zu entries read", ix->given, ix->n);
	if (ix->fd != -1)
		close(ix->fd);
	free(ix->v);
	free(ix->byname);
	free(ix);
}
