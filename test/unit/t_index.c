/*
 * Unit test of the index reader (lib/index.c) against files written here
 * straight from the layout documented in <crlcache/format.h>, so that the
 * header, not the fetcher, is the contract under test: format 2 (issuer
 * keys, serials by hash, records per scope) and format 1, still answered
 * by the name alone.  Also: a missing
 * file, garbage, a truncated file and a newer format version must be
 * refused with the right code and never fault.  The path is not trusted:
 * a symlink, a FIFO, a device, a file of another user or in a directory
 * others may write is refused without blocking, and the map is sized
 * from the file (not the writer's 8 GiB), as /proc/self/maps shows.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lmdb.h>

#include "check.h"
#include <crlcache/format.h>
#include <crlcache/hash.h>
#include <crlcache/index.h>


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

static void
put(MDB_txn *txn, MDB_dbi dbi, const void *k, size_t kl, const void *v,
    size_t vl)
{
	MDB_val key = { kl, (void *)k }, val = { vl, (void *)v };

	if (mdb_put(txn, dbi, &key, &val, 0) != 0)
		abort();
}

/* The "crl" / "rev" key prefix: format 1 the id, format 2 id || key no. */
static size_t
prefix(uint8_t *key, uint32_t format, uint32_t id, uint32_t key_no)
{
	crlc_put_u32(key, id);
	if (format < 2)
		return 4;
	crlc_put_u32(key + 4, key_no);
	return 8;
}

static void
put_scope(MDB_txn *txn, MDB_dbi dbi, uint32_t format, uint32_t id,
    uint32_t key_no, unsigned scope_no, const char *uri, unsigned flags,
    int64_t next_update)
{
	uint8_t key[CRLC_KEY_MAX], rec[CRLC_CRL_HDR_LEN + 3];
	size_t ulen = strlen(uri), plen = prefix(key, format, id, key_no);

	memcpy(key + plen, uri, ulen);
	memset(rec, 0, sizeof(rec));
	rec[0] = format < 2 ? 1 : CRLC_CRL_RECORD_VERSION;
	rec[1] = (uint8_t)flags;
	rec[3] = (uint8_t)scope_no;
	crlc_put_i64(rec + 8, NOW - DAY);
	crlc_put_i64(rec + 16, next_update);
	crlc_put_u32(rec + 92, 3);	/* source "src", no DER */
	memcpy(rec + CRLC_CRL_HDR_LEN, "src", 3);
	put(txn, dbi, key, plen + ulen, rec, sizeof(rec));
}

/* A "rev" entry: serial revoked with reason by n scopes (format 2). */
static void
put_rev(MDB_txn *txn, MDB_dbi dbi, uint32_t format, uint32_t id,
    uint32_t key_no, const uint8_t *serial, size_t slen, int reason, int n)
{
	uint8_t key[CRLC_KEY_MAX], val[4 * CRLC_REV_LEN], *r = val;
	size_t plen = prefix(key, format, id, key_no), vlen;
	int i;

	slen = crlc_serial_key(serial, slen, key + plen);
	if (format < 2) {
		crlc_put_i64(val, NOW - 2 * DAY);
		val[8] = (uint8_t)reason;
		val[9] = 0;
		vlen = CRLC_REV_V1_LEN;
	} else {
		for (i = 0; i < n; i++, r += CRLC_REV_LEN) {
			r[0] = 0;
			r[1] = (uint8_t)(i + 1);
			crlc_put_i64(r + 2, NOW - 2 * DAY);
			r[10] = (uint8_t)reason;
			r[11] = 0;
		}
		vlen = (size_t)n * CRLC_REV_LEN;
	}
	put(txn, dbi, key, plen + slen, val, vlen);
}

/* Key hashes of format 2: issuer A has keys 1 and 2, issuer C key 1. */
static const uint8_t key_a1[CRLC_HASH_LEN] = { 0x11 };
static const uint8_t key_a2[CRLC_HASH_LEN] = { 0x22 };
static const uint8_t key_c1[CRLC_HASH_LEN] = { 0x44 };
static const uint8_t key_unknown[CRLC_HASH_LEN] = { 0x33 };
/* Key 2's subjectKeyIdentifier (20 bytes, as most CAs make it). */
static const uint8_t ski_a2[20] = { 0xa2, 0x02, 0xa2 };

static void
put_key(MDB_txn *txn, MDB_dbi dbi, uint32_t id, const uint8_t *hash,
    uint32_t key_no, const uint8_t *ski, size_t skilen)
{
	uint8_t key[4 + CRLC_HASH_LEN], val[5 + CRLC_SKI_MAX];

	crlc_put_u32(key, id);
	memcpy(key + 4, hash, CRLC_HASH_LEN);
	crlc_put_u32(val, key_no);
	val[4] = (uint8_t)skilen;
	if (skilen > 0)
		memcpy(val + 5, ski, skilen);
	put(txn, dbi, key, sizeof(key), val, 5 + skilen);
}

/* A serial of 70 octets: over CRLC_SERIAL_MAX, stored by its hash. */
static uint8_t long_serial[70];

static void
write_index(const char *path, uint32_t format)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi meta, canon, alias, rev, crl, source, keydb;
	uint8_t h[CRLC_HASH_LEN], id[4], v8[8], v4[4];
	static const uint8_t serial_rev[] = { 0x00, 0x80 };

	unlink(path);
	/* the writer's map size, as the fetcher sets it (format.h) */
	if (mdb_env_create(&env) || mdb_env_set_maxdbs(env, CRLC_NUM_DBS) ||
	    mdb_env_set_mapsize(env, CRLC_MAP_SIZE) ||
	    mdb_env_open(env, path, MDB_NOSUBDIR, 0644) ||
	    mdb_txn_begin(env, NULL, 0, &txn))
		abort();
	if (mdb_dbi_open(txn, CRLC_DB_META, MDB_CREATE, &meta) ||
	    mdb_dbi_open(txn, CRLC_DB_CANON, MDB_CREATE, &canon) ||
	    mdb_dbi_open(txn, CRLC_DB_ALIAS, MDB_CREATE, &alias) ||
	    mdb_dbi_open(txn, CRLC_DB_REV, MDB_CREATE, &rev) ||
	    mdb_dbi_open(txn, CRLC_DB_CRL, MDB_CREATE, &crl) ||
	    mdb_dbi_open(txn, CRLC_DB_SOURCE, MDB_CREATE, &source) ||
	    (format >= 2 && mdb_dbi_open(txn, CRLC_DB_KEY, MDB_CREATE, &keydb)))
		abort();
	crlc_put_u32(v4, format);
	put(txn, meta, "format", 6, v4, 4);
	crlc_put_u64(v8, 42);
	put(txn, meta, "generation", 10, v8, 8);
	crlc_put_i64(v8, NOW);
	put(txn, meta, "created", 7, v8, 8);

	/* issuer A = id 7, one canon entry, one alias (its exact DER) */
	crlc_put_u32(id, 7);
	memset(h, 0xaa, sizeof(h));
	put(txn, canon, h, sizeof(h), id, 4);
	crlc_sha256(name_a, sizeof(name_a), h);
	put(txn, alias, h, sizeof(h), id, 4);
	/* serial 00 80 revoked, keyCompromise (format 2: by key 1) */
	put_rev(txn, rev, format, 7, 1, serial_rev, 2, 1, 1);
	/* partition p1 for users only, fresh; partition p2 stale */
	put_scope(txn, crl, format, 7, 1, 1, "http://127.0.0.1/p1.crl",
	    CRLC_CRL_USER_ONLY, NOW + 6 * DAY);
	put_scope(txn, crl, format, 7, 1, 2, "http://127.0.0.1/p2.crl", 0,
	    NOW - 2 * DAY);
	/* issuer C = id 9: a complete CRL (empty scope) for CA certificates */
	crlc_put_u32(id, 9);
	crlc_sha256(name_c, sizeof(name_c), h);
	put(txn, alias, h, sizeof(h), id, 4);
	put_scope(txn, crl, format, 9, 1, 1, "", CRLC_CRL_CA_ONLY, NOW + DAY);
	if (format >= 2) {
		/*
		 * Issuer A's second key (a rollover): a complete CRL of its
		 * own that does not list 00 80, but a 70-octet serial, and
		 * 01 listed by two of its scopes.
		 */
		put_key(txn, keydb, 7, key_a1, 1, (const uint8_t *)"\xa1", 1);
		put_key(txn, keydb, 7, key_a2, 2, ski_a2, sizeof(ski_a2));
		put_key(txn, keydb, 9, key_c1, 1, NULL, 0);
		put_scope(txn, crl, format, 7, 2, 1, "", 0, NOW + DAY);
		memset(long_serial, 0x5a, sizeof(long_serial));
		put_rev(txn, rev, format, 7, 2, long_serial,
		    sizeof(long_serial), 4, 1);
		put_rev(txn, rev, format, 7, 2, (const uint8_t *)"\x01", 1, 5,
		    2);
	}
	if (mdb_txn_commit(txn))
		abort();
	mdb_env_close(env);
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

/* Format 2: the key decides which of issuer A's CRLs answer. */
static void
check_keys(struct crlc_index *idx)
{
	static const uint8_t revoked[] = { 0x00, 0x80 }, one[] = { 0x01 };
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
	CHECK(state_key(idx, cert(name_a, sizeof(name_a), revoked, 2, NULL, 0),
	    key_a2, 0) == CRLC_GOOD);
	/* a key the index does not know: no CRL of it is held */
	CHECK(state_key(idx, cert(name_a, sizeof(name_a), revoked, 2, NULL, 0),
	    key_unknown, 0) == CRLC_UNKNOWN);
	/* no key and two keys under the name: not decided by the name */
	CHECK(state_key(idx, cert(name_a, sizeof(name_a), revoked, 2, NULL, 0),
	    NULL, 0) == CRLC_UNKNOWN);
	/* no key and one key under the name: that one (issuer C) */
	CHECK(state_key(idx, cert(name_c, sizeof(name_c), one, 1, NULL, 1),
	    NULL, 0) == CRLC_GOOD);
	/* a serial over CRLC_SERIAL_MAX octets, found by its hash */
	t = cert(name_a, sizeof(name_a), long_serial, sizeof(long_serial), NULL,
	    0);
	CHECK(crlc_index_lookup(idx, &t, &ik2, NOW, 0, &v) == 0);
	CHECK(v.state == CRLC_REVOKED && v.reason == 4);
	long_serial[69] ^= 1;
	CHECK(state_key(idx, t, key_a2, 0) == CRLC_GOOD);
	long_serial[69] ^= 1;
	/* a serial two scopes list: one answer */
	t = cert(name_a, sizeof(name_a), one, 1, NULL, 0);
	CHECK(crlc_index_lookup(idx, &t, &ik2, NOW, 0, &v) == 0);
	CHECK(v.state == CRLC_REVOKED && v.reason == 5);
}

/* Lookups of issuer A use key_a (format 2) or no key (format 1). */
static const uint8_t *key_a;

static enum crlc_state
state_of(struct crlc_index *idx, struct crlc_tbs t, int64_t grace)
{
	return state_key(idx, t, key_a, grace);
}

static void
check_verdicts(struct crlc_index *idx)
{
	static const uint8_t revoked[] = { 0x00, 0x80 }, good[] = { 0x01 };
	static const uint8_t no_pad[] = { 0x80 };
	struct crlc_issuer_key ika = { key_a, { NULL, 0 } };
	struct crlc_verdict v;
	struct crlc_tbs t;

	t = cert(name_a, sizeof(name_a), revoked, 2, NULL, 0);
	CHECK(crlc_index_lookup(idx, &t, &ika, NOW, 0, &v) == 0);
	CHECK(v.state == CRLC_REVOKED && v.reason == 1 &&
	    v.revoked_at == NOW - 2 * DAY);
	CHECK(strcmp(crlc_reason_name(v.reason), "keyCompromise") == 0);
	/* the serial's content octets are the key: 80 is not 00 80 */
	CHECK(state_of(idx, cert(name_a, sizeof(name_a), no_pad, 1,
	    "http://127.0.0.1/p1.crl", 0), 0) == CRLC_GOOD);
	/* no DP and no complete CRL: unknown */
	CHECK(state_of(idx, cert(name_a, sizeof(name_a), good, 1, NULL, 0), 0) ==
	    CRLC_UNKNOWN);
	/* onlyContainsUserCerts does not cover a CA certificate */
	CHECK(state_of(idx, cert(name_a, sizeof(name_a), good, 1,
	    "http://127.0.0.1/p1.crl", 1), 0) == CRLC_UNKNOWN);
	/* the DP must match byte for byte */
	CHECK(state_of(idx, cert(name_a, sizeof(name_a), good, 1,
	    "http://127.0.0.1/P1.crl", 0), 0) == CRLC_UNKNOWN);
	/* stale past nextUpdate + grace, good within the grace */
	CHECK(state_of(idx, cert(name_a, sizeof(name_a), good, 1,
	    "http://127.0.0.1/p2.crl", 0), DAY) == CRLC_STALE);
	CHECK(state_of(idx, cert(name_a, sizeof(name_a), good, 1,
	    "http://127.0.0.1/p2.crl", 0), 3 * DAY) == CRLC_GOOD);
	/* a complete CRL covers any DP, but onlyContainsCACerts only CAs */
	CHECK(state_key(idx, cert(name_c, sizeof(name_c), good, 1, NULL, 1),
	    NULL, 0) == CRLC_GOOD);
	CHECK(state_key(idx, cert(name_c, sizeof(name_c), good, 1,
	    "http://127.0.0.1/p1.crl", 0), NULL, 0) == CRLC_UNKNOWN);
	/* an issuer encoding never seen is unknown, even for a listed serial */
	CHECK(state_of(idx, cert(name_b, sizeof(name_b), revoked, 2, NULL, 0), 0) ==
	    CRLC_UNKNOWN);
}

/* Twice: the second round answers from the issuer cache. */
static void
check_lookups(const char *path)
{
	struct crlc_index *idx;

	CHECK(crlc_index_open(path, &idx, NULL) == CRLC_OK);
	if (idx == NULL)
		return;
	CHECK(crlc_index_generation(idx) == 42);
	CHECK(crlc_index_created(idx) == NOW);
	check_verdicts(idx);
	check_verdicts(idx);
	if (crlc_index_format(idx) >= 2) {
		check_keys(idx);
		check_keys(idx);
	}
	crlc_index_close(idx);
}

static void
check_refusals(const char *dir, const char *good)
{
	char path[512];
	struct crlc_index *idx;
	struct stat sb;
	int fd;

	snprintf(path, sizeof(path), "%s/missing.mdb", dir);
	CHECK(crlc_index_open(path, &idx, NULL) == CRLC_E_NOINDEX && idx == NULL);

	snprintf(path, sizeof(path), "%s/garbage.mdb", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(write(fd, "this is not an LMDB file at all", 31) == 31);
	close(fd);
	CHECK(crlc_index_open(path, &idx, NULL) != CRLC_OK && idx == NULL);

	/* the good file cut at every page boundary and mid-page */
	CHECK(stat(good, &sb) == 0);
	for (off_t cut = 1024; cut < sb.st_size; cut += 2048) {
		char cmd[1200];

		snprintf(path, sizeof(path), "%s/cut.mdb", dir);
		snprintf(cmd, sizeof(cmd), "head -c %lld '%s' > '%s'",
		    (long long)cut, good, path);
		CHECK(system(cmd) == 0);
		CHECK(crlc_index_open(path, &idx, NULL) != CRLC_OK && idx == NULL);
	}

	/* a file others may write is not mapped */
	CHECK(chmod(good, 0666) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_E_ACCESS && idx == NULL);
	CHECK(chmod(good, 0644) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_OK);
	crlc_index_close(idx);

	snprintf(path, sizeof(path), "%s/newer.mdb", dir);
	write_index(path, CRLC_FORMAT_VERSION + 1);
	CHECK(crlc_index_open(path, &idx, NULL) == CRLC_E_FORMAT && idx == NULL);
	crlc_index_close(NULL);
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

static void
check_untrusted_path(const char *dir, const char *good)
{
	char path[512];
	struct crlc_index *idx;
	struct stat sb;
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long m;

	/* the map covers the file, not CRLC_MAP_SIZE */
	CHECK(stat(good, &sb) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_OK);
	m = mapped_bytes(good);
	CHECK(m > 0 && m <= ((unsigned long)sb.st_size + (unsigned long)pg - 1) /
	    (unsigned long)pg * (unsigned long)pg);
	crlc_index_close(idx);

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
	/* ... but not in a world-writable sticky directory of root's */
	CHECK(chown(dir, 0, 0) == 0 && chmod(dir, 01777) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_E_ACCESS && idx == NULL);
	CHECK(chmod(dir, 0700) == 0 && chown(good, 0, 0) == 0);
	CHECK(crlc_index_open(good, &idx, NULL) == CRLC_OK);
	crlc_index_close(idx);
}

int
main(void)
{
	char dir[] = "/tmp/crlc-t_index.XXXXXX", path[512], cmd[600];

	if (mkdtemp(dir) == NULL)
		return 2;
	snprintf(path, sizeof(path), "%s/index.mdb", dir);
	/* format 1 still answers, by the name alone */
	write_index(path, 1);
	key_a = NULL;
	check_lookups(path);
	write_index(path, CRLC_FORMAT_VERSION);
	key_a = key_a1;
	check_lookups(path);
	check_refusals(dir, path);
	check_untrusted_path(dir, path);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		failures++;
	return check_result();
}
