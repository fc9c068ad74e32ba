/*
 * Refusals noted for the administrator: one line per certificate the
 * provider refused, in the refusal spool beside the index, which
 * `crlcache status --refusals` shows.  Most clients print only
 * "certificate signature failure", and the log line that says why goes
 * to syslog, which containers and minimal roots do not have.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The contract is <crlcache/refusal.h>; the spool's rules, and why they
 * are so careful (every program of every user, root's included, writes
 * into a directory every user may write to), are the hint spool's:
 * hint.c opens the directory and creates the file (crlc_spool_open,
 * crlc_spool_create).  Like a hint, a refusal costs nothing on the
 * common path: this runs only when a certificate is refused, at most
 * CRLC_REFUSAL_BURST times per window and process, and any failure
 * leaves nothing, without a word, errno as it was.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <crlcache/refusal.h>

#include "prov.h"

static atomic_llong	 window = -1;	/* the current window's number */
static atomic_uint	 noted;		/* refusals noted in it */

/* Lock free: racing threads may note one or two more, never unbounded. */
static int
admit(void)
{
	struct timespec ts;
	long long w, cur;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	w = (long long)ts.tv_sec / CRLC_REFUSAL_WINDOW;
	cur = atomic_load(&window);
	if (w != cur && atomic_compare_exchange_strong(&window, &cur, w))
		atomic_store(&noted, 0);
	return atomic_fetch_add(&noted, 1) < CRLC_REFUSAL_BURST;
}

void
crlc_refusal_note(const char *index, const char *fmt, ...)
{
	char spool[PATH_MAX], line[CRLC_REFUSAL_MAX];
	char name[CRLC_SPOOL_NAME_MAX];
	const char *slash = strrchr(index, '/');
	size_t len, i;
	va_list ap;
	int saved = errno, dfd = -1, fd, n;

	if (slash == NULL || !admit())
		goto done;
	n = snprintf(spool, sizeof(spool), "%.*s/" CRLC_REFUSALS_DIR,
	    (int)(slash - index), index);
	if (n < 0 || (size_t)n >= sizeof(spool))
		goto done;
	n = snprintf(line, sizeof(line), "%s[%ld]: ", crlc_prog_name(),
	    (long)getpid());
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(line))
		vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	/* One line of printable ASCII, cut to leave room for its newline. */
	len = strnlen(line, sizeof(line) - 2);
	for (i = 0; i < len; i++)
		if (line[i] < 0x20 || line[i] > 0x7e)
			line[i] = '?';
	line[len++] = '\n';
	if ((dfd = crlc_spool_open(spool, index)) == -1 ||
	    (fd = crlc_spool_create(dfd, CRLC_REFUSAL_SUFFIX,
	    CRLC_REFUSAL_MODE, len, name)) == -1)
		goto done;
	if (write(fd, line, len) != (ssize_t)len)
		(void)unlinkat(dfd, name, 0);	/* no half line */
	close(fd);
done:
	if (dfd != -1)
		close(dfd);
	errno = saved;
}
