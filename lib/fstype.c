/*
 * Network and FUSE filesystems by their statfs(2) f_type.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <stddef.h>

#include <crlcache/fstype.h>

/*
 * The magic numbers of <linux/magic.h> and statfs(2), written out: not
 * every one is in the headers of every supported system.
 */
static const struct {
	unsigned long	 magic;
	const char	*name;
} remote[] = {
	{ 0x6969UL, "nfs" },
	{ 0x517bUL, "smb" },
	{ 0xff534d42UL, "cifs" },
	{ 0xfe534d42UL, "smb2" },
	{ 0x01021997UL, "9p" },
	{ 0x65735546UL, "fuse" },
	{ 0x5346414fUL, "afs" },
	{ 0x6b414653UL, "afs" },	/* kAFS */
	{ 0x73757245UL, "coda" },
	{ 0x00c36400UL, "ceph" },
	{ 0x564cUL, "ncp" },
	{ 0x7461636fUL, "ocfs2" },
	{ 0x01161970UL, "gfs2" },
	{ 0x47504653UL, "gpfs" },
	{ 0x0bd00bd0UL, "lustre" },
	{ 0x013111a8UL, "ibrix" },
};

const char *
crlc_fs_remote(unsigned long magic)
{
	size_t i;

	/* statfs' f_type is signed on some ABIs: compare its low 32 bits. */
	magic &= 0xffffffffUL;
	for (i = 0; i < sizeof(remote) / sizeof(remote[0]); i++)
		if (remote[i].magic == magic)
			return remote[i].name;
	return NULL;
}
