/*
 * Unit test of revocation reasons (lib/reasons.c): ReasonFlags read
 * strictly as DER (RFC 5280 4.2.1.13, X.690 11.2), the onlySomeReasons of
 * an issuingDistributionPoint (5.2.5), the reasons suffix of a scope key
 * (format.h "crl") and the reason names of `crlcache reset --reasons`;
 * and the lookup over reason partitions (lib/index.c, RFC 5280 6.3.3):
 * revoked when any covering partition lists the serial, good only when
 * the partitions cover every reason, a distribution point's reasons
 * narrowing them, and a top whose reasons field disagrees with its key
 * refused.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tmpdir.h"
#include "topdir.h"
#include <crlcache/format.h>
#include <crlcache/hash.h>
#include <crlcache/index.h>
#include <crlcache/indexwrite.h>
#include <crlcache/reasons.h>

#define PARSE(...) parse((const uint8_t[]){ __VA_ARGS__ }, \
	sizeof((const uint8_t[]){ __VA_ARGS__ }))

static unsigned got;

static int
parse(const uint8_t *p, size_t len)
{
	got = 0xffff;
	return crlc_reasons_parse(p, len, &got);
}

static void
test_parse(void)
{
	/* keyCompromise, cACompromise: bits 1, 2 -> 0x60, 5 unused bits */
	CHECK(PARSE(0x05, 0x60) == 0 && got == 0x0006);
	/* PKITS "other reasons": unused + bits 3..8 (bit 0 adds nothing) */
	CHECK(PARSE(0x07, 0x9f, 0x80) == 0 && got == 0x01f8);
	/* every reason, bits 1..8 */
	CHECK(PARSE(0x07, 0x7f, 0x80) == 0 && got == CRLC_REASONS_ALL);
	/* aACompromise alone */
	CHECK(PARSE(0x07, 0x00, 0x80) == 0 && got == 0x0100);
	/* the empty bit string: no reason */
	CHECK(PARSE(0x00) == 0 && got == 0);
	/* unused alone: no reason */
	CHECK(PARSE(0x07, 0x80) == 0 && got == 0);
	/* unknown bits past aACompromise add no reasons */
	CHECK(PARSE(0x00, 0x40, 0x7f) == 0 && got == 0x0002);
	/* refused: no octet, unused count above 7, unused bits with no
	   octet, a set unused bit, a trailing zero bit, too long */
	CHECK(parse(NULL, 0) == -1);
	CHECK(PARSE(0x08, 0x80) == -1);
	CHECK(PARSE(0x01) == -1);
	CHECK(PARSE(0x05, 0x61) == -1);
	CHECK(PARSE(0x04, 0x60) == -1);
	CHECK(PARSE(0x00, 0x00) == -1);
	CHECK(PARSE(0x07, 0x00, 0x00, 0x00, 0x00, 0x80) == -1);
}

#define IDP(...) idp((const uint8_t[]){ __VA_ARGS__ }, \
	sizeof((const uint8_t[]){ __VA_ARGS__ }))

static int
idp(const uint8_t *p, size_t len)
{
	got = 0xffff;
	return crlc_idp_reasons(p, len, &got);
}

static void
test_idp(void)
{
	/* no onlySomeReasons: all reasons */
	CHECK(IDP(0x30, 0x00) == 0 && got == CRLC_REASONS_ALL);
	CHECK(IDP(0x30, 0x03, 0x81, 0x01, 0xff) == 0 &&
	    got == CRLC_REASONS_ALL);
	/* [3] keyCompromise, cACompromise */
	CHECK(IDP(0x30, 0x04, 0x83, 0x02, 0x05, 0x60) == 0 && got == 0x0006);
	/* after a [0] distributionPoint, before [4] indirectCRL */
	CHECK(IDP(0x30, 0x0b, 0xa0, 0x02, 0xa0, 0x00, 0x83, 0x02, 0x05, 0x60,
	    0x84, 0x01, 0xff) == 0 && got == 0x0006);
	/* refused: constructed [3], malformed reasons, fields out of order,
	   twice, trailing bytes, not a SEQUENCE, an unknown field */
	CHECK(IDP(0x30, 0x04, 0xa3, 0x02, 0x05, 0x60) == -1);
	CHECK(IDP(0x30, 0x04, 0x83, 0x02, 0x04, 0x60) == -1);
	CHECK(IDP(0x30, 0x07, 0x83, 0x02, 0x05, 0x60, 0x81, 0x01, 0xff) == -1);
	CHECK(IDP(0x30, 0x08, 0x83, 0x02, 0x05, 0x60, 0x83, 0x02, 0x05,
	    0x60) == -1);
	CHECK(IDP(0x30, 0x00, 0x00) == -1);
	CHECK(IDP(0x31, 0x00) == -1);
	CHECK(IDP(0x30, 0x03, 0x86, 0x01, 0xff) == -1);
	CHECK(idp(NULL, 0) == -1);
}

static void
test_suffix(void)
{
	uint8_t key[64];
	size_t n, namelen;

	memcpy(key, "http://x/a.crl", 14);
	n = 14 + crlc_scope_put_reasons(key + 14, CRLC_REASONS_ALL);
	CHECK(n == 14);
	CHECK(crlc_scope_reasons(key, n, &namelen) == CRLC_REASONS_ALL &&
	    namelen == 14);
	n = 14 + crlc_scope_put_reasons(key + 14, 0x0006);
	CHECK(n == 17 && key[14] == 0 && key[15] == 0 && key[16] == 6);
	CHECK(crlc_scope_reasons(key, n, &namelen) == 0x0006 && namelen == 14);
	/* the complete CRL's scope: the empty name and a suffix */
	n = crlc_scope_put_reasons(key, 0x01f8);
	CHECK(crlc_scope_reasons(key, n, &namelen) == 0x01f8 && namelen == 0);
	CHECK(crlc_scope_reasons(key, 0, &namelen) == CRLC_REASONS_ALL &&
	    namelen == 0);
}

static void
test_text(void)
{
	char buf[CRLC_REASONS_TEXT_MAX];
	unsigned m;

	crlc_reasons_format(0x0006, buf, sizeof(buf));
	CHECK(strcmp(buf, "keyCompromise,cACompromise") == 0);
	crlc_reasons_format(CRLC_REASONS_ALL, buf, sizeof(buf));
	CHECK(strlen(buf) < sizeof(buf) - 1 &&
	    strncmp(buf, "keyCompromise,", 14) == 0);
	CHECK(crlc_reasons_from_text(buf, &m) == 0 && m == CRLC_REASONS_ALL);
	crlc_reasons_format(0, buf, sizeof(buf));
	CHECK(strcmp(buf, "none") == 0);
	crlc_reasons_format(0x0006, buf, 8);
	CHECK(strlen(buf) == 7);
	CHECK(crlc_reasons_from_text("all", &m) == 0 && m == CRLC_REASONS_ALL);
	CHECK(crlc_reasons_from_text("superseded,certificateHold", &m) == 0 &&
	    m == 0x0050);
	CHECK(crlc_reasons_from_text("", &m) == -1);
	CHECK(crlc_reasons_from_text("unused", &m) == -1);
	CHECK(crlc_reasons_from_text("keyCompromise,", &m) == -1);
	CHECK(crlc_reasons_from_text("keyCompromise,,superseded", &m) == -1);
	CHECK(crlc_reasons_from_text("keycompromise", &m) == -1);
}

#define NOW	1790000000
#define DAY	86400
#define DP	"http://127.0.0.1/p.crl"

/* DER Name CN=Issuer A */
static const uint8_t name_a[] = { 0x30, 0x13, 0x31, 0x11, 0x30, 0x0f, 0x06,
    0x03, 0x55, 0x04, 0x03, 0x0c, 0x08, 'I', 's', 's', 'u', 'e', 'r', ' ', 'A' };

/* A SCOPE record of issuer 7, key 1: name and reasons, listing serial. */
static struct crlc_top_scope
rscope(const char *dir, unsigned no, const char *name, unsigned mask,
    uint8_t serial, uint8_t keybuf[64])
{
	static const uint8_t der[] = { 0x30, 0x00 };
	struct crlc_span d = { der, sizeof(der) };
	struct crlc_scope_entry e;
	struct crlc_top_scope s;
	char path[600], hex[2 * CRLC_SCOPE_ID_LEN + 1];
	size_t n = strlen(name);
	int fd;

	memcpy(keybuf, name, n);
	n += crlc_scope_put_reasons(keybuf + n, mask);
	memset(&s, 0, sizeof(s));
	s.issuer_id = 7;
	s.key_no = 1;
	s.scope_no = no;
	s.uri = (struct crlc_span){ keybuf, n };
	s.entries = 1;
	s.this_update = NOW - DAY;
	s.next_update = NOW + (int64_t)no * DAY;
	s.source = (struct crlc_span){ (const uint8_t *)"src", 3 };
	s.id[0] = (uint8_t)no;
	memset(&e, 0, sizeof(e));
	crlc_scope_slot(&serial, 1, e.slot);
	e.revoked_at = NOW - 2 * DAY;
	e.reason = 1;
	crlc_scope_name(s.id, hex);
	snprintf(path, sizeof(path), "%s/scope/%s", dir, hex);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1 ||
	    crlc_scope_write(fd, s.id, &e, 1, &d, NULL) || close(fd) != 0)
		abort();
	return s;
}

/* dir/index.mdb of the n first of issuer A's reason partitions. */
static void
write_reasons_index(const char *dir, size_t n)
{
	static uint8_t keys[4][64];
	struct crlc_top_issuer alias, canon;
	struct crlc_top_key key;
	struct crlc_top_scope sc[4];

	/* in key order: "" + 00 00 06, "" + 00 01 f8, DP + 00 00 06 */
	sc[0] = rscope(dir, 1, "", 0x0006, 0x01, keys[0]);
	sc[1] = rscope(dir, 2, "", 0x01f8, 0x02, keys[1]);
	sc[2] = rscope(dir, 3, DP, 0x0006, 0x03, keys[2]);
	memset(&alias, 0, sizeof(alias));
	memset(&canon, 0, sizeof(canon));
	memset(&key, 0, sizeof(key));
	crlc_sha256(name_a, sizeof(name_a), alias.hash);
	alias.id = canon.id = key.issuer_id = 7;
	memset(canon.hash, 0xaa, CRLC_HASH_LEN);
	key.key_no = 1;
	key.hash[0] = 0x11;
	topdir_write(dir, 1, NOW, &alias, 1, &canon, 1, &key, 1, sc, n);
}

/* A lookup of serial under issuer A, with one distribution point dp
   (of dplen bytes, 0: its strlen) for dpmask's reasons, or none. */
static struct crlc_verdict
look_n(struct crlc_index *idx, uint8_t serial, const char *dp, size_t dplen,
    unsigned dpmask)
{
	struct crlc_verdict v;
	struct crlc_tbs t;

	memset(&t, 0, sizeof(t));
	t.issuer = (struct crlc_span){ name_a, sizeof(name_a) };
	t.serial = (struct crlc_span){ &serial, 1 };
	if (dp != NULL) {
		t.dp[0] = (struct crlc_span){ (const uint8_t *)dp,
		    dplen > 0 ? dplen : strlen(dp) };
		t.dp_unnamed[0] = (uint16_t)(CRLC_REASONS_ALL & ~dpmask);
		t.ndp = 1;
	}
	memset(&v, 0xee, sizeof(v));
	CHECK(crlc_index_lookup(idx, &t, NULL, NOW, 0, &v) == 0);
	return v;
}

static struct crlc_verdict
look(struct crlc_index *idx, uint8_t serial, const char *dp, unsigned dpmask)
{
	return look_n(idx, serial, dp, 0, dpmask);
}

/*
 * The page files in dir/scope (of this index and of those written before
 * it) with the reasons field of the record whose key part ends in suffix
 * set to mask, and a good checksum.
 */
static void
set_reasons_field(const char *dir, const uint8_t suffix[3], unsigned mask)
{
	uint8_t buf[65536];
	char path[600];
	struct dirent *de;
	ssize_t n, i;
	DIR *d;
	int fd, changed = 0;

	snprintf(path, sizeof(path), "%s/scope", dir);
	if ((d = opendir(path)) == NULL)
		abort();
	while ((de = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "%s/scope/%s", dir, de->d_name);
		if (de->d_name[0] == '.' || (fd = open(path, O_RDWR)) == -1)
			continue;
		n = read(fd, buf, sizeof(buf));
		for (i = CRLC_SCOPE_REC_HDR_LEN; n >= 64 && memcmp(buf,
		    CRLC_PAGE_MAGIC, CRLC_MAGIC_LEN) == 0 && i + 6 <= n; i++)
			if (memcmp(buf + i, suffix, 3) == 0 &&
			    memcmp(buf + i + 3, "src", 3) == 0)
				break;
		if (n >= 64 && i + 6 <= n) {
			i -= CRLC_SCOPE_REC_HDR_LEN; /* the record of an empty name */
			buf[i + 14] = (uint8_t)(mask >> 8);
			buf[i + 15] = (uint8_t)mask;
			crlc_put_u64(buf + n - CRLC_TOP_TRAILER_LEN,
			    crlc_sum64(buf, (size_t)n - CRLC_TOP_TRAILER_LEN));
			if (pwrite(fd, buf, (size_t)n, 0) != n)
				abort();
			changed++;
		}
		close(fd);
	}
	closedir(d);
	if (changed == 0)
		abort();
}

/* The index at path opens, but a lookup of issuer A fails. */
static int
page_refused(const char *path)
{
	static const uint8_t serial = 0x04;
	struct crlc_index *idx;
	struct crlc_verdict v;
	struct crlc_tbs t;
	int rc;

	if (crlc_index_open(path, &idx, NULL) != CRLC_OK)
		return 0;
	memset(&t, 0, sizeof(t));
	t.issuer = (struct crlc_span){ name_a, sizeof(name_a) };
	t.serial = (struct crlc_span){ &serial, 1 };
	rc = crlc_index_lookup(idx, &t, NULL, NOW, 0, &v);
	crlc_index_close(idx);
	return rc == -1;
}

static void
test_lookup(void)
{
	static const uint8_t sfx_other[3] = { 0x00, 0x01, 0xf8 };
	const char *dir = tmpdir_make("t_reasons");
	char path[600];
	struct crlc_index *idx;
	struct crlc_verdict v;

	snprintf(path, sizeof(path), "%s/scope", dir);
	if (mkdir(path, 0755) != 0)
		abort();
	snprintf(path, sizeof(path), "%s/index.mdb", dir);

	/* both complete partitions: every reason */
	write_reasons_index(dir, 3);
	CHECK(crlc_index_open(path, &idx, NULL) == CRLC_OK);
	v = look(idx, 0x01, NULL, 0);
	CHECK(v.state == CRLC_REVOKED && v.reason == 1);
	CHECK(look(idx, 0x02, NULL, 0).state == CRLC_REVOKED);
	v = look(idx, 0x04, NULL, 0);
	/* the times of the partition whose nextUpdate comes first */
	CHECK(v.state == CRLC_GOOD && v.next_update == NOW + DAY);
	/* the DP's partition lists 03 for the compromise reasons */
	CHECK(look(idx, 0x03, DP, CRLC_REASONS_ALL).state == CRLC_REVOKED);
	CHECK(look(idx, 0x03, NULL, 0).state == CRLC_GOOD);
	/* a DP for superseded only: the compromise partitions do not cover */
	CHECK(look(idx, 0x03, DP, 0x0010).state == CRLC_GOOD);
	/* a DP whose reasons meet no partition of its name is not covered
	   by it; a 00 in a URI posing as a suffix matches nothing */
	CHECK(look_n(idx, 0x03, DP "\x00\x00\x06", sizeof(DP) + 2,
	    CRLC_REASONS_ALL).state == CRLC_GOOD);
	crlc_index_close(idx);

	/* one complete partition: unknown, and for which reasons */
	write_reasons_index(dir, 1);
	CHECK(crlc_index_open(path, &idx, NULL) == CRLC_OK);
	v = look(idx, 0x04, NULL, 0);
	CHECK(v.state == CRLC_UNKNOWN && v.issuer_held && v.reasons == 0x0006);
	CHECK(look(idx, 0x01, NULL, 0).state == CRLC_REVOKED);
	crlc_index_close(idx);

	/*
	 * a reasons field that disagrees with the key: its page file is
	 * refused when read, and the lookup that needs it fails
	 */
	write_reasons_index(dir, 2);
	CHECK(crlc_index_open(path, &idx, NULL) == CRLC_OK);
	CHECK(look(idx, 0x04, NULL, 0).state == CRLC_GOOD);
	crlc_index_close(idx);
	set_reasons_field(dir, sfx_other, 0x01f0);
	CHECK(page_refused(path));
	write_reasons_index(dir, 2);
	set_reasons_field(dir, sfx_other, 0);
	CHECK(page_refused(path));
}

int
main(void)
{
	test_parse();
	test_idp();
	test_suffix();
	test_text();
	test_lookup();
	return check_result();
}
