/*
 * The output formats of `crlcache status` and their escaping, used by
 * every file that prints a section (status.c, status_sources.c,
 * refusals.c).  What came from the network or a local user is printed
 * through these, never raw.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_OUTFMT_H
#define CRLCACHE_OUTFMT_H

#include <stddef.h>
#include <stdio.h>

enum out_format { OUT_TEXT, OUT_JSON, OUT_PROM };

/*
 * A JSON string (RFC 8259 7): quote, backslash and control characters
 * escaped.
 */
void	out_json_str(FILE *f, const char *s, size_t len);
/*
 * A Prometheus label value (text exposition format): backslash, quote
 * and newline escaped.
 */
void	out_prom_str(FILE *f, const char *s, size_t len);

#endif /* CRLCACHE_OUTFMT_H */
