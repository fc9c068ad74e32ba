/*
 * The certificate chain a TLS server presents (`enroll HOST:PORT`,
 * `check HOST:PORT`).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The handshake runs in a library context of its own, with only OpenSSL's
 * default provider: the system openssl.cnf may switch crlcache on (`crlcache
 * enable`), and a revoked server must still show us its chain.  Nothing
 * is verified here; the certificates are copied out of that context
 * (DER), so they outlive it.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/provider.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "fetcher.h"
#include "peer.h"

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

/* A copy of x in the default library context. */
static X509 *
cert_copy(X509 *x)
{
	unsigned char *der = NULL;
	const unsigned char *p;
	X509 *y = NULL;
	int len;

	if ((len = i2d_X509(x, &der)) > 0) {
		p = der;
		y = d2i_X509(NULL, &p, len);
	}
	OPENSSL_free(der);
	return y;
}

int
server_chain(const char *arg, const struct conf *conf, const char *who,
    STACK_OF(X509) *out)
{
	char host[256], port[16];
	STACK_OF(X509) *chain;
	OSSL_LIB_CTX *lib = NULL;
	OSSL_PROVIDER *def = NULL;
	SSL_CTX *ctx = NULL;
	SSL *ssl = NULL;
	X509 *x;
	int fd = -1, i, ret = -1;

	if (split_hostport(arg, host, sizeof(host), port, sizeof(port)) == -1) {
		/* A slash or no port: a file meant, and why it cannot be read. */
		if ((strchr(arg, '/') != NULL || strchr(arg, ':') == NULL) &&
		    access(arg, F_OK) == -1)
			logx(0, "%s: %s: %s", who, arg, strerror(errno));
		else
			logx(0, "%s: %s: neither a file nor HOST:PORT", who,
			    arg);
		return -1;
	}
	if ((fd = dial(host, port, conf->connect_timeout)) == -1) {
		logx(0, "%s: %s: cannot connect", who, arg);
		return -1;
	}
	if ((lib = OSSL_LIB_CTX_new()) == NULL ||
	    (def = OSSL_PROVIDER_load(lib, "default")) == NULL ||
	    (ctx = SSL_CTX_new_ex(lib, NULL, TLS_client_method())) == NULL ||
	    (ssl = SSL_new(ctx)) == NULL || !SSL_set_fd(ssl, fd) ||
	    !SSL_set_tlsext_host_name(ssl, host) || SSL_connect(ssl) != 1 ||
	    (chain = SSL_get_peer_cert_chain(ssl)) == NULL) {
		logx(0, "%s: %s: TLS handshake failed", who, arg);
		goto done;
	}
	for (i = 0; i < sk_X509_num(chain) && i < MAX_CHAIN; i++)
		if ((x = cert_copy(sk_X509_value(chain, i))) != NULL &&
		    !sk_X509_push(out, x))
			X509_free(x);
	(void)SSL_shutdown(ssl);
	ret = 0;
done:
	ERR_clear_error();
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	OSSL_PROVIDER_unload(def);
	OSSL_LIB_CTX_free(lib);
	close(fd);
	return ret;
}
