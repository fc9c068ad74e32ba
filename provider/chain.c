/*
 * The chain a thread is verifying: the last few certificates whose
 * signature it checked, so that a verification can tell whether its
 * issuer was itself verified, just before, under a key the fetcher can
 * prove (learn.c waits only for such an issuer), and whether a link
 * above it waited already (the chain's waits share that one deadline).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * WHY
 *	The provider sees one signature at a time: a TBSCertificate and the
 *	key that verified it, never the chain.  OpenSSL checks a chain's
 *	signatures from its anchor down (x509_vfy.c internal_verify), all
 *	in the verifying thread: the intermediate under the anchor's key,
 *	then each child under its parent's key.  So the certificates this
 *	thread verified last, each with the key that verified it, are the
 *	chain above the one being verified now: a link is "this key's
 *	certificate was verified under that key".
 *
 * COST
 *	Every verification notes its link: two copies into thread-local
 *	memory (the issuer's key id, already computed for the lookup, and
 *	the subject's key bits), no allocation after a thread's first, no
 *	system call, no lock.  A walk hashes the noted keys, on the rare
 *	path of a certificate no CRL covers only.
 */
#include <string.h>

#include <crlcache/hash.h>

#include "prov.h"

/*
 * Links kept: a leaf under two intermediates needs two, and Web PKI
 * chains are shorter than four; an older link is overwritten.
 */
#define CHAIN_LINKS	4
/*
 * subjectPublicKey bits kept: an RSA-8192 key's are 1,038 octets (its
 * modulus 1,025 with the DER around it and the exponent); a longer key's
 * link is noted without them and links to nothing.
 */
#define CHAIN_KEY_MAX	1100

struct chain_link {
	uint8_t		issuer[CRLC_HASH_LEN];	/* key id that verified it */
	int		has_issuer;
	long long	deadline;		/* of its wait; 0: none */
	size_t		key_len;		/* 0: no link to its children */
	uint8_t		key[CHAIN_KEY_MAX];	/* its subjectPublicKey bits */
};

struct chain {
	struct chain_link	link[CHAIN_LINKS];
	unsigned		next;
};

static _Thread_local struct chain chain;

void
crlc_chain_note(const uint8_t *issuer, const struct crlc_span *spk,
    long long deadline)
{
	struct chain_link *l = &chain.link[chain.next++ % CHAIN_LINKS];

	l->has_issuer = issuer != NULL;
	if (issuer != NULL)
		memcpy(l->issuer, issuer, CRLC_HASH_LEN);
	l->deadline = deadline;
	l->key_len = spk->len <= CHAIN_KEY_MAX ? spk->len : 0;
	memcpy(l->key, spk->p, l->key_len);
}

/* The newest link whose subject's key has id, or NULL. */
static const struct chain_link *
link_of(const uint8_t id[CRLC_HASH_LEN], unsigned *skip)
{
	const struct chain_link *l;
	uint8_t h[CRLC_HASH_LEN];
	unsigned i;

	for (i = *skip; i < CHAIN_LINKS; i++) {
		l = &chain.link[(chain.next - 1 - i) % CHAIN_LINKS];
		if (l->key_len == 0)
			continue;
		crlc_sha256(l->key, l->key_len, h);
		if (memcmp(h, id, CRLC_HASH_LEN) == 0) {
			*skip = i + 1;
			return l;
		}
	}
	return NULL;
}

enum crlc_chain
crlc_chain_walk(const uint8_t key[CRLC_HASH_LEN],
    int (*known)(const uint8_t id[CRLC_HASH_LEN], void *), void *arg,
    long long *deadline)
{
	const struct chain_link *l;
	const uint8_t *cur = key;
	unsigned skip = 0, depth;

	*deadline = 0;
	/* Each step goes to an older link: at most CHAIN_LINKS of them. */
	for (depth = 0; depth <= CHAIN_LINKS; depth++) {
		if (known(cur, arg))
			return CRLC_CHAIN_PROVABLE;
		if ((l = link_of(cur, &skip)) == NULL)
			return CRLC_CHAIN_UNPROVEN;
		/* The nearest wait above: the ones above it share its end. */
		if (*deadline == 0)
			*deadline = l->deadline;
		if (!l->has_issuer)
			return CRLC_CHAIN_UNPROVEN;
		cur = l->issuer;
	}
	return CRLC_CHAIN_UNPROVEN;
}

int
crlc_self_signed(const struct crlc_tbs *cert, const uint8_t *key)
{
	uint8_t h[CRLC_HASH_LEN];

	if (key == NULL || cert->issuer.len != cert->subject.len ||
	    memcmp(cert->issuer.p, cert->subject.p, cert->issuer.len) != 0 ||
	    cert->spk.len == 0)
		return 0;
	crlc_sha256(cert->spk.p, cert->spk.len, h);
	return memcmp(h, key, CRLC_HASH_LEN) == 0;
}
