/*
 * Reading a file of the state directory as its readers must (the CRLite
 * set and filters, OneCRL): shared by lib/crliteset.c and lib/onecrl.c.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_STATEFILE_H
#define CRLCACHE_STATEFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/*
 * Open name in the directory dfd (whose stat is dir), O_NOFOLLOW |
 * O_NONBLOCK: a regular file of the directory's owner (or root),
 * writable by nobody else.  The fd and *sb, or -1 with errno (EPERM for
 * the wrong owner or mode).
 */
int	crlc_state_open(int dfd, const struct stat *dir, const char *name,
	    struct stat *sb);
/*
 * Read exactly len bytes of fd into buf: -1 when the file ends before or
 * goes on after (it changed since its size was read).
 */
int	crlc_read_exact(int fd, uint8_t *buf, size_t len);
/* A reader's refusal: why (whylen bytes) gets the reason; -1. */
int	crlc_refuse(char *why, size_t whylen, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* The words a refusal says for crlc_state_open()'s errno. */
const char *crlc_state_open_why(int err);

#endif /* CRLCACHE_STATEFILE_H */
