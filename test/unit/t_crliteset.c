/*
 * lib/crliteset.c: the CRLite set of <crlcache/crlite.h> read from a
 * directory, with Mozilla's real delta filter (test/data/crlite); every
 * field of the set file spoilt in turn is a refusal naming it, never a
 * read outside the file (ASan).  The sharer's sealed copy
 * (<crlcache/crliteshare.h>): mapped, the same answers; every copy
 * that could change, fault or cost the reader, and a sharer of another
 * account or that never answers, refused within the wait.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <crlcache/crlite.h>
#include <crlcache/crliteset.h>
#include <crlcache/crliteshare.h>
#include <crlcache/format.h>
#include <crlcache/hash.h>

#include "check.h"
#include "tmpdir.h"
#include "wfile.h"

#define DELTA		"test/data/crlite/20260624-1-default.filter.delta"
#define DELTA_LEN	176981u
#define DELTA_NEWEST	1782305424367ull	/* test/data/crlite/SOURCES */
#define SET_LEN		(CRLC_CRLITE_HDR_LEN + CRLC_CRLITE_REC_LEN + \
			 CRLC_CRLITE_TRAILER_LEN)

static char dir[TMPDIR_PATH_MAX], sub[TMPDIR_PATH_MAX + 16];
static uint8_t name[CRLC_HASH_LEN];
static struct crlc_clubcard *delta;

/* The lookup file of the set whose checksum is sum, for n filters. */
static void
write_lookup(uint64_t sum, uint64_t for_sum, size_t n)
{
	const struct crlc_clubcard *cc[8] = { delta, delta, delta, delta,
	    delta, delta, delta, delta };
	char why[CRLC_CRLITESET_WHY_LEN], lname[CRLC_CRLITE_LOOKUP_NAME_LEN],
	    path[400];
	uint8_t *out;
	size_t len;

	if (n > 8 || crlc_crlite_lookup_build(cc, n, for_sum, &out, &len, why,
	    sizeof(why)) != 0)
		exit(2);
	crlc_crlite_lookup_name(sum, lname, sizeof(lname));
	snprintf(path, sizeof(path), "%s/%s", sub, lname);
	write_file(path, out, len, 0644);
	free(out);
}

/*
 * The set naming the delta n times (1 to 8), and its lookup file; spoil(b)
 * changes it before the sum (resum 0) or after.  Its checksum.
 */
static uint64_t
write_set_n(size_t n, void (*spoil)(uint8_t *), int resum)
{
	uint8_t b[CRLC_CRLITE_HDR_LEN + 8 * CRLC_CRLITE_REC_LEN +
	    CRLC_CRLITE_TRAILER_LEN] = { 0 }, *rec;
	size_t i, len = CRLC_CRLITE_HDR_LEN + n * CRLC_CRLITE_REC_LEN +
	    CRLC_CRLITE_TRAILER_LEN;
	char path[400];
	uint64_t total;

	memcpy(b, CRLC_CRLITE_MAGIC, CRLC_CRLITE_MAGIC_LEN);
	crlc_put_u32(b + 8, CRLC_CRLITE_VERSION);
	crlc_put_u32(b + 12, (uint32_t)n);
	crlc_put_u64(b + 24, DELTA_NEWEST);
	crlc_put_u32(b + 32, CRLC_CRLITE_SRC_UPKI_DIR);
	for (i = 0; i < n; i++) {
		rec = b + CRLC_CRLITE_HDR_LEN + i * CRLC_CRLITE_REC_LEN;
		memcpy(rec, name, CRLC_HASH_LEN);
		crlc_put_u64(rec + 32, DELTA_LEN);
		rec[40] = i == 0 ? CRLC_CRLITE_FULL : CRLC_CRLITE_DELTA;
	}
	if (spoil != NULL && !resum)
		spoil(b);
	crlc_put_u64(b + len - 8, total = crlc_sum64(b, len - 8));
	if (spoil != NULL && resum)
		spoil(b);
	snprintf(path, sizeof(path), "%s/%s", sub, CRLC_CRLITE_SET_NAME);
	write_file(path, b, len, 0644);
	write_lookup(total, total, n);
	return total;
}

static uint64_t
write_set(void (*spoil)(uint8_t *), int resum)
{
	return write_set_n(1, spoil, resum);
}

static void magic(uint8_t *b) { b[0] = 'X'; }
static void version(uint8_t *b) { crlc_put_u32(b + 8, 2); }
static void none(uint8_t *b) { crlc_put_u32(b + 12, 0); }
static void many(uint8_t *b) { crlc_put_u32(b + 12, CRLC_CRLITE_FILTERS_MAX + 1); }
static void two(uint8_t *b) { crlc_put_u32(b + 12, 2); }
static void hdr_pad(uint8_t *b) { b[39] = 1; }
static void kind(uint8_t *b) { b[CRLC_CRLITE_HDR_LEN + 40] = 2; }
static void rec_pad(uint8_t *b) { b[CRLC_CRLITE_HDR_LEN + 47] = 1; }
static void size0(uint8_t *b) { crlc_put_u64(b + CRLC_CRLITE_HDR_LEN + 32, 0); }
static void size_big(uint8_t *b)
{
	crlc_put_u64(b + CRLC_CRLITE_HDR_LEN + 32, CRLC_CLUBCARD_MAX_LEN + 1);
}
/* Five filters of other names, 64 MiB each. */
static void
huge(uint8_t *b)
{
	size_t i;

	for (i = 0; i < 5; i++) {
		b[CRLC_CRLITE_HDR_LEN + i * CRLC_CRLITE_REC_LEN] = (uint8_t)i;
		crlc_put_u64(b + CRLC_CRLITE_HDR_LEN + i * CRLC_CRLITE_REC_LEN +
		    32, CRLC_CLUBCARD_MAX_LEN);
	}
}
static void delta_first(uint8_t *b) { b[CRLC_CRLITE_HDR_LEN + 40] = CRLC_CRLITE_DELTA; }
static void sum(uint8_t *b) { b[SET_LEN - 1] ^= 1; }

static void
hexin(const char *hex, uint8_t *out, size_t *len)
{
	for (*len = 0; hex[2 * *len] != '\0'; (*len)++)
		if (sscanf(hex + 2 * *len, "%2hhx", &out[*len]) != 1)
			exit(2);
}

/* <crlcache/crlite.h> FRESHNESS: from the older of coverage and install. */
static void
check_stale_at(void)
{
	/* the delta's coverage, installed a day later: from the coverage */
	CHECK(crlc_crlite_stale_at((int64_t)(DELTA_NEWEST / 1000) + 86400,
	    DELTA_NEWEST) == (int64_t)(DELTA_NEWEST / 1000) +
	    CRLC_CRLITE_FRESH_MAX);
	/* coverage dated past its install: from the install */
	CHECK(crlc_crlite_stale_at(1000, DELTA_NEWEST) ==
	    1000 + CRLC_CRLITE_FRESH_MAX);
	/* no coverage: stale from the epoch's third day */
	CHECK(crlc_crlite_stale_at(1782300000, 0) == CRLC_CRLITE_FRESH_MAX);
}

/* Two of test/data/crlite/sites.txt: GTS Root R1 (revoked), DigiCert G5. */
static const struct {
	const char *issuer, *serial, *scts[2];
	enum crlc_clubcard_answer want;
} sites[] = {
	{ "39d4a59900fd356261e046dc387071921ca03f0352c00f50f757a8ba77db7281",
	  "00fa43623b0dc703c81053fc646bec3a20",
	  { "cb38f715897c84a1445f5bc1ddfbc96ef29a59cd470a690585b0cb14c31458e7",
	    "d76d7d10d1a7f577c2c7e95fd700bff982c9335a65e1d0b3017317c0c8c56977" },
	  CRLC_CLUBCARD_REVOKED },
	{ "2ec39da83170de0a28fc6f238de10fc5ef89489eda169d51179221e3fd99bc56",
	  "0e46f9db5bb19eee8e45f2dcdc260cca",
	  { "c2317e574519a345ee7f38deb29041ebc7c2215a22bf7fd5b5ad769ad90e52cd",
	    "d76d7d10d1a7f577c2c7e95fd700bff982c9335a65e1d0b3017317c0c8c56977" },
	  CRLC_CLUBCARD_GOOD },
};

/*
 * Mozilla's answers (test/data/crlite/SOURCES): one revoked, one good;
 * strict 0: asked, whatever the answers.
 */
static void
check_answers(struct crlc_crliteset *set, int strict)
{
	uint8_t issuer[32], serial[20], ext[512], *p = ext;
	struct crlc_span sp, list;
	size_t n, i;
	uint64_t newest;
	static const uint64_t when[] = { 1782115694558ull, 1781427700554ull };
	size_t k;

	for (k = 0; k < 2; k++) {
		hexin(sites[k].issuer, issuer, &n);
		hexin(sites[k].serial, serial, &n);
		sp.p = serial;
		sp.len = n;
		/* OCTET STRING { u16 list { u16 sct { v1, id, time, ext, sig } } } */
		p = ext + 4;
		for (i = 0; i < 2; i++) {
			uint8_t *s = p;
			size_t id;

			p += 2;
			*p++ = 0;
			hexin(sites[k].scts[i], p, &id);
			p += id;
			crlc_put_u64(p, when[k] + i);
			p += 8;
			memcpy(p, "\0\0\4\3\0\1Z", 7);
			p += 7;
			s[0] = 0;
			s[1] = (uint8_t)(p - s - 2);
		}
		ext[0] = 0x04;
		ext[1] = (uint8_t)(p - ext - 2);
		ext[2] = (uint8_t)((p - ext - 4) >> 8);
		ext[3] = (uint8_t)(p - ext - 4);
		list.p = ext;
		list.len = (size_t)(p - ext);
		CHECK((crlc_crliteset_ask(set, issuer, &sp, &list, &newest) ==
		    sites[k].want && newest == DELTA_NEWEST) || !strict);
		/* asked again: from what the first ask holds */
		CHECK((crlc_crliteset_ask(set, issuer, &sp, &list, &newest) ==
		    sites[k].want) || !strict);
		/* The real issuers are enrolled; one bit off, none is. */
		CHECK(crlc_crliteset_enrolls(set, issuer) == 1 || !strict);
		issuer[31] ^= 1;
		CHECK(crlc_crliteset_enrolls(set, issuer) == 0);
		issuer[31] ^= 1;
	}
	if (!strict)
		return;
	CHECK(crlc_crliteset_enrolls(NULL, issuer) == 0);
	/* no SCT list, a list that does not parse: no answer */
	list.len = 0;
	CHECK(crlc_crliteset_ask(set, issuer, &sp, &list, &newest) ==
	    CRLC_CLUBCARD_NOT_COVERED && newest == 0);
	list.len = 3;
	CHECK(crlc_crliteset_ask(set, issuer, &sp, &list, &newest) ==
	    CRLC_CLUBCARD_NOT_COVERED);
}

/* Threads asking one set at once: the first asks fill its slots. */
static void *
asker(void *set)
{
	int i;

	for (i = 0; i < 50; i++)
		check_answers(set, 1);
	return NULL;
}

static void
threads_ask(void)
{
	struct crlc_crliteset *set;
	pthread_t t[4];
	size_t i;

	CHECK(crlc_crliteset_open(sub, &set, NULL, 0) == 0);
	if (set == NULL)
		return;
	for (i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], NULL, asker, set) == 0);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	crlc_crliteset_free(set);
}

static void
refused_n(size_t n, void (*spoil)(uint8_t *), int resum, const char *why_part)
{
	struct crlc_crliteset *set;
	char why[CRLC_CRLITESET_WHY_LEN];

	write_set_n(n, spoil, resum);
	why[0] = '\0';
	CHECK(crlc_crliteset_open(sub, &set, why, sizeof(why)) == -1 &&
	    set == NULL);
	if (strstr(why, why_part) == NULL) {
		fprintf(stderr, "wanted \"%s\" in \"%s\"\n", why_part, why);
		CHECK(0);
	}
}

/* Each field spoilt, and the refusal it must give. */
static const struct {
	size_t		 n;		/* filters */
	void		(*spoil)(uint8_t *);
	int		 resum;		/* after the checksum: it fails */
	const char	*why;
} spoilt[] = {
	{ 1, magic, 0, "not a set of version 1" },
	{ 1, version, 0, "not a set of version 1" },
	{ 1, none, 0, "0 filters in 96 bytes" },
	{ 1, many, 0, "filters in 96 bytes" },
	{ 1, two, 0, "2 filters in 96 bytes" },
	{ 1, hdr_pad, 0, "1 filters in 96 bytes" },
	{ 1, kind, 0, "record 0 malformed (kind 2" },
	{ 1, rec_pad, 0, "record 0 malformed" },
	{ 1, size0, 0, "record 0 malformed (kind 0, 0 bytes)" },
	{ 1, size_big, 0, "record 0 malformed" },
	{ 1, delta_first, 0, "record 0 malformed (kind 1" },
	{ 1, sum, 1, "checksum mismatch" },
	/* the state's owner naming one filter many times, or too much */
	{ 2, NULL, 0, "record 1 names the filter of record 0 again" },
	{ 5, huge, 0, "filters of more than 268435456 bytes" },
};

/* The lookup file spoilt: refused at open, with the reason given. */
static void
lookup_refused(uint64_t total, uint64_t for_sum, off_t cut, const char *part)
{
	struct crlc_crliteset *set;
	char why[CRLC_CRLITESET_WHY_LEN], lname[CRLC_CRLITE_LOOKUP_NAME_LEN],
	    path[400];

	write_lookup(total, for_sum, 1);
	crlc_crlite_lookup_name(total, lname, sizeof(lname));
	snprintf(path, sizeof(path), "%s/%s", sub, lname);
	if (cut >= 0)
		CHECK(truncate(path, cut) == 0);
	if (cut == -2)
		CHECK(unlink(path) == 0);
	why[0] = '\0';
	CHECK(crlc_crliteset_open(sub, &set, why, sizeof(why)) == -1);
	if (strstr(why, part) == NULL) {
		fprintf(stderr, "wanted \"%s\" in \"%s\"\n", part, why);
		CHECK(0);
	}
}

/*
 * Bytes of the lookup file changed after the open (a record's offsets,
 * lengths, rows), or the file cut short: answers may be anything, but
 * every read stays inside the file and memory (ASan) and nothing faults.
 */
/* Where site k's record's part headers are in the lookup file b. */
static size_t
site_parts(const uint8_t *b, size_t len, size_t k, size_t *n)
{
	uint8_t issuer[32];
	size_t i, u = crlc_get_u32(b + 28), at, head = len;

	hexin(sites[k].issuer, issuer, &i);
	for (at = 0; at + 32 <= len; at++)	/* the table: after the head */
		if (memcmp(b + at, issuer, 32) == 0 && at >= CRLC_CRLITE_LOOKUP_LOGS_AT) {
			head = at;
			break;
		}
	if (head == len || u == 0 || head + 48 > len)
		exit(2);
	*n = crlc_get_u32(b + head + 44);
	return (size_t)crlc_get_u64(b + head + 32);
}

/*
 * Bytes of the lookup file changed (before the open: anywhere; after:
 * past the head, which is read at open), in the issuer table, in the
 * two sites' part headers or anywhere, or the file cut short after the
 * open: answers may be anything, but every read stays inside the file
 * and memory (ASan) and nothing faults.
 */
static void
lookup_damaged(uint64_t total)
{
	char lname[CRLC_CRLITE_LOOKUP_NAME_LEN], path[400];
	static uint8_t b[1 << 20];
	struct crlc_crliteset *set;
	size_t filters, bytes, len, at, n, where;
	unsigned seed = 1, k, v;
	FILE *f;

	crlc_crlite_lookup_name(total, lname, sizeof(lname));
	snprintf(path, sizeof(path), "%s/%s", sub, lname);
	for (k = 0; k < 600; k++) {
		write_lookup(total, total, 1);
		if ((f = fopen(path, "rb")) == NULL ||
		    (len = fread(b, 1, sizeof(b), f)) == 0 || fclose(f) != 0)
			exit(2);
		seed = seed * 1103515245u + 12345u;
		v = seed >> 8;
		switch (k % 3) {
		case 0:		/* a byte of a site's part headers */
			at = site_parts(b, len, k % 2, &n);
			where = at + v % (n * CRLC_CRLITE_LOOKUP_PART_LEN + 1);
			break;
		case 1:		/* a byte of the issuer table */
			at = site_parts(b, len, k % 2, &n);
			where = CRLC_CRLITE_LOOKUP_LOGS_AT + v % (len -
			    CRLC_CRLITE_LOOKUP_LOGS_AT);
			break;
		default:	/* anywhere */
			where = v % len;
		}
		if (where >= len)
			where = len - 1;
		b[where] = (uint8_t)(k & 4 ? seed >> 24 : (k & 8 ? 0xff : 0));
		if (k % 4 == 0) {
			/* before the open: refused, or read as it is */
			write_file(path, b, len, 0644);
			if (crlc_crliteset_open(sub, &set, NULL, 0) != 0)
				continue;
		} else {
			CHECK(crlc_crliteset_open(sub, &set, NULL, 0) == 0);
			if (set == NULL)
				return;
			crlc_crliteset_size(set, &filters, &bytes);
			if (where < bytes)	/* the head, read: past it */
				where = bytes + where % (len - bytes);
			b[where] ^= 0x5a;
			write_file(path, b, len, 0644);
			if (k % 10 == 1)
				CHECK(truncate(path, (off_t)(seed % len)) == 0);
		}
		check_answers(set, 0);
		crlc_crliteset_size(set, &filters, &bytes);
		CHECK(bytes <= CRLC_CRLITE_LOOKUP_HEAD_MAX + CRLC_CRLITESET_HELD_MAX);
		crlc_crliteset_free(set);
	}
}

/* A listening socket at path, or exit. */
static int
fake_listen(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) == -1 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(fd, 4) == -1)
		exit(2);
	return fd;
}

/* A sharer for one connection, answering mfd (sum) on a thread. */
struct fake {
	int		 lfd, mfd;
	uint64_t	 sum;
};

static void *
fake_serve(void *arg)
{
	struct fake *f = arg;
	uint64_t want;
	int cfd;

	if ((cfd = accept(f->lfd, NULL, NULL)) == -1)
		return NULL;
	if (crlc_share_request(cfd, 2000, &want) == 0)
		(void)crlc_share_reply(cfd, f->mfd, f->sum);
	close(cfd);
	return NULL;
}

static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The set opened, then shared from a sharer passing mfd for sum (mfd -2:
 * nobody listening; -3: listening, never answering): whether it was
 * mapped, the reason in why; the set answers Mozilla's answers either way.
 */
static int
shared_open(const char *sock, int mfd, uint64_t sum, char *why, size_t whylen,
    int64_t *took)
{
	struct crlc_crliteset *set;
	struct fake f = { -1, mfd, sum };
	pthread_t t;
	int64_t t0;
	int r, mapped = 0;

	unlink(sock);
	if (mfd != -2)
		f.lfd = fake_listen(sock);
	if (mfd >= -1 && pthread_create(&t, NULL, fake_serve, &f) != 0)
		exit(2);
	why[0] = '\0';
	t0 = mono_ms();
	r = crlc_crliteset_open_shared(sub, sock, 200, &set, NULL, 0, why,
	    whylen);
	*took = mono_ms() - t0;
	CHECK(r == 0);
	if (mfd >= -1)
		pthread_join(t, NULL);
	if (f.lfd != -1)
		close(f.lfd);
	if (set != NULL) {
		mapped = crlc_crliteset_mapped(set);
		check_answers(set, 1);
		crlc_crliteset_free(set);
	}
	return mapped;
}

/* A memfd of the bytes b (len), with extra zero bytes, sealed so. */
static int
memfd_of(const uint8_t *b, size_t len, size_t extra, int seals)
{
	int fd = memfd_create("t", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd == -1 || write(fd, b, len) != (ssize_t)len ||
	    (extra > 0 && ftruncate(fd, (off_t)(len + extra)) == -1) ||
	    (seals != 0 && fcntl(fd, F_ADD_SEALS, seals) == -1))
		exit(2);
	return fd;
}

static void
share_refused(const char *sock, int mfd, uint64_t sum, const char *part)
{
	char why[CRLC_CRLITESET_WHY_LEN];
	int64_t took;

	CHECK(shared_open(sock, mfd, sum, why, sizeof(why), &took) == 0);
	if (strstr(why, part) == NULL) {
		fprintf(stderr, "wanted \"%s\" in \"%s\"\n", part, why);
		CHECK(0);
	}
	if (mfd >= 0)
		close(mfd);
}

/* A sharer running as nobody: its copy is not taken (root only). */
static void
share_other_uid(const char *sock, int mfd, uint64_t sum)
{
	struct fake f = { -1, mfd, sum };
	char why[CRLC_CRLITESET_WHY_LEN];
	struct crlc_crliteset *set;
	int st, go[2];
	pid_t pid;

	if (geteuid() != 0 || pipe(go) == -1)
		return;
	unlink(sock);
	if ((pid = fork()) == 0) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		/* bound by root in root's directory; listened on by nobody */
		if (strlen(sock) >= sizeof(sa.sun_path))
			_exit(2);
		memcpy(sa.sun_path, sock, strlen(sock) + 1);
		if ((f.lfd = socket(AF_UNIX, SOCK_SEQPACKET, 0)) == -1 ||
		    bind(f.lfd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
		    setgid(65534) == -1 || setuid(65534) == -1 ||
		    listen(f.lfd, 4) == -1)
			_exit(2);
		if (write(go[1], "x", 1) != 1)
			_exit(2);
		fake_serve(&f);
		_exit(0);
	}
	close(go[1]);
	CHECK(read(go[0], &st, 1) == 1);
	close(go[0]);
	CHECK(crlc_crliteset_open_shared(sub, sock, 200, &set, NULL, 0, why,
	    sizeof(why)) == 0);
	if (set != NULL) {
		CHECK(!crlc_crliteset_mapped(set) &&
		    strstr(why, "served by uid 65534") != NULL);
		check_answers(set, 1);
		crlc_crliteset_free(set);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

/* The set's lookup file (written by write_set) into *b, *len. */
static void
lookup_bytes(uint64_t total, uint8_t **b, size_t *len, char *path,
    size_t plen)
{
	char lname[CRLC_CRLITE_LOOKUP_NAME_LEN];
	struct stat sb;
	FILE *f;

	crlc_crlite_lookup_name(total, lname, sizeof(lname));
	snprintf(path, plen, "%s/%s", sub, lname);
	if (stat(path, &sb) == -1 || (*b = malloc((size_t)sb.st_size)) == NULL ||
	    (f = fopen(path, "rb")) == NULL ||
	    fread(*b, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size)
		exit(2);
	fclose(f);
	*len = (size_t)sb.st_size;
}

static void
share_cases(void)
{
	char sock[TMPDIR_PATH_MAX + 16], why[CRLC_CRLITESET_WHY_LEN], path[400];
	struct crlc_crliteset *set;
	uint64_t total = write_set(NULL, 0);
	uint8_t *b;
	size_t len;
	int64_t took;
	int fd, mfd;

	snprintf(sock, sizeof(sock), "%s/s.sock", dir);
	lookup_bytes(total, &b, &len, path, sizeof(path));
	/* the sharer's own copy: mapped, the same answers */
	if ((fd = open(path, O_RDONLY)) == -1 ||
	    (mfd = crlc_share_memfd(fd, len, why, sizeof(why))) == -1)
		exit(2);
	close(fd);
	CHECK(shared_open(sock, mfd, total, why, sizeof(why), &took) == 1);
	/* the lookup file truncated under the mapping: nothing changes */
	{
		struct fake f = { fake_listen(sock), mfd, total };
		pthread_t t;

		if (pthread_create(&t, NULL, fake_serve, &f) != 0)
			exit(2);
		CHECK(crlc_crliteset_open_shared(sub, sock, 200, &set, NULL, 0,
		    why, sizeof(why)) == 0);
		pthread_join(t, NULL);
		close(f.lfd);
	}
	if (set != NULL) {
		CHECK(crlc_crliteset_mapped(set));
		CHECK(truncate(path, 10) == 0);
		check_answers(set, 1);
		crlc_crliteset_free(set);
		write_set(NULL, 0);
	}
	share_other_uid(sock, mfd, total);
	/* another set's copy; no copy */
	share_refused(sock, mfd, total ^ 1, "no lookup file of this set");
	share_refused(sock, -1, total, "no lookup file of this set");
	close(mfd);
	/* copies that can change, grow, cost the reader, or are not it */
	share_refused(sock, memfd_of(b, len, 0, 0), total, "can still change");
	share_refused(sock, memfd_of(b, len, 0, F_SEAL_SHRINK | F_SEAL_GROW),
	    total, "can still change");
	share_refused(sock, memfd_of(b, len, 1, F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_WRITE), total, "not the lookup file's");
	{
		/* the last pages never written: a hole */
		int h = memfd_of(b, 4096, len - 4096, F_SEAL_SHRINK |
		    F_SEAL_GROW | F_SEAL_WRITE);

		share_refused(sock, h, total, "has a hole");
	}
	/* another set's lookup file of the same length */
	b[16] ^= 1;
	share_refused(sock, memfd_of(b, len, 0, F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_WRITE), total, "not the lookup file of this set");
	/* nobody there; a sharer that never answers: within the wait */
	share_refused(sock, -2, total, "No such file");
	CHECK(shared_open(sock, -3, total, why, sizeof(why), &took) == 0 &&
	    strstr(why, "no answer within 200 ms") != NULL && took < 400);
	free(b);
}

int
main(void)
{
	static uint8_t data[DELTA_LEN + 1];
	struct crlc_crliteset *set;
	char why[CRLC_CRLITESET_WHY_LEN], path[400], hex[2 * CRLC_HASH_LEN + 1];
	size_t i, filters, bytes;
	uint64_t total;
	FILE *f;

	if ((f = fopen(DELTA, "rb")) == NULL ||
	    fread(data, 1, sizeof(data), f) != DELTA_LEN || fclose(f) != 0)
		return 2;
	crlc_sha256(data, DELTA_LEN, name);
	for (i = 0; i < CRLC_HASH_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", name[i]);
	snprintf(dir, sizeof(dir), "%s", tmpdir_make("t_crliteset"));
	snprintf(sub, sizeof(sub), "%s/%s", dir, CRLC_CRLITE_DIR);
	/* nothing installed: nothing to say */
	CHECK(crlc_crliteset_open(sub, &set, why, sizeof(why)) == 1 && set == NULL);
	if (mkdir(sub, 0755) != 0)
		return 2;
	CHECK(crlc_crliteset_open(sub, &set, why, sizeof(why)) == 1 && set == NULL);
	snprintf(path, sizeof(path), "%s/%s%s", sub, hex, CRLC_CRLITE_FILTER_SUFFIX);
	write_file(path, data, DELTA_LEN, 0644);

	if (crlc_clubcard_parse(data, DELTA_LEN, &delta, why, sizeof(why)) != 0)
		return 2;
	total = write_set(NULL, 0);
	CHECK(crlc_crliteset_open(sub, &set, why, sizeof(why)) == 0 && set != NULL);
	if (set != NULL) {
		check_answers(set, 1);
		/* what the two issuers' records hold, not the filter */
		crlc_crliteset_size(set, &filters, &bytes);
		CHECK(filters == 1 && bytes < DELTA_LEN / 4);
		/* installed 0 in write_set(): no data is younger than that */
		CHECK(crlc_crliteset_stale_at(set) == CRLC_CRLITE_FRESH_MAX);
		crlc_crliteset_free(set);
	}
	check_stale_at();
	threads_ask();
	for (i = 0; i < sizeof(spoilt) / sizeof(spoilt[0]); i++)
		refused_n(spoilt[i].n, spoilt[i].spoil, spoilt[i].resum,
		    spoilt[i].why);
	total = write_set(NULL, 0);
	lookup_refused(total, total, -2, ".lookup: No such file or directory");
	lookup_refused(total, total ^ 1, -1, "not the lookup file of this set");
	lookup_refused(total, total, 5000, "not the lookup file of this set");
	lookup_refused(total, total, 40, "not a lookup file of version 1");
	lookup_damaged(total);
	share_cases();
	/* a set writable by others than its owner */
	write_set(NULL, 0);
	snprintf(path, sizeof(path), "%s/%s", sub, CRLC_CRLITE_SET_NAME);
	CHECK(chmod(path, 0664) == 0);
	CHECK(crlc_crliteset_open(sub, &set, why, sizeof(why)) == -1 &&
	    strstr(why, "writable by it alone") != NULL);
	CHECK(chmod(path, 0644) == 0 && chmod(sub, 0777) == 0);
	CHECK(crlc_crliteset_open(sub, &set, why, sizeof(why)) == -1 &&
	    strstr(why, "directory is writable") != NULL);

	crlc_clubcard_free(delta);
	return check_result();
}
