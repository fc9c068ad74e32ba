/*
 * crlcache.so entry point: init and teardown, configuration, provider
 * parameters and the algorithm tables.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * OSSL_provider_init never fails for a reason the user can fix: a bad
 * configuration value or an unusable index makes the provider pass
 * everything through and say so once (OpenSSL 3.0 skips a provider whose
 * init fails without a word, which would look like protection).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <sys/un.h>

#include <crlcache/crliteshare.h>
#include <crlcache/hint.h>

#include "prov.h"

OSSL_provider_init_fn OSSL_provider_init;

static struct km_impl first_km[KM_MAX];
static pthread_once_t first_km_once = PTHREAD_ONCE_INIT;
static const struct crlc_prov *first_prov;

static void
first_km_copy(void)
{
	memcpy(first_km, first_prov->km, sizeof(first_km));
}

const struct km_impl *
crlc_km_first_impl(int alg)
{
	return &first_km[alg];
}

/*
 * "RSA:rsaEncryption:1.2..." names "RSA" first; want[0..n) is a first
 * name (the caller measures it once for a whole table: every process
 * that loads us runs these loops at start).
 */
static int
first_name_is(const char *names, const char *want, size_t n)
{
	return strncmp(names, want, n) == 0 &&
	    (names[n] == '\0' || names[n] == ':');
}

static const OSSL_ALGORITHM *
find_alg(const OSSL_ALGORITHM *algs, const char *name)
{
	size_t n = strcspn(name, ":");

	for (; algs != NULL && algs->algorithm_names != NULL; algs++)
		if (first_name_is(algs->algorithm_names, name, n))
			return algs;
	return NULL;
}

/*
 * Can a certificate carry this key type, i.e. does the default provider
 * decode it from a SubjectPublicKeyInfo (RFC 5280 4.1.2.7)?  MAC "keys"
 * (HMAC, CMAC...) have signature algorithms but no such decoder.
 */
static int
in_certificates(const OSSL_ALGORITHM *decoders, const char *km_names)
{
	const OSSL_ALGORITHM *d;
	size_t n = strcspn(km_names, ":");

	for (d = decoders; d != NULL && d->algorithm_names != NULL; d++)
		if (first_name_is(d->algorithm_names, km_names, n) &&
		    d->property_definition != NULL &&
		    strstr(d->property_definition,
		    "structure=SubjectPublicKeyInfo") != NULL)
			return 1;
	return 0;
}

/* The signature algorithm the default provider uses with km's keys. */
static const char *
sig_name_of(const OSSL_ALGORITHM *km)
{
	const OSSL_DISPATCH *d;
	const char *name = NULL;

	for (d = km->implementation; d->function_id != 0; d++)
		if (d->function_id == OSSL_FUNC_KEYMGMT_QUERY_OPERATION_NAME)
			name = OSSL_FUNC_keymgmt_query_operation_name(d)(
			    OSSL_OP_SIGNATURE);
	return name != NULL ? name : km->algorithm_names;
}

static int
has_slot(const OSSL_DISPATCH *d, int id)
{
	for (; d->function_id != 0; d++)
		if (d->function_id == id)
			return 1;
	return 0;
}

/* Copy ours, less what the default's table does not implement. */
static void
mirror(OSSL_DISPATCH *out, const OSSL_DISPATCH *ours,
    const OSSL_DISPATCH *theirs)
{
	size_t n = 0;

	for (; ours->function_id != 0 && n + 1 < CRLC_DISPATCH_MAX; ours++)
		if (has_slot(theirs, ours->function_id))
			out[n++] = *ours;
	out[n].function_id = 0;
	out[n].function = NULL;
}

#define SET(slot, type)	(slot) = (type *)(d->function)

static void
sig_impl_fill(struct sig_impl *s, const OSSL_DISPATCH *d)
{
	for (; d->function_id != 0; d++) {
		switch (d->function_id) {
		case OSSL_FUNC_SIGNATURE_NEWCTX:
			SET(s->newctx, OSSL_FUNC_signature_newctx_fn); break;
		case OSSL_FUNC_SIGNATURE_FREECTX:
			SET(s->freectx, OSSL_FUNC_signature_freectx_fn); break;
		case OSSL_FUNC_SIGNATURE_DUPCTX:
			SET(s->dupctx, OSSL_FUNC_signature_dupctx_fn); break;
		case OSSL_FUNC_SIGNATURE_VERIFY_INIT:
			SET(s->verify_init, OSSL_FUNC_signature_verify_init_fn);
			break;
		case OSSL_FUNC_SIGNATURE_VERIFY:
			SET(s->verify, OSSL_FUNC_signature_verify_fn); break;
		case OSSL_FUNC_SIGNATURE_VERIFY_RECOVER_INIT:
			SET(s->verify_recover_init,
			    OSSL_FUNC_signature_verify_recover_init_fn);
			break;
		case OSSL_FUNC_SIGNATURE_VERIFY_RECOVER:
			SET(s->verify_recover,
			    OSSL_FUNC_signature_verify_recover_fn);
			break;
		case OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_INIT:
			SET(s->digest_verify_init,
			    OSSL_FUNC_signature_digest_verify_init_fn);
			break;
		case OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_UPDATE:
			SET(s->digest_verify_update,
			    OSSL_FUNC_signature_digest_verify_update_fn);
			break;
		case OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_FINAL:
			SET(s->digest_verify_final,
			    OSSL_FUNC_signature_digest_verify_final_fn);
			break;
		case OSSL_FUNC_SIGNATURE_DIGEST_VERIFY:
			SET(s->digest_verify,
			    OSSL_FUNC_signature_digest_verify_fn);
			break;
#ifdef OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_INIT
		case OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_INIT:
			SET(s->verify_message_init,
			    OSSL_FUNC_signature_verify_message_init_fn);
			break;
		case OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_UPDATE:
			SET(s->verify_message_update,
			    OSSL_FUNC_signature_verify_message_update_fn);
			break;
		case OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_FINAL:
			SET(s->verify_message_final,
			    OSSL_FUNC_signature_verify_message_final_fn);
			break;
#endif
		case OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS:
			SET(s->get_ctx_params,
			    OSSL_FUNC_signature_get_ctx_params_fn);
			break;
		case OSSL_FUNC_SIGNATURE_GETTABLE_CTX_PARAMS:
			SET(s->gettable_ctx_params,
			    OSSL_FUNC_signature_gettable_ctx_params_fn);
			break;
		case OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS:
			SET(s->set_ctx_params,
			    OSSL_FUNC_signature_set_ctx_params_fn);
			break;
		case OSSL_FUNC_SIGNATURE_SETTABLE_CTX_PARAMS:
			SET(s->settable_ctx_params,
			    OSSL_FUNC_signature_settable_ctx_params_fn);
			break;
		case OSSL_FUNC_SIGNATURE_GET_CTX_MD_PARAMS:
			SET(s->get_ctx_md_params,
			    OSSL_FUNC_signature_get_ctx_md_params_fn);
			break;
		case OSSL_FUNC_SIGNATURE_GETTABLE_CTX_MD_PARAMS:
			SET(s->gettable_ctx_md_params,
			    OSSL_FUNC_signature_gettable_ctx_md_params_fn);
			break;
		case OSSL_FUNC_SIGNATURE_SET_CTX_MD_PARAMS:
			SET(s->set_ctx_md_params,
			    OSSL_FUNC_signature_set_ctx_md_params_fn);
			break;
		case OSSL_FUNC_SIGNATURE_SETTABLE_CTX_MD_PARAMS:
			SET(s->settable_ctx_md_params,
			    OSSL_FUNC_signature_settable_ctx_md_params_fn);
			break;
		}
	}
}

static void
km_impl_fill(struct km_impl *k, const OSSL_DISPATCH *d)
{
	for (; d->function_id != 0; d++) {
		switch (d->function_id) {
		case OSSL_FUNC_KEYMGMT_NEW:
			SET(k->new_, OSSL_FUNC_keymgmt_new_fn); break;
		case OSSL_FUNC_KEYMGMT_FREE:
			SET(k->free, OSSL_FUNC_keymgmt_free_fn); break;
		case OSSL_FUNC_KEYMGMT_GET_PARAMS:
			SET(k->get_params, OSSL_FUNC_keymgmt_get_params_fn);
			break;
		case OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS:
			SET(k->gettable_params,
			    OSSL_FUNC_keymgmt_gettable_params_fn);
			break;
		case OSSL_FUNC_KEYMGMT_QUERY_OPERATION_NAME:
			SET(k->query_operation_name,
			    OSSL_FUNC_keymgmt_query_operation_name_fn);
			break;
		case OSSL_FUNC_KEYMGMT_HAS:
			SET(k->has, OSSL_FUNC_keymgmt_has_fn); break;
		case OSSL_FUNC_KEYMGMT_VALIDATE:
			SET(k->validate, OSSL_FUNC_keymgmt_validate_fn); break;
		case OSSL_FUNC_KEYMGMT_MATCH:
			SET(k->match, OSSL_FUNC_keymgmt_match_fn); break;
		case OSSL_FUNC_KEYMGMT_IMPORT:
			SET(k->import, OSSL_FUNC_keymgmt_import_fn); break;
		case OSSL_FUNC_KEYMGMT_IMPORT_TYPES:
			SET(k->import_types, OSSL_FUNC_keymgmt_import_types_fn);
			break;
		case OSSL_FUNC_KEYMGMT_EXPORT:
			SET(k->export_, OSSL_FUNC_keymgmt_export_fn); break;
		case OSSL_FUNC_KEYMGMT_EXPORT_TYPES:
			SET(k->export_types, OSSL_FUNC_keymgmt_export_types_fn);
			break;
		}
	}
}

/* Slot n of our table: the default's algorithm a, through dispatch ours. */
static void
offer(OSSL_ALGORITHM *out, OSSL_DISPATCH *disp, const OSSL_ALGORITHM *a,
    const OSSL_DISPATCH *ours, const char *props, const char *what)
{
	mirror(disp, ours, a->implementation);
	out->algorithm_names = a->algorithm_names;
	out->property_definition = props;
	out->implementation = disp;
	out->algorithm_description = what;
}

/* Slot of the signature algorithm named name, wrapping it if new. */
static int
sig_slot(struct crlc_prov *p, const OSSL_ALGORITHM *sigs, const char *name,
    size_t *ns)
{
	const OSSL_ALGORITHM *a;
	size_t i;

	if ((a = find_alg(sigs, name)) == NULL)
		return -1;
	for (i = 0; i < *ns; i++)
		if (p->sig[i].names == a->algorithm_names)
			return (int)i;
	if (*ns == SIG_MAX)
		return -1;
	sig_impl_fill(&p->sig[i], a->implementation);
	p->sig[i].names = a->algorithm_names;
	offer(&p->sig_algs[i], p->sig_disp[i], a, crlc_sig_dispatch[i],
	    CRLC_PROPS_SIG, "crlcache revocation-checking proxy");
	return (int)(*ns)++;
}

/*
 * Load the default provider into a private library context and build
 * our algorithm tables from its: every key type a certificate can carry
 * that has a signature algorithm, and those signature algorithms, so
 * that no certificate signature passes unseen (a fixed list let DSA and
 * SM2 through).  Not the child libctx: that one resolves back into this
 * provider and recurses.
 */
static int
load_default(struct crlc_prov *p, const char **why)
{
	const OSSL_ALGORITHM *sigs, *kms, *decoders, *a;
	int no_cache = 0;
	size_t ns = 0, nk = 0;

	if ((p->priv = OSSL_LIB_CTX_new()) == NULL ||
	    (p->deflt = OSSL_PROVIDER_load(p->priv, "default")) == NULL ||
	    (p->deflt_ctx = OSSL_PROVIDER_get0_provider_ctx(p->deflt)) == NULL) {
		*why = "cannot load the default provider into a private "
		    "library context";
		return -1;
	}
	sigs = OSSL_PROVIDER_query_operation(p->deflt, OSSL_OP_SIGNATURE,
	    &no_cache);
	kms = OSSL_PROVIDER_query_operation(p->deflt, OSSL_OP_KEYMGMT,
	    &no_cache);
	decoders = OSSL_PROVIDER_query_operation(p->deflt, OSSL_OP_DECODER,
	    &no_cache);
	for (a = kms; a != NULL && a->algorithm_names != NULL; a++) {
		/* The short table first: most key types have no signature. */
		if (find_alg(sigs, sig_name_of(a)) == NULL ||
		    !in_certificates(decoders, a->algorithm_names))
			continue;
		if (nk == KM_MAX || sig_slot(p, sigs, sig_name_of(a), &ns) < 0) {
			crlc_log(p->conf.log, LOG_ERR, "no room to check "
			    "certificates signed with %s keys: they pass "
			    "unchecked", a->algorithm_names);
			continue;
		}
		km_impl_fill(&p->km[nk], a->implementation);
		p->km[nk].names = a->algorithm_names;
		offer(&p->km_algs[nk], p->km_disp[nk], a, crlc_km_dispatch[nk],
		    CRLC_PROPS_KM, "crlcache public-key proxy");
		nk++;
	}
	if (ns == 0 || nk == 0) {
		*why = "the default provider offers no certificate signature "
		    "algorithm";
		return -1;
	}
	first_prov = p;
	pthread_once(&first_km_once, first_km_copy);
	return 0;
}

void *
crlc_work_ctx(struct crlc_prov *p)
{
	void *ctx = atomic_load_explicit(&p->work_ctx, memory_order_acquire);

	if (ctx != NULL)
		return ctx;
	pthread_mutex_lock(&p->work_lock);
	if ((ctx = atomic_load_explicit(&p->work_ctx,
	    memory_order_relaxed)) == NULL) {
		/*
		 * Only a default provider the program's configuration already
		 * activated: loading one it did not ask for (a FIPS-only
		 * context) would change what it runs.
		 */
		if (p->app != NULL && OSSL_PROVIDER_available(p->app, "default") &&
		    (p->app_deflt = OSSL_PROVIDER_load(p->app, "default")) != NULL)
			ctx = OSSL_PROVIDER_get0_provider_ctx(p->app_deflt);
		if (ctx == NULL)
			ctx = p->deflt_ctx;
		atomic_store_explicit(&p->work_ctx, ctx, memory_order_release);
	}
	pthread_mutex_unlock(&p->work_lock);
	return ctx;
}

/* --- configuration --------------------------------------------------- */

struct conf_raw {
	char *index, *mode, *on_stale, *on_unknown, *log, *grace, *validity;
	char *hints, *learn_wait, *share;
};

static int
choose(const char *v, const char *const names[], int n, int *out)
{
	int i;

	for (i = 0; i < n; i++) {
		if (strcmp(v, names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

/*
 * Fill p->conf from the provider's openssl.cnf section.  A bad value
 * turns the provider off (mode = off) and is reported once.
 */
static void
read_conf(struct crlc_prov *p, const OSSL_DISPATCH *in)
{
	static const char *const modes[] = { "off", "audit", "enforce" };
	static const char *const logs[] = { "none", "stderr", "syslog" };
	static const char *const allow_deny[] = { "allow", "deny" };
	static const char *const off_on[] = { "off", "on" };
	OSSL_FUNC_core_get_params_fn *get_params = NULL;
	struct crlc_conf *c = &p->conf;
	struct conf_raw r = { 0 };
	const char *bad = NULL, *badval = NULL;
	char *end;
	long long g;
	int v, hints = 1;

	for (; in->function_id != 0; in++)
		if (in->function_id == OSSL_FUNC_CORE_GET_PARAMS)
			get_params = OSSL_FUNC_core_get_params(in);

	snprintf(c->index, sizeof(c->index), "%s", CRLC_DEFAULT_INDEX);
	c->mode = CRLC_MODE_ENFORCE;
	c->log = CRLC_LOG_SYSLOG;
	c->grace = CRLC_DEFAULT_GRACE;
	c->validity = CRLC_MODE_AUDIT;
	c->learn_wait = CRLC_DEFAULT_LEARN_WAIT;
	snprintf(c->share, sizeof(c->share), "%s", CRLC_SHARE_SOCKET);
	if (get_params != NULL) {
		OSSL_PARAM params[] = {
			OSSL_PARAM_utf8_ptr("index", &r.index, 0),
			OSSL_PARAM_utf8_ptr("mode", &r.mode, 0),
			OSSL_PARAM_utf8_ptr("on_stale", &r.on_stale, 0),
			OSSL_PARAM_utf8_ptr("on_unknown", &r.on_unknown, 0),
			OSSL_PARAM_utf8_ptr("log", &r.log, 0),
			OSSL_PARAM_utf8_ptr("stale_grace", &r.grace, 0),
			OSSL_PARAM_utf8_ptr("validity_policy", &r.validity, 0),
			OSSL_PARAM_utf8_ptr("hints", &r.hints, 0),
			OSSL_PARAM_utf8_ptr("learn_wait", &r.learn_wait, 0),
			OSSL_PARAM_utf8_ptr("crlite_share", &r.share, 0),
			OSSL_PARAM_END
		};

		if (!get_params(p->handle, params))
			memset(&r, 0, sizeof(r));
	}
	/* log first, so that the other complaints go where asked. */
	if (r.log != NULL) {
		if (choose(r.log, logs, 3, &v) == 0)
			c->log = (enum crlc_log)v;
		else
			bad = "log", badval = r.log;
	}
	if (r.index != NULL) {
		if (r.index[0] != '/' || strlen(r.index) >= sizeof(c->index))
			bad = "index", badval = r.index;
		else
			snprintf(c->index, sizeof(c->index), "%s", r.index);
	}
	if (r.mode != NULL) {
		if (choose(r.mode, modes, 3, &v) == 0)
			c->mode = (enum crlc_mode)v;
		else
			bad = "mode", badval = r.mode;
	}
	if (r.validity != NULL) {
		if (choose(r.validity, modes, 3, &v) == 0)
			c->validity = (enum crlc_mode)v;
		else
			bad = "validity_policy", badval = r.validity;
	}
	if (r.on_stale != NULL) {
		if (choose(r.on_stale, allow_deny, 2, &v) == 0)
			c->deny_stale = v;
		else
			bad = "on_stale", badval = r.on_stale;
	}
	if (r.on_unknown != NULL) {
		if (choose(r.on_unknown, allow_deny, 2, &v) == 0)
			c->deny_unknown = v;
		else
			bad = "on_unknown", badval = r.on_unknown;
	}
	if (r.hints != NULL) {
		if (choose(r.hints, off_on, 2, &v) == 0)
			hints = v;
		else
			bad = "hints", badval = r.hints;
	}
	if (r.grace != NULL) {
		errno = 0;
		g = strtoll(r.grace, &end, 10);
		if (errno != 0 || end == r.grace || *end != '\0' || g < 0 ||
		    g > 366LL * 86400)
			bad = "stale_grace", badval = r.grace;
		else
			c->grace = g;
	}
	/* "off", or the sharer's socket (<crlcache/crliteshare.h>) */
	if (r.share != NULL) {
		if (strcmp(r.share, "off") == 0)
			c->share[0] = '\0';
		else if (r.share[0] != '/' || strlen(r.share) >=
		    sizeof(((struct sockaddr_un *)0)->sun_path))
			bad = "crlite_share", badval = r.share;
		else
			snprintf(c->share, sizeof(c->share), "%s", r.share);
	}
	if (r.learn_wait != NULL) {
		errno = 0;
		g = strtoll(r.learn_wait, &end, 10);
		if (errno != 0 || end == r.learn_wait || *end != '\0' || g < 0 ||
		    g > CRLC_LEARN_WAIT_MAX)
			bad = "learn_wait", badval = r.learn_wait;
		else
			c->learn_wait = g;
	}
	/* An index path too long for a spool beside it: no hints. */
	if (hints && crlc_hint_spool(c->index, c->spool, sizeof(c->spool)) == -1)
		c->spool[0] = '\0';
	/* The marker lies beside the spool: it fits where the spool does. */
	if (c->spool[0] == '\0' || snprintf(c->learning, sizeof(c->learning),
	    "%.*s%s", (int)(strlen(c->spool) - strlen(CRLC_HINTS_DIR)),
	    c->spool, CRLC_LEARNING_NAME) >= (int)sizeof(c->learning))
		c->learn_wait = 0;
	if (bad != NULL) {
		c->mode = CRLC_MODE_OFF;
		crlc_log(c->log, LOG_ERR, "bad value \"%s\" for %s in the "
		    "provider's openssl.cnf section; passing through without "
		    "revocation checks", badval, bad);
	}
}

/* --- provider dispatch ----------------------------------------------- */

static void
prov_free(struct crlc_prov *p)
{
	if (p == NULL)
		return;
	crlc_store_put(p->store);
	crlc_keycache_clear(&p->keycache);
	if (p->app_deflt != NULL)
		OSSL_PROVIDER_unload(p->app_deflt);
	pthread_mutex_destroy(&p->work_lock);
	if (p->deflt != NULL)
		OSSL_PROVIDER_unload(p->deflt);
	OSSL_LIB_CTX_free(p->priv);
	free(p);
}

static void
prov_teardown(void *provctx)
{
	prov_free(provctx);
}

static const OSSL_PARAM *
prov_gettable_params(void *provctx)
{
	static const OSSL_PARAM table[] = {
		OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, NULL, 0),
		OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, NULL, 0),
		OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, NULL, 0),
		OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, NULL),
		OSSL_PARAM_END
	};

	(void)provctx;
	return table;
}

static int
prov_get_params(void *provctx, OSSL_PARAM params[])
{
	struct crlc_prov *p = provctx;
	OSSL_PARAM *q;

	if ((q = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) != NULL &&
	    !OSSL_PARAM_set_utf8_ptr(q, "crlcache revocation cache provider"))
		return 0;
	if ((q = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) != NULL &&
	    !OSSL_PARAM_set_utf8_ptr(q, CRLC_PROV_VERSION))
		return 0;
	if ((q = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) != NULL &&
	    !OSSL_PARAM_set_utf8_ptr(q, p->conf.mode == CRLC_MODE_OFF ?
	    "pass-through (mode off)" : p->conf.index))
		return 0;
	if ((q = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) != NULL &&
	    !OSSL_PARAM_set_int(q, 1))
		return 0;
	return 1;
}

static const OSSL_ALGORITHM *
prov_query_operation(void *provctx, int operation_id, int *no_cache)
{
	struct crlc_prov *p = provctx;

	*no_cache = 0;
	switch (operation_id) {
	case OSSL_OP_SIGNATURE:
		return p->sig_algs;
	case OSSL_OP_KEYMGMT:
		return p->km_algs;
	case OSSL_OP_STORE:
		/* Offered in every mode: a program asks for it by name. */
		return crlc_store_algs;
	}
	return NULL;
}

static const OSSL_ITEM *
prov_get_reason_strings(void *provctx)
{
	static const OSSL_ITEM reasons[] = {
		{ CRLC_R_REVOKED, "certificate is revoked (crlcache)" },
		{ CRLC_R_STALE, "revocation data is stale (crlcache)" },
		{ CRLC_R_UNKNOWN, "revocation status unknown (crlcache)" },
		{ CRLC_R_INTERNAL, "internal error (crlcache)" },
		{ CRLC_R_VALIDITY, "certificate validity exceeds the CA/B Forum "
		    "limit (crlcache)" },
		{ 0, NULL }
	};

	(void)provctx;
	return reasons;
}

static const OSSL_DISPATCH prov_dispatch[] = {
	{ OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))prov_teardown },
	{ OSSL_FUNC_PROVIDER_GETTABLE_PARAMS,
	    (void (*)(void))prov_gettable_params },
	{ OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))prov_get_params },
	{ OSSL_FUNC_PROVIDER_QUERY_OPERATION,
	    (void (*)(void))prov_query_operation },
	{ OSSL_FUNC_PROVIDER_GET_REASON_STRINGS,
	    (void (*)(void))prov_get_reason_strings },
	{ 0, NULL }
};

static void
core_fns(struct crlc_prov *p, const OSSL_DISPATCH *in)
{
	for (; in->function_id != 0; in++) {
		switch (in->function_id) {
		case OSSL_FUNC_CORE_NEW_ERROR:
			p->core_new_error = OSSL_FUNC_core_new_error(in);
			break;
		case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
			p->core_set_error_debug =
			    OSSL_FUNC_core_set_error_debug(in);
			break;
		case OSSL_FUNC_CORE_VSET_ERROR:
			p->core_vset_error = OSSL_FUNC_core_vset_error(in);
			break;
		case OSSL_FUNC_CORE_GET_LIBCTX:
			/* The core context is the loading OSSL_LIB_CTX. */
			p->app = (OSSL_LIB_CTX *)
			    OSSL_FUNC_core_get_libctx(in)(p->handle);
			break;
		}
	}
}

/*
 * Returns 0 only when out of memory.  Every other problem leaves an
 * active provider that offers no algorithms (pure pass-through) and a
 * log line saying why.
 */
int
OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
    const OSSL_DISPATCH **out, void **provctx)
{
	struct crlc_prov *p;
	const char *why = NULL;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return 0;
	p->handle = handle;
	pthread_mutex_init(&p->work_lock, NULL);
	core_fns(p, in);
	read_conf(p, in);
	if (p->conf.mode == CRLC_MODE_OFF)
		goto done;
	if (load_default(p, &why) == -1) {
		crlc_log(p->conf.log, LOG_ERR, "%s; passing through without "
		    "revocation checks", why);
		goto off;
	}
	if ((p->store = crlc_store_get(p->conf.index, p->conf.log,
	    p->conf.share)) == NULL) {
		crlc_log(p->conf.log, LOG_ERR, "out of memory; passing "
		    "through without revocation checks");
		goto off;
	}
	goto done;
off:
	p->conf.mode = CRLC_MODE_OFF;
	/* Offer nothing: the default provider serves every fetch. */
	memset(p->sig_algs, 0, sizeof(p->sig_algs));
	memset(p->km_algs, 0, sizeof(p->km_algs));
done:
	*out = prov_dispatch;
	*provctx = p;
	return 1;
}
