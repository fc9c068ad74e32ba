/*
 * Unit test of lib/hash.c: the FIPS 180-2 example digests, and the
 * vectored form equal to the flat one however the input is cut;
 * CRLCSUM64's values given in format.h TOP CHECKSUM (computed from its
 * definition there by a separate implementation), every tail length,
 * and every single flipped bit of a buffer changing the sum.
 */
#include <string.h>

#include "check.h"
#include <crlcache/hash.h>

/* FIPS 180-2 appendix B.1: SHA-256("abc") */
static const uint8_t abc_digest[CRLC_HASH_LEN] = {
	0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea,
	0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
	0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
	0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
};

int
main(void)
{
	uint8_t buf[300], odd[301], flat[CRLC_HASH_LEN], cut[CRLC_HASH_LEN];
	uint64_t sum;
	struct iovec iov[3];
	size_t i, a, b;

	crlc_sha256("abc", 3, flat);
	CHECK(memcmp(flat, abc_digest, sizeof(flat)) == 0);
	iov[0].iov_base = (void *)"ab";
	iov[0].iov_len = 2;
	iov[1].iov_base = (void *)"";
	iov[1].iov_len = 0;
	iov[2].iov_base = (void *)"c";
	iov[2].iov_len = 1;
	crlc_sha256_iov(iov, 3, cut);
	CHECK(memcmp(cut, abc_digest, sizeof(cut)) == 0);

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	crlc_sha256(buf, sizeof(buf), flat);
	for (a = 0; a <= sizeof(buf); a += 37) {
		for (b = a; b <= sizeof(buf); b += 53) {
			iov[0].iov_base = buf;
			iov[0].iov_len = a;
			iov[1].iov_base = buf + a;
			iov[1].iov_len = b - a;
			iov[2].iov_base = buf + b;
			iov[2].iov_len = sizeof(buf) - b;
			crlc_sha256_iov(iov, 3, cut);
			CHECK(memcmp(cut, flat, sizeof(cut)) == 0);
		}
	}

	CHECK(crlc_sum64("", 0) == 0xab7ab6fd77a023ccu);
	CHECK(crlc_sum64("abc", 3) == 0x89195f48368d6865u);
	CHECK(crlc_sum64(buf, sizeof(buf)) == 0x3508f261582dbfd1u);
	/* any alignment: the same sum of the same bytes */
	memmove(odd + 1, buf, sizeof(buf));
	CHECK(crlc_sum64(odd + 1, sizeof(buf)) == 0x3508f261582dbfd1u);
	/* every tail length (0..7 past the last word) a different sum */
	for (a = 1; a <= 40; a++)
		CHECK(crlc_sum64(buf, a) != crlc_sum64(buf, a - 1));
	/* every single flipped bit, of every word and of the tail, seen */
	sum = crlc_sum64(buf, sizeof(buf) - 3);
	for (a = 0; a < 8 * (sizeof(buf) - 3); a++) {
		buf[a / 8] ^= (uint8_t)(1u << a % 8);
		CHECK(crlc_sum64(buf, sizeof(buf) - 3) != sum);
		buf[a / 8] ^= (uint8_t)(1u << a % 8);
	}
	return check_result();
}
