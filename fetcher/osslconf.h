/*
 * crlcache command-line tool: what osslconf.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_OSSLCONF_H
#define CRLCACHE_FETCHER_OSSLCONF_H

#include "fetcher.h"

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

#endif /* CRLCACHE_FETCHER_OSSLCONF_H */
