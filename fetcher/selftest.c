/*
 * The proof `crlcache enable` asks of a candidate openssl.cnf before it
 * replaces the system's: an OpenSSL program run on it refuses a revoked
 * certificate.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * `openssl list -providers` must show crlcache active (OpenSSL 3.0 skips
 * a module that fails to load, silently), and that is not enough: a
 * system default_properties the proxies cannot meet, or a provider set
 * without the algorithms they forward to, leaves the provider loaded and
 * never asked.  So a throwaway PKI is made here, in memory: a CA, two
 * leaves and a CRL revoking one of them, ingested and published by the
 * same code as `crlcache import` into an index of its own, in a private
 * directory (privdir.c: nobody else can create a name there, the
 * programs below read files by name).  `openssl verify`, run on the
 * candidate with only the provider's index (and mode = enforce, hints =
 * off, log = none) switched to that one, must refuse the revoked leaf as
 * revoked by crlcache and accept the other.  Then the directory goes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "fetcher.h"
#include "ingest.h"
#include "osslconf.h"
#include "privdir.h"
#include "selftest.h"
#include "state.h"
#include "store.h"
#include "trust.h"

/* `openssl list -providers` and `openssl verify` print a few hundred bytes. */
#define MAX_OPENSSL_OUTPUT	65536
/*
 * An `openssl` run on the candidate: the provider maps a one-CRL index
 * and answers at once; a loaded host may take seconds, never this long.
 */
#define OPENSSL_TIMEOUT_MS	30000
/* The throwaway certificates and CRL: valid from an hour ago for a day. */
#define PKI_BACKDATE	3600L
#define PKI_LIFETIME	86400L
/* What the provider's refusal of a revoked certificate says. */
#define REVOKED_TEXT	"certificate is revoked (crlcache)"

/*
 * Run `openssl ARGS...` with OPENSSL_CONF=cnf, its stdout and stderr in
 * out (NUL-terminated, truncated to len - 1).  Its exit status, or -1
 * when it could not run, died or overran OPENSSL_TIMEOUT_MS (killed).
 * Long: fork, the poll loop and the wait share the pipe and the child.
 */
static int
run_openssl(const char *cnf, char *const argv[], char *out, size_t len)
{
	struct pollfd pfd;
	struct timespec t0, t1;
	char sink[512];
	size_t used = 0;
	ssize_t r;
	long left;
	pid_t pid;
	int p[2], n, status = 0, timedout = 0;

	out[0] = '\0';
	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	fflush(NULL);
	if ((pid = fork()) == -1) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		if (setenv("OPENSSL_CONF", cnf, 1) == 0)
			execvp("openssl", argv);
		_exit(127);
	}
	close(p[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		left = OPENSSL_TIMEOUT_MS - ((t1.tv_sec - t0.tv_sec) * 1000L +
		    (t1.tv_nsec - t0.tv_nsec) / 1000000L);
		if (left <= 0) {
			timedout = 1;
			kill(pid, SIGKILL);
			break;
		}
		if ((n = poll(&pfd, 1, (int)left)) == 0 ||
		    (n == -1 && errno == EINTR))
			continue;
		if (n == -1)
			break;
		/* Past len - 1 bytes, drained unread: it must not block. */
		r = used < len - 1 ? read(p[0], out + used, len - 1 - used) :
		    read(p[0], sink, sizeof(sink));
		if (r == 0 || (r == -1 && errno != EINTR))
			break;
		if (r > 0 && used < len - 1)
			used += (size_t)r;
	}
	out[used] = '\0';
	close(p[0]);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (timedout) {
		logx(0, "openssl %s: no answer in %d s", argv[1],
		    OPENSSL_TIMEOUT_MS / 1000);
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* 0 when `openssl list -providers` on cnf shows crlcache active. */
static int
provider_active(const char *cnf)
{
	static char *const argv[] = { "openssl", "list", "-providers", NULL };
	char out[MAX_OPENSSL_OUTPUT], *p, *next;
	int active = 0;

	if (run_openssl(cnf, argv, out, sizeof(out)) == 0 &&
	    (p = strstr(out, "\n  crlcache\n")) != NULL) {
		/* "  crlcache\n    name: ...\n    status: active\n  next" */
		next = strstr(p + 1, "\n  ");
		while (next != NULL && next[3] == ' ')
			next = strstr(next + 1, "\n  ");
		p = strstr(p, "status: active");
		active = p != NULL && (next == NULL || p < next);
	}
	if (!active) {
		logx(0, "openssl list -providers with the new configuration does "
		    "not show crlcache active:\n%s", out);
		return -1;
	}
	return 0;
}

/* One extension, as openssl.cnf would write it; 0 or -1. */
static int
add_ext(X509 *x, X509_CRL *crl, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *e;
	int ok;

	X509V3_set_ctx(&ctx, issuer, x, NULL, crl, 0);
	if ((e = X509V3_EXT_conf_nid(NULL, &ctx, nid, value)) == NULL)
		return -1;
	ok = x != NULL ? X509_add_ext(x, e, -1) : X509_CRL_add_ext(crl, e, -1);
	X509_EXTENSION_free(e);
	return ok ? 0 : -1;
}

/*
 * A certificate for key, serial serial, named cn, issued by issuer
 * (NULL: self-signed, a CA) with signkey.
 */
static X509 *
make_cert(const char *cn, long serial, EVP_PKEY *key, X509 *issuer,
    EVP_PKEY *signkey)
{
	X509 *x;
	X509_NAME *name = NULL;
	int ok;

	if ((x = X509_new()) == NULL || (name = X509_NAME_new()) == NULL)
		goto fail;
	ok = X509_set_version(x, X509_VERSION_3) &&
	    ASN1_INTEGER_set(X509_get_serialNumber(x), serial) &&
	    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
	    (const unsigned char *)cn, -1, -1, 0) &&
	    X509_set_subject_name(x, name) &&
	    X509_set_issuer_name(x, issuer != NULL ?
	    X509_get_subject_name(issuer) : name) &&
	    X509_gmtime_adj(X509_getm_notBefore(x), -PKI_BACKDATE) != NULL &&
	    X509_gmtime_adj(X509_getm_notAfter(x), PKI_LIFETIME) != NULL &&
	    X509_set_pubkey(x, key);
	if (!ok)
		goto fail;
	if (issuer == NULL ?
	    add_ext(x, NULL, x, NID_basic_constraints, "critical,CA:TRUE") ||
	    add_ext(x, NULL, x, NID_key_usage, "critical,keyCertSign,cRLSign") ||
	    add_ext(x, NULL, x, NID_subject_key_identifier, "hash") :
	    add_ext(x, NULL, issuer, NID_basic_constraints, "critical,CA:FALSE") ||
	    add_ext(x, NULL, issuer, NID_key_usage, "critical,digitalSignature") ||
	    add_ext(x, NULL, issuer, NID_authority_key_identifier, "keyid:always"))
		goto fail;
	if (!X509_sign(x, signkey, EVP_sha256()))
		goto fail;
	X509_NAME_free(name);
	return x;
fail:
	X509_NAME_free(name);
	X509_free(x);
	return NULL;
}

/* A complete CRL of ca (RFC 5280 5.1, v2, cRLNumber) revoking serial. */
static X509_CRL *
make_crl(X509 *ca, EVP_PKEY *key, long serial)
{
	X509_CRL *crl;
	X509_REVOKED *rev = NULL;
	ASN1_TIME *t = NULL;
	ASN1_INTEGER *sn = NULL;
	int ok;

	if ((crl = X509_CRL_new()) == NULL || (rev = X509_REVOKED_new()) ==
	    NULL || (t = X509_gmtime_adj(NULL, -PKI_BACKDATE)) == NULL ||
	    (sn = ASN1_INTEGER_new()) == NULL)
		goto fail;
	ok = X509_CRL_set_version(crl, X509_CRL_VERSION_2) &&
	    X509_CRL_set_issuer_name(crl, X509_get_subject_name(ca)) &&
	    X509_CRL_set1_lastUpdate(crl, t) &&
	    X509_REVOKED_set_revocationDate(rev, t) &&
	    ASN1_INTEGER_set(sn, serial) &&
	    X509_REVOKED_set_serialNumber(rev, sn) &&
	    X509_gmtime_adj(t, PKI_LIFETIME) != NULL &&
	    X509_CRL_set1_nextUpdate(crl, t) &&
	    X509_CRL_add0_revoked(crl, rev);
	if (!ok)
		goto fail;
	rev = NULL;
	/* sn, the revoked serial, now serves as cRLNumber (5.2.3). */
	if (!ASN1_INTEGER_set(sn, 1) ||
	    !X509_CRL_add1_ext_i2d(crl, NID_crl_number, sn, 0, 0) ||
	    add_ext(NULL, crl, ca, NID_authority_key_identifier, "keyid:always") ||
	    !X509_CRL_sort(crl) || !X509_CRL_sign(crl, key, EVP_sha256()))
		goto fail;
	ASN1_TIME_free(t);
	ASN1_INTEGER_free(sn);
	return crl;
fail:
	X509_REVOKED_free(rev);
	ASN1_TIME_free(t);
	ASN1_INTEGER_free(sn);
	X509_CRL_free(crl);
	return NULL;
}

/* dir/name, a new file 0644 holding x in PEM; 0 or -1. */
static int
write_pem(const char *dir, const char *name, X509 *x, char *path, size_t len)
{
	FILE *f;
	int ok;

	if ((size_t)snprintf(path, len, "%s/%s", dir, name) >= len ||
	    (f = fopen(path, "wx")) == NULL)
		return -1;
	ok = PEM_write_X509(f, x);
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* The index of dir/state: crl ingested under ca.pem's trust, published. */
static int
make_index(const char *dir, const char *ca_pem, X509_CRL *crl)
{
	struct strlist anchors = { NULL, 0 }, none = { NULL, 0 };
	struct trust t = { 0 };
	struct store *s = NULL;
	struct state st;
	char state[PATH_MAX], err[ERRLEN];
	unsigned char *der = NULL;
	uint64_t gen;
	int len, ret = -1;

	err[0] = '\0';
	memset(&st, 0, sizeof(st));
	st.fd = -1;
	strlist_add(&anchors, ca_pem);
	if ((size_t)snprintf(state, sizeof(state), "%s/state", dir) >=
	    sizeof(state) || (len = i2d_X509_CRL(crl, &der)) <= 0 ||
	    trust_load(&t, &anchors, &none, &none) == -1 ||
	    state_open(&st, state) == -1 ||
	    store_open(&s, &st, err, sizeof(err)) == -1 ||
	    ingest_buffer(s, &t, "the self-test CRL", NULL, der, (size_t)len,
	    NULL, NULL, err, sizeof(err)) == INGEST_FAILED ||
	    store_publish(s, 1, &gen, err, sizeof(err)) == -1)
		goto done;
	ret = 0;
done:
	if (ret == -1)
		logx(0, "self-test index: %s", err[0] != '\0' ? err :
		    "cannot be made");
	store_close(s);
	state_close(&st);
	trust_free(&t);
	OPENSSL_free(der);
	strlist_free(&anchors);
	return ret;
}

/*
 * dir/openssl.cnf: cnf with the provider's index switched to the
 * self-test one, enforcing, silent and leaving no hint.
 */
static int
write_wrapper(const char *dir, const char *cnf, char *path, size_t len)
{
	FILE *f;

	if ((size_t)snprintf(path, len, "%s/openssl.cnf", dir) >= len ||
	    (f = fopen(path, "wx")) == NULL)
		return -1;
	fprintf(f, ".include %s\n[crlcache_sect]\nindex = %s/state/" INDEX_NAME
	    "\nmode = enforce\nhints = off\nlog = none\n", cnf, dir);
	return fclose(f) == 0 ? 0 : -1;
}

/* Verify leaf under cnf: 0 accepted, 1 refused as revoked, -1 otherwise. */
static int
verify_leaf(const char *cnf, const char *ca, const char *leaf, char *out,
    size_t len)
{
	char *argv[] = { "openssl", "verify", "-CAfile", (char *)ca,
	    (char *)leaf, NULL };
	int rc = run_openssl(cnf, argv, out, len);

	if (rc == 0)
		return 0;
	return rc > 0 && strstr(out, REVOKED_TEXT) != NULL ? 1 : -1;
}

/*
 * Long: a PKI made and written, then verified twice; one done: removes
 * the directory and frees the keys, certificates and CRL.
 */
int
enable_selftest(const char *cnf)
{
	EVP_PKEY *cakey = NULL, *leafkey = NULL;
	X509 *ca = NULL, *good = NULL, *revoked = NULL;
	X509_CRL *crl = NULL;
	char dir[PATH_MAX], ca_pem[PATH_MAX], good_pem[PATH_MAX];
	char rev_pem[PATH_MAX], wrapper[PATH_MAX], out[MAX_OPENSSL_OUTPUT];
	int made = 0, ret = -1;

	if (provider_active(cnf) == -1)
		return -1;
	if (privdir_make("crlcache-selftest", dir, sizeof(dir)) == -1)
		goto done;
	made = 1;
	/* Both go into openssl.cnf lines, as osslconf.c writes paths. */
	if (strpbrk(cnf, OSSLCONF_UNSAFE) != NULL ||
	    strpbrk(dir, OSSLCONF_UNSAFE) != NULL) {
		logx(0, "self-test: %s or %s holds a character openssl.cnf "
		    "cannot", cnf, dir);
		goto done;
	}
	if ((cakey = EVP_EC_gen("P-256")) == NULL ||
	    (leafkey = EVP_EC_gen("P-256")) == NULL ||
	    (ca = make_cert("crlcache self-test CA", 1, cakey, NULL,
	    cakey)) == NULL ||
	    (good = make_cert("crlcache self-test good", 2, leafkey, ca,
	    cakey)) == NULL ||
	    (revoked = make_cert("crlcache self-test revoked", 3, leafkey, ca,
	    cakey)) == NULL || (crl = make_crl(ca, cakey, 3)) == NULL) {
		logx(0, "self-test: cannot make its certificates and CRL");
		goto done;
	}
	if (write_pem(dir, "ca.pem", ca, ca_pem, sizeof(ca_pem)) == -1 ||
	    write_pem(dir, "good.pem", good, good_pem, sizeof(good_pem)) == -1 ||
	    write_pem(dir, "revoked.pem", revoked, rev_pem,
	    sizeof(rev_pem)) == -1 ||
	    write_wrapper(dir, cnf, wrapper, sizeof(wrapper)) == -1) {
		logx(0, "self-test: %s: %s", dir, strerror(errno));
		goto done;
	}
	if (make_index(dir, ca_pem, crl) == -1)
		goto done;
	if (verify_leaf(wrapper, ca_pem, rev_pem, out, sizeof(out)) != 1) {
		logx(0, "self-test: under the new configuration, a certificate "
		    "a CRL in the index revokes is not refused as revoked: "
		    "revocation checking would be off.  openssl verify said:\n%s",
		    out);
		goto done;
	}
	if (verify_leaf(wrapper, ca_pem, good_pem, out, sizeof(out)) != 0) {
		logx(0, "self-test: the new configuration refuses a valid "
		    "certificate.  openssl verify said:\n%s", out);
		goto done;
	}
	logx(2, "self-test: the new configuration refuses a revoked "
	    "certificate and accepts a valid one");
	ret = 0;
done:
	if (made)
		privdir_remove(dir);
	EVP_PKEY_free(cakey);
	EVP_PKEY_free(leafkey);
	X509_free(ca);
	X509_free(good);
	X509_free(revoked);
	X509_CRL_free(crl);
	ERR_clear_error();
	return ret;
}
