/*
 * Unit test of provider/chain.c and provider/learn.c (built in): the
 * deadline of a wait travels down the chain a thread verifies, so that a
 * link below one that waited waits only for what is left of that wait
 * (a chain's waits within one learn_wait); a chain whose time is spent
 * waits no more and claims nothing; a wait is never longer than
 * learn_wait; the budget counts what a continued wait may take.
 */
#include "check.h"
#include "../../provider/chain.c"
#include "../../provider/learn.c"

/* Stand-ins for keys: a subjectPublicKey's bits, and their key id. */
struct key {
	uint8_t		bits[32];
	struct crlc_span spk;
	uint8_t		id[CRLC_HASH_LEN];
};

static void
key_make(struct key *k, uint8_t fill)
{
	memset(k->bits, fill, sizeof(k->bits));
	k->spk.p = k->bits;
	k->spk.len = sizeof(k->bits);
	crlc_sha256(k->bits, sizeof(k->bits), k->id);
}

static const uint8_t *anchor_id;

static int
known(const uint8_t id[CRLC_HASH_LEN], void *arg)
{
	(void)arg;
	return memcmp(id, anchor_id, CRLC_HASH_LEN) == 0;
}

static void
test_walk(void)
{
	struct key root, i1, i2, other;
	long long d;

	key_make(&root, 1);
	key_make(&i1, 2);
	key_make(&i2, 3);
	key_make(&other, 4);
	anchor_id = root.id;
	/* root -> i1, whose verification waited until 5000 */
	crlc_chain_note(root.id, &i1.spk, 5000);
	CHECK(crlc_chain_walk(i1.id, known, NULL, &d) == CRLC_CHAIN_PROVABLE);
	CHECK(d == 5000);
	/* i1 -> i2, which did not wait: the leaf under i2 shares i1's end */
	crlc_chain_note(i1.id, &i2.spk, 0);
	CHECK(crlc_chain_walk(i2.id, known, NULL, &d) == CRLC_CHAIN_PROVABLE);
	CHECK(d == 5000);
	/* i2 waited too (to the same end): the nearest wait counts */
	crlc_chain_note(i1.id, &i2.spk, 4000);
	CHECK(crlc_chain_walk(i2.id, known, NULL, &d) == CRLC_CHAIN_PROVABLE);
	CHECK(d == 4000);
	/* the anchor itself: no link above, no wait */
	CHECK(crlc_chain_walk(root.id, known, NULL, &d) == CRLC_CHAIN_PROVABLE);
	CHECK(d == 0);
	/* a key no link leads to from an anchor */
	CHECK(crlc_chain_walk(other.id, known, NULL, &d) == CRLC_CHAIN_UNPROVEN);
	CHECK(d == 0);
	/* a self-made chain under other: unproven, whatever waited in it */
	crlc_chain_note(other.id, &i1.spk, 7000);
	CHECK(crlc_chain_walk(i1.id, known, NULL, &d) == CRLC_CHAIN_UNPROVEN);
}

static void
test_deadline(void)
{
	struct crlc_conf conf;
	long long now, d1, d;

	memset(&conf, 0, sizeof(conf));
	conf.learn_wait = 1000;
	now = crlc_mono_ms();
	/* A first wait: learn_wait from now. */
	d1 = crlc_learn_deadline(&conf, 11, 0);
	CHECK(d1 >= now + 1000 && d1 <= crlc_mono_ms() + 1000);
	/* Its issuer again: claimed, no second wait. */
	CHECK(crlc_learn_deadline(&conf, 11, 0) == 0);
	/* A link below it: the same end, not a new one. */
	CHECK(crlc_learn_deadline(&conf, 12, d1) == d1);
	crlc_learn_done(d1);
	crlc_learn_done(d1);
	/* A chain whose time is spent: no wait, and its issuer not claimed. */
	CHECK(crlc_learn_deadline(&conf, 13, crlc_mono_ms() - 1) == 0);
	d = crlc_learn_deadline(&conf, 13, 0);
	CHECK(d != 0);
	crlc_learn_done(d);
	/* Never past learn_wait, whatever a chain says. */
	now = crlc_mono_ms();
	d = crlc_learn_deadline(&conf, 14, now + 5000);
	CHECK(d != 0 && d <= crlc_mono_ms() + 1000);
	/*
	 * The budget: that one and a whole wait fill its burst (two whole
	 * waits); a continued wait is charged what it may take, so one of
	 * half a wait has no room then.
	 */
	CHECK(crlc_learn_deadline(&conf, 15, 0) != 0);
	CHECK(crlc_learn_deadline(&conf, 16, crlc_mono_ms() + 500) == 0);
}

int
main(void)
{
	test_walk();
	test_deadline();
	return check_result();
}
