/*
 * Distribution point names as index scopes; see <crlcache/dpname.h>.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Runs in the provider for every certificate without a CRL of its own
 * issuer's: no allocation, bounded stack.
 */
#include <string.h>

#include <crlcache/dpname.h>
#include <crlcache/hex.h>
#include <crlcache/name.h>
#include <crlcache/reasons.h>

int
crlc_scope_dirname(const uint8_t *der, size_t len,
    char out[CRLC_SCOPE_DIRNAME_LEN + 1])
{
	const size_t pre = sizeof(CRLC_SCOPE_DIRNAME) - 1;
	uint8_t h[CRLC_HASH_LEN];

	if (crlc_name_canon_hash(der, len, h) == -1)
		return -1;
	memcpy(out, CRLC_SCOPE_DIRNAME, pre);
	crlc_hex_encode(h, CRLC_HASH_LEN, out + pre, 0);
	return 0;
}

int
crlc_scope_is_dirname(const uint8_t *s, size_t len)
{
	return len == CRLC_SCOPE_DIRNAME_LEN &&
	    memcmp(s, CRLC_SCOPE_DIRNAME, sizeof(CRLC_SCOPE_DIRNAME) - 1) == 0;
}

/* DER tag and definite length of n content octets at out; bytes used. */
static size_t
put_header(uint8_t *out, uint8_t tag, size_t n)
{
	size_t k = 0, i;

	out[k++] = tag;
	if (n < 0x80) {
		out[k++] = (uint8_t)n;
		return k;
	}
	for (i = n; i > 0; i >>= 8)
		k++;
	out[1] = (uint8_t)(0x80 | (k - 1));
	for (i = k; i > 2; i--, n >>= 8)
		out[i - 1] = (uint8_t)n;
	return k;
}

/* Header bytes of a TLV of n content octets: tag, up to 4 length octets. */
#define HDR_MAX	6

int
crlc_scope_relative(const struct crlc_span *issuer, const struct crlc_span *rdn,
    char out[CRLC_SCOPE_DIRNAME_LEN + 1])
{
	uint8_t der[CRLC_DPNAME_MAX], hdr[HDR_MAX];
	const uint8_t *p = issuer->p;
	size_t inner, body, skip, set_hdr, off;

	/* issuer: SEQUENCE header (skip), RDNs; the RDN becomes a SET. */
	if (issuer->len < 2 || p[0] != 0x30 || rdn->len == 0)
		return -1;
	skip = p[1] < 0x80 ? 2 : 2 + (size_t)(p[1] & 0x7f);
	if (skip > issuer->len || skip > HDR_MAX)
		return -1;
	inner = issuer->len - skip;
	if (rdn->len > CRLC_DPNAME_MAX || inner > CRLC_DPNAME_MAX)
		return -1;
	set_hdr = put_header(hdr, 0x31, rdn->len);
	body = inner + set_hdr + rdn->len;
	if (body + HDR_MAX > sizeof(der))
		return -1;
	off = put_header(der, 0x30, body);
	memcpy(der + off, p + skip, inner);
	off += inner;
	memcpy(der + off, hdr, set_hdr);
	off += set_hdr;
	memcpy(der + off, rdn->p, rdn->len);
	off += rdn->len;
	return crlc_scope_dirname(der, off, out);
}

size_t
crlc_dp_count(const struct crlc_tbs *cert)
{
	return cert->ndp + cert->ndpdir + cert->ndprel;
}

unsigned
crlc_scope_kind(const uint8_t *s, size_t len, size_t *namelen)
{
	if (len >= CRLC_SCOPE_KIND_LEN && s[len - 2] == 0 &&
	    (s[len - 1] & CRLC_SCOPE_KIND_TAG)) {
		*namelen = len - CRLC_SCOPE_KIND_LEN;
		return s[len - 1] & ~CRLC_SCOPE_KIND_TAG;
	}
	*namelen = len;
	return 0;
}

size_t
crlc_scope_put_kind(uint8_t *out, unsigned kind)
{
	if ((kind & CRLC_CRL_KIND) == 0)
		return 0;
	out[0] = 0;
	out[1] = (uint8_t)(CRLC_SCOPE_KIND_TAG | (kind & CRLC_CRL_KIND));
	return CRLC_SCOPE_KIND_LEN;
}

/*
 * A URI as a scope.  One that poses as a directoryName scope, or holds a
 * 00 byte -- a name with a kind or reasons suffix would start there
 * (format.h SCOPE KINDS, <crlcache/reasons.h>: no stored name holds one)
 * and no URI (RFC 3986 2) does -- matches nothing.
 */
static int
uri_scope(const struct crlc_span *uri, uint8_t *out, size_t size, size_t *len)
{
	if (uri->len > size || crlc_scope_is_dirname(uri->p, uri->len) ||
	    (uri->len > 0 && memchr(uri->p, 0, uri->len) != NULL))
		return -1;
	memcpy(out, uri->p, uri->len);
	*len = uri->len;
	return 0;
}

static int
dirname_out(const char dn[CRLC_SCOPE_DIRNAME_LEN + 1], uint8_t *out,
    size_t size, size_t *len)
{
	if (CRLC_SCOPE_DIRNAME_LEN > size)
		return -1;
	memcpy(out, dn, CRLC_SCOPE_DIRNAME_LEN);
	*len = CRLC_SCOPE_DIRNAME_LEN;
	return 0;
}

int
crlc_dp_scope(const struct crlc_tbs *cert, size_t i, uint8_t *out,
    size_t size, size_t *len)
{
	char dn[CRLC_SCOPE_DIRNAME_LEN + 1];

	if (i < cert->ndp)
		return uri_scope(&cert->dp[i], out, size, len);
	i -= cert->ndp;
	if (i < cert->ndpdir) {
		if (crlc_scope_dirname(cert->dpdir[i].p, cert->dpdir[i].len,
		    dn) == -1)
			return -1;
	} else if (i - cert->ndpdir < cert->ndprel) {
		if (crlc_scope_relative(&cert->issuer,
		    &cert->dprel[i - cert->ndpdir], dn) == -1)
			return -1;
	} else
		return -1;
	return dirname_out(dn, out, size, len);
}

int
crlc_ind_scope(const struct crlc_tbs_idp *d, uint8_t *out, size_t size,
    size_t *len)
{
	char dn[CRLC_SCOPE_DIRNAME_LEN + 1];

	switch (d->kind) {
	case CRLC_DPN_NONE:
		*len = 0;
		return 0;
	case CRLC_DPN_URI:
		return uri_scope(&d->name, out, size, len);
	case CRLC_DPN_DIR:
		if (crlc_scope_dirname(d->name.p, d->name.len, dn) == -1)
			return -1;
		break;
	case CRLC_DPN_REL:
		/* RFC 5280 4.2.1.13: relative to the cRLIssuer */
		if (crlc_scope_relative(&d->crl_issuer, &d->name, dn) == -1)
			return -1;
		break;
	default:
		return -1;
	}
	return dirname_out(dn, out, size, len);
}

unsigned
crlc_dp_reasons(const struct crlc_tbs *cert, size_t i)
{
	if (i < cert->ndp)
		return CRLC_REASONS_ALL & ~(unsigned)cert->dp_unnamed[i];
	i -= cert->ndp;
	if (i < cert->ndpdir)
		return CRLC_REASONS_ALL & ~(unsigned)cert->dpdir_unnamed[i];
	i -= cert->ndpdir;
	return i < cert->ndprel ? CRLC_REASONS_ALL &
	    ~(unsigned)cert->dprel_unnamed[i] : 0;
}
