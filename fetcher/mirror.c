/*
 * crlcache mirror DIR: the verified CRLs of the published index as files,
 * so that a plain static web server stands in for the distribution points
 * of an air-gapped network (hosts there set `mirror =`; the names are
 * those of mirror_name.c).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * DIR is walked with openat(O_NOFOLLOW) so that a symbolic link in it is
 * never followed.  Each file is replaced atomically (temporary file,
 * fsync, rename); one whose content is already the same is left alone,
 * so that its mtime, and the Last-Modified and ETag a web server derives
 * from it, stay.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <crlcache/index.h>

#include "fetcher.h"

/* Files one run writes: every "crl" record of an index holding the
   whole Web PKI (~10,000 CA certificates, 128 partitions for the
   largest) fits. */
#define MIRROR_MAX_FILES	200000

/* The file's content is already data (not a link, a regular file)? */
static int
same_content(int dfd, const char *name, const uint8_t *data, size_t len)
{
	struct stat st;
	uint8_t *buf;
	int fd, same = 0;

	/* Not even opened unless a regular file: opening a device may act. */
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    !S_ISREG(st.st_mode) || (size_t)st.st_size != len)
		return 0;
	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (size_t)st.st_size == len) {
		buf = xcalloc(1, len + 1);
		same = read(fd, buf, len + 1) == (ssize_t)len &&
		    memcmp(buf, data, len) == 0;
		free(buf);
	}
	close(fd);
	return same;
}

/*
 * Write data as m's file under the directory dirfd: every directory on
 * the way is created (0755) and entered without following a link.
 * Returns 1 written, 0 already the same, -1 (errno) failed.
 */
static int
write_named(int dirfd, const struct mirror_name *m, const uint8_t *data,
    size_t len)
{
	char tmp[64];
	size_t i;
	int dfd = dirfd, nfd, fd = -1, ret = -1, e;
	static unsigned long serial;

	for (i = 0; i + 1 < m->n; i++) {
		if (mkdirat(dfd, m->comp[i], 0755) == -1 && errno != EEXIST)
			goto done;
		nfd = openat(dfd, m->comp[i], O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (dfd != dirfd)
			close(dfd);
		if ((dfd = nfd) == -1)
			goto done;
	}
	if (same_content(dfd, m->comp[m->n - 1], data, len)) {
		ret = 0;
		goto done;
	}
	snprintf(tmp, sizeof(tmp), ".crlcache-mirror-%ld-%lu", (long)getpid(),
	    serial++);
	if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1)
		goto done;
	if (write(fd, data, len) != (ssize_t)len || fchmod(fd, 0644) == -1 ||
	    fsync(fd) == -1 || renameat(dfd, tmp, dfd, m->comp[m->n - 1]) == -1) {
		e = errno;
		unlinkat(dfd, tmp, 0);
		errno = e;
		goto done;
	}
	(void)fsync(dfd);
	ret = 1;
done:
	e = errno;
	if (fd != -1)
		close(fd);
	if (dfd != dirfd && dfd != -1)
		close(dfd);
	errno = e;
	return ret;
}

/*
 * Which URL last fed which CRL scope: the source records of the working
 * data.  A scope may have several URLs (a CA's two CDPs for one CRL, the
 * base of an applied delta), but its "crl" record names one.
 */
struct fed {
	uint8_t		 key[CRLC_KEY_MAX];
	size_t		 keylen;
	char		*url;
};

struct mirror_walk {
	int		 dirfd;
	size_t		 written, same, skipped, failed, files;
	struct fed	*feds;		/* sorted by key */
	size_t		 nfeds;
	struct mirror_name name;
};

static int
fedcmp(const void *a, const void *b)
{
	const struct fed *x = a, *y = b;
	size_t n = x->keylen < y->keylen ? x->keylen : y->keylen;
	int c = memcmp(x->key, y->key, n);

	return c != 0 ? c : (x->keylen > y->keylen) - (x->keylen < y->keylen);
}

static int
collect_fed(const char *url, const struct source_rec *r, void *arg)
{
	struct mirror_walk *w = arg;
	struct fed *f;

	if (r->scope_keylen == 0 || r->scope_keylen > CRLC_KEY_MAX ||
	    !is_http_url(url, strlen(url)))
		return 0;
	if (w->nfeds == MIRROR_MAX_FILES)
		return 1;
	if (w->nfeds % 1024 == 0) {
		f = realloc(w->feds, (w->nfeds + 1024) * sizeof(*f));
		if (f == NULL)
			return 1;
		w->feds = f;
	}
	f = &w->feds[w->nfeds++];
	memcpy(f->key, r->scope_key, r->scope_keylen);
	f->keylen = r->scope_keylen;
	f->url = xstrdup(url);
	return 0;
}

/* Write one CRL under url's name; 1 to stop the walk (too many). */
static int
mirror_one(struct mirror_walk *w, const char *url, const struct crlc_span *der)
{
	const char *why;
	int rc;

	if (!is_http_url(url, strlen(url))) {
		w->skipped++;	/* imported from a file: no URL to stand in for */
		logx(2, "mirror: %s: not fetched over http(s), skipped", url);
	} else if (mirror_name_parse(url, &w->name, &why) == -1) {
		w->skipped++;
		logx(0, "mirror: %s: skipped: %s", url, why);
	} else if (w->files++ == MIRROR_MAX_FILES) {
		logx(0, "mirror: more than %d CRLs; the rest are skipped",
		    MIRROR_MAX_FILES);
		return 1;
	} else if ((rc = write_named(w->dirfd, &w->name, der->p,
	    der->len)) == -1) {
		w->failed++;
		logx(0, "mirror: %s: %s", url, strerror(errno));
	} else if (rc == 1)
		w->written++;
	else
		w->same++;
	return 0;
}

/*
 * The record's own source gets what it fed (the delta when one is
 * applied); every other URL that fed the scope, the complete CRL.
 */
static int
mirror_crl(const struct crlc_crl_info *ci, void *arg)
{
	struct mirror_walk *w = arg;
	const struct crlc_span *own = ci->delta.len > 0 ? &ci->delta : &ci->der;
	struct fed k, *f, *end;
	char *src;
	int stop;

	if (ci->source.len > CRLC_KEY_MAX || ci->scope.len > CRLC_SCOPE_URI_MAX ||
	    memchr(ci->source.p, '\0', ci->source.len) != NULL) {
		w->skipped++;
		return 0;
	}
	src = xcalloc(1, ci->source.len + 1);
	memcpy(src, ci->source.p, ci->source.len);
	stop = mirror_one(w, src, own);
	/* The "crl" key (format.h): issuer id || key number || scope. */
	crlc_put_u32(k.key, ci->issuer_id);
	crlc_put_u32(k.key + CRLC_ISSUER_ID_LEN, ci->key_no);
	memcpy(k.key + CRLC_PREFIX_LEN, ci->scope.p, ci->scope.len);
	k.keylen = CRLC_PREFIX_LEN + ci->scope.len;
	/* The first fed entry with this key, then every one after it. */
	f = w->feds;
	end = w->feds + w->nfeds;
	while (f < end) {
		struct fed *mid = f + (end - f) / 2;

		if (fedcmp(mid, &k) < 0)
			f = mid + 1;
		else
			end = mid;
	}
	for (; !stop && f < w->feds + w->nfeds && fedcmp(f, &k) == 0; f++)
		if (strcmp(f->url, src) != 0)
			stop = mirror_one(w, f->url, &ci->der);
	free(src);
	return stop;
}

int
cmd_mirror(const char *state_dir, int argc, char **argv)
{
	struct mirror_walk *w = NULL;
	struct crlc_index *idx = NULL;
	char path[PATH_MAX];
	size_t i;
	int rc, ret = 4;

	if (argc != 2 || argv[1][0] == '-') {
		logx(0, "usage: crlcache mirror DIR");
		return 4;
	}
	w = xcalloc(1, sizeof(*w));
	if ((w->dirfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		logx(0, "%s: %s", argv[1], strerror(errno));
		goto done;
	}
	if (index_open(state_dir, path, sizeof(path), &idx, 1) == -1)
		goto done;
	/* Only root and the crlcache user read them: else one URL a scope. */
	if (store_foreach_source(state_dir, collect_fed, w) == -1)
		logx(1, "mirror: the sources are not readable; each CRL is "
		    "written under the one URL the index names");
	qsort(w->feds, w->nfeds, sizeof(*w->feds), fedcmp);
	rc = crlc_index_foreach_crl(idx, mirror_crl, w);
	if (rc == -1) {
		logx(0, "%s: cannot read the index", path);
		goto done;
	}
	logx(1, "mirror: %zu written, %zu unchanged, %zu skipped, %zu failed",
	    w->written, w->same, w->skipped, w->failed);
	ret = w->failed > 0 || rc != 0 ? 1 : 0;
done:
	if (w != NULL) {
		if (w->dirfd != -1)
			close(w->dirfd);
		for (i = 0; i < w->nfeds; i++)
			free(w->feds[i].url);
		free(w->feds);
	}
	free(w);
	crlc_index_close(idx);
	return ret;
}
