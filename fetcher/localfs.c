/*
 * The index must be on local storage: warn when the state directory is not.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <sys/vfs.h>

#include <crlcache/fstype.h>

#include "fetcher.h"
#include "localfs.h"

/*
 * Every program re-checks the index with stat(); on a network filesystem
 * whose server hangs, that blocks its verifying thread.  statfs() of the
 * directory is root's own choice of path, not anything inside it.
 */
void
warn_network_fs(const char *dir)
{
	struct statfs sf;
	const char *name;

	if (statfs(dir, &sf) == -1 ||
	    (name = crlc_fs_remote((unsigned long)sf.f_type)) == NULL)
		return;
	logx(0, "warning: %s is on a %s filesystem; the index must be on "
	    "local storage (a hung server would block every program that "
	    "verifies a certificate)", dir, name);
}
