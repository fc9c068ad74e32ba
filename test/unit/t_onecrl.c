/*
 * lib/onecrl.c: the OneCRL file of <crlcache/onecrl.h>.  The record
 * reader (crlc_onecrl_parse) on a file built here: every truncation,
 * counts past the end, a bad magic, version, checksum or order is a
 * refusal naming it, never a read outside the buffer (ASan); the lookup
 * finds exactly the listed (issuer, serial) and (subject, key) pairs.
 * The file reader (crlc_onecrl_open): none, a good file, a file of
 * others' writing, a symbolic link, a directory others may write.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <crlcache/format.h>
#include <crlcache/hash.h>
#include <crlcache/onecrl.h>

#include "check.h"
#include "tmpdir.h"
#include "wfile.h"

#define NI	3
#define NS	2
#define LEN	(CRLC_ONECRL_HDR_LEN + (NI + NS) * CRLC_ONECRL_REC_LEN + \
		 CRLC_ONECRL_TRAILER_LEN)

static const struct crlc_span issuer = { (const uint8_t *)"0\x03issuer-A", 11 };
static const struct crlc_span other = { (const uint8_t *)"0\x03issuer-B", 11 };
static uint8_t file[LEN];

static struct crlc_span
span(const char *s)
{
	struct crlc_span sp = { (const uint8_t *)s, strlen(s) };

	return sp;
}

/* A record: SHA-256 of the name, SHA-256 of the serial (or SPKI). */
static void
rec(uint8_t *r, const struct crlc_span *a, const char *b)
{
	crlc_sha256(a->p, a->len, r);
	crlc_sha256(b, strlen(b), r + CRLC_ONECRL_KEY_LEN);
}

static int
rec_cmp(const void *a, const void *b)
{
	return memcmp(a, b, CRLC_ONECRL_REC_LEN);
}

/* NI (issuer, serial) and NS (subject, SPKI) records, sorted, summed. */
static void
build(void)
{
	uint8_t *is = file + CRLC_ONECRL_HDR_LEN;
	uint8_t *sk = is + NI * CRLC_ONECRL_REC_LEN;

	memset(file, 0, sizeof(file));
	memcpy(file, CRLC_ONECRL_MAGIC, CRLC_ONECRL_MAGIC_LEN);
	crlc_put_u32(file + 8, CRLC_ONECRL_VERSION);
	crlc_put_u32(file + 12, NI);
	crlc_put_u32(file + 16, NS);
	crlc_put_u32(file + 20, 1);
	crlc_put_u64(file + 24, 1760000000);
	crlc_put_u64(file + 32, 1760000000123ull);
	rec(is, &issuer, "\x01");
	rec(is + 64, &issuer, "\x7f\x02");
	rec(is + 128, &other, "\x01");
	qsort(is, NI, CRLC_ONECRL_REC_LEN, rec_cmp);
	/* the SPKI hash is the record's, as pubKeyHash gives it */
	rec(sk, &issuer, "spki-1");
	rec(sk + 64, &other, "spki-2");
	qsort(sk, NS, CRLC_ONECRL_REC_LEN, rec_cmp);
	crlc_put_u64(file + LEN - 8, crlc_sum64(file, LEN - 8));
}

static void
resum(uint8_t *b, size_t len)
{
	crlc_put_u64(b + len - 8, crlc_sum64(b, len - 8));
}

static void
refused(const uint8_t *b, size_t len, const char *part)
{
	struct crlc_onecrl *o = (struct crlc_onecrl *)1;
	char why[CRLC_ONECRL_WHY_LEN] = "";
	uint8_t *copy = malloc(len + 1);	/* exact: ASan sees overreads */

	if (copy == NULL)
		exit(2);
	memcpy(copy, b, len);
	CHECK(crlc_onecrl_parse(copy, len, &o, why, sizeof(why)) == -1 &&
	    o == NULL);
	if (strstr(why, part) == NULL) {
		fprintf(stderr, "len %zu: wanted \"%s\" in \"%s\"\n", len, part,
		    why);
		CHECK(0);
	}
	free(copy);
}

static void
lookups(const struct crlc_onecrl *o)
{
	struct crlc_span s1 = span("\x01"), s2 = span("\x7f\x02");
	struct crlc_span s3 = span("\x02"), k1 = span("spki-1");
	struct crlc_span k2 = span("spki-2"), none = { NULL, 0 };
	struct crlc_onecrl_info info;

	crlc_onecrl_info(o, &info);
	CHECK(info.issuer_serial == NI && info.subject_key == NS &&
	    info.skipped == 1 && info.installed == 1760000000 &&
	    info.timestamp == 1760000000123ll);
	/* issuer and serial: the pairs listed, and no cross pairs */
	CHECK(crlc_onecrl_lookup(o, &issuer, &s1, &none, &none) ==
	    CRLC_ONECRL_ISSUER_SERIAL);
	CHECK(crlc_onecrl_lookup(o, &issuer, &s2, &none, &none) ==
	    CRLC_ONECRL_ISSUER_SERIAL);
	CHECK(crlc_onecrl_lookup(o, &other, &s1, &none, &none) ==
	    CRLC_ONECRL_ISSUER_SERIAL);
	CHECK(crlc_onecrl_lookup(o, &other, &s2, &none, &none) ==
	    CRLC_ONECRL_NONE);
	CHECK(crlc_onecrl_lookup(o, &issuer, &s3, &none, &none) ==
	    CRLC_ONECRL_NONE);
	/* subject and key: a listed subject with another key is not */
	CHECK(crlc_onecrl_lookup(o, &other, &s3, &issuer, &k1) ==
	    CRLC_ONECRL_SUBJECT_KEY);
	CHECK(crlc_onecrl_lookup(o, &issuer, &s3, &other, &k2) ==
	    CRLC_ONECRL_SUBJECT_KEY);
	CHECK(crlc_onecrl_lookup(o, &issuer, &s3, &issuer, &k2) ==
	    CRLC_ONECRL_NONE);
	CHECK(crlc_onecrl_lookup(o, &issuer, &s3, &issuer, &none) ==
	    CRLC_ONECRL_NONE);
}

static void
record_reader(void)
{
	struct crlc_onecrl *o = NULL;
	char why[CRLC_ONECRL_WHY_LEN];
	uint8_t b[LEN];
	size_t len;

	build();
	CHECK(crlc_onecrl_parse(file, LEN, &o, why, sizeof(why)) == 0);
	if (o != NULL)
		lookups(o);
	crlc_onecrl_free(o);
	crlc_onecrl_free(NULL);
	/* every truncation, and one byte more */
	for (len = 0; len < LEN; len++)
		refused(file, len, len < CRLC_ONECRL_HDR_LEN +
		    CRLC_ONECRL_TRAILER_LEN ? "not a OneCRL file" : "records in");
	memcpy(b, file, LEN);
	refused(b, LEN - 1, "3 and 2 records in 367 bytes");
	/* counts past the end, and so large their product would wrap */
	memcpy(b, file, LEN);
	crlc_put_u32(b + 12, NI + 1);
	resum(b, LEN);
	refused(b, LEN, "4 and 2 records in");
	crlc_put_u32(b + 12, 0xffffffffu);
	crlc_put_u32(b + 16, 0xffffffffu);
	resum(b, LEN);
	refused(b, LEN, "4294967295 and 4294967295 records");
	crlc_put_u32(b + 12, NI + NS);
	crlc_put_u32(b + 16, 0);
	resum(b, LEN);	/* the sum of the counts right: the runs' order */
	refused(b, LEN, "out of order");
	/* magic, version, checksum; a repeated record */
	memcpy(b, file, LEN);
	b[0] = 'X';
	refused(b, LEN, "not a OneCRL file of version 1");
	memcpy(b, file, LEN);
	crlc_put_u32(b + 8, 2);
	resum(b, LEN);
	refused(b, LEN, "not a OneCRL file of version 1");
	memcpy(b, file, LEN);
	b[CRLC_ONECRL_HDR_LEN + 5] ^= 1;
	refused(b, LEN, "checksum mismatch");
	memcpy(b, file, LEN);
	memcpy(b + CRLC_ONECRL_HDR_LEN + 64, b + CRLC_ONECRL_HDR_LEN, 64);
	resum(b, LEN);
	refused(b, LEN, "out of order");
}

static void
file_reader(void)
{
	const char *dir = tmpdir_make("t_onecrl");
	char path[600], target[600], why[CRLC_ONECRL_WHY_LEN];
	struct crlc_onecrl *o = NULL;

	if (chmod(dir, 0755) != 0)
		exit(2);
	snprintf(path, sizeof(path), "%s/%s", dir, CRLC_ONECRL_NAME);
	snprintf(target, sizeof(target), "%s/target", dir);
	CHECK(crlc_onecrl_open(dir, &o, why, sizeof(why)) == 1 && o == NULL);
	CHECK(crlc_onecrl_open("/nonexistent/x", &o, why, sizeof(why)) == 1);
	build();
	write_file(path, file, LEN, 0644);
	CHECK(crlc_onecrl_open(dir, &o, why, sizeof(why)) == 0 && o != NULL);
	if (o != NULL)
		lookups(o);
	crlc_onecrl_free(o);
	/* cut short on disk: its length no longer that of its counts */
	CHECK(truncate(path, LEN - 8) == 0);
	CHECK(crlc_onecrl_open(dir, &o, why, sizeof(why)) == -1 &&
	    strstr(why, "records in") != NULL);
	write_file(path, file, LEN, 0666);
	CHECK(crlc_onecrl_open(dir, &o, why, sizeof(why)) == -1 &&
	    strstr(why, "writable by it alone") != NULL);
	unlink(path);
	write_file(target, file, LEN, 0644);
	CHECK(symlink(target, path) == 0);
	CHECK(crlc_onecrl_open(dir, &o, why, sizeof(why)) == -1 && o == NULL);
	unlink(path);
	unlink(target);
	write_file(path, file, LEN, 0644);
	CHECK(chmod(dir, 0777) == 0);
	CHECK(crlc_onecrl_open(dir, &o, why, sizeof(why)) == -1 &&
	    strstr(why, "writable by others") != NULL);
	unlink(path);
}

int
main(void)
{
	record_reader();
	file_reader();
	return check_result();
}
