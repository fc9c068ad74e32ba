/*
 * crlcache command-line tool: what selftest.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_SELFTEST_H
#define CRLCACHE_FETCHER_SELFTEST_H

#include "fetcher.h"

/*
 * selftest.c: 0 when an OpenSSL program run on the candidate openssl.cnf
 * cnf has crlcache active and refuses a certificate revoked in a
 * throwaway index; -1, explained, otherwise.
 */
int	 enable_selftest(const char *cnf);

#endif /* CRLCACHE_FETCHER_SELFTEST_H */
