/*
 * The refusal spool: the contract between the provider, which notes each
 * certificate it refuses (provider/refusal.c), and `crlcache status
 * --refusals` (fetcher/refusals.c), which shows them to the administrator
 * where no syslog is (a container, a minimal root): most clients print
 * only "certificate signature failure".
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 *	The spool is the directory CRLC_REFUSALS_DIR beside the index file
 *	(STATE_DIR/refusals), mode CRLC_REFUSALS_MODE (setgid, sticky,
 *	rwx-wx-wx), owned by the index's owner and its group, created by the
 *	fetcher after each command that writes the state.  Its rules are the
 *	hint spool's (<crlcache/hint.h>): a writer uses it only when the
 *	index's owner owns it, it is setgid and neither group nor others may
 *	list it; it follows no link and creates every file O_EXCL under a
 *	fresh name of CRLC_REFUSAL_RAND random octets in lowercase hex
 *	followed by CRLC_REFUSAL_SUFFIX, mode CRLC_REFUSAL_MODE (the spool's
 *	group reads it, through the setgid bit; other users do not: a
 *	refusal says which servers a user's programs met).
 *
 *	One file per refusal: one line of printable ASCII, at most
 *	CRLC_REFUSAL_MAX bytes with its newline,
 *	    PROGRAM[PID]: REASON
 *	the reason as the provider logs it.  A process notes at most
 *	CRLC_REFUSAL_BURST refusals per CRLC_REFUSAL_WINDOW seconds: a peer
 *	presenting a revoked certificate in a loop cannot fill the spool
 *	through one program.
 *
 *	The reader trusts nothing in a file but its owner and its time, which
 *	the kernel sets: each line is shown with the uid that wrote it, so
 *	that no user can pass a line off as another's program.  The time is
 *	the file's birth (statx(2) STATX_BTIME), which no call sets, or where
 *	the filesystem keeps none its status change, which no call sets back
 *	or ahead; never its mtime, which its owner sets at will.  It reads at
 *	most CRLC_REFUSALS_SCAN entries, CRLC_REFUSAL_MAX bytes of each, and
 *	shows CRLC_REFUSALS_SHOWN taken in turns across writers, the newest
 *	of each first, so that no user's files hide another's.  The fetcher
 *	removes files born more than CRLC_REFUSALS_KEEP seconds ago.
 */
#ifndef CRLCACHE_REFUSAL_H
#define CRLCACHE_REFUSAL_H

#define CRLC_REFUSALS_DIR	"refusals"
#define CRLC_REFUSALS_MODE	03733
#define CRLC_REFUSAL_MODE	0640
#define CRLC_REFUSAL_SUFFIX	".txt"
/* 128 bits: a name cannot be guessed or taken first. */
#define CRLC_REFUSAL_RAND	16
/* The provider's log line bound (provider/log.c LOG_LINE_MAX). */
#define CRLC_REFUSAL_MAX	1024
/* A burst a person can read; the rest of a loop is the same server. */
#define CRLC_REFUSAL_BURST	5
#define CRLC_REFUSAL_WINDOW	60
/* Entries looked at by one `status --refusals`: bounds its time. */
#define CRLC_REFUSALS_SCAN	10000
/* What an administrator reads on a terminal. */
#define CRLC_REFUSALS_SHOWN	50
/* A week: last week's refusals explain this week's tickets. */
#define CRLC_REFUSALS_KEEP	(7 * 86400)

#endif /* CRLCACHE_REFUSAL_H */
