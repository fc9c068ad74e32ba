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

/*
 *	What the marker holds: the issuers the fetcher can prove, so that
 *	no verification waits for one it cannot (a peer mints any number
 *	of issuer names, and each wait stalls the program).  The file is
 *	written whole under a temporary name and renamed into place, mode
 *	0644:
 *	  0  8   magic CRLC_LEARN_MAGIC "CRLCLRN\n"
 *	  8  u32 version CRLC_LEARN_VERSION (1), big-endian like every
 *	         integer of the index
 *	 12  u32 N, records (at most CRLC_LEARN_MAX)
 *	 16  N records of CRLC_LEARN_REC_LEN (33): SHA-256 of a key
 *	     (format.h "key") || u8 kind; strictly ascending by the key
 *	and nothing after them.  Kinds:
 *	  CRLC_LEARN_ANCHOR: a trust anchor of the fetcher.  A certificate
 *	     it signed, or one signed by a key whose certificate the same
 *	     thread verified under such a key just before, or under a key so
 *	     proven in turn (a chain verified from its anchor down, as
 *	     OpenSSL does), can be proven by the fetcher: a hinted CA
 *	     certificate it proved is an issuer of the hints after it.
 *	  CRLC_LEARN_REFUSED: the key of an issuer met and proven (enrolled)
 *	     of which the index holds no CRL (none could be had): no
 *	     verification waits for it until a run covers it.  Only a
 *	     proven issuer: a hint nobody could prove names nothing, or any
 *	     local user could end the wait for a real CA's name.
 *	Every `update` writes the marker when it starts (the fast run
 *	creates it) and again after it published, so that an issuer it
 *	could not cover is named within seconds.
 *	A marker of another size or layout (one written before this
 *	format: empty) names no issuer: then only an issuer that already
 *	has CRLs in the index is waited for.
 */
#define CRLC_LEARN_MAGIC	"CRLCLRN\n"
#define CRLC_LEARN_MAGIC_LEN	8
#define CRLC_LEARN_VERSION	1u
#define CRLC_LEARN_HDR_LEN	16
#define CRLC_LEARN_REC_LEN	33
/*
 * A system trust store holds about 150 anchors; a private host adds a
 * few; refused issuers are bounded by the hint budgets.  65,536 records
 * (2.1 MB) is far beyond either, and a reader's binary search over them
 * is 16 reads.
 */
#define CRLC_LEARN_MAX		65536u
#define CRLC_LEARN_ANCHOR	1u
#define CRLC_LEARN_REFUSED	2u

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
