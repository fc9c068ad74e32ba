/*
 * Hexadecimal text of octets: the one encoder and decoder of the fetcher,
 * the provider and the library (file names of scopes, pages, hints and
 * CRLite sets, fingerprints in files and messages, serials shown).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * No allocation, no system call, no locale: safe in the provider on a
 * handshake's path.  Two digits an octet, the high nibble first (RFC 4648
 * 8's base16 alphabet, or its lower-case form).
 */
#ifndef CRLCACHE_HEX_H
#define CRLCACHE_HEX_H

#include <stddef.h>
#include <stdint.h>

/*
 * p[0..n) as 2n hex digits, upper case when upper is non-zero, followed by
 * a NUL: out has room for 2n + 1 chars and does not overlap p.  n may be
 * 0 (out becomes "").  A caller that shows at most a prefix of p passes
 * the prefix's length.
 */
void	crlc_hex_encode(const uint8_t *p, size_t n, char *out, int upper);

/* The value of one hex digit c (either case), 0..15, or -1. */
int	crlc_hex_digit(int c);

/*
 * s[0..len), exactly 2n hex digits of either case, decoded into out[0..n).
 * 0, or -1 when len is not 2n or a char is not a hex digit (out may then
 * hold part of the result).
 */
int	crlc_hex_decode(const char *s, size_t len, uint8_t *out, size_t n);

#endif
