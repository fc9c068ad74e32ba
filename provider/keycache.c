/*
 * The keys our key manager imported lately (importing an EC key is costly).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * A TLS client decodes the peer's certificates afresh on every handshake,
 * and EVP exports each decoded key into our key manager (keymgmt.c), whose
 * import rebuilds it in the default provider.  For an EC key that means
 * building the curve again (EC_GROUP_new_from_params: most of the cost the
 * provider adds to a P-256 handshake).  The same keys come back handshake
 * after handshake (the server's, its intermediate's), so the inner keydata
 * one import built is shared, with a reference count of ours, by every
 * later import of the same parameters.
 *
 * An import is deterministic in (key type, selection, parameters), so two
 * imports whose parameters are the same bytes give the same key: the cache
 * is keyed by exactly those bytes, not by a summary of them.  The shared
 * keydata is only ever read (our key manager has no set_params, dup, gen
 * or load; verifying reads the key), as EVP shares one key between threads.
 *
 * No lock: a direct-mapped table of atomic pointers.  A lookup takes its
 * slot's entry out (exchange with NULL), compares, and puts it back; a
 * thread that finds the slot empty meanwhile just misses and imports as
 * before.  Nothing blocks, and a fork copies a consistent table.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/params.h>

#include "prov.h"

struct crlc_kshare {
	atomic_uint		 refs;
	const struct km_impl	*impl;
	void			*kd;
	struct crlc_keyid	 id;
	uint64_t		 hash;
	size_t			 len;
	uint8_t			 tag[];
};

/* Longest parameter name we serialise: OpenSSL's are under 40 bytes. */
#define PARAM_NAME_MAX	64

static void
tag_put(uint8_t *buf, size_t *len, const void *p, size_t n, int *ok)
{
	if (!*ok || n == 0)
		return;
	if (n > CRLC_KEYCACHE_TAG_MAX - *len) {
		*ok = 0;
		return;
	}
	memcpy(buf + *len, p, n);
	*len += n;
}

size_t
crlc_keycache_tag(int selection, const OSSL_PARAM params[],
    uint8_t buf[CRLC_KEYCACHE_TAG_MAX])
{
	const OSSL_PARAM *p;
	size_t len = 0, n;
	int ok = 1;

	tag_put(buf, &len, &selection, sizeof(selection), &ok);
	for (p = params; ok && p->key != NULL; p++) {
		/* Pointer types: the bytes are elsewhere; not worth it. */
		if (p->data_type == OSSL_PARAM_UTF8_PTR ||
		    p->data_type == OSSL_PARAM_OCTET_PTR ||
		    (p->data == NULL && p->data_size != 0))
			return 0;
		n = strnlen(p->key, PARAM_NAME_MAX);
		if (n == PARAM_NAME_MAX)
			return 0;
		tag_put(buf, &len, p->key, n + 1, &ok);
		tag_put(buf, &len, &p->data_type, sizeof(p->data_type), &ok);
		tag_put(buf, &len, &p->data_size, sizeof(p->data_size), &ok);
		tag_put(buf, &len, p->data, p->data_size, &ok);
	}
	return ok ? len : 0;
}

/* FNV-1a: spreads the tags (whose tails are public key bytes) enough. */
static uint64_t
tag_hash(const uint8_t *tag, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ tag[i]) * 0x100000001b3ULL;
	return h;
}

void
crlc_kshare_put(struct crlc_kshare *s)
{
	if (s == NULL || atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	s->impl->free(s->kd);
	free(s);
}

void *
crlc_kshare_kd(const struct crlc_kshare *s)
{
	return s->kd;
}

struct crlc_keyid *
crlc_kshare_id(struct crlc_kshare *s)
{
	return &s->id;
}

/* Put s back into slot, or drop the cache's reference if it was refilled. */
static void
slot_return(struct crlc_kshare *_Atomic *slot, struct crlc_kshare *s)
{
	struct crlc_kshare *empty = NULL;

	if (s != NULL && !atomic_compare_exchange_strong(slot, &empty, s))
		crlc_kshare_put(s);
}

struct crlc_kshare *
crlc_keycache_get(struct crlc_keycache *c, const struct km_impl *impl,
    const uint8_t *tag, size_t len)
{
	uint64_t h = tag_hash(tag, len);
	struct crlc_kshare *_Atomic *slot = &c->slot[h % CRLC_KEYCACHE_SLOTS];
	struct crlc_kshare *s, *ret = NULL;

	s = atomic_exchange(slot, NULL);
	if (s != NULL && s->impl == impl && s->hash == h && s->len == len &&
	    memcmp(s->tag, tag, len) == 0) {
		atomic_fetch_add(&s->refs, 1);
		ret = s;
	}
	slot_return(slot, s);
	return ret;
}

struct crlc_kshare *
crlc_keycache_add(struct crlc_keycache *c, const struct km_impl *impl,
    void *kd, const uint8_t *tag, size_t len)
{
	struct crlc_kshare *_Atomic *slot;
	struct crlc_kshare *s;

	if ((s = malloc(sizeof(*s) + len)) == NULL)
		return NULL;
	atomic_init(&s->refs, 2);	/* the caller's and the slot's */
	s->impl = impl;
	s->kd = kd;
	atomic_init(&s->id.id.state, 0);	/* not computed yet (keyid.c) */
	atomic_init(&s->id.spki.state, 0);
	s->hash = tag_hash(tag, len);
	s->len = len;
	memcpy(s->tag, tag, len);
	slot = &c->slot[s->hash % CRLC_KEYCACHE_SLOTS];
	crlc_kshare_put(atomic_exchange(slot, s));
	return s;
}

void
crlc_keycache_clear(struct crlc_keycache *c)
{
	size_t i;

	for (i = 0; i < CRLC_KEYCACHE_SLOTS; i++)
		crlc_kshare_put(atomic_exchange(&c->slot[i], NULL));
}
