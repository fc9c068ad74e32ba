/*
 * Shared by the unit tests that read files of the state directory: write
 * one whole with a mode, or exit 2 (the test cannot be run).
 */
#ifndef CRLCACHE_TEST_WFILE_H
#define CRLCACHE_TEST_WFILE_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static void
write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0 ||
	    chmod(path, mode) != 0)
		exit(2);
}

#endif /* CRLCACHE_TEST_WFILE_H */
