/*
 * libFuzzer target: the index reader (lib/index.c, lib/indexpage.c),
 * which every program runs on the files of STATE_DIR.  Input: u32 L
 * (big-endian) || L bytes of a top file || u32 M || M bytes of a page
 * file || the bytes of one scope file (seeded with real indexes the
 * fetcher published).  So that the fuzzer reaches past the checksums,
 * the target makes the top's length field and checksum trailer right and
 * the first ALIAS record the hash of a known Name, then names the page
 * file after the top's first page id (with that id, its own length and a
 * right trailer), and the scope file after that page's first scope id
 * (with that id and its own length in its header); then opens, looks a
 * certificate of that Name up (serials from the input, the scope URIs of
 * the pages as distribution points), walks every CRL and every file id
 * and takes the stats.  A crash or a sanitizer report is a bug: every
 * access must be bounded by a checked length.  FUZZ_INDEX_DIR: the
 * directory the files are written to (default /tmp).
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

/* The id the walk of file ids reaches at the given count. */
struct nth_id {
	int	n;
	uint8_t	id[CRLC_SCOPE_ID_LEN];
};

static int
nth_id(const uint8_t id[CRLC_SCOPE_ID_LEN], void *arg)
{
	struct nth_id *w = arg;

	memcpy(w->id, id, CRLC_SCOPE_ID_LEN);
	return --w->n == 0;
}

/* File id of the scope directory with body p[0..n) (which it may patch). */
static void
put_named(const uint8_t id[CRLC_SCOPE_ID_LEN], uint8_t *p, size_t n,
    char path[400])
{
	char name[2 * CRLC_SCOPE_ID_LEN + 1];

	crlc_scope_name(id, name);
	snprintf(path, 400, "%s/%s", scope_dir, name);
	put_file(path, p, n);
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

static int
walk_id(const uint8_t id[CRLC_SCOPE_ID_LEN], void *arg)
{
	(void)id;
	(void)arg;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *top = NULL, *page = NULL, *scope = NULL;
	char ppath[400] = "", spath[400] = "";
	static const uint8_t serial[] = { 0x01 };
	struct crlc_index *idx = NULL;
	struct nth_id w;
	struct crlc_stats st;
	struct crlc_verdict v;
	struct crlc_tbs t;
	size_t tlen, plen, slen;

	if (dir[0] == '\0') {
		const char *base = getenv("FUZZ_INDEX_DIR");

		snprintf(dir, sizeof(dir), "%s/fuzz-index.%d",
		    base != NULL ? base : "/tmp", (int)getpid());
		snprintf(top_path, sizeof(top_path), "%s/index.mdb", dir);
		snprintf(scope_dir, sizeof(scope_dir), "%s/scope", dir);
		if ((mkdir(dir, 0755) == -1 || mkdir(scope_dir, 0755) == -1))
			abort();
	}
	if (size < 8 || (tlen = crlc_get_u32(data)) > size - 8 ||
	    tlen < CRLC_TOP_HDR_LEN + CRLC_TOP_TRAILER_LEN ||
	    (plen = crlc_get_u32(data + 4 + tlen)) > size - 8 - tlen)
		return 0;
	slen = size - 8 - tlen - plen;
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
	/* the first id is a page's, named before its file is read */
	w.n = 1;
	if (crlc_index_foreach_file_id(idx, nth_id, &w) == 1 &&
	    plen >= CRLC_TOP_HDR_LEN + CRLC_TOP_TRAILER_LEN) {
		if ((page = malloc(plen)) == NULL)
			abort();
		memcpy(page, data + 8 + tlen, plen);
		memcpy(page + CRLC_PAGE_ID_OFF, w.id, CRLC_SCOPE_ID_LEN);
		crlc_put_u64(page + 32, plen);
		crlc_put_u64(page + plen - CRLC_TOP_TRAILER_LEN,
		    crlc_sum64(page, plen - CRLC_TOP_TRAILER_LEN));
		put_named(w.id, page, plen, ppath);
	}
	/* the second, when that page reads: its first scope's */
	w.n = 2;
	if (page != NULL && crlc_index_foreach_file_id(idx, nth_id, &w) == 1 &&
	    slen >= CRLC_SCOPE_HDR_LEN) {
		if ((scope = malloc(slen)) == NULL)
			abort();
		memcpy(scope, data + 8 + tlen + plen, slen);
		memcpy(scope + 16, w.id, CRLC_SCOPE_ID_LEN);
		crlc_put_u64(scope + 32, slen);
		put_named(w.id, scope, slen, spath);
	}
	memset(&t, 0, sizeof(t));
	t.issuer = (struct crlc_span){ issuer, sizeof(issuer) };
	t.serial = (struct crlc_span){ serial, sizeof(serial) };
	(void)crlc_index_lookup(idx, &t, NULL, 1790000000, 0, &v);
	(void)crlc_index_foreach_crl(idx, 0, CRLC_WALK_CRLS, lookup_each,
	    idx);
	(void)crlc_index_foreach_file_id(idx, walk_id, NULL);
	(void)crlc_index_stats(idx, &st);
done:
	if (ppath[0] != '\0')
		unlink(ppath);
	if (spath[0] != '\0')
		unlink(spath);
	crlc_index_close(idx);
	free(top);
	free(page);
	free(scope);
	return 0;
}
