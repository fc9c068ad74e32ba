/*
 * crlcache command-line tool: shared declarations.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_H
#define CRLCACHE_FETCHER_H

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <crlcache/addr.h>
#include <crlcache/format.h>
#include <crlcache/hex.h>
#include <crlcache/hint.h>
#include <crlcache/tbs.h>

/* The opened state directory (state.h). */
struct state;

#define DEFAULT_STATE_DIR	"/var/lib/crlcache"
#define DEFAULT_CONF		"/etc/crlcache/crlcache.conf"
#define INDEX_NAME		"index.mdb"
#define WORK_NAME		"work"
#define LOCK_NAME		"lock"
/* The page and scope files of the index: STATE_DIR/scope/ (format.h). */
#define SCOPE_NAME		"scope"
/* The hint spool, STATE_DIR/hints: see <crlcache/hint.h>. */
#define HINTS_NAME		CRLC_HINTS_DIR
#define HINT_SUFFIX		CRLC_HINT_SUFFIX

/*
 * Largest CRL accepted from a file or the network.  Single CRLs above
 * 10 MB exist in the Web PKI (DESIGN section 5); 64 MiB leaves room
 * while bounding memory per fetch.
 */
#define DEFAULT_MAX_SIZE	((size_t)64 << 20)
/* Entries in one CRL; CRLite counted ~8 million in the whole Web PKI. */
#define MAX_CRL_ENTRIES		20000000L
/* A thisUpdate this far ahead of our clock is accepted as clock skew. */
#define MAX_CLOCK_SKEW		300
/* Lines and bytes of a config file: it is hand written, bound it anyway. */
#define MAX_CONF_SIZE		((size_t)1 << 20)
#define MAX_CONF_ITEMS		10000
/* Distinct URLs one update fetches (config plus CA distribution points). */
#define MAX_SOURCES		20000

#define ERRLEN			512

/*
 * Exit statuses of update and status besides 0 and 4 (man/crlcache.1
 * EXIT STATUS).  update exits 1 when a source failed; status exits
 * STATUS_STALE when a CRL is stale, else STATUS_SOURCES_FAILING when a
 * source's last fetch failed.  Both exit EXIT_DIRECTORY_FAILED when that
 * is all: the sources are fine, but the issuer directory could not be
 * refreshed from the CCADB (a warning: the previous directory is kept;
 * the systemd unit counts it a success).
 */
#define STATUS_STALE		1
#define STATUS_SOURCES_FAILING	2
#define EXIT_DIRECTORY_FAILED	3

struct strlist {
	char	**v;
	size_t	  n;
};

/* enroll = : which CRLs beyond the explicit sources are fetched */
enum enroll_mode {
	ENROLL_SEEN,		/* issuers programs on this host met (hints) */
	ENROLL_ALL,		/* every CRL of the issuer directory */
	ENROLL_NONE,		/* explicit url / ca / ccadb sources only */
};

struct conf {
	struct strlist	urls;		/* url = */
	struct strlist	ccadb;		/* ccadb = : CSV exports, file or URL */
	struct strlist	ccadb_records;	/* ccadb_records = : CCADB
					   AllCertificateRecordsCSVFormatv4 */
	struct strlist	ccadb_records_fallback;	/* ccadb_records_fallback =:
					   read when ccadb_records fails */
	struct strlist	ccadb_pems;	/* ccadb_pems = : CCADB
					   AllCertificatePEMsCSVFormat; "{year}"
					   expands to ccadb_since..this year */
	long		ccadb_since;	/* first NotBeforeYear for "{year}" */
	int64_t		ccadb_refresh;	/* seconds between directory refreshes;
					   0: dirrefresh.c decides */
	enum enroll_mode enroll;
	int64_t		seen_expiry;	/* seconds a seen issuer stays enrolled
					   without being met again */
	int64_t		hint_refetch;	/* least seconds between two fetches
					   of one URL by update --hints */
	int		allow_private;	/* allow_private_urls = yes: learned URLs
					   may reach loopback/private addresses */
	uint8_t		nat64[CRLC_NAT64_PREFIX_LEN];	/* nat64_prefix = */
	int		has_nat64;
	char		*mirror;	/* mirror = : CRLs are downloaded from
					   this copy of `crlcache mirror` */
	char		*crlite;	/* crlite = : a Remote Settings server
					   (no trailing '/'); NULL: none */
	uint8_t		crlite_root[CRLC_HASH_LEN];	/* crlite_root = :
					   SHA-256 of the content-signing root */
	char		*crlite_mirror;	/* crlite_mirror = : an upki mirror,
					   https, ending in '/'; used instead
					   of crlite when set */
	char		*crlite_upki_dir;	/* crlite_upki_dir = : a local
					   upki cache, ending in '/'; used
					   instead of the two above */
	struct strlist	cas;		/* ca = : their CRL DPs are fetched */
	struct strlist	anchors;	/* anchor = : default system store */
	struct strlist	untrusted;	/* untrusted = */
	struct strlist	crl_fresh;	/* crl_fresh = FILE: CA certificates
					   kept on all their CRLs whatever
					   CRLite covers (crlfresh.c) */
	int		crl_fresh_all;	/* crl_fresh = all */
	long		parallel;
	long		connect_timeout;	/* seconds */
	long		timeout;		/* seconds, whole transfer */
	long		max_redirects;
	long		retries;		/* extra attempts, transient errors */
	size_t		max_size;		/* bytes per CRL */
	int64_t		stale_grace;		/* seconds after nextUpdate */
};

extern int verbosity;		/* 0 quiet, 1 normal, 2 verbose */
extern int log_syslog;		/* --syslog: mirror messages to syslog */

void	 logx(int level, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	*xcalloc(size_t n, size_t size);
void	*xreallocarray(void *p, size_t n, size_t size);
char	*xstrdup(const char *s);
int	 strlist_add(struct strlist *l, const char *s);
int	 is_http_url(const char *s, size_t len);
/* URL userinfo redaction (user:pass@ becomes ***@): keys, records, output */
char	*redact_userinfo(const char *s);
int	 url_plain(const char *s);
/* A URL from the network that may be fetched and stored (util.c). */
int	 url_usable(const char *s, size_t len);
/* Redacted, control and non-ASCII bytes as \xHH: for every output. */
char	*safe_text(const char *s);
void	 strlist_free(struct strlist *l);
/* Sort l and drop repeated strings. */
void	 strlist_uniq(struct strlist *l);
/* Is s in l, sorted and unique (strlist_uniq)? */
int	 strlist_listed(const struct strlist *l, const char *s);
int	 read_file(const char *path, size_t max, uint8_t **buf, size_t *len,
	    char *err, size_t errlen);
int64_t	 asn1_time_to_epoch(const ASN1_TIME *t);
void	 format_time(int64_t t, char *buf, size_t len);
/* Base64 with white space anywhere (RFC 7468 3): -1 when it is not. */
int	 b64_decode_loose(const char *s, size_t len, size_t max, uint8_t **out,
	    size_t *outlen);
int	 openssl_dir(int which, char *out, size_t len);
int	 write_temp(const char *path, const void *data, size_t len, mode_t mode,
	    uid_t uid, gid_t gid, char *tmp, size_t tmplen);
int	 rename_durably(const char *tmp, const char *path);
int	 replace_file(const char *path, const void *data, size_t len,
	    mode_t mode, uid_t uid, gid_t gid);

/* at.c: --at TIME (RFC 3339 or seconds since the epoch) */
int	 at_option(const char *cmd, const char *arg, int64_t *at);
int64_t	 at_or_now(int64_t at);

/* conf.c */
int	 parse_number(const char *s, long long max, int suffix, long long *out);
void	 conf_init(struct conf *c);
int	 conf_load(struct conf *c, const char *path, int must_exist);
void	 conf_free(struct conf *c);

/* name.c: issuer Name canonical form (format.h "canon") */
int	 name_canon_hash(const X509_NAME *name, uint8_t out[CRLC_HASH_LEN]);
/* name as RFC 2253 text (its specials and bytes over 0x7e escaped). */
void	 name_text(const X509_NAME *name, char *out, size_t len);
/*
 * Which certificate x is, for a log: "SUBJECT (serial HEX of ISSUER)",
 * or "serial HEX of ISSUER" when its subject is empty (RFC 5280 4.1.2.6:
 * a leaf may name itself in subjectAltName only).
 */
void	 cert_id_text(X509 *x, char *out, size_t len);
int	 name_der_hash(const X509_NAME *name, uint8_t out[CRLC_HASH_LEN]);
/* SHA-256 of x's subjectPublicKey bits: its key's identity (format.h "key") */
int	 cert_key_hash(X509 *x, uint8_t out[CRLC_HASH_LEN]);
/* SHA-256 of x's SubjectPublicKeyInfo DER (CRLite's issuer id); 0 or -1. */
int	 cert_spki_hash(X509 *x, uint8_t h[CRLC_HASH_LEN]);

/*
 * chain.c: CA certificates indexed by subject, and certification paths
 * built from them trying every candidate issuer (RFC 4158).
 */
struct certpool;
struct certpool *certpool_new(void);
/* Hold a reference to x; one the pool holds already is not added again. */
int	 certpool_add(struct certpool *p, X509 *x);
void	 certpool_free(struct certpool *p);
/*
 * A source of certificates held back until a search asks for their
 * subject: called with each name before the pool is searched for it, it
 * adds (certpool_add) what it holds of that name.  One fill at a time.
 */
typedef void (*certpool_fill_fn)(void *arg, struct certpool *p,
	    const X509_NAME *name);
void	 certpool_set_fill(struct certpool *p, certpool_fill_fn fill, void *arg);
/* The certificates of the pool named name (a new stack). */
STACK_OF(X509) *certpool_named(struct certpool *p, const X509_NAME *name);
/* 1 when the caller takes a validated path, else 0 with why. */
typedef int (*chain_accept_fn)(void *arg, STACK_OF(X509) *chain, char *why,
    size_t whylen);
/*
 * 1 when x has a certification path to an anchor of store at now through
 * certificates of pool that OpenSSL validates (RFC 5280 6.1) and accept
 * (if not NULL) takes; the path, x first and the anchor last, goes to
 * *chain (if not NULL; free with sk_X509_pop_free).  Else 0 and why says
 * what failed.  The pool remembers proven links, so it is not const.
 */
int	 chain_build(X509_STORE *store, struct certpool *pool, X509 *x,
	    time_t now, chain_accept_fn accept, void *arg, STACK_OF(X509) **chain,
	    char *why, size_t whylen);

/* trust.c: anchors and intermediates for CRL issuer verification */
struct trust {
	X509_STORE	*store;		/* anchors */
	STACK_OF(X509)	*certs;		/* every known CA cert: issuer candidates */
	struct certpool	*pool;		/* certs, indexed by subject */
	struct crlc_index *index;	/* published index: revoked CRL issuers */
	int64_t		 at;		/* --at: chains and CRLs are judged at
					   this instant; 0: the clock */
	/*
	 * When no candidate proves a CRL's issuer, called before the CRL
	 * is refused to add the candidates its caller held back (update:
	 * the issuer directory); 1 when it added any, and the issuer is
	 * looked for again.  NULL: none held back.
	 */
	int		(*widen)(void *arg);
	void		*widen_arg;
	/* the directory by name, if attached: its attacher frees it */
	struct dir_index *dir;
};
int	 trust_load(struct trust *t, const struct strlist *anchors,
	    const struct strlist *untrusted, const struct strlist *cas);
void	 trust_free(struct trust *t);
void	 trust_use_index(struct trust *t, struct state *st);
int	 certs_load(const char *path, STACK_OF(X509) *sk);
/* Make x (a new reference) an issuer candidate: -1 when out of memory. */
int	 trust_add(struct trust *t, X509 *x);
/*
 * A certificate in a state file: x's DER in base64 (malloc'd; NULL when
 * the DER is over max bytes), and back: exactly one DER certificate of at
 * most max bytes whose SHA-256 is fp, else NULL.
 */
char	*cert_to_b64(X509 *x, size_t max);
X509	*cert_from_b64(const char *s, size_t max,
	    const uint8_t fp[CRLC_HASH_LEN]);
/* Append x's http(s) CRL distribution points / caIssuers URLs. */
void	 cert_crl_urls(X509 *x, struct strlist *urls);
void	 cert_issuer_urls(X509 *x, struct strlist *urls);
/* The certificates named name among t->certs and the anchors (new stack). */
STACK_OF(X509) *trust_candidates(const struct trust *t, const X509_NAME *name);
/*
 * 1 when x chains to an anchor at time now with t->certs as intermediates
 * (chain_build: every candidate tried) and no certificate of the chain is
 * revoked in the published index; else 0 and why says what failed.
 */
int	 trust_chains(const struct trust *t, X509 *x, time_t now, char *why,
	    size_t whylen);

/* Names of one IDP a CRL is stored under, at most (idp.c). */
#define IDP_SCOPES_MAX	8
/* crl.c: one CRL, parsed and verified */
struct crl {
	char		*source;	/* file name or URL */
	const uint8_t	*der;		/* the signed CRL, as received: the
					   caller's buffer, or pem_der */
	size_t		 derlen;
	uint8_t		*pem_der;	/* owned: der decoded from PEM */
	struct crlc_crl	 p;		/* its fields and entries: spans in der */
	X509_NAME	*issuer_name;	/* decoded p.issuer */
	STACK_OF(X509_EXTENSION) *exts;	/* decoded p.extensions; NULL: none */
	X509		*issuer;	/* verified issuer certificate */
	int64_t		 this_update;
	int64_t		 next_update;	/* 0: absent */
	uint8_t		 number[CRLC_CRLNUM_MAX];
	size_t		 numlen;	/* 0: no cRLNumber */
	int		 is_delta;
	uint8_t		 base[CRLC_CRLNUM_MAX];	/* delta: BaseCRLNumber */
	size_t		 baselen;
	/*
	 * The IDP names (idp.c) it is stored under, one "crl" record each;
	 * none: the whole issuer.  scope is the one being stored (NULL: the
	 * whole issuer), keep_body: more are to be stored after it, so the
	 * ingest must not let go of der's pages (store_ingest).
	 */
	char		*scopes[IDP_SCOPES_MAX];
	size_t		 nscopes;
	const char	*scope;
	int		 keep_body;
	unsigned	 idp_flags;	/* CRLC_CRL_USER_ONLY / CA_ONLY / INDIRECT */
	unsigned	 reasons;	/* IDP onlySomeReasons, or
					   CRLC_REASONS_ALL (<crlcache/reasons.h>) */
};
/* idp.c: the scopes of a partitioned CRL (<crlcache/dpname.h>) */
int	 idp_scope(const DIST_POINT_NAME *dpn, const X509_NAME *issuer,
	    const char *url, int is_delta, char *scopes[IDP_SCOPES_MAX],
	    size_t *n, char *err, size_t errlen);
/*
 * Parse buf (DER, or PEM) without decoding its entries into objects: buf
 * must outlive c when it is DER, since c points into it.
 */
int	 crl_from_buffer(struct crl *c, const char *source,
	    const uint8_t *buf, size_t len, char *err, size_t errlen);
int	 crl_verify(struct crl *c, const struct trust *t, const char *url,
	    time_t now, char *err, size_t errlen);
void	 crl_free(struct crl *c);
/* crl.c: one log line for what an accepted CRL broke of issuers' rules */
void	 crl_log_quirks(const struct crl *c);
int	 numcmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/*
 * The fetcher's private working environment (format.h NAMED DATABASES),
 * one file per object; what they share among themselves is in store.h.
 */
struct store;
enum ingest_result { INGEST_FAILED = -1, INGEST_UNCHANGED = 0, INGEST_CHANGED = 1 };
/*
 * store.c: open (refusing another format), close, publish.  open_empty:
 * the working index removed first and made anew (`reset --all`).  The
 * state directory is made when missing (state_create()); st must
 * outlive the store.
 */
int	 store_open(struct store **s, struct state *st, char *err,
	    size_t errlen);
int	 store_open_empty(struct store **s, struct state *st, char *err,
	    size_t errlen);
void	 store_close(struct store *s);
int	 store_publish(struct store *s, int force, uint64_t *generation,
	    char *err, size_t errlen);
/* scope.c: a scope's CRL record, its admission, ingest and reset */
/* Consumes c->der: its pages are let go as they are copied (ingest.c). */
int	 store_ingest(struct store *s, const struct crl *c, char *err,
	    size_t errlen);
int	 store_has_scope(struct store *s, const uint8_t *key, size_t keylen,
	    int64_t *due);
/* What store_reset_scope removed. */
struct store_reset {
	uint32_t	 entries;
	int64_t		 this_update;
	uint8_t		 number[CRLC_CRLNUM_MAX];
	size_t		 numlen;
};
int	 store_reset_scope(struct store *s, X509 *issuer, const char *scope,
	    unsigned reasons, unsigned kind, struct store_reset *held, char *err,
	    size_t errlen);
/* issuerid.c: the "crl" key of a scope, from its issuer and signer */
int	 store_scope_key(struct store *s, const X509_NAME *name, X509 *signer,
	    const char *scope, unsigned reasons, unsigned kind, uint8_t *key,
	    size_t *keylen);
/* entries.c: the start of a scope's "rev" range (every key of it) */
void	 store_rev_range(const uint8_t prefix[CRLC_PREFIX_LEN],
	    unsigned scope_no, uint8_t key[CRLC_REV_SCOPE_LEN]);
/* source.c: the record of each source URL's last fetch (struct source_rec: proposed.c) */
struct source_rec;
int	 store_get_source(struct store *s, const char *url,
	    struct source_rec *rec);
int	 store_put_source(struct store *s, const char *url,
	    const struct source_rec *rec);
void	 source_rec_free(struct source_rec *rec);
/*
 * The source record of key, a source the configuration names, after a
 * fetch of its document (a CRLite index, a Remote Settings collection):
 * the attempt and its HTTP status (304: nothing new), and after a
 * success (err NULL) f's validators when f is given and was not a 304;
 * after a failure err and no validators, so that the next run asks for
 * the whole document.
 */
struct fetch;
void	 source_note(struct store *s, const char *key, struct fetch *f,
	    long status, const char *err);
int	 store_foreach_source(struct state *st,
	    int (*fn)(const char *url, const struct source_rec *, void *),
	    void *arg);
/*
 * After a full run (DESIGN 4): the sources it listed (keys: redacted,
 * sorted; asked or waiting) or asked beside them (CRLite, OneCRL: a
 * record put through s) are counted by source_state(), those asked beside
 * by outcome; with prune, the record of every other source is removed,
 * but a pruned proposed URL's (its history spaces its retries).  So a
 * source taken out of the configuration no longer counts anywhere; the
 * CRLs it fed stay until they expire.  -1 when the records could not be
 * walked or changed.
 */
struct source_count {
	size_t	 n, failing, retrying;	/* counted: status's figures */
	size_t	 beside_changed, beside_same, beside_failed;
	size_t	 removed;
};
int	 store_tend_sources(struct store *s, const struct strlist *listed,
	    int prune, struct source_count *c);
/*
 * proposed.c: the URLs that proven certificates proposed: back-off and
 * pruning.  Whether a failure of a URL of that origin fails the run (and
 * `status`); its name; rec's history after a fetch (rec->last_attempt
 * set); whether rec is pruned; whether its fetch waits.
 */
struct source_rec {
	int64_t		 last_attempt;
	int64_t		 last_success;
	int64_t		 fresh_until;	/* its server's answer is fresh until
					   then (0: not said) */
	long		 http_status;
	char		*etag;
	char		*last_modified;
	char		*error;
	uint8_t		*scope_key;
	size_t		 scope_keylen;
	unsigned	 origin;	/* CRLC_SRC_ORIGIN_* (format.h) */
	uint32_t	 failures;	/* consecutive failed fetches */
	int64_t		 first_failure;	/* the first of them (0: none) */
};
int	 source_origin_counts(unsigned origin, int hints_only);
const char *source_origin_name(unsigned origin);
void	 source_history(struct source_rec *rec, int ok);
int	 proposed_pruned(const struct source_rec *rec);
int	 proposed_waits(const struct conf *conf, const struct source_rec *rec,
	    int hints_only, int64_t now);
/*
 * What `status` and update's summary make of a record, as of its last
 * attempt: left out (a pruned proposed URL), ok, failing (the run's
 * failure) or retrying (a proposed URL's own); its failures in a row, at
 * least 1 when its last attempt failed.
 */
enum source_state { SOURCE_PRUNED, SOURCE_OK, SOURCE_FAILING, SOURCE_RETRYING };
enum source_state source_state(const struct source_rec *rec);
uint32_t source_failures(const struct source_rec *rec);
/* crlhash.c: the "crlhash" record of a "crl" record: its CRLs' SHA-256 */
struct crlc_crl_info;
void	 crl_record_hash(const struct crlc_crl_info *r,
	    uint8_t out[CRLC_HASH_LEN]);

/* publish.c: a publish of index format 4 (format.h PUBLISH) */
struct MDB_txn;
/* What a publish reads: one read transaction of the working environment. */
struct publish_src {
	struct MDB_txn	*txn;
	unsigned int	 canon, alias, key, rev, crl, crlhash;	/* MDB_dbi */
};
int	 publish(struct state *st, const struct publish_src *src,
	    uint64_t generation, int64_t created, char *err, size_t errlen);
int	 publish_needed(struct state *st);

/* fetch.c: parallel HTTP(S) with libcurl multi */
struct fetch {
	const char	*url;
	const char	*etag;		/* sent as If-None-Match */
	const char	*last_modified;	/* sent as If-Modified-Since */
	int		 guarded;	/* not configured: public addresses only */
	char		*via;		/* download from here instead (mirror =);
					   url still names the source */
	int		 refused;	/* set before the transfers: not fetched,
					   err says why */
	int		 decode;	/* ask for gzip (RFC 9110 8.4.1.3): body
					   and max_size are the decoded bytes */
	/* results */
	long		 status;
	int		 ok;		/* body or not_modified is valid */
	int		 not_modified;
	uint8_t		*body;
	size_t		 len;
	char		*new_etag;
	char		*new_last_modified;
	int64_t		 fresh_for;	/* seconds the answer stays fresh, as
					   its server said (header.c) */
	char		 err[ERRLEN];
};
int	 fetch_all(struct fetch *f, size_t n, const struct conf *conf);
/*
 * fetch_all, calling cb(f, arg) as each transfer ends (retries done):
 * the caller can use and free its body while the others go on.  A
 * transfer the engine gave up on (-1) gets no call.
 */
int	 fetch_each(struct fetch *f, size_t n, const struct conf *conf,
	    void (*cb)(struct fetch *, void *), void *arg);
void	 fetch_free(struct fetch *f);
/*
 * What a source of update's CRLite and OneCRL step (monitor/changes,
 * the CRLite source, OneCRL) may spend on the network in one run:
 * FETCH_BUDGET_TRANSFERS transfers of `timeout` (a root document, a
 * changeset or manifest, an x5u chain, a filter), at most
 * FETCH_BUDGET_MAX_S, so that a stalling server delays the run by
 * minutes, not by `timeout` for each URL it names.  Retries share it;
 * their backoff (at most 1 + 2 + ... s) may add a few seconds.
 */
#define FETCH_BUDGET_TRANSFERS	4
#define FETCH_BUDGET_MAX_S	300
/* The deadline of such a source, started now (crlc_mono_ms()). */
long long fetch_budget(const struct conf *conf);
/*
 * One GET of url, body at most max bytes (decoded from gzip when
 * decode), every attempt's timeout cut to what is left before deadline:
 * 0 with f filled (the caller frees it), or -1 with why (the URL
 * escaped) in err.
 */
int	 fetch_until(struct fetch *f, const char *url, int guarded, int decode,
	    size_t max, const struct conf *conf, long long deadline, char *err,
	    size_t errlen);

/*
 * header.c: the response header fields a fetch keeps.  header_value:
 * the value of line if its field is name (a list field appended to what
 * out holds, RFC 9110 5.3): 1 kept, 0 another field, -1 longer than
 * MAX_HEADER_VALUE.  Freshness (RFC 9111 4.2): from the Cache-Control,
 * Expires, Date and Age fields received, 0 to HTTP_FRESH_MAX seconds
 * from now, what is unclear stale.  A hint run does not ask a URL again
 * while its last answer is fresh; the bound keeps a server from having
 * it never asked by them (the timer's runs ask regardless).
 */
#define MAX_HEADER_VALUE	512
#define HTTP_FRESH_MAX	86400
enum { FRESH_CACHE_CONTROL, FRESH_EXPIRES, FRESH_DATE, FRESH_AGE,
	FRESH_FIELDS };
struct freshness {
	char		*field[FRESH_FIELDS];	/* as received */
	int		 unclear;	/* one too long to keep: stale */
};
int	 header_value(const char *line, size_t len, const char *name,
	    int list, char **out);
void	 freshness_header(struct freshness *fr, const char *line,
	    size_t len);
int64_t	 freshness_of(const struct freshness *fr, int64_t now);
void	 freshness_forget(struct freshness *fr);

/*
 * hostq.c: which transfer starts next, host by host (scheme, host and
 * port of urls[i]): at most budget transfers at once to an http host,
 * tls_budget to an https one, the hosts taking turns.
 */
struct hostq;
struct hostq *hostq_new(const char *const *urls, size_t n, long budget,
	    long tls_budget);
/* The next transfer whose host has room (0), or none now (-1). */
int	 hostq_next(struct hostq *q, size_t *transfer);
/* A transfer hostq_next gave is over: its host has room again. */
void	 hostq_done(struct hostq *q, size_t transfer);
void	 hostq_free(struct hostq *q);

/* mirror_name.c: names on a mirror (`crlcache mirror`, `mirror =`) */
/* Components of a name: scheme, host[:port] and 30 path segments; CRL
   URLs in the Web PKI have 1 to 4. */
#define MIRROR_MAX_DEPTH	32
/* One component: NAME_MAX of Linux file systems. */
#define MIRROR_COMPONENT_MAX	255
struct mirror_name {
	char	 comp[MIRROR_MAX_DEPTH][MIRROR_COMPONENT_MAX + 1];
	size_t	 n;		/* scheme, host[:port], path segments */
};
/*
 * The name of url on a mirror.  Refused (-1, why a static string): not
 * http(s), a query or fragment (a static server ignores them), a
 * component that could not be a file name.  Userinfo is not part of it.
 */
int	 mirror_name_parse(const char *url, struct mirror_name *m,
	    const char **why);
/* `mirror = ` for one transfer: sets via, or refused and err. */
void	 mirror_route(const struct conf *conf, struct fetch *f);

/* ingest.c: parse + verify + store one CRL, reporting a rejection */
int	 ingest_buffer(struct store *s, const struct trust *t,
	    const char *source, const char *url, const uint8_t *buf,
	    size_t len, uint8_t *key, size_t *keylen, char *err, size_t errlen);

/*
 * peer.c: append the certificates (at most 16) a TLS server at HOST:PORT
 * presents to out, unverified, with conf's connect timeout; who names
 * the command in messages.  0, or -1 (logged).
 */
int	 server_chain(const char *arg, const struct conf *conf, const char *who,
	    STACK_OF(X509) *out);

/* osslconf.c: OpenSSL configuration with the provider switched on */
/* What a path or value we write into openssl.cnf may not hold. */
#define OSSLCONF_UNSAFE		"\r\n\\$\"'#"
/* openssl.cnf is a hand-edited text file; bound what we read of it. */
#define OSSLCONF_MAX_SIZE	((size_t)4 << 20)
/*
 * Write the wiring to out: an .include of include (NULL: none), the
 * snippet, and init sections merged with the system configuration sys
 * (syslen bytes; NULL: none).
 */
int	 osslconf_write(FILE *out, const char *include, const char *sys,
	    size_t syslen, const char *snippet, const char *module,
	    const char *index, const struct strlist *sets);

/*
 * privdir.c: a directory in which nobody but the caller and root can ever
 * create an entry (TMPDIR, /run/crlcache for root, XDG_RUNTIME_DIR,
 * ~/.cache/crlcache); a new private directory in it; its removal.
 */
int	 privdir_base(char *out, size_t len);
int	 privdir_make(const char *prefix, char *out, size_t len);
void	 privdir_remove(const char *dir);

/*
 * selftest.c: 0 when an OpenSSL program run on the candidate openssl.cnf
 * cnf has crlcache active and refuses a certificate revoked in a
 * throwaway index; -1, explained, otherwise.
 */
int	 enable_selftest(const char *cnf);
/* enable.c: for status, a warning when openssl.cnf lost enable's block */
void	 enable_warn_lost(void);

/* localfs.c: warn when the state directory is on a network filesystem */
void	 warn_network_fs(const char *dir);

/*
 * privs.c: how a command reaches STATE_DIR.  Each command declares one of
 * these in main.c's table, and main() calls state_enter() before it runs.
 */
enum state_access {
	STATE_NONE,	/* only names it (the index path a configuration
			   points at): nothing in it is opened */
	STATE_READS,	/* reads it through as_state_owner() only */
	STATE_WRITES,	/* runs wholly as the state's owner */
};
struct state;
struct cmd_ctx {
	const struct conf *conf;
	const char	*state_dir;	/* STATE_NONE: the path it names */
	struct state	*st;		/* STATE_WRITES: the opened state */
	const char	*read_dir;	/* STATE_READS: for as_state_owner() */
};
/*
 * Started as root: for STATE_WRITES become the state's owner (or the
 * crlcache user for a state root owns, unless allow_root); fill c.
 * 0, or -1 when the command must not run.
 */
int	 state_enter(struct cmd_ctx *c, enum state_access access,
	    const char *state_dir, int allow_root);
/*
 * reader(st, out, rarg) in a child running as the state's owner
 * (when root calls for another account's state; as the caller otherwise,
 * in the caller's process when there is nothing to hand over): the only
 * code that opens the state of a STATE_READS command (state.h).  consume(in, carg)
 * gets what reader writes to out; with consume NULL, out is stdout (a
 * child's stdout is copied to root's).  A child that sends nothing for 30 s
 * is killed (privs.c READER_STALL_MS).
 * Returns reader's exit code 0..254; -1 when the child could not be run,
 * failed, or consume returned -1.
 */
int	 as_state_owner(const struct cmd_ctx *c, int (*reader)(struct state *st,
	    FILE *out, void *arg), void *rarg,
	    int (*consume)(FILE *in, void *arg), void *carg);
/* A consume for as_state_owner(): copies everything to the FILE * arg. */
int	 state_copy(FILE *in, void *arg);

/*
 * csv.c: RFC 4180 CSV, one row at a time; columns are found by the name
 * in the header row (csv_column), never by position.
 */
/* Columns per row: the CCADB's widest report has about 75. */
#define CSV_MAX_COLUMNS		512
/* Bytes per field: a PEM certificate is a few KB, a JSON array of
   partitioned CRLs (128 URLs for Let's Encrypt) about 8 KB. */
#define CSV_MAX_FIELD		1048576
/* Bytes per row, all its fields together. */
#define CSV_MAX_ROW		4194304
/* Rows per file: the CCADB listed about 10,000 certificates in 2025. */
#define CSV_MAX_ROWS		1000000
#define CSV_STR(n)		CSV_STR2(n)
#define CSV_STR2(n)		#n
/* Why a row was read leniently; CSV_SKIP_QUOTE rows are still used. */
enum csv_skip {
	CSV_SKIP_WIDTH,		/* not as wide as the header (the caller's) */
	CSV_SKIP_LONG,		/* a field, the row or its width over a bound */
	CSV_SKIP_QUOTE,		/* a bare quote, taken as text (LazyQuotes) */
	CSV_NSKIP,
	CSV_SKIP_NONE = CSV_NSKIP
};
extern const char *const csv_skip_name[CSV_NSKIP];
struct csv {
	const char	*p, *end;	/* what is left to read */
	enum csv_skip	 skip;		/* the current row's, or CSV_SKIP_NONE */
	int		 cut;		/* the input ended in the row, no line
					   end: maybe a truncated download */
	size_t		 line;		/* line of p, from 1 */
	size_t		 row_line;	/* where the current row began */
	size_t		 err_line;	/* where the last field began: after
					   an error, where it broke */
	const char	*why;		/* after an error: what was wrong */
	size_t		 rows;		/* rows read, the header included */
	char		*buf;		/* the current row's fields, each
					   NUL-terminated (a field may hold
					   NULs: use its length) */
	size_t		 len, cap;
	size_t		 off[CSV_MAX_COLUMNS + 1];	/* field i is at
					   buf + off[i] */
	size_t		 nfields;
};
/* buf must outlive the reader; a byte order mark is skipped. */
void	 csv_init(struct csv *c, const uint8_t *buf, size_t len);
/*
 * The next row: 1 (see skip: a CSV_SKIP_LONG row holds only some of its
 * fields), 0 at the end of the input, -1 when unreadable past it (why).
 */
int	 csv_row(struct csv *c);
/* The column of the current row (the header) named name; -1: none. */
int	 csv_column(const struct csv *c, const char *name);
/* Field col of the current row; "" when col is -1 or past the row. */
const char *csv_get(const struct csv *c, int col, size_t *len);
void	 csv_free(struct csv *c);

/* ccadb.c: CRL URLs from a CCADB CSV export */
int	 ccadb_parse(const uint8_t *buf, size_t len, const char *source,
	    struct strlist *urls);
/* The CRL URL columns of the CCADB's exports and reports, any of them. */
#define CCADB_URL_COLUMNS	3
extern const char *const ccadb_url_columns[CCADB_URL_COLUMNS];
/*
 * Add the usable URLs (url_usable) of one URL field to urls: a JSON
 * array, a bracketed list that is not JSON, or one URL, each element
 * trimmed of white space and zero-width characters; [""] is no URL.
 * *bad counts the elements that looked like URLs and were not usable.
 * -1 when urls would hold more than max.
 */
int	 ccadb_urls(const char *field, size_t len, struct strlist *urls,
	    size_t max, size_t *bad);

/*
 * report.c: the CCADB's public reports, AllCertificateRecordsCSVFormatv4
 * (one row per root and intermediate certificate) and
 * AllCertificatePEMsCSVFormat (the certificates).  Columns are found by
 * name.  A report that is not well-formed CSV, lacks a column or has a
 * row of the wrong width is refused whole (-1, logged with its line);
 * a row whose values are unusable only refuses its certificate.
 */
/* CRL URLs of one directory entry: eight times the 128 partitioned CRLs
   Let's Encrypt publishes per intermediate. */
#define DIR_MAX_URLS		1024
/* Why a record is not a directory entry (DIR_KEPT: it is). */
enum dir_reason {
	DIR_KEPT,
	DIR_MALFORMED,		/* a value the row needs is unusable */
	DIR_REVOKED,		/* "Revocation Status" not "Not Revoked" */
	DIR_EXPIRED,		/* "Valid To (GMT)" or notAfter has passed */
	DIR_MANY_URLS,		/* more than DIR_MAX_URLS CRL URLs */
	DIR_NO_URL,		/* no http(s) CRL URL (still a chain link) */
	DIR_NO_CERT,		/* no certificate in the PEM reports */
	DIR_MISMATCH,		/* its PEM's SHA-256 is not its fingerprint */
	DIR_NOT_CA,		/* not a CA certificate */
	DIR_NO_CHAIN,		/* does not chain to a trust anchor here */
	DIR_NOT_ANCHOR,		/* a root row that is not a trust anchor here */
	DIR_NREASONS
};
extern const char *const dir_reason_name[DIR_NREASONS];
extern const char *const dir_reason_key[DIR_NREASONS];
struct ccadb_record {
	uint8_t		 fp[CRLC_HASH_LEN];	/* "SHA-256 Fingerprint" */
	int		 root;		/* "Root Certificate", else intermediate */
	int64_t		 valid_to;	/* the end of the "Valid To (GMT)" day */
	struct strlist	 urls;		/* full CRL and partitions, http(s) */
	X509		*cert;		/* from a PEM report, SHA-256 checked */
	enum dir_reason	 reason;
};
struct ccadb_records {
	struct ccadb_record *v;	/* only rows that may still be used: KEPT or
				   NO_URL; sorted by fp after records_sort() */
	size_t		 n, cap;
	size_t		 rows;		/* data rows read */
	size_t		 refused[DIR_NREASONS];	/* rows not kept in v, by why */
	size_t		 skipped[CSV_NSKIP];	/* rows read leniently, by why */
};
/*
 * Add the rows of one records report; now decides what has expired.
 * A refused report: -1 and why in err (rows already added stay).
 */
int	 records_parse(struct ccadb_records *r, const uint8_t *buf, size_t len,
	    int64_t now, char *err, size_t errlen);
/* Sort by fingerprint; rows repeating one are merged (URLs united). */
void	 records_sort(struct ccadb_records *r);
struct ccadb_record *records_find(const struct ccadb_records *r,
	    const uint8_t fp[CRLC_HASH_LEN]);
/*
 * Attach the certificates of one PEM report to the sorted records; a
 * certificate refused is logged naming source and its fingerprint.  A
 * refused report: -1 and why in err.
 */
int	 records_add_pems(struct ccadb_records *r, const uint8_t *buf,
	    size_t len, const char *source, char *err, size_t errlen);
void	 records_free(struct ccadb_records *r);
/* 64 hex digits (either case) to 32 bytes; 0 or -1. */

/*
 * The issuer directory (directory.c on disk, dirbuild.c its entries,
 * dirrefresh.c the refresh from the CCADB reports ccadb_records,
 * ccadb_records_fallback and ccadb_pems), kept in STATE_DIR/work/.
 * Every entry is a CA certificate that is disclosed, not revoked, not
 * expired, whose PEM matched its record's SHA-256 and that chains to a
 * trust anchor, with at least one http(s) CRL URL.
 */
/* Its files, by their names in the state directory (state.h). */
#define DIR_FILE		WORK_NAME "/directory"
#define DIR_FORMAT		"crlcache-directory 2"	/* its first line */
#define DIR_STATE_FILE		WORK_NAME "/directory.state"
#define REFUSED_FILE		WORK_NAME "/directory.refused"
#define DIR_INDEX_FILE		WORK_NAME "/directory.index"
/* Entries: the Web PKI has some 4,000 unexpired disclosed CA
   certificates; twenty-five times that. */
#define DIR_MAX_ENTRIES		100000
/* DER bytes of one certificate: CA certificates are a few KB. */
#define DIR_MAX_CERT		65536
/* The directory file: ~15 MB for the whole Web PKI. */
#define DIR_MAX_FILE		((size_t)256 << 20)
/* Reports per refresh: one records report and one PEM report per year
   since 1994 is about 35. */
#define DIR_MAX_REPORTS		256
struct dir_entry {
	uint8_t		 fp[CRLC_HASH_LEN];	/* SHA-256 of the certificate */
	X509		*cert;
	struct strlist	 urls;		/* full CRLs and partitions */
};
struct directory {
	struct dir_entry *v;		/* sorted by fp */
	size_t		  n;
	int64_t		  built;	/* when it was built; 0: none yet */
};
struct dir_report {
	char		*src;		/* file name or URL */
	int		 kind;		/* dirrefresh.c's */
	int		 used;		/* the directory was built from it */
	int		 fresh;		/* a body came this refresh (not 304) */
	char		*etag;		/* validators of the body we hold */
	char		*modified;
};
/* STATE_DIR/work/directory.state (format in directory.c). */
struct dir_state {
	int64_t		 attempt;
	int64_t		 built;
	long long	 entries;
	long long	 rows;
	long long	 skipped[CSV_NSKIP];
	long long	 refused[DIR_NREASONS];	/* records not kept, by why */
	int64_t		 expires;	/* an entry's notAfter passes: rebuild */
	char		*inputs;	/* digest of the certificates it was
					   built with (dirrefresh.c) */
	char		*error;
	struct dir_report *r;		/* the reports of the directory */
	size_t		 n;
};
void	 dir_say(char *err, size_t errlen, const char *what, const char *why);
struct dir_report *dir_report_add(struct dir_report **r, size_t *n,
	    const char *src, int kind);
void	 dir_reports_free(struct dir_report *r, size_t n);
/* None yet is an empty state; -1 with why in err. */
int	 dir_state_read(struct state *st, struct dir_state *ds,
	    char *err, size_t errlen);
int	 dir_state_write(struct state *st, const struct dir_state *ds);
/*
 * The records a build did not keep, with why and their subject, to
 * STATE_DIR/work/directory.refused; and printed from there, escaped.
 */
int	 dir_refused_write(struct state *st, const struct ccadb_records *rs);
int	 dir_refused_print(struct state *st, FILE *out);
void	 dir_state_free(struct dir_state *ds);
/* Decide the records (their certificates move to d); -1 with err. */
int	 directory_build(struct ccadb_records *rs, const struct trust *t,
	    int64_t now, struct directory *d, char *err, size_t errlen);
int	 directory_write(struct state *st, const struct directory *d);
/* Is STATE_DIR/work/directory there, in the format this version reads? */
int	 directory_current(struct state *st);
/*
 * Rebuild the directory from the reports when it is older than
 * conf->ccadb_refresh or force is set (conditional GET; at most daily by
 * default).  Any failure keeps the previous directory.  Returns 0 when
 * nothing failed (including "not due" after a refresh that succeeded),
 * -1 when a report could not be fetched or was refused (logged), or when
 * the refresh is not due but the last one failed: its failure stands,
 * as status says, until one succeeds.  No ccadb_records: no directory
 * (directory_forget).
 */
int	 directory_refresh(struct state *st, const struct conf *conf,
	    const struct trust *t, int force);
/* Remove the directory and everything kept for it, a failure's state too. */
void	 directory_forget(struct state *st);
/*
 * For status: the refresh state (error NULL: the last refresh
 * succeeded).  -1 when no refresh was ever tried or the state cannot be
 * read.
 */
int	 directory_info(struct state *st, struct dir_state *ds);
/* Fingerprints, sorted by fpset_sort() before a search. */
struct fpset {
	uint8_t		(*v)[CRLC_HASH_LEN];
	size_t		  n;
};
void	 fpset_sort(struct fpset *s);
/*
 * Read the last built directory; none yet is an empty one.  -1 with err.
 * only == NULL: every entry with its certificate; else the entries of
 * only's fingerprints, with their URLs and no certificate (cert NULL).
 */
int	 directory_load(struct state *st, struct directory *d,
	    const struct fpset *only, char *err, size_t errlen);
/*
 * d's certificates become issuer candidates of t (CRLs, enrolment
 * proofs); in update, only after gather_urls(): their own distribution
 * points are not sources.
 */
int	 directory_trust(struct trust *t, const struct directory *d);
const struct dir_entry *directory_find(const struct directory *d,
	    const uint8_t fp[CRLC_HASH_LEN]);
/*
 * direntry.c: one entry of the directory file, below its two readers
 * (directory.c whole, dirindex.c by the index).  Accepts an empty or
 * already freed directory.
 */
void	 directory_free(struct directory *d);
/* "cert FP BASE64" at s: the entry's fingerprint, into fp. */
int	 dir_entry_fp(const char *s, uint8_t fp[CRLC_HASH_LEN]);
/* "LEN URL" at s added to e's URLs: where the next line starts, or NULL. */
char	*dir_entry_url(char *s, struct dir_entry *e);
/*
 * One entry's lines (NUL-terminated buf, "cert FP ..." then its "url"
 * lines, as the directory file holds them) into e: the entry of fp,
 * with its certificate when with_cert.  0, or -1 when they are not.
 */
int	 dir_entry_parse(char *buf, const uint8_t fp[CRLC_HASH_LEN],
	    int with_cert, struct dir_entry *e);

/*
 * dirindex.c: STATE_DIR/work/directory.index, where each entry of the
 * directory file lies and its subject's canonical name hash, so that a
 * run reads only the entries it looks up (format in dirindex.c).
 */
struct dir_span {
	uint64_t	 off, len;	/* an entry's bytes in the file */
};
struct dir_index;
/* Does the index describe the directory file as it is now? */
int	 dir_index_current(struct state *st);
/* Written after the directory file (len bytes), at[i] d->v[i]'s lines. */
int	 dir_index_write(struct state *st, const struct directory *d,
	    const struct dir_span *at, size_t len);
/*
 * The entries of only's fingerprints, with their URLs and no
 * certificate, into d (directory_load's only); -1 when the index does
 * not describe the directory file as it is (absent, stale, damaged).
 */
int	 dir_index_find(struct state *st, const struct fpset *only,
	    struct directory *d);
/*
 * The directory as a source of t's pool (certpool_set_fill): each entry
 * read and decoded when a search first asks for its subject.  -1 when
 * the index is not usable: then the directory is to be read whole.
 */
int	 dir_index_attach(struct trust *t, struct state *st);
void	 dir_index_free(struct dir_index *ix);

/*
 * spool.c, hint.c: the spool of certificates no CRL covered (see
 * HINTS_NAME), and the hints read from it
 */
struct hint_tally {
	size_t	scanned;	/* spool entries looked at this run */
	size_t	taken;		/* well-formed certificates returned */
	size_t	malformed;	/* refused: type, size or content */
	size_t	repeated;	/* a hint its writer already left this run */
	size_t	waiting;	/* returned, and left for the next run */
	size_t	stuck;		/* could not be removed */
};
/*
 * spool.c.  Create the spool (mode 3733, this account's group) if it is
 * missing or wrong.  0, or -1 (logged) also when another account owns it.
 */
int	 hints_prepare(struct state *st);
/* Is a hint waiting (in the spool, or a drain left by the last run)? */
int	 hints_waiting(struct state *st);
/* Does one come within ms (hints_waiting() every HINTS_FOLLOW_POLL_MS)? */
int	 hints_follow(struct state *st, long ms);
/* The live spool for listing (no symlink followed), or NULL and errno. */
DIR	*hints_opendir(struct state *st);
/* hint.c */
/*
 * The hints of this run: the spool's files moved to their writers'
 * queues, then taken in turns, one of every writer per turn.  0, or -1
 * (logged).  hints_next() gives the next (NULL: none this run) and, in
 * *aia, its writer's caIssuers fetches left this run; each hint given is
 * settled before the next: removed, or (wait) left for the next run.
 * hints_close() accepts NULL.
 */
struct hint_queue;
int	 hints_open(struct state *st, struct hint_queue **q,
	    struct hint_tally *tl);
X509	*hints_next(struct hint_queue *q, size_t **aia);
void	 hints_settle(struct hint_queue *q, int wait);
void	 hints_close(struct hint_queue *q);


/*
 * The enrolled issuers, as enrolment.c loads and saves them and
 * crlfresh.c reads them (the types only).
 */
struct enrolled {
	uint8_t		 fp[CRLC_HASH_LEN];	/* SHA-256 of the issuer cert */
	X509		*issuer;
	int64_t		 first_seen, last_seen;
	struct strlist	 urls;		/* CDPs of the proven certificates */
};
struct enrolment {
	struct enrolled	*v;
	size_t		 n;
	int64_t		 hints_at;	/* the last run that read hints */
	size_t		 hints_taken;	/* ... its hints that enrolled */
	size_t		 hints_refused;	/* ... malformed, unproven, dropped */
	/* Not in the file: the CRL URLs of the certificates this run's
	 * hints proved, which update --hints publishes first. */
	struct strlist	 hinted_dps;
	int64_t		 hints_failed;	/* the last run could not read them */
};
/* enrolment.c: issuers met on this host, proven (STATE_DIR/work/enrolled) */
/*
 * aia.c: x's issuers from its caIssuers URLs into cands, and the
 * certificates above them, followed until they chain to an anchor of t
 * (those join t's pool), each fetch spending one of *budget.  1 when
 * the budget ran out before the search ended, else 0.
 */
int	 aia_issuers(X509 *x, const struct trust *t, const struct conf *conf,
	    size_t *budget, time_t now, STACK_OF(X509) *cands);
/*
 * caIssuers fetches one run may make, each bounded by AIA_TIMEOUT (15 s):
 * a run that meets hostile URLs stalls for two minutes at most.  Issuers
 * in the CCADB directory need none.  Hints spend them in turns, at most
 * AIA_WRITER_MAX of them for the hints of one writer (one URL for each
 * certificate above a hinted one, on the deepest Web PKI paths: three
 * intermediates); a hint that finds them spent waits for the next run,
 * which starts with its writer.
 */
#define MAX_AIA_FETCHES	8
#define AIA_WRITER_MAX	3
int	 cert_fingerprint(X509 *x, uint8_t fp[CRLC_HASH_LEN]);
/* None yet is an empty enrolment.  0, or -1 (logged; e is empty). */
int	 enrolment_load(struct state *st, struct enrolment *e);
int	 enrolment_save(struct state *st, const struct enrolment *e);
/*
 * learning.c: the learning marker (<crlcache/hint.h>), holding the key
 * ids of t's anchors and of the issuers of en (may be NULL) whose CRLs
 * idx (may be NULL) holds none of.  LEARNING_FAST: written, its time
 * ahead (`update --hints` starts); LEARNING_FULL: an unexpired one
 * pushed ahead, or removed when the spool's watcher stopped (a full
 * update starts); LEARNING_CONTENT: an unexpired one's content brought
 * up to date, its time kept (a run published).  Failures are logged.
 */
enum learning_how { LEARNING_FAST, LEARNING_FULL, LEARNING_CONTENT };
void	 learning_mark(struct state *st, enum learning_how how,
	    const struct trust *t, const struct enrolment *en,
	    const struct crlc_index *idx);
void	 enrolment_free(struct enrolment *e);
struct enrolled *enrolment_find(const struct enrolment *e,
	    const uint8_t fp[CRLC_HASH_LEN]);
/*
 * Enrol (or mark as met now) the issuer of cert once cert's signature is
 * proven (see enrolment.c); aia_budget, when not NULL, allows that many
 * caIssuers fetches.  0; 1 when only caIssuers can prove it and the
 * budget is spent (it may wait for the next); or -1 with why.
 */
int	 enrolment_prove(struct enrolment *e, X509 *cert, const struct trust *t,
	    const struct conf *conf, size_t *aia_budget, int64_t now, char *why,
	    size_t whylen);
struct crl_fresh;
/*
 * Drop issuers last met before `before`, an issuer the CRLite set of cf
 * (NULL: none) answered for counting as met until crl_fresh_held();
 * how many.
 */
size_t	 enrolment_expire(struct enrolment *e, int64_t before,
	    const struct crl_fresh *cf);
/* Remove the URLs of the sorted list from every issuer's; how many. */
size_t	 enrolment_prune(struct enrolment *e, const struct strlist *urls);
/*
 * The hint step of `update`: drain the spool, prove each hint into e
 * (enroll = none only empties the spool), save.  0 or -1.  A
 * hinted CA certificate proven joins t's pool, and cas (NULL: not kept;
 * at most CAS_KEPT_MAX), for the next rounds of update --hints.
 */
int	 enrolment_learn(struct state *st, const struct conf *conf,
	    const struct trust *t, struct enrolment *e, STACK_OF(X509) *cas);
/* The hints could not be read this run: said by status until they are. */
void	 enrolment_failed(struct state *st, struct enrolment *e);

/*
 * crlfresh.c: which CRLs of an enrolled issuer a run fetches while a
 * CRLite set is in force (crl_fresh = ).
 */
struct crlc_crliteset;
struct crl_fresh {
	struct crlc_crliteset	*set;	/* the set in force, NULL: none */
	int			 stale;	/* past its stale_at */
	int			 unread;	/* refused: expire none */
	int			 all;	/* crl_fresh = all */
	struct fpset		 keys;	/* crl_fresh = FILE: their keys */
};
enum crl_want {
	CRL_WANT_ALL,		/* every CRL: directory's and hinted DPs */
	CRL_WANT_HINTED,	/* CRLite covers it: the hinted DPs only */
	CRL_WANT_NONE,		/* CRLite covers it, nothing hinted lately */
};
/*
 * Read the set in force and the crl_fresh = files.  0; -1 when a file
 * cannot be read (logged; cf then wants every CRL of every issuer).
 */
int	 crl_fresh_load(struct crl_fresh *cf, struct state *st,
	    const struct conf *conf);
enum crl_want crl_fresh_want(const struct crl_fresh *cf,
	    const struct enrolled *en, int64_t now);
/*
 * Until when the set in force (fresh or stale) answered for en's issuer
 * in place of its CRLs (its stale_at), or 0: a time its enrolment counts
 * as met, since those answers leave no hint that would renew it.
 * INT64_MAX when the set could not be read.
 */
int64_t	 crl_fresh_held(const struct crl_fresh *cf,
	    const struct enrolled *en);
void	 crl_fresh_free(struct crl_fresh *cf);

/* subcommands: main.c runs them through its table */
/*
 * The verdict a run that wrote the state leaves for users who may not
 * read the working data (verdict.c): the counts `status` judges by.
 */
struct verdict {
	size_t	sources, failing, retrying;
	int	dir_failing;		/* the directory's last refresh failed */
};
int	 verdict_write(struct state *st, const struct verdict *v);
int	 verdict_read(struct state *st, struct verdict *v);
/*
 * refusals.c, the refusal spool (<crlcache/refusal.h>): make it when
 * missing and remove what is older than CRLC_REFUSALS_KEEP, after a
 * command that wrote the state; print the newest refusals (status
 * --refusals), as text or (json) a JSON array, 0 or -1.
 */
void	 refusals_tend(struct state *st);
int	 refusals_print(struct state *st, FILE *out, int json);
/* After a command that wrote the state: its verdict, as status sees it. */
void	 status_leave_verdict(struct state *st, int64_t grace);

int	 cmd_reset(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_publish(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_import(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_update(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_enroll(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_check(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_exec(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_enable(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_disable(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_mirror(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_status(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_share(const struct cmd_ctx *c, int argc, char **argv);

#endif /* CRLCACHE_FETCHER_H */
