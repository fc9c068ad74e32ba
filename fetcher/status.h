/*
 * What status.c and status_sources.c share: the output formats and
 * their escaping, and the sections status_sources.c prints.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_STATUS_H
#define CRLCACHE_STATUS_H

#include <stdint.h>
#include <stdio.h>

enum out_format { OUT_TEXT, OUT_JSON, OUT_PROM };

struct state;

/* JSON string body: quote, backslash and control characters escaped. */
void	status_json_str(FILE *f, const char *s, size_t len);
/* Prometheus label value: backslash, quote and newline escaped. */
void	status_prom_str(FILE *f, const char *s, size_t len);

/*
 * The issuer directory's section (status_sources.c): 1 when its last
 * refresh failed, else 0.
 */
int	print_directory(FILE *out, enum out_format fmt, struct state *state);
/* The CRLite data's section, its age against now. */
void	print_crlite(FILE *out, enum out_format fmt, struct state *state,
	    int64_t now);
void	print_onecrl(FILE *out, enum out_format fmt, const char *state_dir,
	    int64_t now);

#endif /* CRLCACHE_STATUS_H */
