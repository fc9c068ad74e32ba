/*
 * Canonical identity of an X.501 Name (see <crlcache/name.h>).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Runs in the provider when a certificate's issuer encoding is not in the
 * index, so it parses hostile DER without allocating: the canonical bytes
 * are built in a bounded stack buffer and hashed once.
 */
#include <string.h>
#include <sys/uio.h>

#include <crlcache/hash.h>
#include <crlcache/name.h>

#include "der.h"

#define TAG_SET			0x31
#define TAG_UTF8STRING		0x0c
#define TAG_PRINTABLESTRING	0x13
#define TAG_TELETEXSTRING	0x14
#define TAG_IA5STRING		0x16
#define TAG_VISIBLESTRING	0x1a
#define TAG_UNIVERSALSTRING	0x1c
#define TAG_BMPSTRING		0x1e

/* Whole canonical form; real names are a few hundred bytes. */
#define CANON_MAX		4096
/*
 * AVAs of one Name: real names have fewer than 16 (and multi-valued RDNs
 * two or three AVAs); each costs one iovec on the stack.
 */
#define NAME_AVA_MAX		64

struct canon {
	uint8_t		buf[CANON_MAX];
	size_t		len;
	struct iovec	ava[NAME_AVA_MAX];	/* each AVA's canonical bytes */
	int		nava;
};

static int
put(struct canon *c, const void *p, size_t n)
{
	if (n > CANON_MAX - c->len)
		return -1;
	memcpy(c->buf + c->len, p, n);
	c->len += n;
	return 0;
}

static int
put_u32(struct canon *c, uint32_t v)
{
	uint8_t be[4];

	crlc_put_u32(be, v);
	return put(c, be, sizeof(be));
}

static int
put_utf8(uint8_t *out, size_t *n, uint32_t cp)
{
	if (cp >= 0xd800 && cp <= 0xdfff)
		return -1;
	if (cp < 0x80) {
		out[(*n)++] = (uint8_t)cp;
	} else if (cp < 0x800) {
		out[(*n)++] = (uint8_t)(0xc0 | cp >> 6);
		out[(*n)++] = (uint8_t)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		out[(*n)++] = (uint8_t)(0xe0 | cp >> 12);
		out[(*n)++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (uint8_t)(0x80 | (cp & 0x3f));
	} else if (cp < 0x110000) {
		out[(*n)++] = (uint8_t)(0xf0 | cp >> 18);
		out[(*n)++] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
		out[(*n)++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (uint8_t)(0x80 | (cp & 0x3f));
	} else
		return -1;
	return 0;
}

/* Convert a DirectoryString to UTF-8 in out (CRLC_NAME_VALUE_MAX + 4). */
static int
to_utf8(unsigned tag, const struct der *v, uint8_t *out, size_t *n)
{
	size_t len = (size_t)(v->end - v->p), i, width;
	uint32_t cp;

	*n = 0;
	switch (tag) {
	case TAG_UTF8STRING: case TAG_PRINTABLESTRING: case TAG_IA5STRING:
	case TAG_VISIBLESTRING:
		if (len > CRLC_NAME_VALUE_MAX)
			return -1;
		memcpy(out, v->p, len);
		*n = len;
		return 0;
	case TAG_TELETEXSTRING:
		width = 1;
		break;
	case TAG_BMPSTRING:
		width = 2;
		break;
	case TAG_UNIVERSALSTRING:
		width = 4;
		break;
	default:
		return 1;	/* not a string: caller keeps the raw value */
	}
	if (len % width != 0)
		return -1;
	for (i = 0; i < len; i += width) {
		cp = width == 1 ? v->p[i] : width == 2 ?
		    (uint32_t)v->p[i] << 8 | v->p[i + 1] :
		    (uint32_t)v->p[i] << 24 | (uint32_t)v->p[i + 1] << 16 |
		    (uint32_t)v->p[i + 2] << 8 | v->p[i + 3];
		if (*n > CRLC_NAME_VALUE_MAX || put_utf8(out, n, cp) == -1)
			return -1;
	}
	return 0;
}

static int
is_space(uint8_t c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Trim, fold white space runs, lower-case ASCII; appends to c. */
static int
put_folded(struct canon *c, const uint8_t *s, size_t n)
{
	size_t lenpos = c->len, start, i;
	int space = 0;
	uint8_t ch;

	if (put_u32(c, 0) == -1)
		return -1;
	start = c->len;
	for (i = 0; i < n; i++) {
		ch = s[i];
		if (is_space(ch)) {
			space = 1;
			continue;
		}
		if (space && c->len > start && put(c, " ", 1) == -1)
			return -1;
		space = 0;
		if (ch >= 'A' && ch <= 'Z')
			ch = (uint8_t)(ch - 'A' + 'a');
		if (put(c, &ch, 1) == -1)
			return -1;
	}
	crlc_put_u32(c->buf + lenpos, (uint32_t)(c->len - start));
	return 0;
}

/* AttributeTypeAndValue ::= SEQUENCE { type OID, value ANY } */
static int
put_ava(struct canon *c, uint32_t rdn, struct der ava)
{
	uint8_t utf8[CRLC_NAME_VALUE_MAX + 4];
	struct der oid, val;
	unsigned tag;
	size_t n, start = c->len;
	int rc;

	if (c->nava == NAME_AVA_MAX ||
	    der_expect(&ava, TAG_OID, &oid) == -1 ||
	    der_read(&ava, &tag, &val) == -1 || ava.p != ava.end)
		return -1;
	if (put_u32(c, rdn) == -1 ||
	    put_u32(c, (uint32_t)(oid.end - oid.p)) == -1 ||
	    put(c, oid.p, (size_t)(oid.end - oid.p)) == -1)
		return -1;
	if ((rc = to_utf8(tag, &val, utf8, &n)) == -1)
		return -1;
	if (rc == 0)
		rc = put_folded(c, utf8, n);
	else {
		n = (size_t)(val.end - val.p);
		rc = put_u32(c, (uint32_t)(n + 1)) == -1 ||
		    put(c, (uint8_t[]){ (uint8_t)tag }, 1) == -1 ||
		    put(c, val.p, n) == -1 ? -1 : 0;
	}
	if (rc == 0) {
		c->ava[c->nava].iov_base = c->buf + start;
		c->ava[c->nava++].iov_len = c->len - start;
	}
	return rc;
}

static int
ava_less(const struct iovec *a, const struct iovec *b)
{
	size_t n = a->iov_len < b->iov_len ? a->iov_len : b->iov_len;
	int cmp = memcmp(a->iov_base, b->iov_base, n);

	return cmp < 0 || (cmp == 0 && a->iov_len < b->iov_len);
}

/*
 * A RDN is a SET: its AVAs in any encoded order are the same RDN.  Sort
 * them by their canonical bytes (insertion sort: a RDN has two or three),
 * as OpenSSL's x509_name_canon does by DER-encoding the converted SET OF.
 */
static void
sort_rdn(struct iovec *ava, int n)
{
	struct iovec t;
	int i, j;

	for (i = 1; i < n; i++) {
		t = ava[i];
		for (j = i; j > 0 && ava_less(&t, &ava[j - 1]); j--)
			ava[j] = ava[j - 1];
		ava[j] = t;
	}
}

int
crlc_name_canon_hash(const uint8_t *der, size_t len, uint8_t out[CRLC_HASH_LEN])
{
	struct der top, name, rdn, ava;
	struct canon c;
	uint32_t index = 0;
	int first;

	c.len = 0;
	c.nava = 0;
	if (der == NULL)
		return -1;
	top.p = der;
	top.end = der + len;
	if (der_expect(&top, TAG_SEQUENCE, &name) == -1 ||
	    top.p != top.end)
		return -1;
	while (name.p < name.end) {
		if (der_expect(&name, TAG_SET, &rdn) == -1)
			return -1;
		/* An empty RDN names nothing: OpenSSL drops it too. */
		if (rdn.p == rdn.end)
			continue;
		first = c.nava;
		while (rdn.p < rdn.end) {
			if (der_expect(&rdn, TAG_SEQUENCE, &ava) == -1 ||
			    put_ava(&c, index, ava) == -1)
				return -1;
		}
		sort_rdn(c.ava + first, c.nava - first);
		index++;
	}
	crlc_sha256_iov(c.ava, c.nava, out);
	return 0;
}
