/*
 * Unit test of the local-storage check (lib/fstype.c): the network and
 * FUSE filesystems by the magic numbers of <linux/magic.h>, local ones
 * (and the filesystem this test runs on, as statfs(2) reports it) not.
 */
#include <linux/magic.h>
#include <string.h>
#include <sys/vfs.h>

#include "check.h"
#include <crlcache/fstype.h>

int
main(void)
{
	struct statfs sf;

	CHECK(strcmp(crlc_fs_remote(NFS_SUPER_MAGIC), "nfs") == 0);
	CHECK(strcmp(crlc_fs_remote(SMB_SUPER_MAGIC), "smb") == 0);
	CHECK(strcmp(crlc_fs_remote(0xff534d42UL), "cifs") == 0);
	CHECK(strcmp(crlc_fs_remote(V9FS_MAGIC), "9p") == 0);
	CHECK(strcmp(crlc_fs_remote(0x65735546UL), "fuse") == 0);
	CHECK(strcmp(crlc_fs_remote(CODA_SUPER_MAGIC), "coda") == 0);
	CHECK(strcmp(crlc_fs_remote(AFS_SUPER_MAGIC), "afs") == 0);
	CHECK(strcmp(crlc_fs_remote(CEPH_SUPER_MAGIC), "ceph") == 0);
	/* A signed f_type sign-extended to 64 bits is still CIFS. */
	CHECK(strcmp(crlc_fs_remote((unsigned long)(long)(int)0xff534d42U),
	    "cifs") == 0);
	CHECK(crlc_fs_remote(EXT4_SUPER_MAGIC) == NULL);
	CHECK(crlc_fs_remote(XFS_SUPER_MAGIC) == NULL);
	CHECK(crlc_fs_remote(BTRFS_SUPER_MAGIC) == NULL);
	CHECK(crlc_fs_remote(TMPFS_MAGIC) == NULL);
	CHECK(crlc_fs_remote(OVERLAYFS_SUPER_MAGIC) == NULL);
	CHECK(crlc_fs_remote(0) == NULL);
	/* The build directory, a temp directory: local in any sane CI. */
	CHECK(statfs("/proc", &sf) == 0 &&
	    crlc_fs_remote((unsigned long)sf.f_type) == NULL);
	return check_result();
}
