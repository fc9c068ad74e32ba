/*
 * lib/crliteset.c: the CRLite set of <crlcache/crlite.h> read from a
 * directory, with Mozilla's real delta filter (test/data/crlite); every
 * field of the set file spoilt in turn is a refusal naming it, never a
 * read outside the file (ASan).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <crlcache/crlite.h>
#include <crlcache/crliteset.h>
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

/* The set naming the delta once; spoil(b) changes it before the sum. */
static void
write_set(void (*spoil)(uint8_t *), int resum)
{
	uint8_t b[SET_LEN] = { 0 }, *rec = b + CRLC_CRLITE_HDR_LEN;
	char path[400];

	memcpy(b, CRLC_CRLITE_MAGIC, CRLC_CRLITE_MAGIC_LEN);
	crlc_put_u32(b + 8, CRLC_CRLITE_VERSION);
	crlc_put_u32(b + 12, 1);
	crlc_put_u64(b + 24, DELTA_NEWEST);
	crlc_put_u32(b + 32, CRLC_CRLITE_SRC_UPKI_DIR);
	memcpy(rec, name, CRLC_HASH_LEN);
	crlc_put_u64(rec + 32, DELTA_LEN);
	rec[40] = CRLC_CRLITE_FULL;
	if (spoil != NULL && !resum)
		spoil(b);
	crlc_put_u64(b + SET_LEN - 8, crlc_sum64(b, SET_LEN - 8));
	if (spoil != NULL && resum)
		spoil(b);
	snprintf(path, sizeof(path), "%s/%s", sub, CRLC_CRLITE_SET_NAME);
	write_file(path, b, SET_LEN, 0644);
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
static void size_other(uint8_t *b)
{
	crlc_put_u64(b + CRLC_CRLITE_HDR_LEN + 32, DELTA_LEN - 1);
}
static void other_name(uint8_t *b) { b[CRLC_CRLITE_HDR_LEN] ^= 1; }
static void sum(uint8_t *b) { b[SET_LEN - 1] ^= 1; }

static void
hexin(const char *hex, uint8_t *out, size_t *len)
{
	for (*len = 0; hex[2 * *len] != '\0'; (*len)++)
		if (sscanf(hex + 2 * *len, "%2hhx", &out[*len]) != 1)
			exit(2);
}

/* Mozilla's answers (test/data/crlite/SOURCES): one revoked, one good. */
static void
check_answers(const struct crlc_crliteset *set)
{
	uint8_t issuer[32], serial[20], ext[512], *p = ext;
	struct crlc_span sp, list;
	size_t n, i;
	uint64_t newest;
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
		CHECK(crlc_crliteset_ask(set, issuer, &sp, &list, &newest) ==
		    sites[k].want && newest == DELTA_NEWEST);
		/* The real issuers are enrolled; one bit off, none is. */
		CHECK(crlc_crliteset_enrolls(set, issuer) == 1);
		issuer[31] ^= 1;
		CHECK(crlc_crliteset_enrolls(set, issuer) == 0);
		issuer[31] ^= 1;
	}
	CHECK(crlc_crliteset_enrolls(NULL, issuer) == 0);
	/* no SCT list, a list that does not parse: no answer */
	list.len = 0;
	CHECK(crlc_crliteset_ask(set, issuer, &sp, &list, &newest) ==
	    CRLC_CLUBCARD_NOT_COVERED && newest == 0);
	list.len = 3;
	CHECK(crlc_crliteset_ask(set, issuer, &sp, &list, &newest) ==
	    CRLC_CLUBCARD_NOT_COVERED);
}

static void
refused(void (*spoil)(uint8_t *), int resum, const char *why_part)
{
	struct crlc_crliteset *set;
	char why[CRLC_CRLITESET_WHY_LEN];

	write_set(spoil, resum);
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
	void		(*spoil)(uint8_t *);
	int		 resum;		/* after the checksum: it fails */
	const char	*why;
} spoilt[] = {
	{ magic, 0, "not a set of version 1" },
	{ version, 0, "not a set of version 1" },
	{ none, 0, "0 filters in 96 bytes" },
	{ many, 0, "65 filters in 96 bytes" },
	{ two, 0, "2 filters in 96 bytes" },
	{ hdr_pad, 0, "1 filters in 96 bytes" },
	{ kind, 0, "record 0 malformed (kind 2" },
	{ rec_pad, 0, "record 0 malformed" },
	{ size0, 0, "record 0 malformed (kind 0, 0 bytes)" },
	{ size_big, 0, "record 0 malformed" },
	{ size_other, 0, "176981 bytes, the set says 176980" },
	{ other_name, 0, "No such file or directory" },
	{ sum, 1, "checksum mismatch" },
};

int
main(void)
{
	static uint8_t data[DELTA_LEN + 1];
	struct crlc_crliteset *set;
	char why[CRLC_CRLITESET_WHY_LEN], path[400], hex[2 * CRLC_HASH_LEN + 1];
	size_t i, filters, bytes;
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

	write_set(NULL, 0);
	CHECK(crlc_crliteset_open(sub, &set, why, sizeof(why)) == 0 && set != NULL);
	if (set != NULL) {
		crlc_crliteset_size(set, &filters, &bytes);
		CHECK(filters == 1 && bytes == DELTA_LEN);
		check_answers(set);
		crlc_crliteset_free(set);
	}
	for (i = 0; i < sizeof(spoilt) / sizeof(spoilt[0]); i++)
		refused(spoilt[i].spoil, spoilt[i].resum, spoilt[i].why);
	/* a set writable by others than its owner */
	write_set(NULL, 0);
	snprintf(path, sizeof(path), "%s/%s", sub, CRLC_CRLITE_SET_NAME);
	CHECK(chmod(path, 0664) == 0);
	CHECK(crlc_crliteset_open(sub, &set, why, sizeof(why)) == -1 &&
	    strstr(why, "writable by it alone") != NULL);
	CHECK(chmod(path, 0644) == 0 && chmod(sub, 0777) == 0);
	CHECK(crlc_crliteset_open(sub, &set, why, sizeof(why)) == -1 &&
	    strstr(why, "directory is writable") != NULL);

	return check_result();
}
