/*
 * crlcache command-line tool: what privdir.c offers the rest of the
 * fetcher.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_PRIVDIR_H
#define CRLCACHE_FETCHER_PRIVDIR_H

#include "fetcher.h"

/*
 * privdir.c: a directory in which nobody but the caller and root can ever
 * create an entry (TMPDIR, /run/crlcache for root, XDG_RUNTIME_DIR,
 * ~/.cache/crlcache); a new private directory in it; its removal.
 */
int	 privdir_base(char *out, size_t len);
int	 privdir_make(const char *prefix, char *out, size_t len);
void	 privdir_remove(const char *dir);

#endif /* CRLCACHE_FETCHER_PRIVDIR_H */
