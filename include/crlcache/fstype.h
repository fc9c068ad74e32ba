/*
 * Whether a filesystem is local storage.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * Every program maps the index and re-checks it with stat(): on a network
 * filesystem whose server stops answering, that call blocks the verifying
 * thread for as long as the mount's retry policy says (forever, for a
 * "hard" NFS mount).  The index must live on local storage; the tool warns
 * when it does not.
 */
#ifndef CRLCACHE_FSTYPE_H
#define CRLCACHE_FSTYPE_H

/*
 * The name of the network or user-space (FUSE) filesystem whose statfs(2)
 * f_type is magic ("nfs", "cifs", "9p", "fuse", ...), or NULL for a local
 * one.  FUSE counts as remote: sshfs, s3fs and their like are FUSE, and
 * a FUSE daemon can stall any call as a hung server does.
 */
const char	*crlc_fs_remote(unsigned long magic);

#endif /* CRLCACHE_FSTYPE_H */
