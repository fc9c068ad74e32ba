/*
 * Unit test of the indirect CRL lookup (lib/index.c, format.h INDIRECT
 * CRLS) on a format 3 index written with the encoder: CRL issuer X (id
 * 1) publishes an indirect complete CRL that lists its own serial 02 and
 * Y's serial 01 (a foreign slot), and an indirect partition named by a
 * URI; Z (id 2) a complete CRL that is not indirect; Y (id 3) a complete
 * CRL of its own.  A certificate of Y whose distribution point names X as
 * cRLIssuer is answered by X's indirect CRLs only, by its foreign slot;
 * X's own certificates by their ordinary slot; a cRLIssuer whose CRLs
 * are not indirect covers nothing.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tmpdir.h"
#include "topdir.h"
#include <crlcache/format.h>
#include <crlcache/hash.h>
#include <crlcache/index.h>
#include <crlcache/indexwrite.h>
#include <crlcache/name.h>

#define NOW	1790000000
#define DAY	86400
#define XPART	"http://127.0.0.1/x-part.crl"

/* DER Names CN=Issuer X, CN=Issuer Y, CN=Issuer Z. */
#define NAME(c) { 0x30, 0x13, 0x31, 0x11, 0x30, 0x0f, 0x06, 0x03, 0x55, \
    0x04, 0x03, 0x0c, 0x08, 'I', 's', 's', 'u', 'e', 'r', ' ', c }
static const uint8_t name_x[] = NAME('X'), name_y[] = NAME('Y'),
    name_z[] = NAME('Z');
static const uint8_t body[] = { 0x30, 0x03, 0x02, 0x01, 0x2a };

enum { S_X, S_XPART, S_Z, S_Y, NSCOPES };

static struct crlc_scope_entry
own_entry(uint8_t serial)
{
	struct crlc_scope_entry e;

	memset(&e, 0, sizeof(e));
	crlc_scope_slot(&serial, 1, e.slot);
	e.revoked_at = NOW - DAY;
	e.reason = 1;
	return e;
}

/* An entry about serial of the issuer named name (format.h INDIRECT CRLS). */
static struct crlc_scope_entry
foreign_entry(const uint8_t *name, size_t len, uint8_t serial)
{
	uint8_t canon[CRLC_HASH_LEN], form[CRLC_FOREIGN_FORM_LEN];
	struct crlc_scope_entry e = own_entry(serial);

	if (crlc_name_canon_hash(name, len, canon) == -1)
		abort();
	crlc_foreign_form(canon, &serial, 1, form);
	CHECK(crlc_is_foreign_form(form, sizeof(form)));
	crlc_foreign_slot(form, e.slot);
	e.reason = 3;
	return e;
}

static struct crlc_top_scope
scope(uint32_t id, unsigned no, const char *uri, unsigned flags,
    uint32_t entries)
{
	struct crlc_top_scope s;

	memset(&s, 0, sizeof(s));
	s.issuer_id = id;
	s.key_no = 1;
	s.scope_no = no;
	s.uri = (struct crlc_span){ (const uint8_t *)uri, strlen(uri) };
	s.flags = flags;
	s.entries = entries;
	s.this_update = NOW - DAY;
	s.next_update = NOW + DAY;
	s.fetched_at = NOW - DAY;
	s.source = (struct crlc_span){ (const uint8_t *)"src", 3 };
	s.id[0] = (uint8_t)id;
	s.id[1] = (uint8_t)no;
	return s;
}

static void
write_scope(const char *dir, const struct crlc_top_scope *s,
    struct crlc_scope_entry *e, size_t n)
{
	struct crlc_span der = { body, sizeof(body) };
	char path[600], name[2 * CRLC_SCOPE_ID_LEN + 1];
	int fd;

	crlc_scope_name(s->id, name);
	snprintf(path, sizeof(path), "%s/scope/%s", dir, name);
	n = crlc_scope_sort(e, n);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1 ||
	    crlc_scope_write(fd, s->id, e, n, &der, NULL) || close(fd) != 0)
		abort();
}

static int
issuer_cmp(const void *a, const void *b)
{
	return memcmp(a, b, CRLC_HASH_LEN);
}

static void
write_index(const char *dir)
{
	const uint8_t *names[3] = { name_x, name_z, name_y };
	struct crlc_top_issuer alias[3], canon[3];
	struct crlc_top_key keys[3];
	struct crlc_top_scope sc[NSCOPES];
	struct crlc_scope_entry e[2];
	char path[600];
	int i;

	snprintf(path, sizeof(path), "%s/scope", dir);
	(void)mkdir(path, 0755);
	memset(keys, 0, sizeof(keys));
	for (i = 0; i < 3; i++) {
		crlc_sha256(names[i], sizeof(name_x), alias[i].hash);
		if (crlc_name_canon_hash(names[i], sizeof(name_x),
		    canon[i].hash) == -1)
			abort();
		alias[i].id = canon[i].id = keys[i].issuer_id = (uint32_t)i + 1;
		keys[i].key_no = 1;
		keys[i].hash[0] = (uint8_t)(i + 1);
	}
	qsort(alias, 3, sizeof(alias[0]), issuer_cmp);
	qsort(canon, 3, sizeof(canon[0]), issuer_cmp);
	sc[S_X] = scope(1, 1, "", CRLC_CRL_INDIRECT, 2);
	e[0] = own_entry(0x02);
	e[1] = foreign_entry(name_y, sizeof(name_y), 0x01);
	write_scope(dir, &sc[S_X], e, 2);
	sc[S_XPART] = scope(1, 2, XPART, CRLC_CRL_INDIRECT, 1);
	e[0] = foreign_entry(name_y, sizeof(name_y), 0x05);
	write_scope(dir, &sc[S_XPART], e, 1);
	sc[S_Z] = scope(2, 1, "", 0, 1);
	e[0] = own_entry(0x01);
	write_scope(dir, &sc[S_Z], e, 1);
	sc[S_Y] = scope(3, 1, "", 0, 0);
	write_scope(dir, &sc[S_Y], e, 0);
	topdir_write(dir, 1, NOW, alias, 3, canon, 3, keys, 3, sc, NSCOPES);
}

/* A certificate of issuer with one distribution point naming crl_issuer. */
static struct crlc_tbs
cert(const uint8_t *issuer, const uint8_t *crl_issuer, uint8_t *serial,
    enum crlc_dpn_kind kind, const char *uri)
{
	struct crlc_tbs t;

	memset(&t, 0, sizeof(t));
	t.issuer = (struct crlc_span){ issuer, sizeof(name_x) };
	t.serial = (struct crlc_span){ serial, 1 };
	if (crl_issuer != NULL) {
		t.ind[0].crl_issuer = (struct crlc_span){ crl_issuer,
		    sizeof(name_x) };
		t.ind[0].kind = kind;
		if (uri != NULL)
			t.ind[0].name = (struct crlc_span){
			    (const uint8_t *)uri, strlen(uri) };
		t.nind = 1;
		t.dp_indirect_only = 1;
	}
	return t;
}

static enum crlc_state
state(struct crlc_index *idx, struct crlc_tbs t)
{
	struct crlc_verdict v;

	CHECK(crlc_index_lookup(idx, &t, NULL, NOW, 0, &v) == 0);
	return v.state;
}

int
main(void)
{
	const char *dir = tmpdir_make("t_indirect");
	char path[600];
	uint8_t s1 = 0x01, s2 = 0x02, s5 = 0x05;
	struct crlc_index *idx;

	if (chmod(dir, 0755) != 0)
		return 2;
	write_index(dir);
	snprintf(path, sizeof(path), "%s/index.mdb", dir);
	CHECK(crlc_index_open(path, &idx, NULL) == CRLC_OK);
	/* Y's 01 is listed by X's indirect CRL: revoked; Y's 02 is not */
	CHECK(state(idx, cert(name_y, name_x, &s1, CRLC_DPN_NONE, NULL)) ==
	    CRLC_REVOKED);
	CHECK(state(idx, cert(name_y, name_x, &s2, CRLC_DPN_NONE, NULL)) ==
	    CRLC_GOOD);
	/* X's own 01 is not Y's 01; X's own 02 is revoked */
	CHECK(state(idx, cert(name_x, NULL, &s1, CRLC_DPN_NONE, NULL)) ==
	    CRLC_GOOD);
	CHECK(state(idx, cert(name_x, NULL, &s2, CRLC_DPN_NONE, NULL)) ==
	    CRLC_REVOKED);
	/* the indirect partition of a URI, and the complete one beside it */
	CHECK(state(idx, cert(name_y, name_x, &s5, CRLC_DPN_URI, XPART)) ==
	    CRLC_REVOKED);
	CHECK(state(idx, cert(name_y, name_x, &s1, CRLC_DPN_URI, XPART)) ==
	    CRLC_REVOKED);
	CHECK(state(idx, cert(name_y, name_x, &s5, CRLC_DPN_NONE, NULL)) ==
	    CRLC_GOOD);
	/* Z's CRL is not indirect: it covers no certificate of Y */
	CHECK(state(idx, cert(name_y, name_z, &s1, CRLC_DPN_NONE, NULL)) ==
	    CRLC_UNKNOWN);
	/* Y's own complete CRL covers Y's certificates without a cRLIssuer
	   distribution point only */
	CHECK(state(idx, cert(name_y, NULL, &s1, CRLC_DPN_NONE, NULL)) ==
	    CRLC_GOOD);
	{
		struct crlc_tbs t = cert(name_y, name_z, &s1, CRLC_DPN_NONE,
		    NULL);

		CHECK(state(idx, t) == CRLC_UNKNOWN);
		t.dp_indirect_only = 0;	/* another DP without cRLIssuer */
		CHECK(state(idx, t) == CRLC_GOOD);
	}
	/* X naming itself as cRLIssuer: its own entry, by its own slot */
	CHECK(state(idx, cert(name_x, name_x, &s2, CRLC_DPN_NONE, NULL)) ==
	    CRLC_REVOKED);
	CHECK(state(idx, cert(name_x, name_x, &s1, CRLC_DPN_NONE, NULL)) ==
	    CRLC_GOOD);
	crlc_index_close(idx);
	return check_result();
}
