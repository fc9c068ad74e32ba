/*
 * Key management proxy.  OpenSSL 3.0 uses a provider's signature only
 * with a key held by a keymgmt of the same provider (m_sigver.c:
 * do_sigver_init exports the key to the signature's provider), so we
 * offer the key types our signatures need.  Our keydata wraps the
 * default provider's keydata.
 *
 * Public keys only: importing a private key fails, so EVP falls back to
 * the key's own provider for signing (do_sigver_init's second pass) and
 * server-side signing never runs through us.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdlib.h>

#include <openssl/core_names.h>
#include <openssl/params.h>

#include "prov.h"

static void
km_free(void *keydata)
{
	struct crlc_key *k = keydata;

	if (k == NULL)
		return;
	if (k->share != NULL)
		crlc_kshare_put(k->share);
	else if (k->kd != NULL)
		k->impl->free(k->kd);
	free(k);
}

static void *
km_new(struct crlc_prov *prov, int alg)
{
	struct crlc_key *k = NULL, *ret = NULL;

	if ((k = calloc(1, sizeof(*k))) == NULL)
		goto done;
	k->impl = &prov->km[alg];
	k->cache = &prov->keycache;
	if ((k->kd = k->impl->new_(crlc_work_ctx(prov))) == NULL)
		goto done;
	ret = k;
	k = NULL;
done:
	km_free(k);
	return ret;
}

static int
has_private_param(const OSSL_PARAM params[])
{
	return OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PRIV_KEY) != NULL ||
	    OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_RSA_D) != NULL;
}

/*
 * A fresh key's import: shared with an earlier import of the same
 * parameters when the cache holds one (keycache.c), else built by the
 * default provider and offered to the cache.
 */
static int
km_import(void *keydata, int selection, const OSSL_PARAM params[])
{
	struct crlc_key *k = keydata;
	uint8_t tag[CRLC_KEYCACHE_TAG_MAX];
	struct crlc_kshare *s;
	size_t len = 0;
	int fresh = !k->imported;

	/* Cheap refusal first, then ask the key itself. */
	if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0 &&
	    has_private_param(params))
		return 0;
	/* A shared key is read-only: never import into it. */
	if (k->share != NULL)
		return 0;
	k->imported = 1;
	if (fresh)
		len = crlc_keycache_tag(selection, params, tag);
	if (len != 0 &&
	    (s = crlc_keycache_get(k->cache, k->impl, tag, len)) != NULL) {
		k->impl->free(k->kd);
		k->kd = crlc_kshare_kd(s);
		k->share = s;
		crlc_key_id_offer(k, params);
		return 1;
	}
	if (!k->impl->import(k->kd, selection, params))
		return 0;
	if (k->impl->has(k->kd, OSSL_KEYMGMT_SELECT_PRIVATE_KEY))
		return 0;
	if (len != 0)
		k->share = crlc_keycache_add(k->cache, k->impl, k->kd, tag, len);
	crlc_key_id_offer(k, params);
	return 1;
}

static int
km_has(const void *keydata, int selection)
{
	const struct crlc_key *k = keydata;

	if (k == NULL)
		return 0;
	return k->impl->has(k->kd, selection);
}

static int
km_match(const void *a, const void *b, int selection)
{
	const struct crlc_key *ka = a, *kb = b;

	if (ka->impl != kb->impl)
		return 0;
	return ka->impl->match(ka->kd, kb->kd, selection);
}

static int
km_validate(const void *keydata, int selection, int checktype)
{
	const struct crlc_key *k = keydata;

	return k->impl->validate(k->kd, selection, checktype);
}

static int
km_export(void *keydata, int selection, OSSL_CALLBACK *cb, void *cbarg)
{
	struct crlc_key *k = keydata;

	return k->impl->export_(k->kd, selection, cb, cbarg);
}

static int
km_get_params(void *keydata, OSSL_PARAM params[])
{
	struct crlc_key *k = keydata;

	return k->impl->get_params(k->kd, params);
}

#define KM_THUNKS(N)							\
static void *								\
km_new_##N(void *provctx)						\
{									\
	return km_new(provctx, N);					\
}									\
static const OSSL_PARAM *						\
km_gettable_params_##N(void *provctx)					\
{									\
	struct crlc_prov *p = provctx;					\
									\
	return p->km[N].gettable_params(crlc_work_ctx(p));		\
}									\
static const OSSL_PARAM *						\
km_import_types_##N(int selection)					\
{									\
	/* Without a provctx: every instance wraps the same code. */	\
	return crlc_km_first_impl(N)->import_types(selection);		\
}									\
static const OSSL_PARAM *						\
km_export_types_##N(int selection)					\
{									\
	return crlc_km_first_impl(N)->export_types(selection);		\
}									\
static const char *							\
km_query_operation_name_##N(int operation_id)				\
{									\
	return crlc_km_first_impl(N)->query_operation_name(operation_id); \
}

CRLC_SLOTS(KM_THUNKS)

#define FN(id, f)	{ OSSL_FUNC_KEYMGMT_##id, (void (*)(void))(f) }

/* No GEN, LOAD, SET_PARAMS, DUP: we only ever hold imported public keys. */
#define KM_TABLE(N)							\
static const OSSL_DISPATCH km_dispatch_##N[] = {			\
	FN(NEW, km_new_##N),						\
	FN(FREE, km_free),						\
	FN(HAS, km_has),						\
	FN(MATCH, km_match),						\
	FN(VALIDATE, km_validate),					\
	FN(IMPORT, km_import),						\
	FN(IMPORT_TYPES, km_import_types_##N),				\
	FN(EXPORT, km_export),						\
	FN(EXPORT_TYPES, km_export_types_##N),				\
	FN(GET_PARAMS, km_get_params),					\
	FN(GETTABLE_PARAMS, km_gettable_params_##N),			\
	FN(QUERY_OPERATION_NAME, km_query_operation_name_##N),		\
	{ 0, NULL }							\
};

CRLC_SLOTS(KM_TABLE)

#define KM_ENTRY(N)	[N] = km_dispatch_##N,

const OSSL_DISPATCH *const crlc_km_dispatch[KM_MAX] = {
	CRLC_SLOTS(KM_ENTRY)
};
