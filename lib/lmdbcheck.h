/*
 * What a reader checks of an LMDB file before LMDB maps it.  Internal to
 * the library.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_LIB_LMDBCHECK_H
#define CRLCACHE_LIB_LMDBCHECK_H

#include <stdint.h>

/*
 * Check the published file open on fd, size bytes long, against LMDB
 * 0.9's on-disk layout as format.h "FILE" states it (READER CHECKS),
 * with pread() only: no map.  Returns CRLC_OK, or CRLC_E_FORMAT (not
 * an LMDB file this host writes), CRLC_E_CORRUPT or CRLC_E_NOMEM with a
 * static string in *why.
 */
int	crlc_lmdb_check(int fd, uint64_t size, const char **why);

#endif /* CRLCACHE_LIB_LMDBCHECK_H */
