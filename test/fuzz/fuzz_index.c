/*
 * libFuzzer target: the index reader (lib/index.c), which every program
 * runs on the files of STATE_DIR.  Input: u32 L (big-endian) || L bytes
 * of a top file || the bytes of one scope file (seeded with real indexes
 * the fetcher published).  So that the fuzzer reaches past the checksum,
 * the target makes the top's length field and checksum trailer right and
 * the first ALIAS record the hash of a known Name, then names the scope
 * file after the top's first scope id (with that id and its own length
 * in its header); then opens, looks a certificate of that Name up
 * (serials from the input, the scope URIs of the top as distribution
 * points), walks every CRL and takes the stats.  A crash or a sanitizer
 * report is a bug: every access must be bounded by a checked length.
 * FUZZ_INDEX_DIR: the directory the files are written to (default /tmp).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <crlcache/format.h>
#include <crlcache/hash.h>
#include <crlcache/index.h>
#include <crlcache/indexwrite.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* CN=Fuzz Issuer: the Name the first ALIAS record is made to match. */
static const uint8_t issuer[] = { 0x30, 0x16, 0x31, 0x14, 0x30, 0x12, 0x06,
    0x03, 0x55, 0x04, 0x03, 0x0c, 0x0b, 'F', 'u', 'z', 'z', ' ', 'I', 's',
    's', 'u', 'e', 'r' };

static char dir[256], top_path[300], scope_dir[300];

static void
put_file(const char *path, const uint8_t *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd == -1 || write(fd, p, n) != (ssize_t)n || close(fd) != 0)
		abort();
}

/* Make the ALIAS descriptor's first record name `issuer`, if in range. */
static void
patch_alias(uint8_t *top, size_t len)
{
	uint32_t n = crlc_get_u32(top + 12), i;
	uint64_t off;
	const uint8_t *d;

	for (i = 0; i < n && i < CRLC_TOP_DESC_MAX &&
	    CRLC_TOP_HDR_LEN + (i + 1) * CRLC_TOP_DESC_LEN <= len; i++) {
		d = top + CRLC_TOP_HDR_LEN + i * CRLC_TOP_DESC_LEN;
		off = crlc_get_u64(d + 8);
		if (crlc_get_u32(d) == CRLC_SEC_ALIAS &&
		    off <= len - CRLC_TOP_TRAILER_LEN &&
		    len - CRLC_TOP_TRAILER_LEN - off >= CRLC_ISSUER_REC_LEN)
			crlc_sha256(issuer, sizeof(issuer), top + off);
	}
}

/* The first scope id: the scope file the input's tail becomes. */
static int
first_id(const uint8_t id[CRLC_SCOPE_ID_LEN], void *arg)
{
	memcpy(arg, id, CRLC_SCOPE_ID_LEN);
	return 1;
}

/* Look a certificate of `issuer` up under every scope URI of the top. */
static int
lookup_each(const struct crlc_crl_info *ci, void *arg)
{
	struct crlc_index *idx = arg;
	struct crlc_verdict v;
	struct crlc_tbs t;

	memset(&t, 0, sizeof(t));
	t.issuer = (struct crlc_span){ issuer, sizeof(issuer) };
	t.serial = ci->der.len > 0 ? (struct crlc_span){ ci->der.p,
	    ci->der.len < 30 ? ci->der.len : 30 } :
	    (struct crlc_span){ issuer, 1 };
	if (ci->scope.len > 0 && ci->scope.len <= 255) {
		t.dp[0] = ci->scope;
		t.ndp = 1;
	}
	t.is_ca = (ci->flags & CRLC_CRL_CA_ONLY) != 0;
	(void)crlc_index_lookup(idx, &t, NULL, 1790000000, 0, &v);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t id[CRLC_SCOPE_ID_LEN], *top = NULL, *scope = NULL;
	char name[2 * CRLC_SCOPE_ID_LEN + 1], path[400] = "";
	static const uint8_t serial[] = { 0x01 };
	struct crlc_index *idx = NULL;
	struct crlc_stats st;
	struct crlc_verdict v;
	struct crlc_tbs t;
	size_t tlen, slen;

	if (dir[0] == '\0') {
		const char *base = getenv("FUZZ_INDEX_DIR");

		snprintf(dir, sizeof(dir), "%s/fuzz-index.%d",
		    base != NULL ? base : "/tmp", (int)getpid());
		snprintf(top_path, sizeof(top_path), "%s/index.mdb", dir);
		snprintf(scope_dir, sizeof(scope_dir), "%s/scope", dir);
		if ((mkdir(dir, 0755) == -1 || mkdir(scope_dir, 0755) == -1))
			abort();
	}
	if (size < 4 || (tlen = crlc_get_u32(data)) > size - 4 ||
	    tlen < CRLC_TOP_HDR_LEN + CRLC_TOP_TRAILER_LEN)
		return 0;
	if ((top = malloc(tlen)) == NULL)
		abort();
	memcpy(top, data + 4, tlen);
	crlc_put_u64(top + 32, tlen);
	patch_alias(top, tlen);
	crlc_put_u64(top + tlen - CRLC_TOP_TRAILER_LEN,
	    crlc_sum64(top, tlen - CRLC_TOP_TRAILER_LEN));
	put_file(top_path, top, tlen);
	if (crlc_index_open(top_path, &idx, NULL) != CRLC_OK)
		goto done;
	slen = size - 4 - tlen;
	if (crlc_index_foreach_scope_id(idx, first_id, id) == 1 &&
	    slen >= CRLC_SCOPE_HDR_LEN) {
		if ((scope = malloc(slen)) == NULL)
			abort();
		memcpy(scope, data + 4 + tlen, slen);
		memcpy(scope + 16, id, CRLC_SCOPE_ID_LEN);
		crlc_put_u64(scope + 32, slen);
		crlc_scope_name(id, name);
		snprintf(path, sizeof(path), "%s/%s", scope_dir, name);
		put_file(path, scope, slen);
	}
	memset(&t, 0, sizeof(t));
	t.issuer = (struct crlc_span){ issuer, sizeof(issuer) };
	t.serial = (struct crlc_span){ serial, sizeof(serial) };
	(void)crlc_index_lookup(idx, &t, NULL, 1790000000, 0, &v);
	(void)crlc_index_foreach_crl(idx, lookup_each, idx);
	(void)crlc_index_stats(idx, &st);
	if (scope != NULL)
		unlink(path);
done:
	crlc_index_close(idx);
	free(top);
	free(scope);
	return 0;
}
