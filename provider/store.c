/*
 * The "crlcache:" STORE loader: the signed CRLs of the published index,
 * as OSSL_OBJECT_CRL objects, for programs that do their own CRL checks
 * (`openssl verify -crl_check -CAstore crlcache:`, X509_STORE_load_store,
 * X509_LOOKUP_store).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Every URI of the scheme ("crlcache:", "crlcache:anything") names the
 * index of the provider's configuration: a program cannot point the
 * loader at another file.
 *
 * A context pins one index snapshot from its first load to close, so a
 * listing is consistent even when a new generation is published
 * meanwhile.  The records are walked in batches: a walk copies the DER
 * of the matching records (complete CRL, then its delta) until about
 * BATCH_BYTES are queued, remembering where it stopped; the next walk
 * starts there (the records before are skipped unread).  Memory stays bounded whatever the index holds, and a
 * full listing costs about one walk per BATCH_BYTES of CRLs.
 *
 * X509_LOOKUP_store asks with OSSL_STORE_find(BY_NAME): the subject
 * parameter is then the issuer Name wanted, and only CRLs of that issuer
 * are returned: the index resolves the name to its issuer id by its exact
 * encoding or its canonical form (RFC 5280 7.1), as for a lookup.
 * OSSL_STORE_expect() of anything but CRLs yields an empty listing.
 */
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <openssl/core_names.h>
#include <openssl/core_object.h>
#include <openssl/params.h>
#include <openssl/store.h>
#include <openssl/x509.h>

#include <crlcache/index.h>

#include "prov.h"

#define BATCH_BYTES	((size_t)4 << 20)

struct crl_item {
	uint8_t	*der;
	size_t	 len;
};

struct store_ctx {
	struct crlc_prov	*prov;
	struct crlc_store	*own;		/* our store ref (mode off) */
	struct crlc_pin	*snap;		/* pinned from first load */
	int			 started;
	int			 walked;	/* the last walk reached the end */
	int			 eof;
	int			 expect;	/* OSSL_STORE_INFO_*, 0: any */
	uint8_t			*subject_der;	/* filter, NULL: every CRL */
	size_t			 subject_len;
	uint32_t		 issuer_id;	/* the subject's, once resolved */

	uint64_t		 next_rec;	/* first record of the next walk */
	struct crl_item		*q;
	size_t			 qhead, qlen, qcap;
};

/* --- the walk ------------------------------------------------------------ */

struct walk {
	struct store_ctx	*sc;
	uint64_t		 rec;		/* ordinal of the current record */
	size_t			 bytes;		/* queued by this walk */
	int			 oom;
};

static int
queue_push(struct store_ctx *sc, const struct crlc_span *der)
{
	struct crl_item *nq;
	uint8_t *copy;
	size_t ncap;

	if (der->len == 0)
		return 0;
	if (sc->qlen == sc->qcap) {
		ncap = sc->qcap == 0 ? 16 : sc->qcap * 2;
		if ((nq = realloc(sc->q, ncap * sizeof(*nq))) == NULL)
			return -1;
		sc->q = nq;
		sc->qcap = ncap;
	}
	if ((copy = malloc(der->len)) == NULL)
		return -1;
	memcpy(copy, der->p, der->len);
	sc->q[sc->qlen].der = copy;
	sc->q[sc->qlen].len = der->len;
	sc->qlen++;
	return 0;
}

static int
walk_fn(const struct crlc_crl_info *ci, void *arg)
{
	struct walk *w = arg;
	struct store_ctx *sc = w->sc;
	uint64_t rec = w->rec++;

	if (w->bytes >= BATCH_BYTES)
		return 1;			/* resume here next time */
	sc->next_rec = rec + 1;
	if (ci->der.len == 0 ||
	    (sc->subject_der != NULL && ci->issuer_id != sc->issuer_id))
		return 0;
	if (queue_push(sc, &ci->der) != 0 || queue_push(sc, &ci->delta) != 0) {
		w->oom = 1;
		return 2;
	}
	w->bytes += ci->der.len + ci->delta.len;
	return 0;
}

static void
queue_clear(struct store_ctx *sc)
{
	size_t i;

	for (i = sc->qhead; i < sc->qlen; i++)
		free(sc->q[i].der);
	sc->qhead = sc->qlen = 0;
}

/* Fill the empty queue with the next batch; sets eof when none is left. */
static void
refill(struct store_ctx *sc)
{
	struct walk w = { sc, sc->next_rec, 0, 0 };
	struct crlc_store *st;
	int rc;

	queue_clear(sc);
	if (!sc->started) {
		sc->started = 1;
		st = sc->prov->store != NULL ? sc->prov->store : sc->own;
		if (st != NULL)
			sc->snap = crlc_snap_acquire(st);
		if (sc->expect != 0 && sc->expect != OSSL_STORE_INFO_CRL)
			sc->walked = 1;	/* we hold nothing else */
		if (sc->snap != NULL && sc->subject_der != NULL) {
			struct crlc_span name = { sc->subject_der, sc->subject_len };

			if (crlc_index_issuer(crlc_snap_index(sc->snap), &name,
			    &sc->issuer_id) == -1 || sc->issuer_id == 0)
				sc->walked = 1;	/* no CRL of that issuer */
		}
	}
	if (sc->snap == NULL || sc->walked) {
		sc->eof = sc->qlen == 0;
		return;
	}
	rc = crlc_index_foreach_crl(crlc_snap_index(sc->snap), sc->next_rec,
	    CRLC_WALK_CRLS, walk_fn, &w);
	if (rc == 0)
		sc->walked = 1;
	else if (rc != 1) {
		/* Malformed record, LMDB error or no memory: stop here. */
		if (!w.oom)
			crlc_log(sc->prov->conf.log, LOG_WARNING, "store loader: "
			    "cannot walk the CRLs of the index");
		sc->walked = 1;
	}
	sc->eof = sc->qlen == 0 && sc->walked;
}

/* --- OSSL_OP_STORE -------------------------------------------------------- */

static void *
loader_open(void *provctx, const char *uri)
{
	struct crlc_prov *p = provctx;
	struct store_ctx *sc;

	if (uri == NULL || strncmp(uri, CRLC_PROV_NAME ":",
	    sizeof(CRLC_PROV_NAME)) != 0)
		return NULL;
	if ((sc = calloc(1, sizeof(*sc))) == NULL)
		return NULL;
	sc->prov = p;
	/*
	 * mode = off keeps no store for the signature path; the loader is
	 * still asked for explicitly, so serve the index all the same.
	 */
	if (p->store == NULL && p->conf.index[0] != '\0')
		sc->own = crlc_store_get(p->conf.index, p->conf.log,
		    p->conf.share);
	return sc;
}

static const OSSL_PARAM *
loader_settable_ctx_params(void *provctx)
{
	static const OSSL_PARAM table[] = {
		OSSL_PARAM_int(OSSL_STORE_PARAM_EXPECT, NULL),
		OSSL_PARAM_octet_string(OSSL_STORE_PARAM_SUBJECT, NULL, 0),
		OSSL_PARAM_END
	};

	(void)provctx;
	return table;
}

static int
loader_set_ctx_params(void *loaderctx, const OSSL_PARAM params[])
{
	struct store_ctx *sc = loaderctx;
	const OSSL_PARAM *q;
	const unsigned char *pp;
	X509_NAME *xn;
	uint8_t *copy;

	if (params == NULL)
		return 1;
	if (sc->started)
		return 0;		/* OSSL_STORE refuses this too */
	if ((q = OSSL_PARAM_locate_const(params,
	    OSSL_STORE_PARAM_EXPECT)) != NULL &&
	    !OSSL_PARAM_get_int(q, &sc->expect))
		return 0;
	if ((q = OSSL_PARAM_locate_const(params,
	    OSSL_STORE_PARAM_SUBJECT)) != NULL) {
		if (q->data_type != OSSL_PARAM_OCTET_STRING ||
		    q->data == NULL || q->data_size == 0)
			return 0;
		pp = q->data;
		if ((xn = d2i_X509_NAME(NULL, &pp,
		    (long)q->data_size)) == NULL)
			return 0;	/* not a Name */
		X509_NAME_free(xn);
		if ((copy = malloc(q->data_size)) == NULL)
			return 0;
		memcpy(copy, q->data, q->data_size);
		free(sc->subject_der);
		sc->subject_der = copy;
		sc->subject_len = q->data_size;
	}
	return 1;
}

static int
loader_load(void *loaderctx, OSSL_CALLBACK *object_cb, void *object_cbarg,
    OSSL_PASSPHRASE_CALLBACK *pw_cb, void *pw_cbarg)
{
	struct store_ctx *sc = loaderctx;
	struct crl_item it;
	int type = OSSL_OBJECT_CRL, ok;
	OSSL_PARAM params[4];

	(void)pw_cb;
	(void)pw_cbarg;
	if (sc->qhead == sc->qlen && !sc->eof)
		refill(sc);
	if (sc->qhead == sc->qlen) {
		sc->eof = 1;
		return 0;
	}
	it = sc->q[sc->qhead++];
	params[0] = OSSL_PARAM_construct_int(OSSL_OBJECT_PARAM_TYPE, &type);
	params[1] = OSSL_PARAM_construct_utf8_string(
	    OSSL_OBJECT_PARAM_DATA_TYPE, (char *)"CRL", 0);
	params[2] = OSSL_PARAM_construct_octet_string(OSSL_OBJECT_PARAM_DATA,
	    it.der, it.len);
	params[3] = OSSL_PARAM_construct_end();
	ok = object_cb(params, object_cbarg);
	free(it.der);
	if (sc->qhead == sc->qlen && sc->walked)
		sc->eof = 1;
	return ok;
}

static int
loader_eof(void *loaderctx)
{
	struct store_ctx *sc = loaderctx;

	return sc->eof;
}

static int
loader_close(void *loaderctx)
{
	struct store_ctx *sc = loaderctx;

	if (sc == NULL)
		return 1;
	queue_clear(sc);
	free(sc->q);
	crlc_pin_release(sc->snap);
	crlc_store_put(sc->own);
	free(sc->subject_der);
	free(sc);
	return 1;
}

static const OSSL_DISPATCH crlc_store_dispatch[] = {
	{ OSSL_FUNC_STORE_OPEN, (void (*)(void))loader_open },
	{ OSSL_FUNC_STORE_SETTABLE_CTX_PARAMS,
	    (void (*)(void))loader_settable_ctx_params },
	{ OSSL_FUNC_STORE_SET_CTX_PARAMS,
	    (void (*)(void))loader_set_ctx_params },
	{ OSSL_FUNC_STORE_LOAD, (void (*)(void))loader_load },
	{ OSSL_FUNC_STORE_EOF, (void (*)(void))loader_eof },
	{ OSSL_FUNC_STORE_CLOSE, (void (*)(void))loader_close },
	{ 0, NULL }
};

const OSSL_ALGORITHM crlc_store_algs[] = {
	{ CRLC_PROV_NAME, "provider=" CRLC_PROV_NAME, crlc_store_dispatch,
	    "crlcache: the signed CRLs of the published index" },
	{ NULL, NULL, NULL, NULL }
};
