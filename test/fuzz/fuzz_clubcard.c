/*
 * libFuzzer target: the CRLite filter reader (lib/clubcard.c) and the
 * certificate inputs (lib/sct.c), which every program verifying a
 * certificate will run over downloaded filters and peers' certificates.
 * Input: a filter (seeded with the real delta and built ones); whatever
 * it parses to is queried with keys and SCTs taken from the input's own
 * bytes, so that issuers and logs it names are found.  The same bytes
 * are read as a certificate and as an SCT list.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <crlcache/clubcard.h>
#include <crlcache/sct.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The first coverage entry's log and low time, in both encodings:
 * version 4's at byte 4 (big-endian), version 3's at byte 10 (little).
 */
#define V4_LOG		4
#define V3_LOG		10
/* Issuers tried: one at each byte offset, up to this many. */
#define MAX_QUERIES	1024

static uint64_t
time_at(const uint8_t *p, int little)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v |= (uint64_t)p[little ? i : 7 - i] << (8 * i);
	return v;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct crlc_sct scts[CRLC_SCT_MAX];
	const struct crlc_clubcard *set[2];
	struct crlc_clubcard_query q;
	struct crlc_clubcard_info info;
	struct crlc_crlite_cert c;
	struct crlc_clubcard *cc;
	enum crlc_clubcard_answer a;
	const char *why;
	size_t at, n;

	if (crlc_crlite_cert(data, size, &c, &why) == 0 && c.sct_list.len > 0)
		(void)crlc_sct_list(c.sct_list.p, c.sct_list.len, scts, &n,
		    &why);
	(void)crlc_sct_list(data, size, scts, &n, &why);
	if (crlc_clubcard_parse(data, size, &cc, NULL, 0) != 0)
		return 0;
	/* a filter has at least its version and reserved0 bytes */
	if (size >= V3_LOG + CRLC_SCT_HASH_LEN + 8) {
		memcpy(scts[0].log_id, data + V4_LOG, CRLC_SCT_HASH_LEN);
		scts[0].timestamp = time_at(data + V4_LOG + CRLC_SCT_HASH_LEN, 0);
		memcpy(scts[1].log_id, data + V3_LOG, CRLC_SCT_HASH_LEN);
		scts[1].timestamp = time_at(data + V3_LOG + CRLC_SCT_HASH_LEN, 1);
	}
	set[0] = cc;
	set[1] = NULL;
	for (at = 0; at < MAX_QUERIES && at + CRLC_SCT_HASH_LEN <= size; at++) {
		crlc_clubcard_query_init(&q, data + at, data + at,
		    at % (CRLC_SCT_HASH_LEN + 1), scts,
		    size >= V3_LOG + CRLC_SCT_HASH_LEN + 8 ? 2 : 0);
		a = crlc_clubcard_query_set(set, 2, &q, &n);
		if (a != crlc_clubcard_query(cc, &q) ||
		    a > CRLC_CLUBCARD_REVOKED)
			__builtin_trap();
	}
	crlc_clubcard_info(cc, &info);
	crlc_clubcard_free(cc);
	return 0;
}
