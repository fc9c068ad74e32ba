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
#include <sys/statvfs.h>
#include <unistd.h>

#include <crlcache/index.h>

#include "cmd.h"
#include "fetcher.h"
#include "mirror_name.h"
#include "privs.h"
#include "proposed.h"
#include "source.h"
#include "state.h"

/* Files one run writes: every "crl" record of an index holding the
   whole Web PKI (~10,000 CA certificates, 128 partitions for the
   largest) fits. */
#define MIRROR_MAX_FILES	200000
/* One CRL: the largest max_size crlcache.conf accepts (conf.c), which
   every CRL in the index passed. */
#define MIRROR_MAX_CRL		((size_t)1 << 30)

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
 * The share of DIR's filesystem a mirror leaves free, in 1/MIRROR_KEEP_FREE
 * of its blocks and of its inodes.  What the child sends is the state's
 * owner's to choose (up to MIRROR_MAX_FILES of MIRROR_MAX_CRL each, each
 * up to MIRROR_MAX_DEPTH - 1 directories deep), so it is the room left,
 * not the index, that bounds what root creates.
 */
#define MIRROR_KEEP_FREE	20	/* 5% */
/*
 * Directories one run creates, as many as the files it writes.  The URLs
 * of a sound index share their schemes, hosts and leading path segments;
 * even the Web PKI's 16,000 CRLs each on a host and a path of a few
 * segments of its own would need fewer.  Many URLs each deep in a path of
 * their own stop here, not at MIRROR_MAX_FILES times MIRROR_MAX_DEPTH.
 */
#define MIRROR_MAX_DIRS		MIRROR_MAX_FILES

/* The writing side, in the caller (root, for a DIR only root may write). */
struct mirror_write {
	int		 dirfd;
	size_t		 written, same, skipped, failed, files, dirs;
	int		 stopped;	/* a bound reached: nothing more created */
	struct mirror_name name;
};

/*
 * May ndirs directories and a file of len bytes be created under dfd?
 * Each directory counts one block and one inode, the file its blocks
 * rounded up and one inode, and one block more for the entry it adds to
 * an existing directory.  When not, says why and stops the mirror.
 */
static int
room_for(struct mirror_write *w, int dfd, size_t ndirs, size_t len)
{
	struct statvfs sv;
	unsigned long long blocks, inodes = ndirs + 1;
	const char *what = NULL;

	if (w->dirs + ndirs > MIRROR_MAX_DIRS) {
		logx(0, "mirror: more than %d directories would be created; "
		    "nothing more is written", MIRROR_MAX_DIRS);
		w->stopped = 1;
		return 0;
	}
	if (fstatvfs(dfd, &sv) == -1 || sv.f_frsize == 0)
		return 1;	/* the write itself will say what is wrong */
	blocks = ndirs + 1 + ((unsigned long long)len + sv.f_frsize - 1) /
	    sv.f_frsize;
	if (sv.f_bavail < sv.f_blocks / MIRROR_KEEP_FREE ||
	    sv.f_bavail - sv.f_blocks / MIRROR_KEEP_FREE < blocks)
		what = "space";
	/* No inode count (f_files 0: btrfs, for one): blocks alone. */
	else if (sv.f_files > 0 &&
	    (sv.f_favail < sv.f_files / MIRROR_KEEP_FREE ||
	    sv.f_favail - sv.f_files / MIRROR_KEEP_FREE < inodes))
		what = "inodes";
	if (what == NULL)
		return 1;
	logx(0, "mirror: the directory's filesystem would have less than 1/%d "
	    "of its %s free; nothing more is written", MIRROR_KEEP_FREE, what);
	w->stopped = 1;
	return 0;
}

/*
 * Write data as m's file under w's directory: every directory on the way
 * is entered without following a link, and created (0755) where missing
 * once room_for() allows all that is left to create.  Returns 1 written,
 * 0 already the same, 2 not written (room_for() refused), -1 (errno)
 * failed.
 */
static int
write_named(struct mirror_write *w, const struct mirror_name *m,
    const uint8_t *data, size_t len)
{
	char tmp[64];
	size_t i;
	int dfd = w->dirfd, nfd, fd = -1, ret = -1, e, made = 0;
	static unsigned long serial;

	for (i = 0; i + 1 < m->n; i++) {
		nfd = openat(dfd, m->comp[i], O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (nfd == -1 && errno == ENOENT) {
			/* Nothing under a new directory exists yet. */
			if (!made && !room_for(w, dfd, m->n - 1 - i, len)) {
				ret = 2;
				goto done;
			}
			made = 1;
			if (mkdirat(dfd, m->comp[i], 0755) == -1)
				goto done;
			w->dirs++;
			nfd = openat(dfd, m->comp[i], O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
		}
		if (dfd != w->dirfd)
			close(dfd);
		if ((dfd = nfd) == -1)
			goto done;
	}
	if (!made && same_content(dfd, m->comp[m->n - 1], data, len)) {
		ret = 0;
		goto done;
	}
	if (!made && !room_for(w, dfd, 0, len)) {
		ret = 2;
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
	if (dfd != w->dirfd && dfd != -1)
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

/* The reading side, in the child running as the state's owner. */
struct mirror_read {
	FILE		*out;		/* to the writing side */
	struct fed	*feds;		/* sorted by key */
	size_t		 nfeds;
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
	struct mirror_read *rd = arg;
	struct fed *f;

	if (r->scope_keylen == 0 || r->scope_keylen > CRLC_KEY_MAX ||
	    !is_http_url(url, strlen(url)))
		return 0;
	if (rd->nfeds == MIRROR_MAX_FILES)
		return 1;
	if (rd->nfeds % 1024 == 0) {
		f = realloc(rd->feds, (rd->nfeds + 1024) * sizeof(*f));
		if (f == NULL)
			return 1;
		rd->feds = f;
	}
	f = &rd->feds[rd->nfeds++];
	memcpy(f->key, r->scope_key, r->scope_keylen);
	f->keylen = r->scope_keylen;
	f->url = xstrdup(url);
	return 0;
}

/*
 * One CRL to write under one URL, from the reading side to the writing
 * side: URL length (u32, big-endian), URL, DER length, DER.  An empty
 * URL stands for a record that was skipped.  -1: the pipe is gone.
 */
static int
send_crl(struct mirror_read *rd, const char *url, const struct crlc_span *der)
{
	uint8_t len[4];
	size_t ulen = strlen(url);

	crlc_put_u32(len, (uint32_t)ulen);
	if (fwrite(len, 1, sizeof(len), rd->out) != sizeof(len) ||
	    fwrite(url, 1, ulen, rd->out) != ulen)
		return -1;
	crlc_put_u32(len, (uint32_t)der->len);
	if (fwrite(len, 1, sizeof(len), rd->out) != sizeof(len) ||
	    fwrite(der->p, 1, der->len, rd->out) != der->len)
		return -1;
	return 0;
}

/*
 * The record's own source gets what it fed (the delta when one is
 * applied); every other URL that fed the scope, the complete CRL.
 */
static int
mirror_crl(const struct crlc_crl_info *ci, void *arg)
{
	static const struct crlc_span none = { NULL, 0 };
	struct mirror_read *rd = arg;
	const struct crlc_span *own = ci->delta.len > 0 ? &ci->delta : &ci->der;
	struct fed k, *f, *end;
	char *src;
	int stop;

	if (ci->source.len > CRLC_KEY_MAX || ci->scope.len > CRLC_SCOPE_URI_MAX ||
	    memchr(ci->source.p, '\0', ci->source.len) != NULL ||
	    ci->source.len == 0 || own->len > MIRROR_MAX_CRL ||
	    ci->der.len > MIRROR_MAX_CRL)
		return send_crl(rd, "", &none) == -1;
	src = xcalloc(1, ci->source.len + 1);
	memcpy(src, ci->source.p, ci->source.len);
	stop = send_crl(rd, src, own) == -1;
	/* The "crl" key (format.h): issuer id || key number || scope. */
	crlc_put_u32(k.key, ci->issuer_id);
	crlc_put_u32(k.key + CRLC_ISSUER_ID_LEN, ci->key_no);
	memcpy(k.key + CRLC_PREFIX_LEN, ci->scope.p, ci->scope.len);
	k.keylen = CRLC_PREFIX_LEN + ci->scope.len;
	/* The first fed entry with this key, then every one after it. */
	f = rd->feds;
	end = rd->feds + rd->nfeds;
	while (f < end) {
		struct fed *mid = f + (end - f) / 2;

		if (fedcmp(mid, &k) < 0)
			f = mid + 1;
		else
			end = mid;
	}
	for (; !stop && f < rd->feds + rd->nfeds && fedcmp(f, &k) == 0; f++)
		if (strcmp(f->url, src) != 0)
			stop = send_crl(rd, f->url, &ci->der) == -1;
	free(src);
	return stop;
}

/*
 * The reading side: every CRL of the published index, under every URL
 * that fed it, to out.  Exit code 0, 1 (not all of the index walked) or
 * 4 (no index).
 */
static int
mirror_read(struct state *st, FILE *out, void *arg)
{
	struct mirror_read rd = { out, NULL, 0 };
	struct crlc_index *idx = NULL;
	char path[PATH_MAX];
	size_t i;
	int rc;

	(void)arg;
	if (index_open(st, path, sizeof(path), &idx, 1) == -1)
		return 4;
	if (store_foreach_source(st, collect_fed, &rd) == -1)
		logx(1, "mirror: the sources are not readable; each CRL is "
		    "written under the one URL the index names");
	qsort(rd.feds, rd.nfeds, sizeof(*rd.feds), fedcmp);
	if ((rc = crlc_index_foreach_crl(idx, 0, CRLC_WALK_CRLS, mirror_crl,
	    &rd)) == -1) {
		logx(0, "%s: cannot read the index", path);
		rc = 4;
	}
	for (i = 0; i < rd.nfeds; i++)
		free(rd.feds[i].url);
	free(rd.feds);
	crlc_index_close(idx);
	return rc;
}

/* Write one CRL under url's name. */
static void
mirror_one(struct mirror_write *w, const char *url, const uint8_t *der,
    size_t len)
{
	const char *why;
	int rc;

	if (*url == '\0')
		w->skipped++;	/* a record of the index that makes no sense */
	else if (!is_http_url(url, strlen(url))) {
		w->skipped++;	/* imported from a file: no URL to stand in for */
		logx(2, "mirror: %s: not fetched over http(s), skipped", url);
	} else if (mirror_name_parse(url, &w->name, &why) == -1) {
		w->skipped++;
		logx(0, "mirror: %s: skipped: %s", url, why);
	} else if (w->stopped)
		w->skipped++;
	else if (w->files++ == MIRROR_MAX_FILES) {
		logx(0, "mirror: more than %d CRLs; nothing more is written",
		    MIRROR_MAX_FILES);
		w->stopped = 1;
		w->skipped++;
	} else if ((rc = write_named(w, &w->name, der, len)) == -1) {
		w->failed++;
		logx(0, "mirror: %s: %s", url, strerror(errno));
	} else if (rc == 2)
		w->skipped++;
	else if (rc == 1)
		w->written++;
	else
		w->same++;
}

/* n bytes of in, at most max, into a buffer of its own; NULL at the end. */
static uint8_t *
recv_field(FILE *in, size_t max, size_t *n)
{
	uint8_t len[4], *buf;

	if (fread(len, 1, sizeof(len), in) != sizeof(len) ||
	    (*n = crlc_get_u32(len)) > max)
		return NULL;
	buf = xcalloc(1, *n + 1);	/* + 1: a URL is read as a string */
	if (fread(buf, 1, *n, in) != *n) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * The writing side: every CRL the reading side sends, into DIR.  0, or
 * -1 when what it sends is not what send_crl() writes.
 */
static int
mirror_write(FILE *in, void *arg)
{
	struct mirror_write *w = arg;
	uint8_t *url, *der;
	size_t ulen, dlen;
	int c;

	while ((c = getc(in)) != EOF) {
		ungetc(c, in);
		if ((url = recv_field(in, CRLC_KEY_MAX, &ulen)) == NULL)
			return -1;
		if (memchr(url, '\0', ulen) != NULL ||
		    (der = recv_field(in, MIRROR_MAX_CRL, &dlen)) == NULL) {
			free(url);
			return -1;
		}
		mirror_one(w, (const char *)url, der, dlen);
		free(url);
		free(der);
	}
	return ferror(in) ? -1 : 0;
}

int
cmd_mirror(const struct cmd_ctx *c, int argc, char **argv)
{
	struct mirror_write *w;
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
	/* The state read as its owner, DIR written by the caller. */
	if ((rc = as_state_owner(c, mirror_read, NULL, mirror_write, w)) == -1 ||
	    rc == 4) {
		logx(0, "mirror: the published CRLs could not be read");
		goto done;
	}
	logx(1, "mirror: %zu written, %zu unchanged, %zu skipped, %zu failed",
	    w->written, w->same, w->skipped, w->failed);
	ret = w->failed > 0 || w->stopped || rc != 0 ? 1 : 0;
done:
	if (w->dirfd != -1)
		close(w->dirfd);
	free(w);
	return ret;
}
