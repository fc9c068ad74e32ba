/*
 * The hint spool: the contract between the provider, which writes hints
 * (provider/hint.c), and the fetcher, which proves them (fetcher/hint.c,
 * fetcher/enrolment.c).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 *	The spool is the directory CRLC_HINTS_DIR beside the index file
 *	(STATE_DIR/hints), mode CRLC_HINTS_MODE (setgid, sticky, rwx-wx-wx),
 *	owned by the index's owner (the crlcache account) and its group,
 *	created by the fetcher: every local user may create a file in it,
 *	nobody but its owner may list it.  A writer uses a spool only when
 *	the index's owner owns it, it is setgid and neither group nor
 *	others may list it; the fetcher uses only a spool it owns.  One file per certificate that a program
 *	verified and that no CRL in the index covered (or whose covering CRL
 *	was past nextUpdate): the certificate's DER, at most CRLC_HINT_MAX
 *	bytes, mode CRLC_HINT_MODE (its group is the spool's, through the
 *	setgid bit: the fetcher reads it, other users do not), under a name
 *	of CRLC_HINT_RAND random octets in lowercase hex followed by
 *	CRLC_HINT_SUFFIX, drawn anew for every hint and created O_EXCL (a
 *	name that exists is never reused or waited for).  The name means
 *	nothing to the reader: the content is the claim, and its proof is a
 *	chain to an anchor.  The file's owner is the writer: the fetcher
 *	bounds what it takes per owner, so that one user's volume never
 *	crowds out another's hints.  Everything in the spool is hostile
 *	input to the fetcher.
 */
#ifndef CRLCACHE_HINT_H
#define CRLCACHE_HINT_H

/*
 *	The learning marker: the file CRLC_LEARNING_NAME beside the index,
 *	a regular file of the index's owner, written by every `update
 *	--hints` run (the fast run the spool's watcher starts) with its
 *	mtime set CRLC_LEARNING_TTL seconds ahead, and pushed ahead again by
 *	every full `update` while it is still in the future.  An mtime in
 *	the future says: a fetcher watches the spool and answers a hint
 *	within seconds.  A host with cron alone never has one; one whose
 *	watcher stopped has it removed by the first full `update` that
 *	finds a hint unanswered for 20 minutes in the spool, or expire.
 *	The provider waits for a hint's answer only while it says so
 *	(provider/learn.c).
 */
#define CRLC_LEARNING_NAME	"learning"
/* Two hourly timer runs: one late or failed run does not end it. */
#define CRLC_LEARNING_TTL	(2 * 3600)

#define CRLC_HINTS_DIR		"hints"
#define CRLC_HINTS_MODE		03733
#define CRLC_HINT_MODE		0640
#define CRLC_HINT_SUFFIX	".crt"
/* Random octets of a name: 128 bits, beyond guessing. */
#define CRLC_HINT_RAND		16
/*
 * A TBSCertificate the provider captures (64 KiB at most), an RSA-16384
 * signature (2 KiB) and the headers around them.
 */
#define CRLC_HINT_MAX		(64 * 1024 + 4096)

#endif /* CRLCACHE_HINT_H */
