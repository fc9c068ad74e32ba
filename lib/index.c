/*
 * Lookups in a published crlcache index, format 4 (format.h TOP FILE,
 * PAGE FILES, SCOPE FILES, REASONS, INDIRECT CRLS), and the walks of its
 * CRLs and files.  lib/indexopen.c opens and checks the top file,
 * lib/indexpage.c reads the page and scope files below it: a page file
 * is read and checked whole, and a scope file mapped and checked, by the
 * first lookup that needs it.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <crlcache/dpname.h>
#include <crlcache/format.h>
#include <crlcache/hash.h>
#include <crlcache/index.h>
#include <crlcache/indexwrite.h>
#include <crlcache/name.h>
#include <crlcache/reasons.h>

#include "index_int.h"

/*
 * Keys of one name walked to match an authorityKeyIdentifier: a rollover
 * adds one every few years; a hostile index cannot make a lookup long.
 */
#define KEY_WALK_MAX	64

/*
 * Scopes that may cover one certificate: its complete CRL, each DP name,
 * each of a kind and for all reasons or for some (RFC 5280 5.2.5), and
 * those of the cRLIssuers of its distribution points (indirect CRLs); a
 * certificate that more would cover is answered unknown.
 */
#define COVER_MAX	64
/* SCOPE records of one name walked (its reason partitions), at most. */
#define NAME_SCOPES_MAX	255

/* What a lookup needs to know about an issuer before its serial. */
struct issuer_info {
	uint32_t	id;		/* 0: not in the index */
	uint32_t	key_no;		/* format.h KEY; 0: any key */
	uint32_t	page0;		/* its first PAGE record + 1; 0: none */
};

static const char *const reason_names[] = {
	"unspecified", "keyCompromise", "cACompromise", "affiliationChanged",
	"superseded", "cessationOfOperation", "certificateHold",
	"value7", "removeFromCRL", "privilegeWithdrawn", "aACompromise",
};

const char *
crlc_reason_name(int reason)
{
	if (reason < 0 || (size_t)reason >= sizeof(reason_names) /
	    sizeof(reason_names[0]))
		return "unspecified";
	return reason_names[reason];
}

/*
 * Lower bound of key[0..klen) among n records of size rec whose first
 * klen bytes ascend; 1 when the record there starts with key.
 */
static int
table_find(const struct table *t, size_t rec, const uint8_t *key,
    size_t klen, uint64_t *at)
{
	uint64_t lo = 0, hi = t->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (memcmp(t->p + mid * rec, key, klen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return lo < t->n && memcmp(t->p + lo * rec, key, klen) == 0;
}

/* Does a CRL with IDP flags cover this certificate (RFC 5280 5.2.5)? */
static int
flags_cover(unsigned flags, const struct crlc_tbs *cert)
{
	if ((flags & CRLC_CRL_USER_ONLY) && cert->is_ca)
		return 0;
	if ((flags & CRLC_CRL_CA_ONLY) && !cert->is_ca)
		return 0;
	return 1;
}

/*
 * Is SCOPE record i of page pg one of name uri[0..ulen) under prefix: the
 * name itself, or the name and a reasons suffix (<crlcache/reasons.h>)?
 */
static int
scope_of_name(const struct page *pg, uint64_t i,
    const uint8_t prefix[CRLC_PREFIX_LEN], const uint8_t *uri, size_t ulen)
{
	const uint8_t *r;
	uint32_t u;

	if (i >= pg->sidx.n)
		return 0;
	r = idx_scope_rec(pg, i);
	u = idx_scope_uri_len(r);
	/* the prefix as one u64, as crlc_scope_cmp(): no call */
	if (crlc_get_u64(r) != crlc_get_u64(prefix))
		return 0;
	if (u != ulen && (u != ulen + CRLC_REASONS_SUFFIX_LEN ||
	    r[CRLC_SCOPE_REC_HDR_LEN + ulen] != 0))
		return 0;
	return ulen == 0 || memcmp(r + CRLC_SCOPE_REC_HDR_LEN, uri, ulen) == 0;
}

static struct issuer_entry *
issuer_slot(struct crlc_index *idx, const uint64_t w[CRLC_HASH_LEN / 8])
{
	return &idx->issuers[w[0] % ISSUER_CACHE];
}

/* 1 and *info when the cache knows this issuer. */
static int
issuer_cached(struct crlc_index *idx, const uint64_t w[CRLC_HASH_LEN / 8],
    struct issuer_info *info)
{
	struct issuer_entry *e = issuer_slot(idx, w);
	struct issuer_info got;
	unsigned before, after;
	size_t i;
	int same = 1;

	before = atomic_load(&e->seq);
	if (before & 1)
		return 0;
	for (i = 0; i < CRLC_HASH_LEN / 8; i++)
		same &= atomic_load(&e->hash[i]) == w[i];
	got.id = atomic_load(&e->id);
	got.key_no = atomic_load(&e->key_no);
	got.page0 = atomic_load(&e->page0);
	after = atomic_load(&e->seq);
	if (!same || before != after || before == 0)
		return 0;
	*info = got;
	return 1;
}

static void
issuer_remember(struct crlc_index *idx, const uint64_t w[CRLC_HASH_LEN / 8],
    const struct issuer_info *info)
{
	struct issuer_entry *e = issuer_slot(idx, w);
	unsigned seq = atomic_load(&e->seq);
	size_t i;

	/* Another writer is at it: let it win, this is only a cache. */
	if ((seq & 1) || !atomic_compare_exchange_strong(&e->seq, &seq, seq + 1))
		return;
	for (i = 0; i < CRLC_HASH_LEN / 8; i++)
		atomic_store(&e->hash[i], w[i]);
	atomic_store(&e->id, info->id);
	atomic_store(&e->key_no, info->key_no);
	atomic_store(&e->page0, info->page0);
	atomic_store(&e->seq, seq + 2);
}

/* KEY record fields (format.h KEY). */
static uint32_t
key_no_of(const uint8_t *r)
{
	return crlc_get_u32(r + CRLC_KEY_SORT_LEN);
}

static struct crlc_span
key_ski_of(const uint8_t *r)
{
	return (struct crlc_span){ r + CRLC_KEY_SORT_LEN + CRLC_KEY_NO_LEN + 1,
	    r[CRLC_KEY_SORT_LEN + CRLC_KEY_NO_LEN] };
}

/*
 * The key number of issuer id's key (format.h KEY): by its key hash when
 * known, else by the subjectKeyIdentifier its certificate's
 * authorityKeyIdentifier names, else the issuer's only key; 0 (the CRLs
 * that answer for any key of the name) when that key signed no CRL held,
 * or nothing names a key and the issuer has several.
 */
static uint32_t
key_lookup(const struct crlc_index *idx, uint32_t id,
    const struct crlc_issuer_key *ik)
{
	uint8_t kk[CRLC_KEY_SORT_LEN];
	struct crlc_span ski;
	const uint8_t *r;
	uint64_t at, n;
	int by_aki = ik != NULL && ik->aki.len > 0;

	crlc_put_u32(kk, id);
	if (ik != NULL && ik->hash != NULL) {
		memcpy(kk + CRLC_ISSUER_ID_LEN, ik->hash, CRLC_HASH_LEN);
		return table_find(&idx->key, CRLC_KEY_REC_LEN, kk,
		    CRLC_KEY_SORT_LEN, &at) ?
		    key_no_of(idx->key.p + at * CRLC_KEY_REC_LEN) : 0;
	}
	(void)table_find(&idx->key, CRLC_KEY_REC_LEN, kk, CRLC_ISSUER_ID_LEN,
	    &at);
	for (n = 0; at + n < idx->key.n && n < (by_aki ? KEY_WALK_MAX : 2);
	    n++) {
		r = idx->key.p + (at + n) * CRLC_KEY_REC_LEN;
		if (crlc_get_u32(r) != id)
			break;
		ski = key_ski_of(r);
		if (by_aki && ski.len == ik->aki.len &&
		    memcmp(ski.p, ik->aki.p, ski.len) == 0)
			return key_no_of(r);
	}
	/* Nothing names the key: the issuer's only one, if it has one. */
	return !by_aki && n == 1 ? key_no_of(idx->key.p + at *
	    CRLC_KEY_REC_LEN) : 0;
}

/* The first PAGE record of issuer key (id, key_no) + 1; 0: it has none. */
static uint32_t
first_page(const struct crlc_index *idx, uint32_t id, uint32_t key_no)
{
	uint8_t pk[CRLC_PAGE_SORT_LEN];
	uint64_t at;

	crlc_put_u32(pk, id);
	crlc_put_u32(pk + CRLC_ISSUER_ID_LEN, key_no);
	crlc_put_u32(pk + CRLC_PREFIX_LEN, 0);
	/* fewer than 2^32 PAGE records: the top is at most CRLC_TOP_MAX */
	return table_find(&idx->page, CRLC_PAGE_REC_LEN, pk,
	    CRLC_PAGE_SORT_LEN, &at) ? (uint32_t)at + 1 : 0;
}

static void
put_prefix(uint8_t prefix[CRLC_PREFIX_LEN], uint32_t id, uint32_t key_no)
{
	crlc_put_u32(prefix, id);
	crlc_put_u32(prefix + CRLC_ISSUER_ID_LEN, key_no);
}

/*
 * What the index says of an issuer Name's DER and signing key (NULL:
 * unknown): its id (0: not in the index) by the exact encoding the
 * fetcher has seen (ALIAS), else by the canonical form of the same
 * issuer spelt differently (CANON); its key number, and where its
 * pages are.
 */
static void
issuer_lookup(struct crlc_index *idx, const struct crlc_span *name,
    const struct crlc_issuer_key *ik, struct issuer_info *info)
{
	uint64_t w[CRLC_HASH_LEN / 8], at;
	uint8_t hash[CRLC_HASH_LEN];
	static const uint8_t tag_hash = 1, tag_aki = 2;
	struct iovec iov[3] = { { (void *)name->p, name->len } };
	const struct table *t = &idx->alias;
	int found;

	/* The cache knows (name, key): the same name may have several. */
	if (ik != NULL && ik->hash != NULL) {
		iov[1] = (struct iovec){ (void *)&tag_hash, 1 };
		iov[2] = (struct iovec){ (void *)ik->hash, CRLC_HASH_LEN };
	} else if (ik != NULL && ik->aki.len > 0) {
		iov[1] = (struct iovec){ (void *)&tag_aki, 1 };
		iov[2] = (struct iovec){ (void *)ik->aki.p, ik->aki.len };
	}
	crlc_sha256_iov(iov, iov[1].iov_len > 0 ? 3 : 1, hash);
	memcpy(w, hash, sizeof(w));
	if (issuer_cached(idx, w, info))
		return;
	memset(info, 0, sizeof(*info));
	crlc_sha256(name->p, name->len, hash);
	found = table_find(t, CRLC_ISSUER_REC_LEN, hash, CRLC_HASH_LEN, &at);
	if (!found && crlc_name_canon_hash(name->p, name->len, hash) == 0) {
		t = &idx->canon;
		found = table_find(t, CRLC_ISSUER_REC_LEN, hash, CRLC_HASH_LEN,
		    &at);
	}
	if (found)
		info->id = crlc_get_u32(t->p + at * CRLC_ISSUER_REC_LEN +
		    CRLC_HASH_LEN);
	if (info->id != 0) {
		info->key_no = key_lookup(idx, info->id, ik);
		info->page0 = first_page(idx, info->id, info->key_no);
	}
	issuer_remember(idx, w, info);
}

int
crlc_index_issuer(struct crlc_index *idx, const struct crlc_span *name,
    uint32_t *id)
{
	struct issuer_info info;

	issuer_lookup(idx, name, NULL, &info);
	*id = info.id;
	return 0;
}

/*
 * A scope that covers a certificate, for these reasons (RFC 5280
 * 6.3.3 (d): interim_reasons_mask), and whether the certificate is looked
 * up there as another issuer's (format.h INDIRECT CRLS).
 */
struct cover {
	struct page	*pg;
	uint64_t	 at;		/* its SCOPE record */
	unsigned	 reasons;
	int		 foreign;
};

/*
 * The page the scopes of name name[0..len) of the issuer key whose pages
 * start at PAGE record page0 - 1 are on (format.h PAGE), read now if no
 * lookup did before; NULL when it cannot be read.
 */
static struct page *
page_of(struct crlc_index *idx, uint32_t page0, const uint8_t *name,
    size_t len)
{
	const uint8_t *r = idx->page.p + (uint64_t)(page0 - 1) *
	    CRLC_PAGE_REC_LEN;

	/* checked at open: the key's npages records follow */
	return idx_page(idx, page0 - 1 + crlc_scope_page(name, len,
	    crlc_get_u32(r + 12)));
}

/*
 * Add the SCOPE records of name uri[0..ulen) (with its kind component:
 * format.h SCOPE KINDS) of issuer key info that cover cert for some of
 * dp_reasons: its record for all reasons and its reason partitions (the
 * name and a reasons suffix, which sort right after it, on the same
 * page); only indirect CRLs (IDP indirectCRL) when indirect, the
 * certificate looked up there as another issuer's when foreign.  A
 * record reached again adds its reasons.  0; -1 when more records than
 * NAME_SCOPES_MAX or COVER_MAX (unknown); -2 when the page cannot be read.
 */
static int
kind_cover(struct crlc_index *idx, const struct issuer_info *info,
    const uint8_t *uri, size_t ulen, unsigned dp_reasons,
    const struct crlc_tbs *cert, int indirect, int foreign,
    struct cover *cover, size_t *n)
{
	uint8_t prefix[CRLC_PREFIX_LEN];
	struct page *pg;
	const uint8_t *r;
	unsigned interim;
	uint64_t at, last;
	size_t k, j;

	if ((pg = page_of(idx, info->page0, uri, ulen)) == NULL)
		return -2;
	put_prefix(prefix, info->id, info->key_no);
	if (!idx_scope_find(pg, prefix, uri, ulen, &at) && !pg->some_reasons)
		return 0;
	/* without reason partitions a name has one record at most */
	last = pg->some_reasons ? pg->sidx.n : at + 1;
	for (k = 0; at + k < last &&
	    scope_of_name(pg, at + k, prefix, uri, ulen); k++) {
		if (k == NAME_SCOPES_MAX)
			return -1;
		r = idx_scope_rec(pg, at + k);
		if ((interim = idx_scope_reasons(r) & dp_reasons) == 0 ||
		    !flags_cover(r[10], cert) ||
		    (indirect && !(r[10] & CRLC_CRL_INDIRECT)))
			continue;
		for (j = 0; j < *n && (cover[j].pg != pg ||
		    cover[j].at != at + k || cover[j].foreign != foreign); j++)
			;
		if (j == COVER_MAX)
			return -1;
		if (j == *n)
			cover[(*n)++] = (struct cover){ pg, at + k, 0, foreign };
		cover[j].reasons |= interim;
	}
	return 0;
}

/*
 * kind_cover for distribution point name uri[0..ulen) (at most
 * CRLC_SCOPE_URI_MAX) under each kind that may cover cert (format.h SCOPE
 * KINDS): none (earlier writers' records too, by their flags), cert's
 * role, and both indirect.  -2 when any page could not be read.
 */
static int
name_cover(struct crlc_index *idx, const struct issuer_info *info,
    const uint8_t *uri, size_t ulen, unsigned dp_reasons,
    const struct crlc_tbs *cert, int indirect, int foreign,
    struct cover *cover, size_t *n)
{
	const unsigned role = cert->is_ca ? CRLC_CRL_CA_ONLY :
	    CRLC_CRL_USER_ONLY;
	const unsigned kinds[] = { 0, role, CRLC_CRL_INDIRECT,
	    CRLC_CRL_INDIRECT | role };
	uint8_t key[CRLC_SCOPE_URI_MAX + CRLC_SCOPE_KIND_LEN];
	size_t i, klen;
	int rc, failed = 0;

	if (info->page0 == 0)
		return 0;	/* no CRL of this issuer key */
	if (ulen > 0)
		memcpy(key, uri, ulen);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		klen = ulen + crlc_scope_put_kind(key + ulen, kinds[i]);
		if ((rc = kind_cover(idx, info, key, klen, dp_reasons, cert,
		    indirect, foreign, cover, n)) == -1)
			return -1;
		failed |= rc == -2;
	}
	return failed ? -2 : 0;
}

/* Does issuer id have more than one KEY record? */
static int
keys_several(const struct crlc_index *idx, uint32_t id)
{
	uint8_t kk[CRLC_ISSUER_ID_LEN];
	uint64_t at;

	crlc_put_u32(kk, id);
	return table_find(&idx->key, CRLC_KEY_REC_LEN, kk, CRLC_ISSUER_ID_LEN,
	    &at) && at + 1 < idx->key.n &&
	    crlc_get_u32(idx->key.p + (at + 1) * CRLC_KEY_REC_LEN) == id;
}

/*
 * The scopes of the distribution points with a cRLIssuer (RFC 5280
 * 6.3.3 (b)(1)): of the CRL issuer the cRLIssuer names, by its Name
 * (ALIAS, else CANON) and its only key (or key number 0: a dedicated CRL
 * signer), its indirect CRLs (IDP indirectCRL) whose IDP names the
 * distribution point's name, or has none (6.3.3 (b)(2)(i)), for the
 * reasons of the distribution point (name_cover).  A CRL issuer with
 * several keys is not used: nothing says which of them signs the CRLs
 * that cover this certificate (*ambiguous).  The certificate is another
 * issuer's there unless the cRLIssuer is its own issuer, own_id (which
 * RFC 5280 4.2.1.13 tells CAs not to write): the CRL then lists it as
 * its own, without certificateIssuer.  0, or -1 as name_cover; *failed
 * set when a page could not be read.
 */
static int
covering_indirect(struct crlc_index *idx, const struct crlc_tbs *cert,
    uint32_t own_id, struct cover cover[COVER_MAX], size_t *n, int *ambiguous,
    int *failed)
{
	uint8_t uri[CRLC_SCOPE_URI_MAX];
	const struct crlc_tbs_idp *d;
	struct issuer_info x;
	unsigned reasons;
	size_t i, ulen;
	int rc;

	for (i = 0; i < cert->nind; i++) {
		d = &cert->ind[i];
		issuer_lookup(idx, &d->crl_issuer, NULL, &x);
		if (x.id == 0)
			continue;
		if (keys_several(idx, x.id)) {
			*ambiguous = 1;
			continue;
		}
		reasons = CRLC_REASONS_ALL & ~(unsigned)d->unnamed;
		if ((rc = name_cover(idx, &x, NULL, 0, reasons, cert, 1,
		    x.id != own_id, cover, n)) == -1)
			return -1;
		*failed |= rc == -2;
		if (crlc_ind_scope(d, uri, sizeof(uri), &ulen) == -1 ||
		    ulen == 0)
			continue;
		if ((rc = name_cover(idx, &x, uri, ulen, reasons, cert, 1,
		    x.id != own_id, cover, n)) == -1)
			return -1;
		*failed |= rc == -2;
	}
	return 0;
}

/*
 * The SCOPE records that cover cert (RFC 5280 6.3.3 (b)): the complete
 * CRLs of the issuer key, unless every distribution point of the
 * certificate names a cRLIssuer; then the partitions of each
 * distribution point name, each if its IDP flags admit the certificate
 * and its reasons meet the distribution point's (6.3.3 (d)), each once;
 * then the indirect CRLs of the cRLIssuers (covering_indirect).  0, or
 * -1 when too many; *failed set when a page could not be read (the
 * scopes on it are missing from cover).
 */
static int
covering(struct crlc_index *idx, const struct issuer_info *info,
    const struct crlc_tbs *cert, struct cover cover[COVER_MAX], size_t *n,
    int *ambiguous, int *failed)
{
	uint8_t uri[CRLC_SCOPE_URI_MAX];
	size_t i, ulen;
	int rc = 0;

	*n = 0;
	if (info->id != 0 && !cert->dp_indirect_only &&
	    (rc = name_cover(idx, info, NULL, 0, CRLC_REASONS_ALL, cert, 0,
	    0, cover, n)) == -1)
		return -1;
	*failed = rc == -2;
	for (i = 0; info->id != 0 && i < crlc_dp_count(cert); i++) {
		if (crlc_dp_scope(cert, i, uri, sizeof(uri), &ulen) == -1)
			continue;
		if ((rc = name_cover(idx, info, uri, ulen,
		    crlc_dp_reasons(cert, i), cert, 0, 0, cover, n)) == -1)
			return -1;
		*failed |= rc == -2;
	}
	if (cert->nind > 0)
		return covering_indirect(idx, cert, info->id, cover, n,
		    ambiguous, failed);
	return 0;
}

/*
 * The CRL times a verdict reports: of the first scope that covers all
 * reasons alone (the complete CRL when it covers); else, the reasons
 * assembled from several partitions, of the one whose nextUpdate comes
 * first (each must be current, RFC 5280 6.3.3 (a)).
 */
static inline void
cover_times(const struct cover *cover, size_t n, struct crlc_verdict *out)
{
	const uint8_t *r, *pick = NULL;
	int64_t next;
	size_t i;

	for (i = 0; i < n && pick == NULL; i++)
		if (cover[i].reasons == CRLC_REASONS_ALL)
			pick = idx_scope_rec(cover[i].pg, cover[i].at);
	for (i = 0; i < n && pick == NULL; i++) {
		r = idx_scope_rec(cover[i].pg, cover[i].at);
		next = crlc_get_i64(r + 28);
		if (next != 0 && (out->next_update == 0 ||
		    next < out->next_update)) {
			out->this_update = crlc_get_i64(r + 20);
			out->next_update = next;
		}
	}
	if (pick != NULL) {
		out->this_update = crlc_get_i64(pick + 20);
		out->next_update = crlc_get_i64(pick + 28);
	} else if (out->next_update == 0)
		out->this_update = crlc_get_i64(idx_scope_rec(cover[0].pg,
		    cover[0].at) + 20);
}

/*
 * The slot cert has among another issuer's entries of an indirect CRL
 * (format.h INDIRECT CRLS); -1 when its issuer Name has no canonical
 * form.
 */
static int
foreign_slot(const struct crlc_tbs *cert, uint8_t slot[CRLC_SLOT_LEN])
{
	uint8_t canon[CRLC_HASH_LEN], form[CRLC_FOREIGN_FORM_LEN];

	if (crlc_name_canon_hash(cert->issuer.p, cert->issuer.len, canon) == -1)
		return -1;
	crlc_foreign_form(canon, cert->serial.p, cert->serial.len, form);
	crlc_foreign_slot(form, slot);
	return 0;
}

/*
 * Long: the handshake's lookup in RFC 5280 6.3.3's order (covering CRLs, a
 * revocation in any, every reason covered), read in one place.
 */
int
crlc_index_lookup(struct crlc_index *idx, const struct crlc_tbs *cert,
    const struct crlc_issuer_key *ik, int64_t now, int64_t grace,
    struct crlc_verdict *out)
{
	uint8_t slot[CRLC_SLOT_LEN], fslot[CRLC_SLOT_LEN];
	struct cover cover[COVER_MAX];
	struct scope_file *s;
	const uint8_t *e = NULL;
	struct issuer_info info;
	unsigned reasons = 0;
	size_t i, n;
	int failed = 0, have_fslot = -1, fd, found;

	memset(out, 0, sizeof(*out));
	out->state = CRLC_UNKNOWN;
	out->reason = -1;
	issuer_lookup(idx, &cert->issuer, ik, &info);
	if (info.id == 0 && cert->nind == 0)
		return 0;	/* issuer not in the index: unknown */
	if (covering(idx, &info, cert, cover, &n,
	    &out->crl_issuer_ambiguous, &failed) == -1) {
		out->issuer_held = info.id != 0 || n > 0;
		return 0;
	}
	/* A page that cannot be read is an error, never "not covered". */
	if (n == 0) {
		out->issuer_held = info.id != 0;
		return failed ? -1 : 0;
	}
	if (cert->serial.len > 0) {
		crlc_scope_slot(cert->serial.p, cert->serial.len, slot);
		for (i = 0; i < n; i++) {
			if (cover[i].foreign && have_fslot == -1)
				have_fslot = foreign_slot(cert, fslot) == 0;
			if (cover[i].foreign && !have_fslot) {
				failed = 1;
				continue;
			}
			/* A scope file that cannot be read is an error, never
			   "not revoked"; a revocation elsewhere still counts. */
			fd = -1;
			found = (s = idx_scope_file(idx, cover[i].pg,
			    cover[i].at, &fd)) == NULL ? -1 : idx_entry_find(idx,
			    s, cover[i].foreign ? fslot : slot, &fd, &e);
			if (fd != -1)
				close(fd);
			if (found == -1) {
				failed = 1;
				continue;
			}
			if (found) {
				cover_times(cover, n, out);
				out->state = CRLC_REVOKED;
				out->revoked_at = crlc_get_i64(e + 24);
				out->reason = e[32] == CRLC_REASON_NONE ? -1 :
				    e[32];
				return 0;
			}
		}
	}
	if (failed)
		return -1;
	/* RFC 5280 6.3.3 (j)-(k): good only once every reason is covered */
	for (i = 0; i < n; i++)
		reasons |= cover[i].reasons;
	if (reasons != CRLC_REASONS_ALL) {
		out->issuer_held = 1;
		out->reasons = reasons;
		return 0;
	}
	cover_times(cover, n, out);
	out->state = now > crlc_crl_due(out->this_update, out->next_update) +
	    grace ? CRLC_STALE : CRLC_GOOD;
	return 0;
}

int
crlc_index_stats(struct crlc_index *idx, struct crlc_stats *out)
{
	const struct page *pg;
	const uint8_t *r;
	int64_t size;
	uint64_t i, k;

	memset(out, 0, sizeof(*out));
	out->issuers = idx->canon.n;
	out->crls = idx->scopes;
	out->revoked = idx->revoked;
	out->file_size = idx->top_len;
	for (i = 0, r = idx->page.p; i < idx->page.n; i++,
	    r += CRLC_PAGE_REC_LEN) {
		if (crlc_get_u32(r + 16) == 0)
			continue;
		if ((size = idx_file_size(idx, r + 32)) > 0)
			out->file_size += (uint64_t)size;
		if ((pg = idx_page(idx, i)) == NULL)
			continue;
		for (k = 0; k < pg->sidx.n; k++)
			if ((size = idx_file_size(idx,
			    idx_scope_rec(pg, k) + 104)) > 0)
				out->file_size += (uint64_t)size;
	}
	return 0;
}

/*
 * The subjectKeyIdentifier stored for key number key_no of issuer id
 * (format.h KEY), pointing into the top; empty when not found among the
 * first KEY_WALK_MAX keys of the name.
 */
static struct crlc_span
key_ski(const struct crlc_index *idx, uint32_t id, uint32_t key_no)
{
	uint8_t kk[CRLC_ISSUER_ID_LEN];
	const uint8_t *r;
	uint64_t at, n;

	crlc_put_u32(kk, id);
	(void)table_find(&idx->key, CRLC_KEY_REC_LEN, kk, CRLC_ISSUER_ID_LEN,
	    &at);
	for (n = 0; at + n < idx->key.n && n < KEY_WALK_MAX; n++) {
		r = idx->key.p + (at + n) * CRLC_KEY_REC_LEN;
		if (crlc_get_u32(r) != id)
			break;
		if (key_no_of(r) == key_no)
			return key_ski_of(r);
	}
	return (struct crlc_span){ NULL, 0 };
}

/* SCOPE record r (format.h SCOPE_DATA) into ci, but for its CRLs. */
static void
scope_decode(const uint8_t *r, struct crlc_crl_info *ci)
{
	uint32_t u = idx_scope_uri_len(r);

	memset(ci, 0, sizeof(*ci));
	ci->issuer_id = crlc_get_u32(r);
	ci->key_no = crlc_get_u32(r + 4);
	ci->scope_no = (unsigned)r[12] << 8 | r[13];
	ci->flags = r[10];
	ci->entries = crlc_get_u32(r + 16);
	ci->this_update = crlc_get_i64(r + 20);
	ci->next_update = crlc_get_i64(r + 28);
	ci->fetched_at = crlc_get_i64(r + 36);
	ci->delta_this_update = crlc_get_i64(r + 44);
	ci->delta_next_update = crlc_get_i64(r + 52);
	ci->number = (struct crlc_span){ r + 61, r[60] };
	ci->base = (struct crlc_span){ r + 83, r[82] };
	ci->scope = (struct crlc_span){ r + CRLC_SCOPE_REC_HDR_LEN, u };
	ci->reasons = idx_scope_reasons(r);
	ci->name.p = ci->scope.p;
	(void)crlc_scope_kind(ci->scope.p, u - (ci->reasons ==
	    CRLC_REASONS_ALL ? 0 : CRLC_REASONS_SUFFIX_LEN), &ci->name.len);
	ci->source = (struct crlc_span){ r + CRLC_SCOPE_REC_HDR_LEN + u,
	    crlc_get_u32(r + 120) };
}

/* A SCOPE record of a page read, in crlc_index_foreach_crl()'s order. */
struct scope_at {
	struct page	*pg;
	uint64_t	 at;
};

static int
scope_at_cmp(const void *a, const void *b)
{
	const uint8_t *x = idx_scope_rec(((const struct scope_at *)a)->pg,
	    ((const struct scope_at *)a)->at);
	const uint8_t *y = idx_scope_rec(((const struct scope_at *)b)->pg,
	    ((const struct scope_at *)b)->at);

	return crlc_scope_cmp(x, x + CRLC_SCOPE_REC_HDR_LEN,
	    idx_scope_uri_len(x), y, y + CRLC_SCOPE_REC_HDR_LEN,
	    idx_scope_uri_len(y));
}

/*
 * The SCOPE records of the issuer key whose pages are PAGE records
 * [first, first + npages), in key order, into *v (allocated: the key's
 * scopes, at most npages * 65,536); their count, or -1 when a page cannot
 * be read or memory is short.
 */
static int64_t
key_scopes(struct crlc_index *idx, uint64_t first, uint32_t npages,
    struct scope_at **v)
{
	struct page *pg;
	uint64_t i, k, n = 0;

	for (i = first; i < first + npages; i++)
		n += crlc_get_u32(idx->page.p + i * CRLC_PAGE_REC_LEN + 16);
	if ((*v = calloc(n > 0 ? (size_t)n : 1, sizeof(**v))) == NULL)
		return -1;
	for (i = first, n = 0; i < first + npages; i++) {
		/* a page read holds as many records as its PAGE record says */
		if ((pg = idx_page(idx, i)) == NULL)
			return -1;
		for (k = 0; k < pg->sidx.n; k++)
			(*v)[n++] = (struct scope_at){ pg, k };
	}
	qsort(*v, (size_t)n, sizeof(**v), scope_at_cmp);
	return (int64_t)n;
}

int
crlc_index_foreach_crl(struct crlc_index *idx, uint64_t from, unsigned what,
    int (*fn)(const struct crlc_crl_info *, void *), void *arg)
{
	struct crlc_crl_info ci;
	const struct scope_file *s;
	struct scope_at *v = NULL;
	const uint8_t *r;
	uint8_t *crls = NULL;
	size_t cap = 0;
	uint64_t i, j, ord = 0;
	int64_t n;
	int ret = 0, fd;

	for (i = 0; i < idx->page.n && ret == 0; i += crlc_get_u32(r + 12)) {
		r = idx->page.p + i * CRLC_PAGE_REC_LEN;
		free(v);
		if ((n = key_scopes(idx, i, crlc_get_u32(r + 12), &v)) == -1) {
			ret = -1;
			break;
		}
		for (j = 0; j < (uint64_t)n && ret == 0; j++) {
			if (ord++ < from)
				continue;
			scope_decode(idx_scope_rec(v[j].pg, v[j].at), &ci);
			if (what & CRLC_WALK_CRLS) {
				fd = -1;
				if ((s = idx_scope_file(idx, v[j].pg, v[j].at,
				    &fd)) == NULL || idx_scope_crls(idx, s, &fd,
				    &crls, &cap, &ci.der, &ci.delta) == -1)
					ret = -1;
				if (fd != -1)
					close(fd);
				if (ret == -1)
					break;
			}
			if (ci.key_no != 0)
				ci.ski = key_ski(idx, ci.issuer_id, ci.key_no);
			ret = fn(&ci, arg);
		}
	}
	free(crls);
	free(v);
	return ret;
}

int
crlc_index_foreach_file_id(struct crlc_index *idx,
    int (*fn)(const uint8_t id[CRLC_SCOPE_ID_LEN], void *), void *arg)
{
	const struct page *pg;
	const uint8_t *r;
	uint64_t i, k;
	int ret;

	for (i = 0, r = idx->page.p; i < idx->page.n; i++,
	    r += CRLC_PAGE_REC_LEN) {
		if (crlc_get_u32(r + 16) == 0)
			continue;
		if ((ret = fn(r + 32, arg)) != 0)
			return ret;
		if ((pg = idx_page(idx, i)) == NULL)
			return -1;
		for (k = 0; k < pg->sidx.n; k++)
			if ((ret = fn(idx_scope_rec(pg, k) + 104, arg)) != 0)
				return ret;
	}
	return 0;
}

/* The work env's "crl" record (STATE_DIR/work/); the fetcher's. */
int
crlc_crl_decode(const void *key, size_t keylen, const void *val, size_t vallen,
    struct crlc_crl_info *ci)
{
	const uint8_t *h = val;
	uint64_t u, d, dl;
	size_t plen;

	if (vallen < CRLC_CRL_HDR_LEN || h[0] != CRLC_CRL_RECORD_VERSION ||
	    h[48] > CRLC_CRLNUM_MAX || h[70] > CRLC_CRLNUM_MAX)
		return -1;
	plen = CRLC_PREFIX_LEN;
	if (keylen < plen)
		return -1;
	u = crlc_get_u32(h + 92);
	d = crlc_get_u32(h + 96);
	dl = crlc_get_u32(h + 100);
	if (CRLC_CRL_HDR_LEN + u + d + dl != vallen)
		return -1;
	memset(ci, 0, sizeof(*ci));
	ci->issuer_id = crlc_get_u32(key);
	ci->key_no = crlc_get_u32((const uint8_t *)key + CRLC_ISSUER_ID_LEN);
	ci->scope_no = (unsigned)h[2] << 8 | h[3];
	ci->scope.p = (const uint8_t *)key + plen;
	ci->scope.len = keylen - plen;
	ci->reasons = crlc_scope_reasons(ci->scope.p, ci->scope.len,
	    &ci->name.len);
	ci->name.p = ci->scope.p;
	(void)crlc_scope_kind(ci->name.p, ci->name.len, &ci->name.len);
	ci->flags = h[1];
	ci->entries = crlc_get_u32(h + 4);
	ci->this_update = crlc_get_i64(h + 8);
	ci->next_update = crlc_get_i64(h + 16);
	ci->fetched_at = crlc_get_i64(h + 24);
	ci->delta_this_update = crlc_get_i64(h + 32);
	ci->delta_next_update = crlc_get_i64(h + 40);
	ci->number.p = h + 49;
	ci->number.len = h[48];
	ci->base.p = h + 71;
	ci->base.len = h[70];
	ci->source.p = h + CRLC_CRL_HDR_LEN;
	ci->source.len = u;
	ci->der.p = ci->source.p + u;
	ci->der.len = d;
	ci->delta.p = ci->der.p + d;
	ci->delta.len = dl;
	return 0;
}

