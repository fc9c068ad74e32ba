/*
 * Hexadecimal text of octets; see <crlcache/hex.h>.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <crlcache/hex.h>

void
crlc_hex_encode(const uint8_t *p, size_t n, char *out, int upper)
{
	/* A table, not snprintf: this runs in the provider. */
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 0x0f];
	}
	out[2 * n] = '\0';
}

int
crlc_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
crlc_hex_decode(const char *s, size_t len, uint8_t *out, size_t n)
{
	size_t i;
	int hi, lo;

	if (len != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		if ((hi = crlc_hex_digit((unsigned char)s[2 * i])) == -1 ||
		    (lo = crlc_hex_digit((unsigned char)s[2 * i + 1])) == -1)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}
