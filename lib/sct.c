/*
 * The CRLite inputs of a certificate: serial, SubjectPublicKeyInfo and
 * the embedded SCT list (RFC 6962 3.3), read from DER without allocation.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The certificate comes from a peer: every length is checked against
 * its enclosing element (lib/der.h), and the TLS structures inside the
 * extension against theirs.
 */
#include <stddef.h>
#include <string.h>

#include <crlcache/sct.h>

#include "der.h"

/* 1.3.6.1.4.1.11129.2.4.2, RFC 6962 3.3: content octets. */
static const uint8_t oid_sct_list[] = {
	0x2b, 0x06, 0x01, 0x04, 0x01, 0xd6, 0x79, 0x02, 0x04, 0x02
};
/* RFC 6962 3.2: Version v1(0) is the only one defined. */
#define SCT_VERSION_V1	0
/* version, log id, timestamp, extensions length: before the extensions */
#define SCT_FIXED_LEN	(1 + CRLC_SCT_HASH_LEN + 8 + 2)

static int
fail(const char **why, const char *what)
{
	*why = what;
	return -1;
}

/* The extnValue content of the SCT list extension in [3] Extensions. */
static int
find_sct_ext(struct der ctx3, struct crlc_span *out, const char **why)
{
	struct der exts, ext, oid, val;

	if (der_expect(&ctx3, TAG_SEQUENCE, &exts) == -1 || ctx3.p != ctx3.end)
		return fail(why, "extensions not one SEQUENCE");
	while (exts.p < exts.end) {
		if (der_expect(&exts, TAG_SEQUENCE, &ext) == -1 ||
		    der_expect(&ext, TAG_OID, &oid) == -1)
			return fail(why, "an extension not a SEQUENCE with an OID");
		if (der_peek(&ext, TAG_BOOLEAN) &&
		    der_expect(&ext, TAG_BOOLEAN, &val) == -1)
			return fail(why, "an extension's critical flag");
		if (der_expect(&ext, TAG_OCTETSTRING, &val) == -1 ||
		    ext.p != ext.end)
			return fail(why, "an extension's value not an OCTET STRING");
		if ((size_t)(oid.end - oid.p) != sizeof(oid_sct_list) ||
		    memcmp(oid.p, oid_sct_list, sizeof(oid_sct_list)) != 0)
			continue;
		if (out->len != 0)
			return fail(why, "the SCT list extension twice "
			    "(RFC 5280 4.2)");
		out->p = val.p;
		out->len = (size_t)(val.end - val.p);
		if (out->len == 0)
			return fail(why, "an empty SCT list extension");
	}
	return 0;
}

int
crlc_crlite_cert(const uint8_t *tbs, size_t len, struct crlc_crlite_cert *out,
    const char **why)
{
	struct der d = { tbs, tbs + len }, seq, c;
	const uint8_t *spki;
	unsigned tag;
	int i;

	memset(out, 0, sizeof(*out));
	if (der_expect(&d, TAG_SEQUENCE, &seq) == -1 || d.p != d.end)
		return fail(why, "not a TBSCertificate SEQUENCE");
	if (der_peek(&seq, TAG_CTX_CONS(0)) &&
	    der_expect(&seq, TAG_CTX_CONS(0), &c) == -1)
		return fail(why, "the version field");
	if (der_expect(&seq, TAG_INTEGER, &c) == -1 || c.p == c.end)
		return fail(why, "the serialNumber field");
	out->serial.p = c.p;
	out->serial.len = (size_t)(c.end - c.p);
	/* signature, issuer, validity, subject: SEQUENCEs, not read here */
	for (i = 0; i < 4; i++)
		if (der_expect(&seq, TAG_SEQUENCE, &c) == -1)
			return fail(why, "a field before subjectPublicKeyInfo");
	spki = seq.p;
	if (der_expect(&seq, TAG_SEQUENCE, &c) == -1)
		return fail(why, "the subjectPublicKeyInfo field");
	out->spki.p = spki;
	out->spki.len = (size_t)(seq.p - spki);
	/* [1] issuerUniqueID, [2] subjectUniqueID, [3] extensions, in order */
	while (seq.p < seq.end) {
		if (der_read(&seq, &tag, &c) == -1)
			return fail(why, "a field after subjectPublicKeyInfo");
		if (tag == TAG_CTX_CONS(3) && seq.p == seq.end)
			return find_sct_ext(c, &out->sct_list, why);
		if (tag != TAG_CTX_PRIM(1) && tag != TAG_CTX_PRIM(2))
			return fail(why, "an unknown field after "
			    "subjectPublicKeyInfo");
	}
	return 0;
}

/* A TLS opaque<0..2^16-1> at *p within end: its content, and *p past it. */
static int
tls_vec16(const uint8_t **p, const uint8_t *end, struct crlc_span *out)
{
	size_t n;

	if (end - *p < 2)
		return -1;
	n = (size_t)(*p)[0] << 8 | (*p)[1];
	if ((size_t)(end - *p - 2) < n)
		return -1;
	out->p = *p + 2;
	out->len = n;
	*p += 2 + n;
	return 0;
}

/* One SerializedSCT (RFC 6962 3.2), exactly sct[0..len). */
static int
sct_read(struct crlc_span s, struct crlc_sct *out, const char **why)
{
	const uint8_t *p = s.p, *end = s.p + s.len;
	struct crlc_span ext, sig;
	int i;

	if (s.len < SCT_FIXED_LEN)
		return fail(why, "an SCT shorter than its fixed fields");
	if (p[0] != SCT_VERSION_V1)
		return fail(why, "an SCT of a version other than v1");
	memcpy(out->log_id, p + 1, CRLC_SCT_HASH_LEN);
	p += 1 + CRLC_SCT_HASH_LEN;
	for (out->timestamp = 0, i = 0; i < 8; i++)
		out->timestamp = out->timestamp << 8 | *p++;
	if (tls_vec16(&p, end, &ext) == -1)
		return fail(why, "an SCT's extensions past its end");
	/* digitally-signed (RFC 5246 4.7): hash, signature, opaque<0..2^16-1> */
	if (end - p < 2)
		return fail(why, "an SCT without its signature algorithms");
	p += 2;
	if (tls_vec16(&p, end, &sig) == -1 || p != end)
		return fail(why, "an SCT's signature not ending the SCT");
	return 0;
}

int
crlc_sct_list(const uint8_t *ext, size_t len,
    struct crlc_sct out[CRLC_SCT_MAX], size_t *n, const char **why)
{
	struct der d = { ext, ext + len }, os;
	struct crlc_span list, one;
	const uint8_t *p;
	size_t k;

	*n = 0;
	if (der_expect(&d, TAG_OCTETSTRING, &os) == -1 || d.p != d.end)
		return fail(why, "the SCT list not one OCTET STRING "
		    "(RFC 6962 3.3)");
	p = os.p;
	if (tls_vec16(&p, os.end, &list) == -1 || p != os.end)
		return fail(why, "the SCT list's length not its OCTET STRING's");
	if (list.len == 0)
		return fail(why, "an empty SCT list (RFC 6962 3.3: <1..2^16-1>)");
	for (k = 0, p = list.p; p < list.p + list.len; k++) {
		if (tls_vec16(&p, list.p + list.len, &one) == -1)
			return fail(why, "an SCT past the list's end");
		if (k == CRLC_SCT_MAX)
			return fail(why, "more SCTs than CRLC_SCT_MAX");
		if (sct_read(one, &out[k], why) == -1)
			return -1;
	}
	*n = k;
	return 0;
}
