/*
 * Run the fetcher unprivileged: it parses CRLs from the network.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fetcher.h"

#define CRLCACHE_USER	"crlcache"

/*
 * Started as root: switch to the crlcache user (creating the state
 * directory for it if needed), or refuse unless allow_root.  Returns 0
 * when it is safe to go on.
 */
int
drop_privileges(const char *state_dir, int allow_root)
{
	struct passwd *pw;

	if (geteuid() != 0 || allow_root)
		return 0;
	if ((pw = getpwnam(CRLCACHE_USER)) == NULL) {
		logx(0, "refusing to run as root: create the '" CRLCACHE_USER
		    "' system user (make install does) or pass --allow-root");
		return -1;
	}
	if (mkdir(state_dir, 0755) == 0 &&
	    chown(state_dir, pw->pw_uid, pw->pw_gid) == -1) {
		logx(0, "%s: chown: %s", state_dir, strerror(errno));
		return -1;
	}
	if (setgroups(0, NULL) == -1 || setgid(pw->pw_gid) == -1 ||
	    setuid(pw->pw_uid) == -1) {
		logx(0, "cannot switch to user " CRLCACHE_USER ": %s",
		    strerror(errno));
		return -1;
	}
	if (setuid(0) == 0) {
		logx(0, "dropped privileges could be regained; refusing to run");
		return -1;
	}
	logx(2, "running as user " CRLCACHE_USER);
	return 0;
}
