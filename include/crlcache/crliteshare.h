/*
 * Sharing a CRLite lookup file (<crlcache/crlite.h> LOOKUP FILE) between
 * processes: one copy that the state's owner cannot change, mapped by
 * every reader, instead of each reader holding the issuers' records it
 * meets in its own memory.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * WHY
 *	The lookup file belongs to the state's owner (the crlcache account),
 *	who could truncate it under a reader's mapping: a fault (SIGBUS) in
 *	every program verifying certificates.  So readers pread(2) it
 *	(<crlcache/crliteset.h>), which costs a system call a filter for an
 *	issuer whose record is too large to hold (Let's Encrypt's: about
 *	2 MB over 90 deltas).  The sharer (`crlcache share`, running as the
 *	state's owner) copies the installed set's lookup file into a memfd,
 *	seals it (memfd_create(2), fcntl(2) F_ADD_SEALS: F_SEAL_SHRINK,
 *	F_SEAL_GROW and F_SEAL_WRITE: no one, its maker included, can change
 *	its size or bytes from then on) and passes it to whoever asks
 *	(unix(7) SCM_RIGHTS).  A reader maps it: pages shared by every
 *	process (charged to the sharer, which wrote them), and a lookup is
 *	memory reads.
 *
 * PROTOCOL
 *	A SOCK_SEQPACKET unix socket (CRLC_SHARE_SOCKET by default; the
 *	provider's crlite_share parameter).  One request a connection: a
 *	packet of CRLC_SHARE_MSG_LEN bytes, the magic CRLC_SHARE_MAGIC then
 *	the u64 checksum of the set the reader opened (big-endian, the set
 *	file's trailer).  The answer: one packet of CRLC_SHARE_MSG_LEN, the
 *	magic then the checksum of the set whose lookup file it passes (0:
 *	none), with that memfd as the packet's only SCM_RIGHTS descriptor.
 *	Anything else is no answer.
 *
 * WHAT A READER ACCEPTS
 *	The memfd is used only when (crlc_share_ask, crlc_share_check):
 *	  - the socket's peer (SO_PEERCRED: who listened on it) is the state
 *	    directory's owner or root: another local user cannot feed a
 *	    lookup file to other users' programs;
 *	  - the answer comes within the wait given (CRLC_SHARE_WAIT_MS for
 *	    the provider), once per process and set: no program waits longer;
 *	  - its seals hold SHRINK, GROW and WRITE (no truncation, so no
 *	    SIGBUS; no change under the reader);
 *	  - it is a regular file exactly as long as the lookup file the
 *	    reader opened, at most CRLC_SHARE_MAX bytes;
 *	  - it has no hole (lseek SEEK_HOLE from 0 is its end): every page
 *	    was written by the sharer and is charged to it, none is
 *	    allocated at a reader's first touch;
 *	  - its head is byte for byte the head the reader read from the
 *	    lookup file (magic, the set's checksum, fanout, logs, coverage).
 *	Then every offset in it is checked as in the file.  Any failure: the
 *	reader reads the lookup file as before (pread), and says why once.
 */
#ifndef CRLCACHE_CRLITESHARE_H
#define CRLCACHE_CRLITESHARE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Where the sharer listens, by default (systemd's crlcache-share.socket). */
#define CRLC_SHARE_SOCKET	"/run/crlcache/lookup.sock"
#define CRLC_SHARE_MAGIC	"CRLCSHR1"
#define CRLC_SHARE_MAGIC_LEN	8
#define CRLC_SHARE_MSG_LEN	16
/*
 * How long a process waits for the sharer's answer, once per set it
 * opens: the sharer answers from the memfd it holds in well under a
 * millisecond; one that must copy a new set first (about 25 MB, some
 * milliseconds) may miss it, and that process reads the file instead.
 */
#define CRLC_SHARE_WAIT_MS	10
/*
 * The largest lookup file shared: Mozilla's full filter and 90 deltas
 * make about 25 MB (2026); what a reader maps is at most this.
 */
#define CRLC_SHARE_MAX		((uint64_t)128 << 20)

/*
 * Ask the sharer listening on sock for the lookup file of the set whose
 * checksum is sum, waiting at most wait_ms in all: the memfd it passed
 * (O_CLOEXEC) when its peer is owner or root and its answer names sum;
 * -1 with why (at most whylen bytes) otherwise.  Never blocks longer.
 */
int	crlc_share_ask(const char *sock, uint64_t sum, uid_t owner,
	    int wait_ms, char *why, size_t whylen);
/*
 * Whether fd may be mapped as a lookup file of len bytes: sealed against
 * shrinking, growing and writing, a regular file of len bytes (at most
 * CRLC_SHARE_MAX), without holes.  0, or -1 with why.
 */
int	crlc_share_check(int fd, uint64_t len, char *why, size_t whylen);

/*
 * THE SHARER'S SIDE (fetcher/share.c; the tests)
 *
 * A sealed memfd holding the len bytes read from fd (from its offset 0),
 * written whole: the memfd, or -1 with why.
 */
int	crlc_share_memfd(int fd, uint64_t len, char *why, size_t whylen);
/*
 * The request on the connected socket cfd, waited for at most wait_ms:
 * 0 and the checksum asked for in *want, or -1 (none, or not one).
 */
int	crlc_share_request(int cfd, int wait_ms, uint64_t *want);
/*
 * Answer it: the memfd mfd (-1: none) of the set whose checksum is sum
 * (0 with none).  0, or -1 when the peer is gone.
 */
int	crlc_share_reply(int cfd, int mfd, uint64_t sum);

#endif /* CRLCACHE_CRLITESHARE_H */
