/*
 * OneCRL in force, read into private memory and searched
 * (<crlcache/onecrl.h>: the layout, and what each check stands for).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <crlcache/format.h>
#include <crlcache/hash.h>
#include <crlcache/onecrl.h>
#include <crlcache/statefile.h>

struct crlc_onecrl {
	uint8_t			*buf;		/* the whole file */
	const uint8_t		*is, *sk;	/* its two runs of records */
	struct crlc_onecrl_info	 info;
	uint64_t		 id;		/* crlc_onecrl_id() */
};

/* Ids of parsed lists: a process parses few, never 2^64. */
static _Atomic uint64_t last_id;

/* Are the n records at r in strictly ascending order? */
static int
ascending(const uint8_t *r, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (memcmp(r + (i - 1) * CRLC_ONECRL_REC_LEN,
		    r + i * CRLC_ONECRL_REC_LEN, CRLC_ONECRL_REC_LEN) >= 0)
			return 0;
	return 1;
}

int
crlc_onecrl_parse(const uint8_t *b, size_t len, struct crlc_onecrl **out,
    char *why, size_t whylen)
{
	struct crlc_onecrl *o;
	uint32_t ni, ns;

	*out = NULL;
	if (len < CRLC_ONECRL_HDR_LEN + CRLC_ONECRL_TRAILER_LEN ||
	    memcmp(b, CRLC_ONECRL_MAGIC, CRLC_ONECRL_MAGIC_LEN) != 0 ||
	    crlc_get_u32(b + 8) != CRLC_ONECRL_VERSION)
		return crlc_refuse(why, whylen, "%s: not a OneCRL file of version "
		    "%u", CRLC_ONECRL_NAME, CRLC_ONECRL_VERSION);
	ni = crlc_get_u32(b + 12);
	ns = crlc_get_u32(b + 16);
	/* counts first: their product with the record size cannot wrap */
	if (ni > CRLC_ONECRL_MAX || ns > CRLC_ONECRL_MAX ||
	    len != CRLC_ONECRL_HDR_LEN + ((size_t)ni + ns) *
	    CRLC_ONECRL_REC_LEN + CRLC_ONECRL_TRAILER_LEN)
		return crlc_refuse(why, whylen, "%s: %u and %u records in %zu "
		    "bytes", CRLC_ONECRL_NAME, ni, ns, len);
	if (crlc_sum64(b, len - CRLC_ONECRL_TRAILER_LEN) !=
	    crlc_get_u64(b + len - CRLC_ONECRL_TRAILER_LEN))
		return crlc_refuse(why, whylen, "%s: checksum mismatch",
		    CRLC_ONECRL_NAME);
	if (!ascending(b + CRLC_ONECRL_HDR_LEN, ni) ||
	    !ascending(b + CRLC_ONECRL_HDR_LEN + (size_t)ni *
	    CRLC_ONECRL_REC_LEN, ns))
		return crlc_refuse(why, whylen, "%s: records out of order",
		    CRLC_ONECRL_NAME);
	if ((o = calloc(1, sizeof(*o))) == NULL ||
	    (o->buf = malloc(len)) == NULL) {
		free(o);
		return crlc_refuse(why, whylen, "out of memory");
	}
	memcpy(o->buf, b, len);
	o->is = o->buf + CRLC_ONECRL_HDR_LEN;
	o->sk = o->is + (size_t)ni * CRLC_ONECRL_REC_LEN;
	o->id = atomic_fetch_add(&last_id, 1) + 1;
	o->info.issuer_serial = ni;
	o->info.subject_key = ns;
	o->info.skipped = crlc_get_u32(b + 20);
	o->info.installed = (int64_t)crlc_get_u64(b + 24);
	o->info.timestamp = (int64_t)crlc_get_u64(b + 32);
	*out = o;
	return 0;
}

int
crlc_onecrl_open(const char *dir, struct crlc_onecrl **out, char *why,
    size_t whylen)
{
	int dfd, ret;

	*out = NULL;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return errno == ENOENT ? 1 : crlc_refuse(why, whylen, "%s",
		    strerror(errno));
	ret = crlc_onecrl_open_at(dfd, out, why, whylen);
	close(dfd);
	return ret;
}

int
crlc_onecrl_open_at(int dfd, struct crlc_onecrl **out, char *why,
    size_t whylen)
{
	struct stat dsb, sb;
	uint8_t *buf = NULL;
	int fd = -1, ret = -1;

	*out = NULL;
	if (fstat(dfd, &dsb) == -1 || (dsb.st_mode & (S_IWGRP | S_IWOTH))) {
		crlc_refuse(why, whylen, "the directory is writable by others "
		    "than its owner");
		goto done;
	}
	if ((fd = crlc_state_open(dfd, &dsb, CRLC_ONECRL_NAME, &sb)) == -1) {
		ret = errno == ENOENT ? 1 : crlc_refuse(why, whylen, "%s: %s",
		    CRLC_ONECRL_NAME, crlc_state_open_why(errno));
		goto done;
	}
	if (sb.st_size < CRLC_ONECRL_HDR_LEN + CRLC_ONECRL_TRAILER_LEN ||
	    (uint64_t)sb.st_size > CRLC_ONECRL_MAX_LEN) {
		crlc_refuse(why, whylen, "%s: %lld bytes, not a OneCRL file",
		    CRLC_ONECRL_NAME, (long long)sb.st_size);
		goto done;
	}
	if ((buf = malloc((size_t)sb.st_size)) == NULL) {
		crlc_refuse(why, whylen, "out of memory");
		goto done;
	}
	if (crlc_read_exact(fd, buf, (size_t)sb.st_size) == -1) {
		crlc_refuse(why, whylen, "%s: changed while read", CRLC_ONECRL_NAME);
		goto done;
	}
	ret = crlc_onecrl_parse(buf, (size_t)sb.st_size, out, why, whylen);
done:
	free(buf);
	if (fd != -1)
		close(fd);
	return ret;
}

void
crlc_onecrl_free(struct crlc_onecrl *o)
{
	if (o == NULL)
		return;
	free(o->buf);
	free(o);
}

void
crlc_onecrl_info(const struct crlc_onecrl *o, struct crlc_onecrl_info *info)
{
	*info = o->info;
}

/* The first of the n records at r whose first klen bytes are >= key. */
static size_t
lower_bound(const uint8_t *r, size_t n, const uint8_t *key, size_t klen)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (memcmp(r + mid * CRLC_ONECRL_REC_LEN, key, klen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Is a record of the n at r keyed by the name whose SHA-256 is h? */
static int
named(const uint8_t *r, size_t n, const uint8_t h[CRLC_ONECRL_KEY_LEN])
{
	size_t i = lower_bound(r, n, h, CRLC_ONECRL_KEY_LEN);

	return i < n && memcmp(r + i * CRLC_ONECRL_REC_LEN, h,
	    CRLC_ONECRL_KEY_LEN) == 0;
}

unsigned
crlc_onecrl_named(const struct crlc_onecrl *o,
    const uint8_t h[CRLC_ONECRL_KEY_LEN])
{
	return (named(o->is, o->info.issuer_serial, h) ?
	    CRLC_ONECRL_NAMES_ISSUER : 0) |
	    (named(o->sk, o->info.subject_key, h) ?
	    CRLC_ONECRL_NAMES_SUBJECT : 0);
}

int
crlc_onecrl_listed(const struct crlc_onecrl *o, enum crlc_onecrl_hit kind,
    const uint8_t h[CRLC_ONECRL_KEY_LEN], const struct crlc_span *second)
{
	const uint8_t *r = kind == CRLC_ONECRL_ISSUER_SERIAL ? o->is : o->sk;
	size_t n = kind == CRLC_ONECRL_ISSUER_SERIAL ? o->info.issuer_serial :
	    o->info.subject_key, i;
	uint8_t key[CRLC_ONECRL_REC_LEN];

	if (kind == CRLC_ONECRL_NONE || n == 0 || second->len == 0)
		return 0;
	memcpy(key, h, CRLC_ONECRL_KEY_LEN);
	crlc_sha256(second->p, second->len, key + CRLC_ONECRL_KEY_LEN);
	i = lower_bound(r, n, key, CRLC_ONECRL_REC_LEN);
	return i < n && memcmp(r + i * CRLC_ONECRL_REC_LEN, key,
	    CRLC_ONECRL_REC_LEN) == 0;
}

uint64_t
crlc_onecrl_id(const struct crlc_onecrl *o)
{
	return o->id;
}

enum crlc_onecrl_hit
crlc_onecrl_lookup(const struct crlc_onecrl *o, const struct crlc_span *issuer,
    const struct crlc_span *serial, const struct crlc_span *subject,
    const struct crlc_span *spki)
{
	uint8_t h[CRLC_ONECRL_KEY_LEN];

	if (issuer->len > 0) {
		crlc_sha256(issuer->p, issuer->len, h);
		if ((crlc_onecrl_named(o, h) & CRLC_ONECRL_NAMES_ISSUER) &&
		    crlc_onecrl_listed(o, CRLC_ONECRL_ISSUER_SERIAL, h, serial))
			return CRLC_ONECRL_ISSUER_SERIAL;
	}
	if (subject->len > 0) {
		crlc_sha256(subject->p, subject->len, h);
		if ((crlc_onecrl_named(o, h) & CRLC_ONECRL_NAMES_SUBJECT) &&
		    crlc_onecrl_listed(o, CRLC_ONECRL_SUBJECT_KEY, h, spki))
			return CRLC_ONECRL_SUBJECT_KEY;
	}
	return CRLC_ONECRL_NONE;
}
