/*
 * crlcache command-line tool: what peer.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_PEER_H
#define CRLCACHE_FETCHER_PEER_H

#include "fetcher.h"

/*
 * peer.c: append the certificates (at most 16) a TLS server at HOST:PORT
 * presents to out, unverified, with conf's connect timeout; who names
 * the command in messages.  0, or -1 (logged).
 */
int	 server_chain(const char *arg, const struct conf *conf, const char *who,
	    STACK_OF(X509) *out);

#endif /* CRLCACHE_FETCHER_PEER_H */
