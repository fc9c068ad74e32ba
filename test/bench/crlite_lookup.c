/*
 * Benchmark: one CRLite lookup across a set of many filters, through the
 * readers' API (<crlcache/crliteset.h>), as the provider makes it.
 *
 *   crlite_lookup DELTA DIR N
 *
 * DIR/crlite gets a set of N filters, each Mozilla's real delta DELTA
 * (test/data/crlite) with its first coverage entry's high moved on by
 * its place (distinct bytes, the same answers), and the set's lookup
 * file written by lib/crlitelookup.c, as the fetcher writes it.  Rows
 * (test/bench/common.sh bench_rows), median of batches:
 *   - a lookup of an issuer held (the DigiCert P384 G5 site: good in
 *     every filter, so every filter is asked), its record read before;
 *   - the same of the issuer with the most revocations whose record is
 *     still held (rows read in every filter);
 *   - the same of the delta's largest issuer, whose record over N
 *     filters is too large to hold: read a few words a filter each time;
 *   - opening the set and the first lookup of an issuer (the cost a
 *     process pays once);
 *   - the same lookups and open on the sharer's sealed copy of the lookup
 *     file, mapped (<crlcache/crliteshare.h>; a sharer thread here
 *     answers as `crlcache share` does), after checking that every
 *     answer is the one read from the file.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <crlcache/crlite.h>
#include <crlcache/crliteset.h>
#include <crlcache/crliteshare.h>
#include <crlcache/format.h>
#include <crlcache/hash.h>

#include "bench.h"

#define BATCHES	11
#define PER	2000
/* test/data/crlite/sites.txt: digicert-p384-g5 */
#define SITE_ISSUER "2ec39da83170de0a28fc6f238de10fc5ef89489eda169d51179221e3fd99bc56"
#define SITE_SERIAL "0e46f9db5bb19eee8e45f2dcdc260cca"
#define SITE_LOG "d76d7d10d1a7f577c2c7e95fd700bff982c9335a65e1d0b3017317c0c8c56977"
#define SITE_MS 1781427700554ull

static size_t
unhex(const char *h, uint8_t *out)
{
	size_t n;

	for (n = 0; h[2 * n] != '\0'; n++)
		if (sscanf(h + 2 * n, "%2hhx", &out[n]) != 1)
			exit(2);
	return n;
}

/* The site's SCT list: one v1 SCT of its log and time (RFC 6962 3.3). */
static size_t
sct_list(uint8_t *b)
{
	size_t n = 6;

	b[n++] = 0;				/* v1 */
	n += unhex(SITE_LOG, b + n);
	crlc_put_u64(b + n, SITE_MS);
	n += 8;
	memcpy(b + n, "\0\0\4\3\0\1Z", 7);	/* no extensions, a signature */
	n += 7;
	b[0] = 0x04;
	b[1] = (uint8_t)(n - 2);
	crlc_put_u32(b + 2, (uint32_t)(n - 4) << 16 | (uint32_t)(n - 6));
	return n;
}

static void
write_at(const char *dir, const char *name, const void *p, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "wb")) == NULL || fwrite(p, 1, len, f) != len ||
	    fclose(f) != 0)
		exit(2);
	chmod(path, 0644);
}

/* The set of n variants of the delta and its lookup file in dir. */
/* A part's bytes in the lookup file (<crlcache/crlite.h> LOOKUP FILE). */
static uint64_t
part_len(const struct crlc_clubcard_block *b)
{
	return CRLC_CRLITE_LOOKUP_PART_LEN + 8 * (((b->approx_m + 63) / 64 +
	    CRLC_CLUBCARD_WINDOW) * b->rank + (b->exact_m + 63) / 64 +
	    CRLC_CLUBCARD_WINDOW);
}

static void
make_set(const uint8_t *delta, size_t len, const char *dir, size_t n,
    uint8_t *largest, uint8_t *held)
{
	static struct crlc_clubcard *cc[CRLC_CRLITE_FILTERS_MAX];
	static uint8_t set[CRLC_CRLITE_HDR_LEN + CRLC_CRLITE_FILTERS_MAX *
	    CRLC_CRLITE_REC_LEN + CRLC_CRLITE_TRAILER_LEN];
	char name[CRLC_CRLITE_LOOKUP_NAME_LEN], why[CRLC_CRLITESET_WHY_LEN];
	struct crlc_clubcard_block b;
	uint8_t *v, *out, *rec;
	uint64_t sum, most = 0, most_held = 0;
	size_t i, k, outlen, slen;

	memcpy(set, CRLC_CRLITE_MAGIC, CRLC_CRLITE_MAGIC_LEN);
	crlc_put_u32(set + 8, CRLC_CRLITE_VERSION);
	crlc_put_u32(set + 12, (uint32_t)n);
	for (i = 0; i < n; i++) {
		if ((v = malloc(len)) == NULL)
			exit(2);
		memcpy(v, delta, len);
		/* version 4: the first coverage entry's high at 44 */
		crlc_put_u64(v + 44, crlc_get_u64(v + 44) + i);
		if (crlc_clubcard_parse(v, len, &cc[i], why, sizeof(why)) != 0) {
			fprintf(stderr, "%s\n", why);
			exit(2);
		}
		rec = set + CRLC_CRLITE_HDR_LEN + i * CRLC_CRLITE_REC_LEN;
		crlc_sha256(v, len, rec);
		crlc_put_u64(rec + 32, len);
		rec[40] = i == 0 ? CRLC_CRLITE_FULL : CRLC_CRLITE_DELTA;
	}
	for (k = 0; crlc_clubcard_block(cc[0], k, &b) == 0; k++)
	{
		if (b.approx_m * b.rank > most) {
			most = b.approx_m * b.rank;
			memcpy(largest, b.issuer, CRLC_SCT_HASH_LEN);
		}
		/* lib/crliteset.c RECORD_HELD_MAX: 64 KiB */
		if (b.approx_m * b.rank > most_held &&
		    part_len(&b) * n <= ((uint64_t)60 << 10)) {
			most_held = b.approx_m * b.rank;
			memcpy(held, b.issuer, CRLC_SCT_HASH_LEN);
		}
	}
	slen = CRLC_CRLITE_HDR_LEN + n * CRLC_CRLITE_REC_LEN;
	crlc_put_u64(set + slen, sum = crlc_sum64(set, slen));
	if (crlc_crlite_lookup_build((const struct crlc_clubcard *const *)cc,
	    n, sum, &out, &outlen, why, sizeof(why)) != 0) {
		fprintf(stderr, "%s\n", why);
		exit(2);
	}
	crlc_crlite_lookup_name(sum, name, sizeof(name));
	write_at(dir, name, out, outlen);
	write_at(dir, CRLC_CRLITE_SET_NAME, set, slen + CRLC_CRLITE_TRAILER_LEN);
	printf("set of %zu filters of %zu bytes; lookup file %zu bytes\n", n,
	    len, outlen);
	free(out);
}

/* The sharer: its socket, the sealed copy, the set's checksum. */
static char sock[600];
static int share_fd = -1;
static uint64_t share_sum;

/* Answer every request with the sealed copy, as `crlcache share` does. */
static void *
sharer(void *arg)
{
	int lfd = *(int *)arg, cfd;
	uint64_t want;

	while ((cfd = accept(lfd, NULL, NULL)) != -1) {
		if (crlc_share_request(cfd, CRLC_SHARE_WAIT_MS, &want) == 0)
			(void)crlc_share_reply(cfd, share_fd, share_sum);
		close(cfd);
	}
	return NULL;
}

/* The sealed copy of dir's lookup file, and a sharer of it on sock. */
static void
sharer_start(const char *dir)
{
	static int lfd;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct crlc_crliteset_file f;
	char name[CRLC_CRLITE_LOOKUP_NAME_LEN], path[600];
	struct stat sb;
	pthread_t t;
	int fd;

	if (crlc_crliteset_read(dir, &f, NULL, 0) != 0)
		exit(2);
	share_sum = f.sum;
	crlc_crlite_lookup_name(f.sum, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(sock, sizeof(sock), "%s/../share.sock", dir);
	if ((fd = open(path, O_RDONLY)) == -1 || fstat(fd, &sb) == -1 ||
	    (share_fd = crlc_share_memfd(fd, (uint64_t)sb.st_size, NULL,
	    0)) == -1 || strlen(sock) >= sizeof(sa.sun_path))
		exit(2);
	close(fd);
	memcpy(sa.sun_path, sock, strlen(sock) + 1);
	unlink(sock);
	if ((lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) == -1 ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(lfd, 16) == -1 || pthread_create(&t, NULL, sharer, &lfd) != 0)
		exit(2);
}

/* The set of dir, opened on the sharer's copy (sharer_start) or not. */
static struct crlc_crliteset *
set_open(const char *dir, int shared)
{
	struct crlc_crliteset *set;
	char why[CRLC_CRLITESET_WHY_LEN];

	if (crlc_crliteset_open_shared(dir, shared ? sock : NULL,
	    CRLC_SHARE_WAIT_MS, &set, NULL, 0, why, sizeof(why)) != 0 ||
	    crlc_crliteset_mapped(set) != shared) {
		fprintf(stderr, "not shared: %s\n", why);
		exit(2);
	}
	return set;
}

/* Microseconds per call of the median batch. */
static double
per_call(struct crlc_crliteset *set, const char *dir, const uint8_t *issuer,
    const struct crlc_span *serial, const struct crlc_span *list, int open,
    int shared)
{
	double t[BATCHES], t0;
	uint64_t newest;
	int b, i, n = open ? PER / 20 : PER;
	volatile int sink = 0;

	for (b = 0; b < BATCHES; b++) {
		t0 = now();
		for (i = 0; i < n; i++) {
			if (open)
				set = set_open(dir, shared);
			sink += (int)crlc_crliteset_ask(set, issuer, serial, list,
			    &newest);
			if (open)
				crlc_crliteset_free(set);
		}
		t[b] = (now() - t0) / n * 1e6;
	}
	(void)sink;
	return median(t, BATCHES);
}

int
main(int argc, char **argv)
{
	static uint8_t delta[CRLC_CLUBCARD_MAX_LEN];
	uint8_t issuer[32], largest[32], held[32], serial[20], list[64];
	struct crlc_span sp, sl;
	static const char *const how[] = { " (read)", " (shared copy, mapped)" };
	const uint8_t *who[3] = { issuer, held, largest };
	enum crlc_clubcard_answer a, want[3];
	struct crlc_crliteset *set;
	size_t n, len, filters, bytes, i, k;
	char dir[512];
	FILE *f;

	if (argc != 4 || (n = (size_t)atoi(argv[3])) == 0 ||
	    n > CRLC_CRLITE_FILTERS_MAX || (f = fopen(argv[1], "rb")) == NULL)
		return 2;
	len = fread(delta, 1, sizeof(delta), f);
	fclose(f);
	snprintf(dir, sizeof(dir), "%s/%s", argv[2], CRLC_CRLITE_DIR);
	mkdir(dir, 0755);
	make_set(delta, len, dir, n, largest, held);
	unhex(SITE_ISSUER, issuer);
	sp.p = serial;
	sp.len = unhex(SITE_SERIAL, serial);
	sl.p = list;
	sl.len = sct_list(list);
	sharer_start(dir);
	for (k = 0; k < 2; k++) {
		set = set_open(dir, (int)k);
		if (crlc_crliteset_ask(set, issuer, &sp, &sl, NULL) !=
		    CRLC_CLUBCARD_GOOD)
			return 2;
		/* the mapped set answers as the file does */
		for (i = 0; i < 3; i++) {
			a = crlc_crliteset_ask(set, who[i], &sp, &sl, NULL);
			if (k == 0)
				want[i] = a;
			else if (a != want[i])
				return 2;
		}
		printf("ROW\tCRLite lookup, %zu filters, issuer held (good in all)%s\t-\t%.2f\t-\tus\t<= 10 us\n",
		    n, how[k], per_call(set, dir, issuer, &sp, &sl, 0, 0));
		printf("ROW\tCRLite lookup, %zu filters, issuer with revocations%s\t-\t%.2f\t-\tus\t<= 10 us\n",
		    n, how[k], per_call(set, dir, held, &sp, &sl, 0, 0));
		printf("ROW\tCRLite lookup, %zu filters, largest issuer%s\t-\t%.2f\t-\tus\t<= 10 us\n",
		    n, how[k], per_call(set, dir, largest, &sp, &sl, 0, 0));
		crlc_crliteset_size(set, &filters, &bytes);
		printf("memory held after them%s: %zu bytes\n", how[k], bytes);
		crlc_crliteset_free(set);
		printf("ROW\tCRLite set open and first lookup, %zu filters%s\t-\t%.2f\t-\tus\n",
		    n, how[k], per_call(NULL, dir, issuer, &sp, &sl, 1, (int)k));
	}
	return 0;
}
