/*
 * Unit test of provider/keycache.c (built in: it has no library of its
 * own): an import shared only with one of the same bytes, pointer and
 * over-long parameters not cached, and every shared key freed exactly
 * once, after its last reference, whatever the order.
 */
#include <openssl/core_names.h>
#include <openssl/params.h>

#include "check.h"
#include "../../provider/keycache.c"

static int freed;

static void
count_free(void *kd)
{
	(void)kd;
	freed++;
}

/* An EC public key's import, as the default provider exports it. */
static size_t
ec_tag(uint8_t pub[65], uint8_t tag[CRLC_KEYCACHE_TAG_MAX])
{
	OSSL_PARAM p[] = {
		OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME,
		    "prime256v1", 10),
		OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, pub, 65),
		OSSL_PARAM_END
	};

	return crlc_keycache_tag(OSSL_KEYMGMT_SELECT_ALL, p, tag);
}

int
main(void)
{
	static struct crlc_keycache cache;	/* zeroed: empty slots */
	struct km_impl impl = { .free = count_free };
	struct km_impl other = { .free = count_free };
	uint8_t pub[65] = { 4 }, big[CRLC_KEYCACHE_TAG_MAX];
	uint8_t tag[CRLC_KEYCACHE_TAG_MAX], tag2[CRLC_KEYCACHE_TAG_MAX];
	int kd1, kd2, i;
	struct crlc_kshare *a, *b, *c, *many[2 * CRLC_KEYCACHE_SLOTS];
	size_t len, len2;
	OSSL_PARAM ptr[] = {
		OSSL_PARAM_utf8_ptr(OSSL_PKEY_PARAM_GROUP_NAME, NULL, 0),
		OSSL_PARAM_END
	}, longp[] = {
		OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, big,
		    sizeof(big)),
		OSSL_PARAM_END
	};

	len = ec_tag(pub, tag);
	CHECK(len > 65);
	CHECK(crlc_keycache_get(&cache, &impl, tag, len) == NULL);
	a = crlc_keycache_add(&cache, &impl, &kd1, tag, len);
	CHECK(a != NULL && crlc_kshare_kd(a) == &kd1);
	/* The same bytes again: the same key; another key type: not. */
	b = crlc_keycache_get(&cache, &impl, tag, len);
	CHECK(b == a);
	CHECK(crlc_keycache_get(&cache, &other, tag, len) == NULL);
	/* One bit of the point changed: another key. */
	pub[64] ^= 1;
	len2 = ec_tag(pub, tag2);
	CHECK(len2 == len && memcmp(tag, tag2, len) != 0);
	CHECK(crlc_keycache_get(&cache, &impl, tag2, len2) == NULL);
	c = crlc_keycache_add(&cache, &impl, &kd2, tag2, len2);
	CHECK(c != NULL && crlc_kshare_kd(c) == &kd2);
	CHECK(crlc_kshare_id(a) != crlc_kshare_id(c));

	CHECK(crlc_keycache_tag(0, ptr, tag2) == 0);
	CHECK(crlc_keycache_tag(0, longp, tag2) == 0);

	/* References: the holders' and the cache's, in any order. */
	crlc_kshare_put(a);
	crlc_kshare_put(b);
	CHECK(freed == 0);
	crlc_keycache_clear(&cache);
	CHECK(freed == 1);
	CHECK(crlc_keycache_get(&cache, &impl, tag, len) == NULL);
	crlc_kshare_put(c);
	CHECK(freed == 2);

	/* More keys than slots: the table stays bounded, all freed. */
	freed = 0;
	for (i = 0; i < 2 * CRLC_KEYCACHE_SLOTS; i++) {
		pub[1] = (uint8_t)i;
		len = ec_tag(pub, tag);
		many[i] = crlc_keycache_add(&cache, &impl, &kd1, tag, len);
		CHECK(many[i] != NULL);
	}
	for (i = 0; i < 2 * CRLC_KEYCACHE_SLOTS; i++)
		crlc_kshare_put(many[i]);
	CHECK(freed >= CRLC_KEYCACHE_SLOTS);
	crlc_keycache_clear(&cache);
	CHECK(freed == 2 * CRLC_KEYCACHE_SLOTS);
	crlc_kshare_put(NULL);
	return check_result();
}
