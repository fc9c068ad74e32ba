/*
 * Mozilla's content signature over a Remote Settings collection (see
 * contentsig.c for what is checked, and where each rule comes from).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_CONTENTSIG_H
#define CRLCACHE_CONTENTSIG_H

#include <stddef.h>
#include <stdint.h>

#include <crlcache/format.h>

/*
 * The x5u document: Mozilla's chains are three certificates (end-entity,
 * intermediate, root), about 5 KB of PEM; 8 and 64 KiB leave room.
 */
#define CONTENTSIG_MAX_CERTS		8
#define CONTENTSIG_MAX_CERTS_STR	"8"
#define CONTENTSIG_MAX_CHAIN		((size_t)64 << 10)

struct contentsig {
	const char	*signature;	/* base64url of r || s */
	const uint8_t	*chain;		/* the x5u document (PEM) */
	size_t		 chainlen;
	const char	*signer;	/* the name the end-entity must hold */
	uint8_t		 root[CRLC_HASH_LEN];	/* SHA-256 of the root's DER */
	int64_t		 now;		/* validity is judged then */
};

/*
 * 0 when cs signs data[0..len) (the canonical collection, without the
 * "Content-Signature:\0" prefix, which is added here); else -1 and why.
 */
int	 contentsig_verify(const struct contentsig *cs, const uint8_t *data,
	    size_t len, char *err, size_t errlen);

#endif /* CRLCACHE_CONTENTSIG_H */
