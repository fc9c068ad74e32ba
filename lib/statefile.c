/*
 * Opening a file of the state directory as its readers must
 * (<crlcache/statefile.h>).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <crlcache/statefile.h>

int
crlc_state_open(int dfd, const struct stat *dir, const char *name,
    struct stat *sb)
{
	int fd;

	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, sb) == -1)
		goto fail;
	if (!S_ISREG(sb->st_mode) || (sb->st_uid != dir->st_uid &&
	    sb->st_uid != 0) || (sb->st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		errno = EPERM;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

int
crlc_read_exact(int fd, uint8_t *buf, size_t len)
{
	uint8_t extra;
	size_t got = 0;
	ssize_t r;

	while (got < len) {
		if ((r = read(fd, buf + got, len - got)) == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	while ((r = read(fd, &extra, 1)) == -1 && errno == EINTR)
		;
	return r == 0 ? 0 : -1;
}

const char *
crlc_state_open_why(int err)
{
	return err == EPERM ? "not a regular file of the directory's owner, "
	    "writable by it alone" : strerror(err);
}

int
crlc_refuse(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -1;
}
