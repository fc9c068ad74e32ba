/*
 * Unit test of lib/hash.c: the FIPS 180-2 example digests, and the
 * vectored form equal to the flat one however the input is cut.
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
	uint8_t buf[300], flat[CRLC_HASH_LEN], cut[CRLC_HASH_LEN];
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
	return check_result();
}
