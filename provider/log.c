/*
 * Log lines of the provider, to syslog or stderr as the configuration
 * says.  Its own file so that every part of the provider (policy.c,
 * snapshot.c, provider.c, store.c) can log without depending on another.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

#include "prov.h"

void
crlc_log(enum crlc_log target, int prio, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	/* Routine news goes to syslog only; stderr belongs to the program. */
	if (target == CRLC_LOG_NONE ||
	    (target == CRLC_LOG_STDERR && prio >= LOG_INFO))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Never openlog(): the identity belongs to the application. */
	if (target == CRLC_LOG_SYSLOG)
		syslog(prio, "crlcache: %s", msg);
	else
		fprintf(stderr, "crlcache: %s\n", msg);
}
