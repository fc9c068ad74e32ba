/*
 * Certification paths: a pool of CA certificates indexed by subject, and
 * a path builder that tries every candidate issuer (RFC 4158) before it
 * gives up, for the directory, a hint's issuer and a CRL's issuer alike.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * OpenSSL's X509_verify_cert() takes, at each step, the first untrusted
 * certificate whose name and key identifier fit and never goes back: a
 * CA that exists both as a self-signed root not trusted here and as a
 * certificate cross-signed by an anchor fails with "self-signed
 * certificate in certificate chain" whenever the root comes first, and
 * its issuer search is linear in the pool.  Here the search is a
 * depth-first walk over the candidates of each issuer name (looked up in
 * a hash of the pool by subject), each edge checked as RFC 5280 6.1.3
 * (a) requires before it is followed (name and key identifier,
 * X509_check_issued; validity at the instant; the signature); a path
 * that reaches an anchor is then validated whole by X509_verify_cert()
 * with exactly its certificates as the untrusted ones, so OpenSSL still
 * applies every rule of RFC 5280 6.1 (basic constraints, path length,
 * name and policy constraints, key usage).  A path it refuses, or one
 * the caller refuses (a revoked link), sends the walk back to the next
 * candidate.  Self-signed certificates of the pool are never followed:
 * only a trust anchor may be self-signed in a path, and anchors are in
 * the store.  The walk is bounded in depth, signature checks and whole
 * validations, so a pool that a feed filled with look-alikes costs the
 * certificate being proven, never the run.  A pool may have a source it
 * asks for each issuer name before it is searched for it
 * (certpool_set_fill): the issuer directory, of which a hint run reads
 * only the entries of the names its searches meet (dirindex.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "chain.h"
#include "fetcher.h"

/*
 * Certificates in one path, the anchor included: Web PKI paths have 2 to
 * 5; OpenSSL's own default limit (100) is for no real PKI.
 */
#define CHAIN_MAX_DEPTH		8
/*
 * Signature checks one path search may make: a real issuer name has at
 * most a few dozen certificates in the CCADB (cross-signs, re-issues).
 */
#define CHAIN_MAX_SIGS		256
/* Whole validations of candidate paths one search may make. */
#define CHAIN_MAX_TRIES		16
/* Certificates one pool holds: 25 times the Web PKI's disclosed CAs. */
#define POOL_MAX		200000

struct pool_entry {
	unsigned long	 hash;		/* of the subject (X509_NAME_hash_ex) */
	X509		*x;		/* one reference owned */
	X509		*up;		/* the issuer of the last path proven
					   through x: tried first next time */
	size_t		 next;		/* in its bucket; POOL_END: none */
};

#define POOL_END	SIZE_MAX

struct certpool {
	struct pool_entry *v;
	size_t		 n, cap;
	size_t		*bucket;	/* first entry of each; POOL_END */
	size_t		 nbucket;	/* a power of two, > 2 n */
	certpool_fill_fn fill;		/* asked for a name before a search */
	void		*fill_arg;
};

static unsigned long
name_hash(const X509_NAME *name)
{
	int ok = 0;
	unsigned long h = X509_NAME_hash_ex(name, NULL, NULL, &ok);

	ERR_clear_error();
	return ok ? h : 0;
}

struct certpool *
certpool_new(void)
{
	return xcalloc(1, sizeof(struct certpool));
}

void
certpool_set_fill(struct certpool *p, certpool_fill_fn fill, void *arg)
{
	p->fill = fill;
	p->fill_arg = arg;
}

/* Before the pool is searched for name: what its filler holds of it. */
static void
pool_fill(struct certpool *p, const X509_NAME *name)
{
	if (p->fill != NULL)
		p->fill(p->fill_arg, p, name);
}

void
certpool_free(struct certpool *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->n; i++)
		X509_free(p->v[i].x);
	free(p->v);
	free(p->bucket);
	free(p);
}

static void
rehash(struct certpool *p)
{
	size_t i, b;

	for (i = 0; i < p->nbucket; i++)
		p->bucket[i] = POOL_END;
	for (i = 0; i < p->n; i++) {
		b = p->v[i].hash & (p->nbucket - 1);
		p->v[i].next = p->bucket[b];
		p->bucket[b] = i;
	}
}

/* The first entry named name from entry i on (POOL_END: none). */
static size_t
pool_next(const struct certpool *p, size_t i, const X509_NAME *name,
    unsigned long h)
{
	for (; i != POOL_END; i = p->v[i].next)
		if (p->v[i].hash == h &&
		    X509_NAME_cmp(X509_get_subject_name(p->v[i].x), name) == 0)
			return i;
	return POOL_END;
}

static size_t
pool_first(const struct certpool *p, const X509_NAME *name, unsigned long h)
{
	if (p->nbucket == 0)
		return POOL_END;
	return pool_next(p, p->bucket[h & (p->nbucket - 1)], name, h);
}

int
certpool_add(struct certpool *p, X509 *x)
{
	const X509_NAME *subj = X509_get_subject_name(x);
	unsigned long h = name_hash(subj);
	struct pool_entry *v;
	size_t i, *nb;

	for (i = pool_first(p, subj, h); i != POOL_END;
	    i = pool_next(p, p->v[i].next, subj, h))
		if (X509_cmp(p->v[i].x, x) == 0)
			return 0;	/* held already */
	if (p->n >= POOL_MAX)
		return -1;
	if (p->n == p->cap) {
		if ((v = reallocarray(p->v, p->cap ? p->cap * 2 : 64,
		    sizeof(*v))) == NULL)
			return -1;
		p->v = v;
		p->cap = p->cap ? p->cap * 2 : 64;
	}
	if (!X509_up_ref(x))
		return -1;
	p->v[p->n].hash = h;
	p->v[p->n].x = x;
	p->v[p->n].up = NULL;
	p->n++;
	if (2 * p->n >= p->nbucket) {
		if ((nb = reallocarray(p->bucket, p->nbucket ? p->nbucket * 4 :
		    256, sizeof(*nb))) == NULL) {
			X509_free(p->v[--p->n].x);
			return -1;
		}
		p->bucket = nb;
		p->nbucket = p->nbucket ? p->nbucket * 4 : 256;
		rehash(p);
	} else {
		i = h & (p->nbucket - 1);
		p->v[p->n - 1].next = p->bucket[i];
		p->bucket[i] = p->n - 1;
	}
	return 0;
}

STACK_OF(X509) *
certpool_named(struct certpool *p, const X509_NAME *name)
{
	STACK_OF(X509) *out = sk_X509_new_null();
	unsigned long h = name_hash(name);
	size_t i;

	if (out == NULL)
		return NULL;
	pool_fill(p, name);
	for (i = pool_first(p, name, h); i != POOL_END;
	    i = pool_next(p, p->v[i].next, name, h))
		if (X509_up_ref(p->v[i].x) && !sk_X509_push(out, p->v[i].x))
			X509_free(p->v[i].x);
	return out;
}

/* One search: the path so far, path[0] the certificate to prove. */
struct search {
	X509_STORE	*store;
	struct certpool	*pool;
	time_t		 now;
	chain_accept_fn	 accept;
	void		*arg;
	X509_STORE_CTX	*ctx;
	X509		*path[CHAIN_MAX_DEPTH];
	size_t		 ent[CHAIN_MAX_DEPTH];	/* pool entry; POOL_END */
	int		 depth;
	unsigned	 sigs, tries;
	int		 err;		/* the most telling X509_V_ERR_* */
	char		*why;		/* the caller's refusal, if any */
	size_t		 whylen;
	STACK_OF(X509)	*chain;		/* the path proven */
};

/*
 * Is c an anchor of the store itself (2), or does an anchor issue it
 * (1: name, key identifier; the signature is the whole validation's to
 * check)?  0: neither.
 */
static int
anchored(struct search *s, X509 *c)
{
	STACK_OF(X509) *a = NULL;
	int i, found = 0;

	if (!X509_STORE_CTX_init(s->ctx, s->store, NULL, NULL))
		return 0;
	if ((a = X509_STORE_CTX_get1_certs(s->ctx,
	    X509_get_subject_name(c))) != NULL)
		for (i = 0; i < sk_X509_num(a) && !found; i++)
			if (X509_cmp(sk_X509_value(a, i), c) == 0)
				found = 2;
	sk_X509_pop_free(a, X509_free);
	if (!found && (a = X509_STORE_CTX_get1_certs(s->ctx,
	    X509_get_issuer_name(c))) != NULL) {
		for (i = 0; i < sk_X509_num(a) && !found; i++)
			if (X509_check_issued(sk_X509_value(a, i), c) == X509_V_OK)
				found = 1;
		sk_X509_pop_free(a, X509_free);
	}
	X509_STORE_CTX_cleanup(s->ctx);
	ERR_clear_error();
	return found;
}

/*
 * Validate the path so far whole (RFC 5280 6.1): 1 when it holds.  When
 * its last certificate is an anchor itself, the path ends there, as RFC
 * 5280 6.1.1 (d) takes an anchor as input rather than validating it:
 * OpenSSL 3.0 otherwise judges a self-signed anchor that shares its name
 * and key with another anchor (a root re-issued with new dates) by the
 * other one and calls it "self-signed certificate".
 */
static int
try_path(struct search *s, int ends_at_anchor)
{
	STACK_OF(X509) *untrusted = NULL, *chain = NULL;
	int i, ok = 0;

	if (s->tries >= CHAIN_MAX_TRIES)
		return 0;
	s->tries++;
	if ((untrusted = sk_X509_new_null()) == NULL)
		return 0;
	for (i = 1; i + ends_at_anchor < s->depth; i++)
		if (!sk_X509_push(untrusted, s->path[i]))
			goto done;
	if (!X509_STORE_CTX_init(s->ctx, s->store, s->path[0], untrusted))
		goto done;
	X509_STORE_CTX_set_time(s->ctx, 0, s->now);
	if (ends_at_anchor)
		X509_VERIFY_PARAM_set_flags(X509_STORE_CTX_get0_param(s->ctx),
		    X509_V_FLAG_PARTIAL_CHAIN);
	if (X509_verify_cert(s->ctx) == 1)
		chain = X509_STORE_CTX_get1_chain(s->ctx);
	else if (s->err == 0 || s->err == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY)
		s->err = X509_STORE_CTX_get_error(s->ctx);
	X509_STORE_CTX_cleanup(s->ctx);
	if (chain != NULL && s->accept != NULL &&
	    !s->accept(s->arg, chain, s->why, s->whylen)) {
		sk_X509_pop_free(chain, X509_free);
		chain = NULL;
		s->err = X509_V_ERR_CERT_REVOKED;
	}
	if (chain != NULL) {
		/* remember each link for the next search through it */
		for (i = 0; i + 1 < s->depth; i++)
			if (s->ent[i] != POOL_END)
				s->pool->v[s->ent[i]].up = s->path[i + 1];
		s->chain = chain;
		ok = 1;
	}
done:
	sk_X509_free(untrusted);
	ERR_clear_error();
	return ok;
}

/* The most telling error of a refused edge, unless a path said more. */
static void
note_err(struct search *s, int err)
{
	if (s->err == 0 || s->err == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY)
		s->err = err;
}

/* May candidate p issue c, the last of the path? (RFC 5280 6.1.3 (a)) */
static int
edge_holds(struct search *s, X509 *p, X509 *c)
{
	EVP_PKEY *pk;
	int i;

	/* only an anchor may be self-signed in a path */
	if (X509_get_extension_flags(p) & EXFLAG_SS)
		return 0;
	for (i = 0; i < s->depth; i++)
		if (X509_NAME_cmp(X509_get_subject_name(s->path[i]),
		    X509_get_subject_name(p)) == 0 &&
		    EVP_PKEY_eq(X509_get0_pubkey(s->path[i]),
		    X509_get0_pubkey(p)) == 1)
			return 0;	/* a loop */
	if (X509_check_issued(p, c) != X509_V_OK)
		return 0;
	if (X509_cmp_time(X509_get0_notAfter(p), &s->now) < 0) {
		note_err(s, X509_V_ERR_CERT_HAS_EXPIRED);
		return 0;
	}
	if (X509_cmp_time(X509_get0_notBefore(p), &s->now) > 0) {
		note_err(s, X509_V_ERR_CERT_NOT_YET_VALID);
		return 0;
	}
	if (s->sigs >= CHAIN_MAX_SIGS)
		return 0;
	s->sigs++;
	if ((pk = X509_get0_pubkey(p)) == NULL || X509_verify(c, pk) != 1) {
		ERR_clear_error();
		note_err(s, X509_V_ERR_CERT_SIGNATURE_FAILURE);
		return 0;
	}
	return 1;
}

static int extend(struct search *s);

/* Follow pool entry e as the issuer of the last of the path. */
static int
follow(struct search *s, size_t e)
{
	X509 *p = s->pool->v[e].x;

	if (s->depth >= CHAIN_MAX_DEPTH ||
	    !edge_holds(s, p, s->path[s->depth - 1]))
		return 0;
	s->path[s->depth] = p;
	s->ent[s->depth] = e;
	s->depth++;
	if (extend(s))
		return 1;
	s->depth--;
	return 0;
}

/* Extend the path from its last certificate: 1 when a path is proven. */
static int
extend(struct search *s)
{
	X509 *c = s->path[s->depth - 1], *up = NULL;
	const X509_NAME *iname = X509_get_issuer_name(c);
	unsigned long h = name_hash(iname);
	size_t i, last = s->ent[s->depth - 1];
	int a;

	if ((a = anchored(s, c)) != 0 && try_path(s, a == 2))
		return 1;
	if (s->tries >= CHAIN_MAX_TRIES || s->sigs >= CHAIN_MAX_SIGS)
		return 0;
	pool_fill(s->pool, iname);
	if (last != POOL_END && (up = s->pool->v[last].up) != NULL)
		for (i = pool_first(s->pool, iname, h); i != POOL_END;
		    i = pool_next(s->pool, s->pool->v[i].next, iname, h))
			if (s->pool->v[i].x == up) {
				if (follow(s, i))
					return 1;
				break;
			}
	for (i = pool_first(s->pool, iname, h); i != POOL_END;
	    i = pool_next(s->pool, s->pool->v[i].next, iname, h))
		if (s->pool->v[i].x != up && follow(s, i))
			return 1;
	return 0;
}

int
chain_build(X509_STORE *store, struct certpool *pool, X509 *x, time_t now,
    chain_accept_fn accept, void *arg, STACK_OF(X509) **chain, char *why,
    size_t whylen)
{
	struct search s;
	const char *text;

	memset(&s, 0, sizeof(s));
	s.store = store;
	s.pool = pool;
	s.now = now;
	s.accept = accept;
	s.arg = arg;
	s.why = why;
	s.whylen = whylen;
	s.path[0] = x;
	s.ent[0] = POOL_END;
	s.depth = 1;
	if (why != NULL && whylen > 0)
		why[0] = '\0';
	if ((s.ctx = X509_STORE_CTX_new()) == NULL) {
		if (why != NULL)
			snprintf(why, whylen, "out of memory");
		return 0;
	}
	if (extend(&s)) {
		X509_STORE_CTX_free(s.ctx);
		if (chain != NULL)
			*chain = s.chain;
		else
			sk_X509_pop_free(s.chain, X509_free);
		return 1;
	}
	X509_STORE_CTX_free(s.ctx);
	if (why == NULL || (why[0] != '\0' && s.err == X509_V_ERR_CERT_REVOKED))
		return 0;
	text = X509_verify_cert_error_string(s.err != 0 ? s.err :
	    X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY);
	if (s.tries >= CHAIN_MAX_TRIES || s.sigs >= CHAIN_MAX_SIGS)
		snprintf(why, whylen, "%s (the path search stopped after %u "
		    "signature checks and %u paths)", text, s.sigs, s.tries);
	else
		snprintf(why, whylen, "%s", text);
	return 0;
}
