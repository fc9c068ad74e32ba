/*
 * crlcache enroll: enrol the issuers of certificates an administrator
 * names, from files or from a TLS server's chain, with the proof hints
 * get (enrolment.c); the next `update` fetches their CRLs.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "fetcher.h"

/* Certificates taken from one server: real chains have 2-4. */
#define MAX_CHAIN	16

/* Split "host:port" or "[v6]:port"; 0 or -1. */
static int
split_hostport(const char *arg, char *host, size_t hostlen, char *port,
    size_t portlen)
{
	const char *colon, *end;

	if (*arg == '[') {
		if ((end = strchr(arg, ']')) == NULL || end[1] != ':')
			return -1;
		colon = end + 1;
		arg++;
	} else if ((colon = strrchr(arg, ':')) == NULL)
		return -1;
	else
		end = colon;
	if (end == arg || (size_t)(end - arg) >= hostlen || colon[1] == '\0' ||
	    strlen(colon + 1) >= portlen ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1))
		return -1;
	snprintf(host, hostlen, "%.*s", (int)(end - arg), arg);
	snprintf(port, portlen, "%s", colon + 1);
	return 0;
}

/* A TCP connection within timeout seconds, reads and writes bounded too. */
static int
dial(const char *host, const char *port, long timeout)
{
	struct addrinfo hints, *res = NULL, *ai;
	struct timeval tv = { timeout, 0 };
	struct pollfd pfd;
	socklen_t sl;
	int fd = -1, err;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, port, &hints, &res) != 0)
		return -1;
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if ((fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC |
		    SOCK_NONBLOCK, ai->ai_protocol)) == -1)
			continue;
		pfd.fd = fd;
		pfd.events = POLLOUT;
		sl = sizeof(err);
		if ((connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 ||
		    (errno == EINPROGRESS && poll(&pfd, 1, (int)timeout * 1000) == 1 &&
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) == 0 &&
		    err == 0)) &&
		    fcntl(fd, F_SETFL, 0) == 0 &&
		    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0 &&
		    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

/*
 * The chain a TLS server presents.  Nothing is verified here: every
 * certificate is proven on its own before it can enrol anything.
 */
static int
server_chain(const char *arg, const struct conf *conf, STACK_OF(X509) *out)
{
	char host[256], port[16];
	STACK_OF(X509) *chain;
	SSL_CTX *ctx = NULL;
	SSL *ssl = NULL;
	int fd = -1, i, ret = -1;

	if (split_hostport(arg, host, sizeof(host), port, sizeof(port)) == -1) {
		logx(0, "enroll: %s: neither a file nor HOST:PORT", arg);
		return -1;
	}
	if ((fd = dial(host, port, conf->connect_timeout)) == -1) {
		logx(0, "enroll: %s: cannot connect", arg);
		return -1;
	}
	if ((ctx = SSL_CTX_new(TLS_client_method())) == NULL ||
	    (ssl = SSL_new(ctx)) == NULL || !SSL_set_fd(ssl, fd) ||
	    !SSL_set_tlsext_host_name(ssl, host) || SSL_connect(ssl) != 1 ||
	    (chain = SSL_get_peer_cert_chain(ssl)) == NULL) {
		logx(0, "enroll: %s: TLS handshake failed", arg);
		goto done;
	}
	for (i = 0; i < sk_X509_num(chain) && i < MAX_CHAIN; i++)
		if (X509_up_ref(sk_X509_value(chain, i)) &&
		    !sk_X509_push(out, sk_X509_value(chain, i)))
			X509_free(sk_X509_value(chain, i));
	(void)SSL_shutdown(ssl);
	ret = 0;
done:
	ERR_clear_error();
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	close(fd);
	return ret;
}

static int
self_signed(X509 *x)
{
	return X509_check_issued(x, x) == X509_V_OK;
}

int
cmd_enroll(const char *state_dir, const struct conf *conf, int argc,
    char **argv)
{
	struct trust t = { NULL, NULL, NULL, 0 };
	struct enrolment en;
	struct store *s = NULL;
	STACK_OF(X509) *certs = NULL;
	struct stat sb;
	size_t aia_budget = MAX_AIA_FETCHES;
	char why[ERRLEN], name[256], err[ERRLEN];
	int i, refused = 0, ret = 4;

	memset(&en, 0, sizeof(en));
	if (argc < 2) {
		logx(0, "usage: crlcache enroll CERT.pem | HOST:PORT ...");
		return 4;
	}
	/* The store's lock keeps an update from rewriting the file meanwhile. */
	if (store_open(&s, state_dir, err, sizeof(err)) == -1) {
		logx(0, "%s", err);
		goto done;
	}
	if ((certs = sk_X509_new_null()) == NULL ||
	    trust_load(&t, &conf->anchors, &conf->untrusted, &conf->cas) == -1 ||
	    enrolment_load(state_dir, &en) == -1)
		goto done;
	trust_use_index(&t, state_dir);
	for (i = 1; i < argc; i++)
		if ((stat(argv[i], &sb) == 0 ? certs_load(argv[i], certs) :
		    server_chain(argv[i], conf, certs)) == -1)
			goto done;
	/* The chain's certificates may serve as issuers, once proven. */
	for (i = 0; i < sk_X509_num(certs); i++)
		if (X509_up_ref(sk_X509_value(certs, i)) &&
		    !sk_X509_push(t.certs, sk_X509_value(certs, i)))
			X509_free(sk_X509_value(certs, i));
	for (i = 0; i < sk_X509_num(certs); i++) {
		X509 *x = sk_X509_value(certs, i);

		if (self_signed(x))
			continue;	/* an anchor: no issuer above it */
		X509_NAME_oneline(X509_get_subject_name(x), name, sizeof(name));
		if (enrolment_prove(&en, x, &t, conf, &aia_budget,
		    (int64_t)time(NULL), why, sizeof(why)) == -1) {
			printf("refused %s: %s\n", name, why);
			refused++;
			continue;
		}
		X509_NAME_oneline(X509_get_issuer_name(x), why, sizeof(why));
		printf("enrolled issuer %s (of %s)\n", why, name);
	}
	if (enrolment_save(state_dir, &en) == -1)
		goto done;
	if (refused < sk_X509_num(certs))
		logx(1, "enroll: `crlcache update` fetches the CRLs");
	ret = refused > 0 ? 1 : 0;
done:
	sk_X509_pop_free(certs, X509_free);
	enrolment_free(&en);
	trust_free(&t);
	store_close(s);
	return ret;
}
