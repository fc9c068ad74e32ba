/*
 * The release's version, CRLCACHE_VERSION: the Makefile passes it from
 * the file VERSION at the top of the tree, its one place.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_VERSION_H
#define CRLCACHE_VERSION_H

#ifndef CRLCACHE_VERSION
#error "CRLCACHE_VERSION is not defined: build with the Makefile (-DCRLCACHE_VERSION from the file VERSION)"
#endif

#endif
