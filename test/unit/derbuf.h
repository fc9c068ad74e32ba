/*
 * Shared by the unit tests that build DER byte by byte (t_crl, t_civil):
 * a fixed buffer and tag-length-value writers.
 */
#ifndef CRLCACHE_TEST_DERBUF_H
#define CRLCACHE_TEST_DERBUF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A DER buffer of fixed size: a test that outgrows it aborts. */
struct buf {
	uint8_t	p[4096];
	size_t	len;
};

static inline void
put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > sizeof(b->p))
		abort();
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/* Append tag, a DER length and content. */
static inline void
tlv(struct buf *b, uint8_t tag, const struct buf *content)
{
	uint8_t h[4];
	size_t n = content->len, hl;

	h[0] = tag;
	if (n < 0x80) {
		h[1] = (uint8_t)n;
		hl = 2;
	} else if (n < 0x100) {
		h[1] = 0x81;
		h[2] = (uint8_t)n;
		hl = 3;
	} else {
		h[1] = 0x82;
		h[2] = (uint8_t)(n >> 8);
		h[3] = (uint8_t)n;
		hl = 4;
	}
	put(b, h, hl);
	put(b, content->p, n);
}

static inline void
tlv_raw(struct buf *b, uint8_t tag, const void *p, size_t n)
{
	struct buf c;

	c.len = 0;
	put(&c, p, n);
	tlv(b, tag, &c);
}

#endif /* CRLCACHE_TEST_DERBUF_H */
