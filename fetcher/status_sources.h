/*
 * The sections of `crlcache status` beside the CRLs (status_sources.c):
 * the issuer directory, the CRLite data and OneCRL.  status.c calls
 * them; they call nothing of status.c (the formats: outfmt.h).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_STATUS_SOURCES_H
#define CRLCACHE_STATUS_SOURCES_H

#include <stdint.h>
#include <stdio.h>

#include "outfmt.h"

struct state;

/* The issuer directory's section: 1 when its last refresh failed, else 0. */
int	print_directory(FILE *out, enum out_format fmt, struct state *st);
/* The CRLite data's section, its age against now. */
void	print_crlite(FILE *out, enum out_format fmt, struct state *st,
	    int64_t now);
/* OneCRL's section, its age against now. */
void	print_onecrl(FILE *out, enum out_format fmt, struct state *st,
	    int64_t now);

#endif /* CRLCACHE_STATUS_SOURCES_H */
