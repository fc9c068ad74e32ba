/*
 * crlcache.so: shared declarations of the signature-proxy provider.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The provider forwards SIGNATURE and KEYMGMT calls to the "default"
 * provider loaded into a private OSSL_LIB_CTX, and looks at the data of
 * every digest-verify: when it is a TBSCertificate, the certificate is
 * looked up in the published index (policy.c, snapshot.c).
 */
#ifndef CRLCACHE_PROV_H
#define CRLCACHE_PROV_H

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <openssl/core.h>
#include <openssl/core_dispatch.h>

#include <crlcache/clubcard.h>
#include <crlcache/onecrl.h>
#include <crlcache/format.h>
#include <crlcache/tbs.h>
#include <crlcache/version.h>

#define CRLC_PROV_NAME		"crlcache"
#define CRLC_PROV_VERSION	CRLCACHE_VERSION
#define CRLC_DEFAULT_INDEX	"/var/lib/crlcache/index.mdb"
/* DESIGN 2: a CRL may be late by this much before it counts as stale. */
#define CRLC_DEFAULT_GRACE	86400
/*
 * learn_wait: milliseconds a verification that met a new issuer waits
 * for the fast run to cover it (learn.c).  The default leaves a fast run
 * at 50 ms per request room for a CA of 100 partitions (about 0.5 s,
 * docs/performance.md); the bound stays below the 10 s a client gives a
 * handshake.
 */
#define CRLC_DEFAULT_LEARN_WAIT	2000
#define CRLC_LEARN_WAIT_MAX	8000

#define CRLC_PROPS_SIG		"provider=crlcache,crlcache.sig=yes"
#define CRLC_PROPS_KM		"provider=crlcache,crlcache.km=yes"

/* Reason codes of the errors we raise (get_reason_strings in provider.c). */
#define CRLC_R_REVOKED		1
#define CRLC_R_STALE		2
#define CRLC_R_UNKNOWN		3
#define CRLC_R_INTERNAL		4
#define CRLC_R_VALIDITY		5

enum crlc_mode { CRLC_MODE_OFF, CRLC_MODE_AUDIT, CRLC_MODE_ENFORCE };
enum crlc_log { CRLC_LOG_NONE, CRLC_LOG_STDERR, CRLC_LOG_SYSLOG };

/* The policy of one provider instance, from its openssl.cnf section. */
struct crlc_conf {
	char		index[PATH_MAX];
	enum crlc_mode	mode;
	int		deny_stale;	/* on_stale = deny */
	int		deny_unknown;	/* on_unknown = deny */
	enum crlc_log	log;
	int64_t		grace;		/* stale_grace, seconds */
	enum crlc_mode	validity;	/* validity_policy (off/audit/enforce) */
	/* hints = on: the spool beside index (hint.c); "" when off */
	char		spool[PATH_MAX];
	/* learn_wait, ms (0: off), and the learning marker beside index */
	long long	learn_wait;
	char		learning[PATH_MAX];
	/* crlite_share: the sharer's socket; "" when off */
	char		share[PATH_MAX];
};

/*
 * The algorithms we proxy, chosen at init from the default provider's own
 * tables (provider.c: every key type a certificate can carry, i.e. one it
 * decodes from a SubjectPublicKeyInfo, that has a signature algorithm),
 * so that a certificate signature algorithm OpenSSL adds is covered too.
 * The slots are fixed: the thunks in sig.c and keymgmt.c are generated per
 * slot.  OpenSSL 3.0's default provider needs 6 signature and 7 keymgmt
 * slots (RSA, ECDSA, ED25519, ED448, DSA, SM2; RSA-PSS and EC keys too);
 * 3.5's adds ML-DSA-44/65/87 (FIPS 204) and the 12 SLH-DSA parameter sets
 * (FIPS 205): 22 of each.  A key type beyond the last slot is reported at
 * init as not covered ("no room"), so the count leaves room for more.
 */
#define SIG_MAX		32
#define KM_MAX		32
/* X(N) for every slot number, to generate the per-slot thunks. */
#define CRLC_SLOTS(X)	X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) \
			X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17) \
			X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) \
			X(26) X(27) X(28) X(29) X(30) X(31)

/* The default provider's functions for one signature algorithm. */
struct sig_impl {
	const char	*names;		/* default's algorithm_names */
	OSSL_FUNC_signature_newctx_fn			*newctx;
	OSSL_FUNC_signature_freectx_fn			*freectx;
	OSSL_FUNC_signature_dupctx_fn			*dupctx;
	OSSL_FUNC_signature_verify_init_fn		*verify_init;
	OSSL_FUNC_signature_verify_fn			*verify;
	OSSL_FUNC_signature_verify_recover_init_fn	*verify_recover_init;
	OSSL_FUNC_signature_verify_recover_fn		*verify_recover;
	OSSL_FUNC_signature_digest_verify_init_fn	*digest_verify_init;
	OSSL_FUNC_signature_digest_verify_update_fn	*digest_verify_update;
	OSSL_FUNC_signature_digest_verify_final_fn	*digest_verify_final;
	OSSL_FUNC_signature_digest_verify_fn		*digest_verify;
#ifdef OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_INIT
	/* OpenSSL 3.4+: verifying a whole message (EVP_PKEY_verify_message_init) */
	OSSL_FUNC_signature_verify_message_init_fn	*verify_message_init;
	OSSL_FUNC_signature_verify_message_update_fn	*verify_message_update;
	OSSL_FUNC_signature_verify_message_final_fn	*verify_message_final;
#endif
	OSSL_FUNC_signature_get_ctx_params_fn		*get_ctx_params;
	OSSL_FUNC_signature_gettable_ctx_params_fn	*gettable_ctx_params;
	OSSL_FUNC_signature_set_ctx_params_fn		*set_ctx_params;
	OSSL_FUNC_signature_settable_ctx_params_fn	*settable_ctx_params;
	OSSL_FUNC_signature_get_ctx_md_params_fn	*get_ctx_md_params;
	OSSL_FUNC_signature_gettable_ctx_md_params_fn	*gettable_ctx_md_params;
	OSSL_FUNC_signature_set_ctx_md_params_fn	*set_ctx_md_params;
	OSSL_FUNC_signature_settable_ctx_md_params_fn	*settable_ctx_md_params;
};

/* The default provider's functions for one key type. */
struct km_impl {
	const char	*names;
	OSSL_FUNC_keymgmt_new_fn			*new_;
	OSSL_FUNC_keymgmt_free_fn			*free;
	OSSL_FUNC_keymgmt_get_params_fn			*get_params;
	OSSL_FUNC_keymgmt_gettable_params_fn		*gettable_params;
	OSSL_FUNC_keymgmt_query_operation_name_fn	*query_operation_name;
	OSSL_FUNC_keymgmt_has_fn			*has;
	OSSL_FUNC_keymgmt_validate_fn			*validate;
	OSSL_FUNC_keymgmt_match_fn			*match;
	OSSL_FUNC_keymgmt_import_fn			*import;
	OSSL_FUNC_keymgmt_import_types_fn		*import_types;
	OSSL_FUNC_keymgmt_export_fn			*export_;
	OSSL_FUNC_keymgmt_export_types_fn		*export_types;
};

struct crlc_store;

/*
 * keycache.c: keys imported lately, shared by later imports of the same
 * parameters.  Slots: more than the keys a busy client meets again
 * (servers, intermediates) within a few handshakes, few enough that the
 * keys kept alive stay small (an EC key with its curve is about 2 KB).
 * Tag: one import's parameters serialised; an RSA-4096 public key takes
 * about 560 bytes, a P-521 one under 200; a longer import is not cached.
 */
#define CRLC_KEYCACHE_SLOTS	64
#define CRLC_KEYCACHE_TAG_MAX	1024
struct crlc_kshare;
struct crlc_keycache {
	struct crlc_kshare *_Atomic	 slot[CRLC_KEYCACHE_SLOTS];
};

/* Room for one operation's dispatch table (ours have at most 22). */
#define CRLC_DISPATCH_MAX	32

/* One provider instance: one per library context that loads us. */
struct crlc_prov {
	const OSSL_CORE_HANDLE	*handle;
	OSSL_FUNC_core_new_error_fn		*core_new_error;
	OSSL_FUNC_core_set_error_debug_fn	*core_set_error_debug;
	OSSL_FUNC_core_vset_error_fn		*core_vset_error;

	struct crlc_conf	 conf;
	struct crlc_store	*store;		/* NULL: pass-through */

	OSSL_LIB_CTX		*priv;		/* private libctx, default loaded */
	OSSL_PROVIDER		*deflt;
	void			*deflt_ctx;	/* default's provider ctx */
	/*
	 * The library context that loaded us, and the provider context our
	 * forwarded calls run in (crlc_work_ctx): that library context's own
	 * default provider when it has one active (held by app_deflt), else
	 * deflt_ctx.  Chosen at the first call, not in init: the
	 * configuration may activate "default" after us.
	 */
	OSSL_LIB_CTX		*app;
	OSSL_PROVIDER		*app_deflt;
	void *_Atomic		 work_ctx;
	pthread_mutex_t		 work_lock;

	struct sig_impl		 sig[SIG_MAX];
	struct km_impl		 km[KM_MAX];
	/* query_operation answers; empty (terminator only) when off. */
	OSSL_ALGORITHM		 sig_algs[SIG_MAX + 1];
	OSSL_ALGORITHM		 km_algs[KM_MAX + 1];
	/* Our dispatch tables less the slots the default lacks. */
	OSSL_DISPATCH		 sig_disp[SIG_MAX][CRLC_DISPATCH_MAX];
	OSSL_DISPATCH		 km_disp[KM_MAX][CRLC_DISPATCH_MAX];
	struct crlc_keycache	 keycache;
};

/* keyid.c: one hash of a key, computed once (KEYID_* states). */
struct crlc_keyhash {
	atomic_int		 state;
	uint8_t			 h[CRLC_HASH_LEN];
};
/* keyid.c: a key's hashes. */
struct crlc_keyid {
	struct crlc_keyhash	 id;	/* crlc_key_id() */
	struct crlc_keyhash	 spki;	/* crlc_key_spki() */
};

/* Our keydata: the default provider's keydata and its functions. */
struct crlc_key {
	const struct km_impl	*impl;
	void			*kd;
	struct crlc_kshare	*share;	/* holds kd when not NULL */
	struct crlc_keycache	*cache;	/* the provider instance's */
	int			 imported;
	/* keyid.c: the key's identity, computed once (zeroed by calloc);
	 * a shared key keeps it in the share, for every import of it */
	struct crlc_keyid	 id;
};

/*
 * keyid.c: the SHA-256 of k's public key as the subjectPublicKey of its
 * SubjectPublicKeyInfo encodes it (format.h "key"), for the index to
 * tell apart CAs of one name.  Computed on the first call and kept in k;
 * a thread that finds it being computed computes its own into scratch.
 * NULL when it cannot be had (a key type with neither a public point,
 * RSA parameters nor a DSA y).
 */
const uint8_t	*crlc_key_id(struct crlc_key *k, uint8_t scratch[CRLC_HASH_LEN]);
/*
 * keyid.c: k's identity from the parameters of its import, kept when
 * they hold it as is (an EC point in the uncompressed form, which the
 * export to us encoded anyway): asked of the key later, the point costs
 * the default provider an affine conversion (about 50k instructions
 * per P-256 key, on every handshake).  Otherwise crlc_key_id() computes it.
 */
void		 crlc_key_id_offer(struct crlc_key *k, const OSSL_PARAM params[]);
/*
 * keyid.c: the SHA-256 of k's whole SubjectPublicKeyInfo DER (RFC 5280
 * 4.1.2.7) as a CA certificate encodes it, CRLite's issuer key
 * (<crlcache/clubcard.h>), rebuilt from the key: RSA (rsaEncryption,
 * NULL parameters, RFC 3279 2.3.1), EC on a named curve with the point
 * uncompressed (RFC 5480 2.1.1, 2.2), Ed25519 and Ed448 (RFC 8410 4);
 * NULL for any other key (CRLite then has no answer).  Kept like
 * crlc_key_id(): computed once per key, shared by every import of it.
 */
const uint8_t	*crlc_key_spki(struct crlc_key *k, uint8_t scratch[CRLC_HASH_LEN]);

/*
 * keycache.c.  crlc_keycache_tag() serialises an import into buf: its
 * length, 0 when it is not to be cached.  crlc_keycache_get(): a new
 * reference to the shared key of that import, or NULL.
 * crlc_keycache_add(): kd (the key that import built) shared, with one
 * reference for the caller and one for the cache; NULL on failure, and
 * kd is still the caller's.  crlc_keycache_clear() drops the cache's.
 */
size_t			 crlc_keycache_tag(int selection, const OSSL_PARAM params[],
			    uint8_t buf[CRLC_KEYCACHE_TAG_MAX]);
struct crlc_kshare	*crlc_keycache_get(struct crlc_keycache *c,
			    const struct km_impl *impl, const uint8_t *tag, size_t len);
struct crlc_kshare	*crlc_keycache_add(struct crlc_keycache *c,
			    const struct km_impl *impl, void *kd, const uint8_t *tag,
			    size_t len);
void			 crlc_keycache_clear(struct crlc_keycache *c);
void			*crlc_kshare_kd(const struct crlc_kshare *s);
struct crlc_keyid	*crlc_kshare_id(struct crlc_kshare *s);
void			 crlc_kshare_put(struct crlc_kshare *s);

/* sig.c / keymgmt.c: dispatch tables, indexed like sig[] / km[]. */
extern const OSSL_DISPATCH *const crlc_sig_dispatch[SIG_MAX];
extern const OSSL_DISPATCH *const crlc_km_dispatch[KM_MAX];

/*
 * provider.c: the default provider's keymgmt functions of the first
 * instance, for the dispatch slots that get no provider context
 * (import_types, export_types, query_operation_name).  The code is the
 * same in every library context.
 */
const struct km_impl	*crlc_km_first_impl(int alg);
/*
 * provider.c: the default provider's context every forwarded call runs
 * in (see struct crlc_prov).  Its digest and parameter fetches then use
 * the program's warm library context instead of filling the private
 * one's name map and method store in each process (a cost every
 * process start would pay).  The code is the same either way: "default" is built in.
 */
void			*crlc_work_ctx(struct crlc_prov *prov);

/* log.c: one line to syslog, or to stderr when prio is LOG_NOTICE or worse. */
void	crlc_log(enum crlc_log target, int prio, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/* policy.c */
/*
 * After the default provider verified signature sig over der[0..len):
 * 1 to let the result stand, 0 to fail it (an error is raised).  Looks
 * at TBSCertificates only; may leave a hint (hint.c).  key (may be NULL)
 * is the key that verified it: the certificate's issuer's.
 */
int	crlc_policy_check(struct crlc_prov *prov, const uint8_t *der,
	    size_t len, const uint8_t *sig, size_t siglen, struct crlc_key *key);
/* A time (s) as 2026-06-24T12:50:24Z for messages; 0: "(none)". */
#define CRLC_TIME_TEXT_MAX	32
void	crlc_time_text(int64_t t, char *buf, size_t size);
void	crlc_raise(struct crlc_prov *prov, const char *file, int line,
	    const char *func, int reason, const char *fmt, ...)
	    __attribute__((format(printf, 6, 7)));
#define CRLC_RAISE(prov, reason, ...) \
	crlc_raise((prov), __FILE__, __LINE__, __func__, (reason), __VA_ARGS__)

/*
 * hint.c: leave the certificate rebuilt from tbs (a TBSCertificate),
 * sigalg (its signature AlgorithmIdentifier) and sig (the signature
 * value) in the spool directory, for the fetcher to prove and enrol;
 * only into a spool that index's owner owns.  Silent: any failure leaves
 * no hint and errno as it was; the result says whether one was left, and
 * when not, whether because the spool is on a read-only filesystem.
 * crlc_hint_spool() writes the spool of an index path into out: the
 * directory "hints" beside it; 0, or -1 when it does not fit.
 */
enum crlc_hint { CRLC_HINT_LEFT, CRLC_HINT_NOT_LEFT, CRLC_HINT_READ_ONLY };
enum crlc_hint	crlc_hint_leave(const char *spool, const char *index,
	    const struct crlc_span *tbs, const struct crlc_span *sigalg,
	    const struct crlc_span *sig);
int	crlc_hint_spool(const char *index, char *out, size_t size);
/*
 * hint.c, for every spool beside the index (hints, refusals): open the
 * directory as crlc_hint_leave() does (O_PATH, no link, the index's
 * owner's, setgid, not listable by others; -1 otherwise), and create a
 * fresh file in it for len bytes (within RLIMIT_FSIZE) under a random
 * name with suffix, O_EXCL, mode set despite the umask: its descriptor
 * and name, or -1 with errno.
 */
#define CRLC_SPOOL_NAME_MAX	48	/* 32 hex digits, a suffix, NUL */
int	crlc_spool_open(const char *spool, const char *index);
int	crlc_spool_create(int dfd, const char *suffix, mode_t mode,
	    size_t len, char name[CRLC_SPOOL_NAME_MAX]);
/*
 * refusal.c: note a refusal ("PROGRAM[PID]: " and the formatted reason)
 * in the refusal spool beside index (<crlcache/refusal.h>), at most
 * CRLC_REFUSAL_BURST per window and process.  Silent, errno kept.
 */
/* log.c: the program's name as log lines give it, read once. */
const char	*crlc_prog_name(void);
void	crlc_refusal_note(const char *index, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/*
 * learn.c.  crlc_learnable(): what learning can do for cert, verified by
 * the key of id key (NULL: not known), which no CRL in the index covers;
 * held: the index holds CRLs of its issuer.  CRLC_LEARN_NO: no hint
 * (self-signed, refused by the fetcher, or an issuer it cannot prove
 * while a live marker says which it can); CRLC_LEARN_HINT: a hint, no
 * wait; CRLC_LEARN_WAIT: a hint, and a wait can be answered.
 * *chain_deadline: the deadline of the wait of a link above cert in the
 * thread's chain, 0 when none waited.
 * crlc_learn_deadline(): the CLOCK_MONOTONIC_COARSE deadline in ms of
 * the wait for the issuer of fingerprint fp, learn_wait from now or
 * chain_end (not 0: a link above waited) when that is sooner; 0 for none:
 * the issuer was claimed before in this process, the chain's time is
 * spent, or the budget has no room.
 * crlc_learn_pause(): sleep until the next look at the index, never past
 * deadline.  crlc_learn_done(): the wait ended; its unused time goes
 * back to the budget.
 */
enum crlc_learn { CRLC_LEARN_NO, CRLC_LEARN_HINT, CRLC_LEARN_WAIT };
enum crlc_learn	crlc_learnable(const struct crlc_conf *conf,
		    const struct crlc_tbs *cert, const uint8_t *key, int held,
		    long long *chain_deadline);
long long	crlc_learn_deadline(const struct crlc_conf *conf, uint64_t fp,
		    long long chain_end);
void		crlc_learn_pause(long long deadline);
void		crlc_learn_done(long long deadline);

/*
 * chain.c: the thread's last verifications.  crlc_chain_note(): the
 * certificate whose subjectPublicKey bits are spk was verified by the
 * key of id issuer (NULL: not known); deadline: that of its
 * verification's wait, 0 when it did not wait.  crlc_chain_walk(): from
 * the key of id key up the links noted: PROVABLE when known() says yes
 * of a key on the way, else UNPROVEN; *deadline that of the nearest link
 * on the way that waited, 0 when none did.  crlc_self_signed(): cert's
 * issuer is its subject and key (may be NULL) is its own.
 */
enum crlc_chain { CRLC_CHAIN_UNPROVEN, CRLC_CHAIN_PROVABLE };
void		crlc_chain_note(const uint8_t *issuer,
		    const struct crlc_span *spk, long long deadline);
enum crlc_chain	crlc_chain_walk(const uint8_t key[CRLC_HASH_LEN],
		    int (*known)(const uint8_t id[CRLC_HASH_LEN], void *),
		    void *arg, long long *deadline);
int		crlc_self_signed(const struct crlc_tbs *cert, const uint8_t *key);

/* How stale a long-running process may be after a publish. */
#define CRLC_RECHECK_MS		2000

/*
 * pins.c: generations pinned without a lock (see there).  Slots: the
 * current generation plus old ones still pinned by slow users; when all
 * are busy, the swap waits for the next check.  A pool is zeroed, then
 * given its close function.
 */
#define CRLC_PIN_SLOTS		4
struct crlc_pin {
	atomic_uint		 users;
	void			*obj;		/* NULL: slot free */
};
struct crlc_pins {
	struct crlc_pin		 slots[CRLC_PIN_SLOTS];
	_Atomic(struct crlc_pin *) cur;		/* NULL: none usable */
	atomic_llong		 next_check_ms;
	atomic_int		 refreshing;	/* one refresher at a time */
	void			(*close)(void *obj);
};
/* Run refresh(arg) in one thread when CRLC_RECHECK_MS passed; while no
   generation is current, the others wait for it (bounded). */
void		 crlc_pins_refresh(struct crlc_pins *p, void (*refresh)(void *),
		    void *arg);
/* Have the next crlc_pins_refresh() run at once. */
void		 crlc_pins_recheck(struct crlc_pins *p);
/* Pin the current generation: NULL when there is none. */
struct crlc_pin	*crlc_pins_acquire(struct crlc_pins *p);
void		 crlc_pin_release(struct crlc_pin *pin);
int		 crlc_pins_current(struct crlc_pins *p);
/* The refresher's: close old generations nobody pins; a free slot or
   NULL; obj in slot made current; no generation current. */
void		 crlc_pins_reclaim(struct crlc_pins *p);
struct crlc_pin	*crlc_pins_free_slot(struct crlc_pins *p);
void		 crlc_pins_publish(struct crlc_pins *p, struct crlc_pin *slot,
		    void *obj);
void		 crlc_pins_clear(struct crlc_pins *p);
/* fork()'s child: the parent's other threads pin nothing here. */
void		 crlc_pins_atfork_child(struct crlc_pins *p);
void		 crlc_pins_close_all(struct crlc_pins *p);
/*
 * The refresher's look at a file of the state: 1 when dir/name is the
 * file (device, inode, size, mtime) seen last time, else 0 and it is
 * remembered as seen (a file that is not there is never the same).
 */
struct crlc_seen {
	struct stat		 st;
	int			 have;
};
int		 crlc_seen_same(struct crlc_seen *seen, const char *dir,
		    const char *name);
/* STATE_DIR/sub beside an index path into out ("" when too long). */
void		 crlc_state_subdir(const char *index, const char *sub, char *out,
		    size_t len);

/* snapshot.c: the process-wide, refcounted view of one index file. */
struct crlc_index;
struct crlc_store	*crlc_store_get(const char *path, enum crlc_log log,
			    const char *share);
void			 crlc_store_put(struct crlc_store *store);
/*
 * Pin the current snapshot (NULL: none is usable); the index stays mapped
 * until crlc_pin_release().  Re-checks the file at most every
 * CRLC_RECHECK_MS.  Lock-free.
 */
struct crlc_pin		*crlc_snap_acquire(struct crlc_store *store);
struct crlc_index	*crlc_snap_index(struct crlc_pin *snap);
/* Have the next crlc_snap_acquire() look at the file at once. */
void			 crlc_store_recheck(struct crlc_store *store);
/* The CRLite set of the state directory of store's index. */
struct crlc_crlite	*crlc_store_crlite(struct crlc_store *store);

/*
 * crlite.c: the CRLite set in STATE_DIR/crlite beside an index path,
 * read at the first certificate with SCTs (see there).  _new: NULL only
 * when out of memory.  crlc_crlite_check(): the set's answer for cert,
 * verified by key (its issuer's), CRLC_CLUBCARD_NOT_COVERED when it has
 * none (no SCT, no usable set, a key whose SPKI is not rebuilt) and
 * when a stale set says good (<crlcache/crlite.h> FRESHNESS);
 * *newest the newest SCT time (ms) the answering filter covers.  No
 * allocation, system call or lock, but when the set file is due a look
 * (CRLC_RECHECK_MS) and on the first use.
 */
struct crlc_crlite;
struct crlc_crlite	*crlc_crlite_new(const char *index, enum crlc_log log,
			    const char *share);
void			 crlc_crlite_free(struct crlc_crlite *c);
void			 crlc_crlite_atfork_child(struct crlc_crlite *c);
enum crlc_clubcard_answer crlc_crlite_check(struct crlc_crlite *c,
			    const struct crlc_tbs *cert, struct crlc_key *key,
			    uint64_t *newest);

/* The OneCRL list of the state directory of store's index. */
struct crlc_onecrl_list	*crlc_store_onecrl(struct crlc_store *store);
/*
 * onecrl.c: the OneCRL list in STATE_DIR/crlite beside an index path,
 * read at the first verification.  _new: NULL only when out of memory.
 * crlc_onecrl_list_check(): how cert is listed (CRLC_ONECRL_NONE when
 * no list is usable).  No allocation, system call or lock, but when the
 * file is due a look (CRLC_RECHECK_MS) and on the first use.
 */
struct crlc_onecrl_list;
struct crlc_onecrl_list	*crlc_onecrl_list_new(const char *index,
			    enum crlc_log log);
void			 crlc_onecrl_list_free(struct crlc_onecrl_list *l);
void			 crlc_onecrl_list_atfork_child(struct crlc_onecrl_list *l);
enum crlc_onecrl_hit	 crlc_onecrl_list_check(struct crlc_onecrl_list *l,
			    const struct crlc_tbs *cert);

/* store.c: the "crlcache:" STORE loader (OSSL_OP_STORE). */
extern const OSSL_ALGORITHM crlc_store_algs[];

#endif /* CRLCACHE_PROV_H */
