/*
 * LD_PRELOAD shim for t_exec_grandchild: syscall(SYS_pidfd_open, ...)
 * fails with ENOSYS, as on a kernel before 5.3 or under a seccomp filter
 * that refuses it, so that `crlcache exec`'s polling watcher runs.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/syscall.h>

long syscall(long number, ...);

long
syscall(long number, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;
	int i;

	if (number == SYS_pidfd_open) {
		errno = ENOSYS;
		return -1;
	}
	va_start(ap, number);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (real == NULL && (real = (long (*)(long, ...))dlsym(RTLD_NEXT,
	    "syscall")) == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
