/*
 * Minimal DER reading for lib/: bounds-checked, definite lengths only,
 * no allocation.  Internal to the library.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_LIB_DER_H
#define CRLCACHE_LIB_DER_H

#include <stddef.h>
#include <stdint.h>

#define TAG_BOOLEAN	0x01
#define TAG_INTEGER	0x02
#define TAG_BITSTRING	0x03
#define TAG_OCTETSTRING	0x04
#define TAG_OID		0x06
#define TAG_ENUMERATED	0x0a
#define TAG_UTCTIME	0x17
#define TAG_GENTIME	0x18
#define TAG_SEQUENCE	0x30
#define TAG_CTX_CONS(n)	(0xa0 | (n))
#define TAG_CTX_PRIM(n)	(0x80 | (n))

/* A cursor over one DER element's content. */
struct der {
	const uint8_t	*p;
	const uint8_t	*end;
};

/*
 * Read one element at d->p: its tag (low-tag-number form only, which is
 * all X.509 uses) and its content span.  Advances d past it.  Rejects the
 * indefinite form and non-minimal lengths (X.690 10.1 for DER).
 */
static inline int
der_read(struct der *d, unsigned *tag, struct der *content)
{
	const uint8_t *p = d->p;
	size_t avail, len, i, n;

	if (p >= d->end || d->end - p < 2)
		return -1;
	*tag = p[0];
	if ((p[0] & 0x1f) == 0x1f)
		return -1;
	p++;
	if (*p < 0x80) {
		len = *p++;
	} else {
		n = *p++ & 0x7f;
		if (n == 0 || n > 4 || (size_t)(d->end - p) < n || p[0] == 0)
			return -1;
		for (len = 0, i = 0; i < n; i++)
			len = len << 8 | *p++;
		if (len < 0x80)
			return -1;
	}
	avail = (size_t)(d->end - p);
	if (len > avail)
		return -1;
	content->p = p;
	content->end = p + len;
	d->p = p + len;
	return 0;
}

/* Read one element that must carry the given tag. */
static inline int
der_expect(struct der *d, unsigned want, struct der *content)
{
	unsigned tag;

	if (der_read(d, &tag, content) == -1 || tag != want)
		return -1;
	return 0;
}

/* True when the next element carries tag (without consuming it). */
static inline int
der_peek(const struct der *d, unsigned tag)
{
	return d->p < d->end && d->p[0] == tag;
}

#endif /* CRLCACHE_LIB_DER_H */
