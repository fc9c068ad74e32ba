/*
 * Unit test of the index reader (lib/index.c, lib/indexopen.c,
 * lib/indexpage.c) against format 4 files written with the encoder
 * (lib/indexwrite.c), whose bytes t_indexwrite checks against
 * <crlcache/format.h>: issuer keys, serials by hash, the covering scopes
 * alone deciding (RFC 5280 6.3.3).  Also: a missing file, garbage, an
 * older or a newer version, every truncation and
 * byte flip of the top file are refused with the right code and never
 * fault; a missing, damaged (every truncation, every byte flipped) or
 * untrusted page file, or such a scope file, makes the lookup that needs
 * it fail (-1), never answer.  The path is not trusted: a symlink, a
 * FIFO, a device, a file of another user or in a directory others may
 * write is refused without blocking.  The top file is read, not mapped;
 * page files are read and scope files mapped on first use, once, even
 * when threads race for them.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
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

#define NOW		1790000000	/* 2026-09-21 */
#define DAY		86400

/* DER Names: CN=Issuer A, CN=Issuer B (never indexed). */
static const uint8_t name_a[] = { 0x30, 0x13, 0x31, 0x11, 0x30, 0x0f, 0x06,
    0x03, 0x55, 0x04, 0x03, 0x0c, 0x08, 'I', 's', 's', 'u', 'e', 'r', ' ', 'A' };
static const uint8_t name_b[] = { 0x30, 0x13, 0x31, 0x11, 0x30, 0x0f, 0x06,
    0x03, 0x55, 0x04, 0x03, 0x0c, 0x08, 'I', 's', 's', 'u', 'e', 'r', ' ', 'B' };
/* CN=Issuer C: one complete CRL that covers CA certificates only */
static const uint8_t name_c[] = { 0x30, 0x13, 0x31, 0x11, 0x30, 0x0f, 0x06,
    0x03, 0x55, 0x04, 0x03, 0x0c, 0x08, 'I', 's', 's', 'u', 'e', 'r', ' ', 'C' };

/* Key hashes: issuer A has keys 1 and 2, issuer C key 1. */
static const uint8_t key_a1[CRLC_HASH_LEN] = { 0x11 };
static const uint8_t key_a2[CRLC_HASH_LEN] = { 0x22 };
static const uint8_t key_c1[CRLC_HASH_LEN] = { 0x44 };
static const uint8_t key_unknown[CRLC_HASH_LEN] = { 0x33 };
/* Key 2's subjectKeyIdentifier (20 bytes, as most CAs make it). */
static const uint8_t ski_a2[20] = { 0xa2, 0x02, 0xa2 };

/* A serial of 70 octets: over CRLC_SLOT_INLINE, stored by its hash. */
static uint8_t long_serial[70];

#define P1	"http://127.0.0.1/p1.crl"
#define P2	"http://127.0.0.1/p2.crl"
#define K2P	"http://127.0.0.1/k2p.crl"

/* The "signed CRL" bodies: any bytes will do for the reader. */
static const uint8_t der_body[] = { 0x30, 0x03, 0x02, 0x01, 0x2a };
static const uint8_t delta_body[] = { 0x30, 0x01, 0x00 };

static struct crlc_scope_entry
entry(const uint8_t *serial, size_t len, int reason)
{
	struct crlc_scope_entry e;

	memset(&e, 0, sizeof(e));
	crlc_scope_slot(serial, len, e.slot);
	e.revoked_at = NOW - 2 * DAY;
	e.reason = (uint8_t)reason;
	return e;
}

static void
write_scope(const char *dir, const uint8_t id[CRLC_SCOPE_ID_LEN],
    struct crlc_scope_entry *e, size_t n, int with_delta)
{
	struct crlc_span der = { der_body, sizeof(der_body) };
	struct crlc_span delta = { delta_body, sizeof(delta_body) };
	char path[600], name[2 * CRLC_SCOPE_ID_LEN + 1];
	int fd;

	crlc_scope_name(id, name);
	snprintf(path, sizeof(path), "%s/scope/%s", dir, name);
	unlink(path);
	n = crlc_scope_sort(e, n);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644)) == -1 ||
	    crlc_scope_write(fd, id, e, n, &der, with_delta ? &delta : NULL) ||
	    close(fd) != 0)
		abort();
}

static struct crlc_top_scope
scope(uint32_t issuer, uint32_t key_no, unsigned scope_no, const char *uri,
    unsigned flags, int64_t next_update, uint32_t entries)
{
	struct crlc_top_scope s;

	memset(&s, 0, sizeof(s));
	s.issuer_id = issuer;
	s.key_no = key_no;
	s.scope_no = scope_no;
	s.uri = (struct crlc_span){ (const uint8_t *)uri, strlen(uri) };
	s.flags = flags;
	s.entries = entries;
	s.this_update = NOW - DAY;
	s.next_update = next_update;
	s.fetched_at = NOW - DAY;
	s.source = (struct crlc_span){ (const uint8_t *)"src", 3 };
	s.id[0] = (uint8_t)issuer;
	s.id[1] = (uint8_t)key_no;
	s.id[2] = (uint8_t)scope_no;
	return s;
}

static int
issuer_cmp(const void *a, const void *b)
{
	return memcmp(((const struct crlc_top_issuer *)a)->hash,
	    ((const struct crlc_top_issuer *)b)->hash, CRLC_HASH_LEN);
}

/* The scope records, in SCOPE order (format.h), for every test. */
enum { S_P1, S_P2, S_A2, S_K2P, S_C, NSCOPES };

/*
 * Publish the test index in dir (index.mdb and scope/): issuer A (id 7)
 * with key 1's partitions p1 (users only, fresh, lists 00 80) and p2
 * (stale, empty), key 2's complete CRL (a 70-octet serial, 01) and
 * partition k2p (01 and 02); issuer C (id 9), a complete CRL for CAs.
 */
static void
write_index(const char *dir, uint64_t generation)
{
	static const uint8_t serial_rev[] = { 0x00, 0x80 };
	struct crlc_top_issuer alias[2], canon[2];
	struct crlc_top_key keys[3];
	struct crlc_top_scope sc[NSCOPES];
	struct crlc_scope_entry e[2];
	char path[600];

	snprintf(path, sizeof(path), "%s/scope", dir);
	(void)mkdir(path, 0755);
	memset(alias, 0, sizeof(alias));
	memset(canon, 0, sizeof(canon));
	memset(keys, 0, sizeof(keys));
	crlc_sha256(name_a, sizeof(name_a), alias[0].hash);
	alias[0].id = 7;
	crlc_sha256(name_c, sizeof(name_c), alias[1].hash);
	alias[1].id = 9;
	qsort(alias, 2, sizeof(alias[0]), issuer_cmp);
	memset(canon[0].hash, 0xaa, CRLC_HASH_LEN);
	canon[0].id = 7;
	memset(canon[1].hash, 0xcc, CRLC_HASH_LEN);
	canon[1].id = 9;
	keys[0] = (struct crlc_top_key){ .issuer_id = 7, .key_no = 1,
	    .ski_len = 1, .ski = { 0xa1 } };
	memcpy(keys[0].hash, key_a1, CRLC_HASH_LEN);
	keys[1] = (struct crlc_top_key){ .issuer_id = 7, .key_no = 2,
	    .ski_len = sizeof(ski_a2) };
	memcpy(keys[1].hash, key_a2, CRLC_HASH_LEN);
	memcpy(keys[1].ski, ski_a2, sizeof(ski_a2));
	keys[2] = (struct crlc_top_key){ .issuer_id = 9, .key_no = 1 };
	memcpy(keys[2].hash, key_c1, CRLC_HASH_LEN);

	sc[S_P1] = scope(7, 1, 1, P1, CRLC_CRL_USER_ONLY, NOW + 6 * DAY, 1);
	e[0] = entry(serial_rev, 2, 1);
	write_scope(dir, sc[S_P1].id, e, 1, 0);
	sc[S_P2] = scope(7, 1, 2, P2, 0, NOW - 2 * DAY, 0);
	write_scope(dir, sc[S_P2].id, e, 0, 0);
	sc[S_A2] = scope(7, 2, 1, "", CRLC_CRL_HAS_DELTA, NOW + DAY, 2);
	memset(long_serial, 0x5a, sizeof(long_serial));
	e[0] = entry(long_serial, sizeof(long_serial), 4);
	e[1] = entry((const uint8_t *)"\x01", 1, 5);
	write_scope(dir, sc[S_A2].id, e, 2, 1);
	sc[S_K2P] = scope(7, 2, 2, K2P, 0, NOW + DAY, 2);
	e[0] = entry((const uint8_t *)"\x01", 1, 5);
	e[1] = entry((const uint8_t *)"\x02", 1, 3);
	write_scope(dir, sc[S_K2P].id, e, 2, 0);
	sc[S_C] = scope(9, 1, 1, "", CRLC_CRL_CA_ONLY, NOW + DAY, 0);
	write_scope(dir, sc[S_C].id, e, 0, 0);

	topdir_write(dir, generation, NOW, alias, 2, canon, 2, keys, 3, sc,
	    NSCOPES);
}

static struct crlc_tbs
cert(const uint8_t *issuer, size_t ilen, const uint8_t *serial, size_t slen,
    const char *dp, int is_ca)
{
	struct crlc_tbs t;

	memset(&t, 0, sizeof(t));
	t.issuer.p = issuer;
	t.issuer.len = ilen;
	t.serial.p = serial;
	t.serial.len = slen;
	t.is_ca = is_ca;
	if (dp != NULL) {
		t.dp[0].p = (const uint8_t *)dp;
		t.dp[0].len = strlen(dp);
		t.ndp = 1;
	}
	return t;
}

static enum crlc_state
state_key(struct crlc_index *idx, struct crlc_tbs t, const uint8_t *key,
    int64_t grace)
{
	struct crlc_issuer_key ik = { key, { NULL, 0 } };
	struct crlc_verdict v;

	CHECK(crlc_index_lookup(idx, &t, &ik, NOW, grace, &v) == 0);
	return v.state;
}

/* The key decides which of issuer A's CRLs answer. */
static void
check_keys(struct crlc_index *idx)
{
	static const uint8_t revoked[] = { 0x00, 0x80 }, one[] = { 0x01 };
	static const uint8_t two[] = { 0x02 };
	struct crlc_issuer_key ik2 = { key_a2, { NULL, 0 } };
	struct crlc_issuer_key aki = { NULL, { ski_a2, sizeof(ski_a2) } };
	struct crlc_verdict v;
	struct crlc_tbs t;
	uint8_t other[sizeof(ski_a2)];

	/* an authorityKeyIdentifier names key 2 by its subjectKeyIdentifier */
	t = cert(name_a, sizeof(name_a), revoked, 2, NULL, 0);
	CHECK(crlc_index_lookup(idx, &t, &aki, NOW, 0, &v) == 0 &&
	    v.state == CRLC_GOOD);
	memcpy(other, ski_a2, sizeof(other));
	other[0] ^= 1;
	aki.aki.p = other;
	CHECK(crlc_index_lookup(idx, &t, &aki, NOW, 0, &v) == 0 &&
	    v.state == CRLC_UNKNOWN);

	/* key 2's complete CRL does not list key 1's revoked serial */
	CHECK(state_key(idx, cert(name_a, sizeof(name_a), revoked, 2, P1, 0),
	    key_a2, 0) == CRLC_GOOD);
	/* a key the index does not know: no CRL of it is held */
	CHECK(state_key(idx, cert(name_a, sizeof(name_a), revoked, 2, P1, 0),
	    key_unknown, 0) == CRLC_UNKNOWN);
	/* no key and two keys under the name: not decided by the name */
	CHECK(state_key(idx, cert(name_a, sizeof(name_a), revoked, 2, P1, 0),
	    NULL, 0) == CRLC_UNKNOWN);
	/* no key and one key under the name: that one (issuer C) */
	CHECK(state_key(idx, cert(name_c, sizeof(name_c), one, 1, NULL, 1),
	    NULL, 0) == CRLC_GOOD);
	/* a serial over 23 octets, found by its hash */
	t = cert(name_a, sizeof(name_a), long_serial, sizeof(long_serial), NULL,
	    0);
	CHECK(crlc_index_lookup(idx, &t, &ik2, NOW, 0, &v) == 0);
	CHECK(v.state == CRLC_REVOKED && v.reason == 4 &&
	    v.revoked_at == NOW - 2 * DAY);
	long_serial[69] ^= 1;
	CHECK(state_key(idx, t, key_a2, 0) == CRLC_GOOD);
	long_serial[69] ^= 1;
	/* a serial two covering scopes list: one answer */
	t = cert(name_a, sizeof(name_a), one, 1, K2P, 0);
	CHECK(crlc_index_lookup(idx, &t, &ik2, NOW, 0, &v) == 0);
	CHECK(v.state == CRLC_REVOKED && v.reason == 5);
	/*
	 * 02 is listed by partition k2p only: revoked for a certificate
	 * that names k2p, not for one the complete CRL alone covers (RFC
	 * 5280 6.3.3: the CRLs whose scope covers it decide; format 2
	 * answered REVOKED for both).
	 */
	t = cert(name_a, sizeof(name_a), two, 1, K2P, 0);
	CHECK(crlc_index_lookup(idx, &t, &ik2, NOW, 0, &v) == 0);
	CHECK(v.state == CRLC_REVOKED && v.reason == 3);
	CHECK(state_key(idx, cert(name_a, sizeof(name_a), two, 1, NULL, 0),
	    key_a2, 0) == CRLC_GOOD);
	CHECK(state_key(idx, cert(name_a, sizeof(name_a), two, 1, P1, 0),
	    key_a2, 0) == CRLC_GOOD);
}

static enum crlc_state
state_of(struct crlc_index *idx, struct crlc_tbs t, int64_t grace)
{
	return state_key(idx, t, key_a1, grace);
}

static void
check_verdicts(struct crlc_index *idx)
{
	static const uint8_t revoked[] = { 0x00, 0x80 }, good[] = { 0x01 };
	static const uint8_t no_pad[] = { 0x80 };
	struct crlc_issuer_key ika = { key_a1, { NULL, 0 } };
	struct crlc_verdict v;
	struct crlc_tbs t;
	uint32_t id;

	t = cert(name_a, sizeof(name_a), revoked, 2, P1, 0);
	CHECK(crlc_index_lookup(idx, &t, &ika, NOW, 0, &v) == 0);
	CHECK(v.state == CRLC_REVOKED && v.reason == 1 &&
	    v.revoked_at == NOW - 2 * DAY);
	CHECK(strcmp(crlc_reason_name(v.reason), "keyCompromise") == 0);
	/* listed by p1 only: a certificate p1 does not cover is not revoked */
	t = cert(name_a, sizeof(name_a), revoked, 2, P2, 0);
	CHECK(crlc_index_lookup(idx, &t, &ika, NOW, 3 * DAY, &v) == 0 &&
	    v.state == CRLC_GOOD && v.next_update == NOW - 2 * DAY);
	t = cert(name_a, sizeof(name_a), revoked, 2, NULL, 0);
	CHECK(crlc_index_lookup(idx, &t, &ika, NOW, 0, &v) == 0 &&
	    v.state == CRLC_UNKNOWN && v.issuer_held);
	/* the serial's content octets are the key: 80 is not 00 80 */
	CHECK(state_of(idx, cert(name_a, sizeof(name_a), no_pad, 1, P1, 0), 0) ==
	    CRLC_GOOD);
	/* no DP and no complete CRL: unknown */
	CHECK(state_of(idx, cert(name_a, sizeof(name_a), good, 1, NULL, 0), 0) ==
	    CRLC_UNKNOWN);
	/* onlyContainsUserCerts does not cover a CA certificate */
	CHECK(state_of(idx, cert(name_a, sizeof(name_a), revoked, 2, P1, 1),
	    0) == CRLC_UNKNOWN);
	/* the DP must match byte for byte */
	CHECK(state_of(idx, cert(name_a, sizeof(name_a), good, 1,
	    "http://127.0.0.1/P1.crl", 0), 0) == CRLC_UNKNOWN);
	/* stale past nextUpdate + grace, good within the grace */
	CHECK(state_of(idx, cert(name_a, sizeof(name_a), good, 1, P2, 0),
	    DAY) == CRLC_STALE);
	CHECK(state_of(idx, cert(name_a, sizeof(name_a), good, 1, P2, 0),
	    3 * DAY) == CRLC_GOOD);
	/* a complete CRL covers any DP, but onlyContainsCACerts only CAs */
	CHECK(state_key(idx, cert(name_c, sizeof(name_c), good, 1, NULL, 1),
	    NULL, 0) == CRLC_GOOD);
	CHECK(state_key(idx, cert(name_c, sizeof(name_c), good, 1, P1, 0),
	    NULL, 0) == CRLC_UNKNOWN);
	/* an issuer encoding never seen is unknown, even for a listed serial */
	t = cert(name_b, sizeof(name_b), revoked, 2, P1, 0);
	CHECK(crlc_index_lookup(idx, &t, &ika, NOW, 0, &v) == 0 &&
	    v.state == CRLC_UNKNOWN && !v.issuer_held);
	CHECK(crlc_index_issuer(idx, &t.issuer, &id) == 0 && id == 0);
	t = cert(name_c, sizeof(name_c), good, 1, NULL, 0);
	CHECK(crlc_index_issuer(idx, &t.issuer, &id) == 0 && id == 9);
}

/* What foreach_crl reports, scope by scope. */
static int
crl_seen(const struct crlc_crl_info *ci, void *arg)
{
	int *n = arg;

	switch ((*n)++) {
	case S_P1:
		CHECK(ci->issuer_id == 7 && ci->key_no == 1 &&
		    ci->scope_no == 1 && ci->entries == 1 &&
		    ci->scope.len == strlen(P1) &&
		    memcmp(ci->scope.p, P1, ci->scope.len) == 0 &&
		    ci->flags == CRLC_CRL_USER_ONLY && ci->ski.len == 1 &&
		    ci->ski.p[0] == 0xa1 && ci->delta.len == 0);
		break;
	case S_A2:
		CHECK(ci->key_no == 2 && ci->scope.len == 0 &&
		    ci->ski.len == sizeof(ski_a2) &&
		    memcmp(ci->ski.p, ski_a2, sizeof(ski_a2)) == 0 &&
		    ci->delta.len == sizeof(delta_body) &&
		    memcmp(ci->delta.p, delta_body, sizeof(delta_body)) == 0);
		break;
	case S_C:
		CHECK(ci->issuer_id == 9 && ci->this_update == NOW - DAY &&
		    ci->next_update == NOW + DAY && ci->fetched_at == NOW - DAY);
		break;
	}
	CHECK(ci->der.len == sizeof(der_body) &&
	    memcmp(ci->der.p, der_body, sizeof(der_body)) == 0);
	CHECK(ci->source.len == 3 && memcmp(ci->source.p, "src", 3) == 0);
	return 0;
}

/* File ids walked: how many, of them scope ids (scope()), when to stop. */
struct ids {
	int	n, scopes, stop;
};

static int
id_seen(const uint8_t id[CRLC_SCOPE_ID_LEN], void *arg)
{
	static const uint8_t zero[CRLC_SCOPE_ID_LEN - 3];
	struct ids *c = arg;

	c->scopes += (id[0] == 7 || id[0] == 9) &&
	    memcmp(id + 3, zero, sizeof(zero)) == 0;
	return ++c->n == c->stop ? 42 : 0;	/* stops the walk */
}

/* Bytes of this process's address space mapped from path. */
static unsigned long
mapped_bytes(const char *path)
{
	char line[4096 + 256];
	unsigned long lo, hi, total = 0;
	size_t n = strlen(path), l;
	FILE *f;

	if ((f = fopen("/proc/self/maps", "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		l = strlen(line);
		if (l > 0 && line[l - 1] == '\n')
			line[--l] = '\0';
		if (l > n && line[l - n - 1] == ' ' &&
		    strcmp(line + l - n, path) == 0 &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			total += hi - lo;
	}
	fclose(f);
	return total;
}

/* Twice: the second round answers from the issuer cache. */
static void
check_lookups(const char *dir, const char *path)
{
	struct crlc_index *idx;
	struct crlc_stats st;
	char sp[600], name[2 * CRLC_SCOPE_ID_LEN + 1];
	uint8_t id[CRLC_SCOPE_ID_LEN] = { 7, 1, 2 };
	struct ids ids = { 0, 0, 0 };
	int n = 0;

	CHECK(crlc_index_open(path, &idx, NULL) == CRLC_OK);
	if (idx == NULL)
		return;
	CHECK(crlc_index_generation(idx) == 42);
	CHECK(crlc_index_created(idx) == NOW);
	CHECK(crlc_index_format(idx) == 4);
	/* the top is a private copy, the scope files not mapped yet */
	CHECK(mapped_bytes(path) == 0);
	crlc_scope_name(id, name);
	snprintf(sp, sizeof(sp), "%s/scope/%s", dir, name);
	CHECK(mapped_bytes(sp) == 0);
	check_verdicts(idx);
	check_verdicts(idx);
	CHECK(mapped_bytes(sp) == 0);	/* p2 read by a lookup, not mapped */
	check_keys(idx);
	check_keys(idx);
	CHECK(crlc_index_stats(idx, &st) == 0);
	CHECK(st.issuers == 2 && st.crls == NSCOPES && st.revoked == 5 &&
	    st.file_size > NSCOPES * CRLC_SCOPE_HDR_LEN);
	CHECK(crlc_index_foreach_crl(idx, 0, CRLC_WALK_CRLS, crl_seen, &n) == 0 &&
	    n == NSCOPES);
	/* every scope file, and a page file for each of the 3 issuer keys */
	CHECK(crlc_index_foreach_file_id(idx, id_seen, &ids) == 0 &&
	    ids.n == NSCOPES + 3 && ids.scopes == NSCOPES);
	ids = (struct ids){ 0, 0, 2 };
	CHECK(crlc_index_foreach_file_id(idx, id_seen, &ids) == 42 &&
	    ids.n == 2);
	crlc_index_close(idx);
}

struct race {
	struct crlc_index	*idx;
	int			 bad;
};

static void *
race_run(void *arg)
{
	static const uint8_t revoked[] = { 0x00, 0x80 };
	struct race *r = arg;
	struct crlc_issuer_key ika = { key_a1, { NULL, 0 } };
	struct crlc_tbs t = cert(name_a, sizeof(name_a), revoked, 2, P1, 0);
	struct crlc_verdict v;
	int i;

	for (i = 0; i < 2000; i++)
		if (crlc_index_lookup(r->idx, &t, &ika, NOW, 0, &v) != 0 ||
		    v.state != CRLC_REVOKED)
			r->bad = 1;
	return NULL;
}

/* Threads race for the first map of a scope file: each gets one answer. */
static void
check_threads(const char *path)
{
	struct race r[4];
	pthread_t th[4];
	struct crlc_index *idx;
	int i;

	CHECK(crlc_index_open(path, &idx, NULL) == CRLC_OK);
	if (idx == NULL)
		return;
	for (i = 0; i < 4; i++) {
		r[i] = (struct race){ idx, 0 };
		CHECK(pthread_create(&th[i], NULL, race_run, &r[i]) == 0);
	}
	for (i = 0; i < 4; i++) {
		CHECK(pthread_join(th[i], NULL) == 0);
		CHECK(!r[i].bad);
	}
	crlc_index_close(idx);
}

/* A copy of the file at path, of len bytes, with a byte xored at off. */
static void
copy_damaged(const char *from, const char *to, off_t len, off_t off,
    uint8_t x)
{
	uint8_t buf[65536];
	ssize_t n;
	int in, out;

	if ((in = open(from, O_RDONLY)) == -1 ||
	    (n = read(in, buf, sizeof(buf))) < 0 || n >= (ssize_t)sizeof(buf))
		abort();
	close(in);
	if (len > n)
		len = n;
	if (off < len)
		buf[off] ^= x;
	unlink(to);
	if ((out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1 ||
	    write(out, buf, (size_t)len) != (ssize_t)len || close(out) != 0)
		abort();
}

/* The top of dir rewritten with a header field changed and a good trailer. */
static void
copy_reheaded(const char *from, const char *to, size_t at, uint32_t v)
{
	uint8_t buf[65536];
	ssize_t n;
	int fd;

	if ((fd = open(from, O_RDONLY)) == -1 ||
	    (n = read(fd, buf, sizeof(buf))) < 64 || close(fd) != 0)
		abort();
	crlc_put_u32(buf + at, v);
	crlc_put_u64(buf + n - CRLC_TOP_TRAILER_LEN,
	    crlc_sum64(buf, (size_t)n - CRLC_TOP_TRAILER_LEN));
	unlink(to);
	if ((fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1 ||
	    write(fd, buf, (size_t)n) != n || close(fd) != 0)
		abort();
}

static void
check_refusals(const char *dir, const char *good)
{
	char path[512];
	const char *detail;
	struct crlc_index *idx;
	struct stat sb;
	off_t cut;
	int fd, flips = 0;

	snprintf(path, sizeof(path), "%s/missing.mdb", dir);
	CHECK(crlc_index_open(path, &idx, NULL) == CRLC_E_NOINDEX && idx == NULL);

	snprintf(path, sizeof(path), "%s/garbage.mdb", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(write(fd, "this is not an index file at all", 32) == 32);
	close(fd);
	CHECK(crlc_index_open(path, &idx, NULL) == CRLC_E_FORMAT && idx == NULL);


	/* the good file cut anywhere, and any one of its bytes flipped */
	CHECK(stat(good, &sb) == 0);
	snprintf(path, sizeof(path), "%s/cut.mdb", dir);
	for (cut = 0; cut < sb.st_size; cut += 7) {
		copy_damaged(good, path, cut, sb.st_size, 0);
		CHECK(crlc_index_open(path, &idx, NULL) != CRLC_OK && idx == NULL);
	}
	for (cut = 0; cut < sb.st_size; cut++) {
		copy_damaged(good, path, sb.st_size, cut, 0x10);
		flips += crlc_index_open(path, &idx, NULL) != CRLC_OK;
		crlc_index_close(idx);
	}
	CHECK(flips == sb.st_size);

	/* a file others may write is not read */
	CHECK(chmod(good, 0666) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_E_ACCESS && idx == NULL);
	CHECK(chmod(good, 0644) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_OK);
	crlc_index_close(idx);

	/* the same rules through a directory descriptor */
	{
		const char *base = strrchr(good, '/') + 1;
		int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

		CHECK(dfd != -1);
		CHECK(crlc_index_open_at(dfd, base, &idx, NULL) == CRLC_OK);
		crlc_index_close(idx);
		CHECK(crlc_index_open_at(dfd, "missing.mdb", &idx, NULL) ==
		    CRLC_E_NOINDEX && idx == NULL);
		CHECK(crlc_index_open_at(dfd, "garbage.mdb", &idx, NULL) ==
		    CRLC_E_FORMAT && idx == NULL);
		snprintf(path, sizeof(path), "%s/link.mdb", dir);
		CHECK(symlink(base, path) == 0);
		CHECK(crlc_index_open_at(dfd, "link.mdb", &idx, NULL) ==
		    CRLC_E_ACCESS && idx == NULL);
		CHECK(unlink(path) == 0);
		CHECK(chmod(good, 0666) == 0);
		CHECK(crlc_index_open_at(dfd, base, &idx, NULL) ==
		    CRLC_E_ACCESS && idx == NULL);
		CHECK(chmod(good, 0644) == 0);
		close(dfd);
	}

	/* a newer version, and descriptors out of range, with good trailers */
	snprintf(path, sizeof(path), "%s/newer.mdb", dir);
	copy_reheaded(good, path, 8, CRLC_FORMAT_VERSION + 1);
	CHECK(crlc_index_open(path, &idx, NULL) == CRLC_E_FORMAT && idx == NULL);
	/* an older version's top: refused, with the way out */
	copy_reheaded(good, path, 8, 3);
	CHECK(crlc_index_open(path, &idx, &detail) == CRLC_E_FORMAT &&
	    idx == NULL && strstr(detail, "crlcache publish") != NULL);
	copy_reheaded(good, path, 12, CRLC_TOP_DESC_MAX + 1);
	CHECK(crlc_index_open(path, &idx, NULL) == CRLC_E_CORRUPT && idx == NULL);
	copy_reheaded(good, path, CRLC_TOP_HDR_LEN + 12, 0x7fffffff);
	CHECK(crlc_index_open(path, &idx, NULL) == CRLC_E_CORRUPT && idx == NULL);
	copy_reheaded(good, path, CRLC_TOP_HDR_LEN + 4, 35);
	CHECK(crlc_index_open(path, &idx, NULL) == CRLC_E_CORRUPT && idx == NULL);
	crlc_index_close(NULL);
}

/*
 * Lookups of t that fail with path a damaged copy of keep: for each of
 * the n first offsets, the copy cut there (x 0) or with the byte there
 * xored with x.
 */
static int
damaged_fails(const char *good, const char *keep, const char *path, off_t n,
    uint8_t x, const struct crlc_tbs *t, const struct crlc_issuer_key *ik)
{
	struct crlc_index *idx;
	struct crlc_verdict v;
	struct stat sb;
	off_t at;
	int fails = 0;

	CHECK(stat(keep, &sb) == 0);
	for (at = 0; at < n; at++) {
		if (x == 0)
			copy_damaged(keep, path, at, sb.st_size, 0);
		else
			copy_damaged(keep, path, sb.st_size, at, x);
		CHECK(crlc_index_open(good, &idx, NULL) == CRLC_OK);
		fails += crlc_index_lookup(idx, t, ik, NOW, 0, &v) == -1;
		crlc_index_close(idx);
	}
	return fails;
}

/*
 * The file at path, a copy of keep (size bytes), made writable by
 * others, then a symbolic link to keep: the lookup of t that needs it
 * fails.  Then keep is moved back to path.
 */
static void
untrusted_file(const char *good, const char *keep, const char *path,
    const struct crlc_tbs *t, const struct crlc_issuer_key *ik)
{
	struct crlc_index *idx;
	struct crlc_verdict v;
	struct stat sb;

	CHECK(stat(keep, &sb) == 0);
	copy_damaged(keep, path, sb.st_size, sb.st_size, 0);
	CHECK(chmod(path, 0666) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_OK);
	CHECK(crlc_index_lookup(idx, t, ik, NOW, 0, &v) == -1);
	crlc_index_close(idx);
	CHECK(unlink(path) == 0 && symlink(keep, path) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_OK);
	CHECK(crlc_index_lookup(idx, t, ik, NOW, 0, &v) == -1);
	crlc_index_close(idx);
	CHECK(unlink(path) == 0 && rename(keep, path) == 0);
}

/* Damaged or untrusted scope files: the lookups that need them fail. */
static void
check_scope_damage(const char *dir, const char *good)
{
	static const uint8_t revoked[] = { 0x00, 0x80 };
	uint8_t id[CRLC_SCOPE_ID_LEN] = { 7, 1, 1 };
	struct crlc_issuer_key ika = { key_a1, { NULL, 0 } };
	struct crlc_tbs t = cert(name_a, sizeof(name_a), revoked, 2, P1, 0);
	struct crlc_index *idx;
	struct crlc_verdict v;
	char sp[600], keep[600], name[2 * CRLC_SCOPE_ID_LEN + 1], sd[600];
	struct stat sb;
	int fails = 0, fd;

	crlc_scope_name(id, name);
	snprintf(sp, sizeof(sp), "%s/scope/%s", dir, name);
	snprintf(keep, sizeof(keep), "%s/keep", dir);
	CHECK(rename(sp, keep) == 0 && stat(keep, &sb) == 0);
	/* missing: the index opens, the lookup that needs p1 fails */
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_OK);
	if (idx == NULL)
		return;
	CHECK(crlc_index_lookup(idx, &t, &ika, NOW, 0, &v) == -1);
	CHECK(crlc_index_foreach_crl(idx, 0, CRLC_WALK_CRLS, crl_seen,
	    &fails) == -1);
	/* it appears: the next lookup maps it */
	CHECK(link(keep, sp) == 0);
	CHECK(crlc_index_lookup(idx, &t, &ika, NOW, 0, &v) == 0 &&
	    v.state == CRLC_REVOKED);
	crlc_index_close(idx);
	/* every truncation, and a flip of every header byte */
	CHECK(damaged_fails(good, keep, sp, sb.st_size, 0, &t, &ika) ==
	    sb.st_size);
	fails = damaged_fails(good, keep, sp, CRLC_SCOPE_HDR_LEN - 8, 0x40, &t,
	    &ika);
	/* the 8 zero bytes at 88 are not read; every other one is checked */
	CHECK(fails == CRLC_SCOPE_HDR_LEN - 8);
	untrusted_file(good, keep, sp, &t, &ika);
	/* a scope directory others may write, or none: the index is refused */
	snprintf(sd, sizeof(sd), "%s/scope", dir);
	CHECK(chmod(sd, 0777) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_E_ACCESS && idx == NULL);
	CHECK(chmod(sd, 0755) == 0);
	snprintf(keep, sizeof(keep), "%s/scope.away", dir);
	CHECK(rename(sd, keep) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_E_CORRUPT && idx == NULL);
	CHECK((fd = open(sd, O_WRONLY | O_CREAT, 0644)) != -1 && close(fd) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) != CRLC_OK && idx == NULL);
	CHECK(unlink(sd) == 0 && rename(keep, sd) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_OK);
	CHECK(crlc_index_lookup(idx, &t, &ika, NOW, 0, &v) == 0 &&
	    v.state == CRLC_REVOKED);
	crlc_index_close(idx);
}

/*
 * A scope file truncated, then rewritten, in place (same inode) under an
 * open index: the owner of the scope directory can, and nothing of it is
 * mapped, so no lookup faults.  The index that read the entries keeps
 * answering from its private copy; one that reads the file after the
 * truncation refuses it (its size no longer matches its header) and its
 * lookups fail; once the bytes are back they answer again.
 */
static void
check_scope_rewritten(const char *dir, const char *good)
{
	static const uint8_t revoked[] = { 0x00, 0x80 };
	uint8_t id[CRLC_SCOPE_ID_LEN] = { 7, 1, 1 }, *old = NULL;
	struct crlc_issuer_key ika = { key_a1, { NULL, 0 } };
	struct crlc_tbs t = cert(name_a, sizeof(name_a), revoked, 2, P1, 0);
	struct crlc_index *idx, *late;
	struct crlc_verdict v;
	char sp[600], name[2 * CRLC_SCOPE_ID_LEN + 1];
	struct stat sb;
	int fd;

	crlc_scope_name(id, name);
	snprintf(sp, sizeof(sp), "%s/scope/%s", dir, name);
	CHECK(stat(sp, &sb) == 0 && (old = malloc((size_t)sb.st_size)) != NULL);
	CHECK((fd = open(sp, O_RDONLY)) != -1 &&
	    read(fd, old, (size_t)sb.st_size) == sb.st_size && close(fd) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_OK);
	if (idx == NULL || old == NULL)
		goto done;
	CHECK(crlc_index_lookup(idx, &t, &ika, NOW, 0, &v) == 0 &&
	    v.state == CRLC_REVOKED);
	CHECK(truncate(sp, 0) == 0);
	CHECK(crlc_index_lookup(idx, &t, &ika, NOW, 0, &v) == 0 &&
	    v.state == CRLC_REVOKED);
	CHECK(crlc_index_open(good, &late, NULL) == CRLC_OK);
	CHECK(late == NULL || crlc_index_lookup(late, &t, &ika, NOW, 0, &v) ==
	    -1);
	crlc_index_close(late);
	CHECK((fd = open(sp, O_WRONLY | O_TRUNC)) != -1 &&
	    write(fd, old, (size_t)sb.st_size) == sb.st_size && close(fd) == 0);
	CHECK(crlc_index_lookup(idx, &t, &ika, NOW, 0, &v) == 0 &&
	    v.state == CRLC_REVOKED);
	CHECK(crlc_index_open(good, &late, NULL) == CRLC_OK);
	CHECK(late != NULL && crlc_index_lookup(late, &t, &ika, NOW, 0, &v) ==
	    0 && v.state == CRLC_REVOKED);
	crlc_index_close(late);
done:
	crlc_index_close(idx);
	free(old);
}

/* The page file of dir/scope that holds bytes what, into path. */
static int
page_holding(const char *dir, const char *what, char *path, size_t size)
{
	uint8_t buf[65536];
	struct dirent *de;
	ssize_t n;
	DIR *d;
	int fd, found = 0;

	snprintf(path, size, "%s/scope", dir);
	if ((d = opendir(path)) == NULL)
		return 0;
	while (!found && (de = readdir(d)) != NULL) {
		snprintf(path, size, "%s/scope/%s", dir, de->d_name);
		if (de->d_name[0] == '.' || (fd = open(path, O_RDONLY)) == -1)
			continue;
		n = read(fd, buf, sizeof(buf));
		close(fd);
		found = n > 8 && memcmp(buf, CRLC_PAGE_MAGIC, 8) == 0 &&
		    memmem(buf, (size_t)n, what, strlen(what)) != NULL;
	}
	closedir(d);
	return found;
}

/*
 * Damaged, missing or untrusted page files: the lookups that need them
 * fail, others answer, a page that appears is read by the next lookup.
 */
static void
check_page_damage(const char *dir, const char *good)
{
	static const uint8_t revoked[] = { 0x00, 0x80 };
	struct crlc_issuer_key ika = { key_a1, { NULL, 0 } };
	struct crlc_issuer_key ikc = { key_c1, { NULL, 0 } };
	struct crlc_tbs t = cert(name_a, sizeof(name_a), revoked, 2, P1, 0);
	struct crlc_tbs tc = cert(name_c, sizeof(name_c), revoked, 2, NULL, 1);
	struct crlc_index *idx;
	struct crlc_verdict v;
	char pp[600], keep[600];
	struct ids ids = { 0, 0, 0 };
	struct stat sb;
	int n = 0;

	CHECK(page_holding(dir, "p1.crl", pp, sizeof(pp)));
	snprintf(keep, sizeof(keep), "%s/keep.page", dir);
	CHECK(rename(pp, keep) == 0 && stat(keep, &sb) == 0);
	/* missing: the index opens; A's lookups fail, C's answer */
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_OK);
	if (idx == NULL)
		return;
	CHECK(crlc_index_lookup(idx, &t, &ika, NOW, 0, &v) == -1);
	CHECK(crlc_index_lookup(idx, &tc, &ikc, NOW, 0, &v) == 0 &&
	    v.state == CRLC_GOOD);
	CHECK(crlc_index_foreach_crl(idx, 0, CRLC_WALK_CRLS, crl_seen, &n) == -1);
	CHECK(crlc_index_foreach_file_id(idx, id_seen, &ids) == -1);
	/* it appears: the next lookup reads it */
	CHECK(link(keep, pp) == 0);
	CHECK(crlc_index_lookup(idx, &t, &ika, NOW, 0, &v) == 0 &&
	    v.state == CRLC_REVOKED);
	crlc_index_close(idx);
	/* every truncation, and a flip of every byte: refused */
	CHECK(damaged_fails(good, keep, pp, sb.st_size, 0, &t, &ika) ==
	    sb.st_size);
	CHECK(damaged_fails(good, keep, pp, sb.st_size, 0x01, &t, &ika) ==
	    sb.st_size);
	untrusted_file(good, keep, pp, &t, &ika);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_OK);
	CHECK(crlc_index_lookup(idx, &t, &ika, NOW, 0, &v) == 0 &&
	    v.state == CRLC_REVOKED);
	crlc_index_close(idx);
}

static void
check_untrusted_path(const char *dir, const char *good)
{
	char path[512];
	struct crlc_index *idx;

	/* a symlink to a good index */
	snprintf(path, sizeof(path), "%s/link.mdb", dir);
	CHECK(symlink(good, path) == 0);
	CHECK(crlc_index_open(path, &idx, NULL) == CRLC_E_ACCESS && idx == NULL);
	/* a FIFO nobody writes: refused at once, never opened */
	snprintf(path, sizeof(path), "%s/fifo.mdb", dir);
	CHECK(mkfifo(path, 0644) == 0);
	CHECK(crlc_index_open(path, &idx, NULL) == CRLC_E_FORMAT && idx == NULL);
	/* a device */
	CHECK(crlc_index_open("/dev/null", &idx, NULL) == CRLC_E_FORMAT &&
	    idx == NULL);
	/* a directory others may write; sticky, with a root-owned file: ok */
	CHECK(chmod(dir, 0777) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_E_ACCESS && idx == NULL);
	CHECK(chmod(dir, 01777) == 0);
	if (geteuid() == 0) {
		CHECK(crlc_index_open(good, &idx, NULL) == CRLC_OK);
		crlc_index_close(idx);
	}
	CHECK(chmod(dir, 0700) == 0);
	if (geteuid() != 0)
		return;
	/* another user's file in root's directory */
	CHECK(chown(good, 65534, 65534) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_E_ACCESS && idx == NULL);
	/* ... in that user's own directory: its account publishes there */
	CHECK(chown(dir, 65534, 65534) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_OK);
	crlc_index_close(idx);
	/* ... with its scope directory, not a third account's */
	snprintf(path, sizeof(path), "%s/scope", dir);
	CHECK(chown(path, 65534, 65534) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_OK);
	crlc_index_close(idx);
	CHECK(chown(path, 12345, 12345) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_E_ACCESS && idx == NULL);
	/* ... but not in a world-writable sticky directory of root's */
	CHECK(chown(dir, 0, 0) == 0 && chmod(dir, 01777) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_E_ACCESS && idx == NULL);
	CHECK(chmod(dir, 0700) == 0 && chown(good, 0, 0) == 0 &&
	    chown(path, 0, 0) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_OK);
	crlc_index_close(idx);
}

int
main(void)
{
	const char *dir = tmpdir_make("crlc-t_index");
	char path[512];

	snprintf(path, sizeof(path), "%s/index.mdb", dir);
	write_index(dir, 42);
	check_lookups(dir, path);
	check_threads(path);
	check_refusals(dir, path);
	check_scope_damage(dir, path);
	check_scope_rewritten(dir, path);
	check_page_damage(dir, path);
	check_untrusted_path(dir, path);
	return check_result();
}
