/*
 * Test helper: a whole published index (format.h TOP FILE, PAGE FILES)
 * written into a directory from every scope at once, as a publish would
 * but without its durability and reuse: the page files of each issuer
 * key into dir/scope/ (crlc_pages_build()), then dir/index.mdb renamed
 * into place.  The scope files are the caller's.  Aborts on any error.
 */
#ifndef CRLCACHE_TEST_TOPDIR_H
#define CRLCACHE_TEST_TOPDIR_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <crlcache/indexwrite.h>

struct topdir_pages {
	const char		*dir;
	struct crlc_top_page	*v;
	size_t			 n, cap;
};

static int
topdir_page(const struct crlc_top_page *pg, const uint8_t *buf, size_t len,
    void *arg)
{
	struct topdir_pages *tp = arg;
	char path[600], name[2 * CRLC_SCOPE_ID_LEN + 1];
	int fd;

	if (tp->n == tp->cap) {
		tp->cap = tp->cap == 0 ? 16 : 2 * tp->cap;
		if ((tp->v = realloc(tp->v, tp->cap * sizeof(*tp->v))) == NULL)
			abort();
	}
	tp->v[tp->n++] = *pg;
	if (buf == NULL)
		return 0;
	crlc_scope_name(pg->id, name);
	snprintf(path, sizeof(path), "%s/scope/%s", tp->dir, name);
	unlink(path);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644)) == -1 ||
	    crlc_write_all(fd, buf, len) != 0 || close(fd) != 0)
		abort();
	return 0;
}

/* The index of sc[0..nsc) (in format.h key order) in dir. */
static void
topdir_write(const char *dir, uint64_t generation, int64_t created,
    const struct crlc_top_issuer *alias, size_t nalias,
    const struct crlc_top_issuer *canon, size_t ncanon,
    const struct crlc_top_key *keys, size_t nkeys,
    const struct crlc_top_scope *sc, size_t nsc)
{
	struct topdir_pages tp = { dir, NULL, 0, 0 };
	char path[600], tmp[600];
	size_t i, j;
	int fd;

	snprintf(path, sizeof(path), "%s/scope", dir);
	(void)mkdir(path, 0755);
	for (i = 0; i < nsc; i = j) {
		for (j = i + 1; j < nsc && sc[j].issuer_id == sc[i].issuer_id &&
		    sc[j].key_no == sc[i].key_no; j++)
			;
		if (crlc_pages_build(sc + i, j - i, topdir_page, &tp) != 0)
			abort();
	}
	snprintf(tmp, sizeof(tmp), "%s/.index.mdb.tmp", dir);
	snprintf(path, sizeof(path), "%s/index.mdb", dir);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1 ||
	    crlc_top_write(fd, generation, created, alias, nalias, canon,
	    ncanon, keys, nkeys, tp.v, tp.n) != 0 || close(fd) != 0 ||
	    rename(tmp, path) != 0)
		abort();
	free(tp.v);
}

#endif
