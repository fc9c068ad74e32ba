/*
 * crlcache command-line tool: what every file of the fetcher needs (its
 * limits, struct conf, util.c); each module's face is a header of its own.
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
					   CRLite covers (crlite_cover.c) */
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
/*
 * The sb->st_size bytes of the open file fd (at most max) into *buf
 * (NUL-terminated, free()) and *len; -1 with err and errno EFBIG (over
 * max) or EIO (it shrank, or read failed).
 */
struct stat;
int	 read_fd(int fd, const struct stat *sb, size_t max, uint8_t **buf,
	    size_t *len, char *err, size_t errlen);
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

#endif /* CRLCACHE_FETCHER_H */
