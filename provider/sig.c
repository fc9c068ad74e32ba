/*
 * Signature proxy: forwards every call to the default provider's
 * implementation and, on digest-verify, keeps a copy of the signed data
 * so that a verified TBSCertificate can be checked against the index.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdlib.h>
#include <string.h>

#include "prov.h"

/*
 * Largest signed data we keep.  Real TBSCertificates are 0.5-3 KiB; one
 * with thousands of SANs stays far below this.  Anything longer is not
 * looked at (it passes untouched).
 */
#define CAPTURE_MAX	(64 * 1024)
/*
 * Kept inside the context, so that the common certificate costs no
 * allocation of its own (EVP dups the context before every final).
 */
#define CAPTURE_INLINE	2048

enum capture {
	CAP_START,	/* nothing seen yet */
	CAP_ON,		/* buf holds the data so far; want bytes in all */
	CAP_OFF,	/* not a TBSCertificate or too long: pass through */
};

struct sig_ctx {
	struct crlc_prov	*prov;
	const struct sig_impl	*impl;
	void			*inner;		/* default's signature ctx */
	struct crlc_key		*key;		/* verifying: the issuer's key */
	enum capture		 cap;
	uint8_t			*buf;		/* small[] or the heap */
	size_t			 len;
	size_t			 want;		/* DER length of the outer TLV */
	uint8_t			 small[CAPTURE_INLINE];
};

static void
buf_free(struct sig_ctx *c)
{
	if (c->buf != c->small)
		free(c->buf);
	c->buf = NULL;
}

static void
capture_reset(struct sig_ctx *c)
{
	buf_free(c);
	c->len = c->want = 0;
	c->cap = c->prov->store == NULL ? CAP_OFF : CAP_START;
}

/*
 * Length of the DER SEQUENCE starting at p (header included), or 0 when
 * the first bytes cannot begin a TBSCertificate we would keep.
 */
static size_t
der_seq_len(const uint8_t *p, size_t n)
{
	size_t len, hdr, i;

	if (n < 2 || p[0] != 0x30)
		return 0;
	if (p[1] < 0x80)
		return 2 + (size_t)p[1];
	hdr = 2 + (p[1] & 0x7f);
	if ((p[1] & 0x7f) == 0 || (p[1] & 0x7f) > 3 || n < hdr)
		return 0;
	for (len = 0, i = 2; i < hdr; i++)
		len = len << 8 | p[i];
	return hdr + len;
}

static void
capture(struct sig_ctx *c, const uint8_t *data, size_t n)
{
	if (c->cap == CAP_OFF)
		return;
	if (c->cap == CAP_START) {
		c->want = der_seq_len(data, n);
		if (c->want == 0 || c->want > CAPTURE_MAX || n > c->want) {
			c->cap = CAP_OFF;
			return;
		}
		c->buf = c->want <= sizeof(c->small) ? c->small :
		    malloc(c->want);
		if (c->buf == NULL) {
			c->cap = CAP_OFF;
			return;
		}
		c->cap = CAP_ON;
	}
	if (n > c->want - c->len) {
		buf_free(c);
		c->cap = CAP_OFF;
		return;
	}
	memcpy(c->buf + c->len, data, n);
	c->len += n;
}

static void
sig_freectx(void *vctx)
{
	struct sig_ctx *c = vctx;

	if (c == NULL)
		return;
	if (c->inner != NULL)
		c->impl->freectx(c->inner);
	buf_free(c);
	free(c);
}

static void *
sig_newctx(struct crlc_prov *prov, int alg, const char *propq)
{
	struct sig_ctx *c = NULL, *ret = NULL;

	/* Not calloc: small[] needs no zeroing. */
	if ((c = malloc(sizeof(*c))) == NULL)
		goto done;
	c->prov = prov;
	c->impl = &prov->sig[alg];
	c->inner = NULL;
	c->key = NULL;
	c->cap = CAP_OFF;
	c->buf = NULL;
	c->len = c->want = 0;
	if ((c->inner = c->impl->newctx(crlc_work_ctx(prov), propq)) == NULL)
		goto done;
	ret = c;
	c = NULL;
done:
	sig_freectx(c);
	return ret;
}

static void *
sig_dupctx(void *vctx)
{
	struct sig_ctx *src = vctx, *c = NULL, *ret = NULL;

	if (src->impl->dupctx == NULL || (c = malloc(sizeof(*c))) == NULL)
		goto done;
	c->prov = src->prov;
	c->impl = src->impl;
	c->inner = NULL;
	c->key = src->key;
	c->cap = src->cap;
	c->len = src->len;
	c->want = src->want;
	c->buf = NULL;
	if (src->buf == src->small)
		c->buf = c->small;
	else if (src->buf != NULL && (c->buf = malloc(src->want)) == NULL)
		goto done;
	if (c->buf != NULL)
		memcpy(c->buf, src->buf, src->len);
	if ((c->inner = src->impl->dupctx(src->inner)) == NULL)
		goto done;
	ret = c;
	c = NULL;
done:
	sig_freectx(c);
	return ret;
}

/* The default provider's key data inside our key, which it verifies with. */
static void *
inner_keydata(void *provkey)
{
	struct crlc_key *k = provkey;

	return k != NULL ? k->kd : NULL;
}

static int
sig_verify_init(void *vctx, void *provkey, const OSSL_PARAM params[])
{
	struct sig_ctx *c = vctx;

	c->cap = CAP_OFF;
	return c->impl->verify_init(c->inner, inner_keydata(provkey), params);
}

/*
 * A one-shot verification of the whole data tbs that the default provider
 * found good (ret > 0): the index's verdict when tbs is a TBSCertificate.
 */
static int
check_whole(struct sig_ctx *c, int ret, const unsigned char *sig,
    size_t siglen, const unsigned char *tbs, size_t tbslen)
{
	if (ret > 0 && c->cap != CAP_OFF && tbslen <= CAPTURE_MAX &&
	    der_seq_len(tbs, tbslen) == tbslen)
		ret = crlc_policy_check(c->prov, tbs, tbslen, sig, siglen,
		    c->key);
	return ret;
}

/*
 * The end of a streamed verification the default provider found good
 * (ret > 0): the index's verdict when the captured data is a whole
 * TBSCertificate.  A bad signature fails anyway; only a good one is worth
 * a lookup.
 */
static int
check_captured(struct sig_ctx *c, int ret, const unsigned char *sig,
    size_t siglen)
{
	if (ret > 0 && c->cap == CAP_ON && c->len == c->want)
		ret = crlc_policy_check(c->prov, c->buf, c->len, sig, siglen,
		    c->key);
	return ret;
}

/*
 * The one-shot VERIFY slot (the streamed ones are digest_verify and
 * verify_message).  After verify_init tbs is a digest (capture off); after
 * verify_message_init it is the whole message.
 */
static int
sig_verify_oneshot(void *vctx, const unsigned char *sig, size_t siglen,
    const unsigned char *tbs, size_t tbslen)
{
	struct sig_ctx *c = vctx;

	return check_whole(c, c->impl->verify(c->inner, sig, siglen, tbs,
	    tbslen), sig, siglen, tbs, tbslen);
}

static int
sig_verify_recover_init(void *vctx, void *provkey, const OSSL_PARAM params[])
{
	struct sig_ctx *c = vctx;

	return c->impl->verify_recover_init(c->inner, inner_keydata(provkey),
	    params);
}

static int
sig_verify_recover(void *vctx, unsigned char *rout, size_t *routlen,
    size_t routsize, const unsigned char *sig, size_t siglen)
{
	struct sig_ctx *c = vctx;

	return c->impl->verify_recover(c->inner, rout, routlen, routsize, sig,
	    siglen);
}

static int
sig_digest_verify_init(void *vctx, const char *mdname, void *provkey,
    const OSSL_PARAM params[])
{
	struct sig_ctx *c = vctx;

	capture_reset(c);
	c->key = provkey;
	return c->impl->digest_verify_init(c->inner, mdname,
	    inner_keydata(provkey), params);
}

static int
sig_digest_verify_update(void *vctx, const unsigned char *data, size_t n)
{
	struct sig_ctx *c = vctx;

	capture(c, data, n);
	return c->impl->digest_verify_update(c->inner, data, n);
}

static int
sig_digest_verify_final(void *vctx, const unsigned char *sig, size_t siglen)
{
	struct sig_ctx *c = vctx;

	return check_captured(c, c->impl->digest_verify_final(c->inner, sig,
	    siglen), sig, siglen);
}

static int
sig_digest_verify(void *vctx, const unsigned char *sig, size_t siglen,
    const unsigned char *tbs, size_t tbslen)
{
	struct sig_ctx *c = vctx;

	return check_whole(c, c->impl->digest_verify(c->inner, sig, siglen,
	    tbs, tbslen), sig, siglen, tbs, tbslen);
}

#ifdef OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_INIT
/*
 * OpenSSL 3.4+'s message verification (EVP_PKEY_verify_message_init, the
 * API of ML-DSA and SLH-DSA, FIPS 204/205): the message is captured as
 * with digest-verify.  The signature was given as a parameter, which we
 * do not keep, so no hint is left from here (hint.c needs it).
 */
static int
sig_verify_message_init(void *vctx, void *provkey, const OSSL_PARAM params[])
{
	struct sig_ctx *c = vctx;

	capture_reset(c);
	c->key = provkey;
	return c->impl->verify_message_init(c->inner, inner_keydata(provkey),
	    params);
}

static int
sig_verify_message_update(void *vctx, const unsigned char *data, size_t n)
{
	struct sig_ctx *c = vctx;

	capture(c, data, n);
	return c->impl->verify_message_update(c->inner, data, n);
}

static int
sig_verify_message_final(void *vctx)
{
	struct sig_ctx *c = vctx;

	return check_captured(c, c->impl->verify_message_final(c->inner),
	    NULL, 0);
}
#define SIG_MESSAGE_FNS							\
	FN(VERIFY_MESSAGE_INIT, sig_verify_message_init),		\
	FN(VERIFY_MESSAGE_UPDATE, sig_verify_message_update),		\
	FN(VERIFY_MESSAGE_FINAL, sig_verify_message_final),
#else
#define SIG_MESSAGE_FNS
#endif

static int
sig_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
	struct sig_ctx *c = vctx;

	return c->impl->get_ctx_params(c->inner, params);
}

static int
sig_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
	struct sig_ctx *c = vctx;

	return c->impl->set_ctx_params(c->inner, params);
}

static int
sig_get_ctx_md_params(void *vctx, OSSL_PARAM params[])
{
	struct sig_ctx *c = vctx;

	return c->impl->get_ctx_md_params(c->inner, params);
}

static int
sig_set_ctx_md_params(void *vctx, const OSSL_PARAM params[])
{
	struct sig_ctx *c = vctx;

	return c->impl->set_ctx_md_params(c->inner, params);
}

static const OSSL_PARAM *
sig_gettable_ctx_md_params(void *vctx)
{
	struct sig_ctx *c = vctx;

	return c->impl->gettable_ctx_md_params(c->inner);
}

static const OSSL_PARAM *
sig_settable_ctx_md_params(void *vctx)
{
	struct sig_ctx *c = vctx;

	return c->impl->settable_ctx_md_params(c->inner);
}

/*
 * The functions that get only the provider context need to know which
 * algorithm they stand for: one thunk per slot.
 */
#define SIG_THUNKS(N)							\
static void *								\
sig_newctx_##N(void *provctx, const char *propq)			\
{									\
	return sig_newctx(provctx, N, propq);				\
}									\
static const OSSL_PARAM *						\
sig_gettable_ctx_params_##N(void *vctx, void *provctx)			\
{									\
	struct crlc_prov *p = provctx;					\
	struct sig_ctx *c = vctx;					\
									\
	return p->sig[N].gettable_ctx_params(c != NULL ? c->inner : NULL, \
	    crlc_work_ctx(p));						\
}									\
static const OSSL_PARAM *						\
sig_settable_ctx_params_##N(void *vctx, void *provctx)			\
{									\
	struct crlc_prov *p = provctx;					\
	struct sig_ctx *c = vctx;					\
									\
	return p->sig[N].settable_ctx_params(c != NULL ? c->inner : NULL, \
	    crlc_work_ctx(p));						\
}

CRLC_SLOTS(SIG_THUNKS)

#define FN(id, f)	{ OSSL_FUNC_SIGNATURE_##id, (void (*)(void))(f) }

/*
 * Verification only: we never sign (keymgmt.c refuses private keys, so
 * signing falls to the default provider).  provider.c drops the slots
 * the default provider does not implement for an algorithm.
 */
#define SIG_TABLE(N)							\
static const OSSL_DISPATCH sig_dispatch_##N[] = {			\
	FN(NEWCTX, sig_newctx_##N),					\
	FN(FREECTX, sig_freectx),					\
	FN(DUPCTX, sig_dupctx),						\
	FN(VERIFY_INIT, sig_verify_init),				\
	FN(VERIFY, sig_verify_oneshot),					\
	FN(VERIFY_RECOVER_INIT, sig_verify_recover_init),		\
	FN(VERIFY_RECOVER, sig_verify_recover),				\
	FN(DIGEST_VERIFY_INIT, sig_digest_verify_init),			\
	FN(DIGEST_VERIFY_UPDATE, sig_digest_verify_update),		\
	FN(DIGEST_VERIFY_FINAL, sig_digest_verify_final),		\
	FN(DIGEST_VERIFY, sig_digest_verify),				\
	SIG_MESSAGE_FNS							\
	FN(GET_CTX_PARAMS, sig_get_ctx_params),				\
	FN(GETTABLE_CTX_PARAMS, sig_gettable_ctx_params_##N),		\
	FN(SET_CTX_PARAMS, sig_set_ctx_params),				\
	FN(SETTABLE_CTX_PARAMS, sig_settable_ctx_params_##N),		\
	FN(GET_CTX_MD_PARAMS, sig_get_ctx_md_params),			\
	FN(GETTABLE_CTX_MD_PARAMS, sig_gettable_ctx_md_params),		\
	FN(SET_CTX_MD_PARAMS, sig_set_ctx_md_params),			\
	FN(SETTABLE_CTX_MD_PARAMS, sig_settable_ctx_md_params),		\
	{ 0, NULL }							\
};

CRLC_SLOTS(SIG_TABLE)

#define SIG_ENTRY(N)	[N] = sig_dispatch_##N,

const OSSL_DISPATCH *const crlc_sig_dispatch[SIG_MAX] = {
	CRLC_SLOTS(SIG_ENTRY)
};
