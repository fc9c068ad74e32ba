/*
 * The CRLite data in the state directory: the contract between the
 * fetcher, which installs verified clubcard filters (fetcher/crlite*.c),
 * and every reader (the provider, `crlcache check` and `status`).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * FILES
 *	STATE_DIR/crlite/ (CRLC_CRLITE_DIR), a directory of the state's
 *	owner, mode 0755, writable by nobody else, holds:
 *	  - filter files, each the exact bytes of one clubcard filter of
 *	    version 3 or 4 (<crlcache/clubcard.h>) as its source published
 *	    it, named by the lowercase hex SHA-256 of those bytes followed
 *	    by CRLC_CRLITE_FILTER_SUFFIX, mode 0644, never modified once
 *	    renamed into place;
 *	  - the set in force, CRLC_CRLITE_SET_NAME, mode 0644, written whole
 *	    to a temporary name and renamed into place after every filter
 *	    it names is durable (fsync of the files and of the directory):
 *	      0  8   magic CRLC_CRLITE_MAGIC "CRLCLITE"
 *	      8  u32 version CRLC_CRLITE_VERSION (1)
 *	     12  u32 N, filters (1 .. CRLC_CRLITE_FILTERS_MAX)
 *	     16  i64 installed: when the fetcher installed the set (s)
 *	     24  u64 newest: the newest SCT timestamp any filter covers
 *	         (ms since the epoch; 0: none): how fresh the data is
 *	     32  u32 source kind (CRLC_CRLITE_SRC_*), 4 zero bytes
 *	     40  N records of CRLC_CRLITE_REC_LEN (48):
 *	           0 32 SHA-256 of the filter (its file's name)
 *	          32 u64 size of the filter in bytes (at most
 *	             CRLC_CLUBCARD_MAX_LEN)
 *	          40 u8  CRLC_CRLITE_FULL or CRLC_CRLITE_DELTA; 7 zero bytes
 *	         the full filter first, then its deltas from oldest to newest,
 *	         each filter named once, their sizes adding up to at most
 *	         CRLC_CRLITE_SET_MAX_BYTES
 *	     last 8: u64 CRLCSUM64 of every byte before it (<crlcache/hash.h>)
 *	  - the lookup file of the set, named by the 16 lowercase hex
 *	    digits of the set file's checksum (its last 8 bytes) followed
 *	    by CRLC_CRLITE_LOOKUP_SUFFIX, mode 0644, written durably before
 *	    the set file: the filters' bytes that a lookup needs, laid out
 *	    by issuer, so that a reader reads one issuer's part of every
 *	    filter at once (LOOKUP FILE below).
 *	  - with the Remote Settings source, CRLC_CRLITE_RS_HELD, mode 0644,
 *	    replaced whole after the set is installed: the last verified
 *	    changeset of the collection, as canonical JSON {"changes":
 *	    [records], "metadata": {"signature", "signatures"}, "timestamp":
 *	    T}.  T, which the content signature covers, is the timestamp in
 *	    force: a changeset older than T is refused (no rollback), one
 *	    of T is the one in force; its records are what an answer to
 *	    _since=T is merged with (the fetcher's rsclient.h).  Lost, the
 *	    collection is asked whole and no older one can be told apart.
 *	Integers are big-endian, as in the index.  Files in the directory
 *	that the set does not name (but its lookup file) are the
 *	fetcher's to remove: a reader that opened the previous set keeps its
 *	open files.
 *
 * LOOKUP FILE
 *	Written by the fetcher from the filters it verified (their size
 *	and SHA-256 against the set's records, their structure by
 *	crlc_clubcard_parse()); big-endian:
 *	   0  8  magic CRLC_CRLITE_LOOKUP_MAGIC "CRLCLKUP"
 *	   8  u32 version CRLC_CRLITE_LOOKUP_VERSION (1)
 *	  12  u32 F, the set's filters, in the set's order
 *	  16  u64 the set file's checksum (its trailer): which set
 *	  24  u32 L, CT logs any filter covers (at most CRLC_CLUBCARD_MAX_LOGS)
 *	  28  u32 U, issuers any filter enrolls
 *	  32  u64 the file's length
 *	  40  u64 0
 *	  48  fanout: 257 u32, entry b the number of issuers whose first
 *	      byte is below b (the last, U)
 *	1076  L log ids of 32 bytes, sorted, each once
 *	      L x F coverage entries of 16 bytes, log by log: u64 low,
 *	      u64 high of filter f's coverage of the log (ms); low 1 and
 *	      high 0 when f does not cover it
 *	      (the head: at most CRLC_CRLITE_LOOKUP_HEAD_MAX bytes)
 *	      U issuer entries of CRLC_CRLITE_LOOKUP_ISSUER_LEN (48), sorted
 *	      by issuer, each once: 32 SHA-256 of the issuer's SPKI, u64
 *	      its record's offset, u32 its length, u32 n, its parts
 *	      the records: n part headers of CRLC_CRLITE_LOOKUP_PART_LEN
 *	      (40), one for each filter that enrolls the issuer, by filter:
 *	         0 u32 filter (its place in the set), 4 u32 approx_m,
 *	         8 u32 exact_m, 12 u8 rank, 13 u8 inverted, 14 u8 the
 *	        approximate rows' shift, 15 u8 the exact column's shift,
 *	        16 u32 Wa, approximate rows, 20 u32 We, exact words,
 *	        24 u32 the part's body's offset in the record,
 *	        28 u32 X, its exceptions' bytes, 32 u32 exceptions, 4 zero
 *	      then the bodies: Wa rows of rank words (u64), word j of row
 *	      i being word floor(approx_offset / 64) + i of the filter's
 *	      approximate column j; We words of the exact column from word
 *	      floor(exact_offset / 64); the exceptions, { u8 len;
 *	      serial[len] } each.  The shifts are the offsets mod 64.  A
 *	      block with approx_m 0 has no rows and no exact words.
 *	A lookup for (issuer, key t) in a part reads row r = shift +
 *	t mod approx_m: rows r / 64 to r / 64 + 4 (CRLC_CLUBCARD_WINDOW), one
 *	range of bytes; the exact words likewise; rows and words past the
 *	part's read as 0, as bits past a column do (<crlcache/clubcard.h>).
 *
 * READERS
 *	Open the set and its lookup file relative to the directory,
 *	O_NOFOLLOW | O_NONBLOCK, as regular files of the directory's owner
 *	(or root) writable by nobody else; check the set (its checksum, each
 *	filter named once, the sizes' total) and the lookup file's head
 *	(the set's checksum, its length the file's) before any is used:
 *	anything else refuses the whole set, with the reason said once (a
 *	reader answers from all the filters of a set or from none: a delta
 *	alone would call good what the full filter revoked).  The rest of
 *	the lookup file is read an issuer at a time (pread into memory of
 *	the reader's own: no mapping, which a truncation by the state's
 *	owner would turn into SIGBUS); every offset and length read is
 *	checked against the file's before it is used, and a read that
 *	comes short (the file truncated or replaced) costs that lookup (no
 *	answer from CRLite), never a fault.  A reader may instead map the
 *	sealed copy of the lookup file that `crlcache share` passes
 *	(<crlcache/crliteshare.h>): no one can truncate or change it, and
 *	its head is checked as the file's.  A filter's answer counts only
 *	for a certificate with an SCT inside its coverage.
 *
 * FRESHNESS
 *	The set's data time is min(newest / 1000, installed): the newest
 *	SCT time its filters cover, which a stale server cannot make
 *	younger by serving old filters again, and never later than the
 *	install (a filter dated in the future vouches for nothing longer).
 *	From CRLC_CRLITE_FRESH_MAX after it (crlc_crlite_stale_at()) the set
 *	is stale: its "good" answers no longer count and every reader
 *	behaves as if no filter covered the certificate (the provider hints
 *	and may wait, the fetcher fetches the CRLs of every enrolled issuer,
 *	`check` falls to the CRLs); its "revoked" answers still count (a
 *	revocation is never undone).  So whatever fails at the source, a
 *	revocation its filters do not show goes unseen at most
 *	CRLC_CRLITE_FRESH_MAX and one `update` run after the data's time.
 *
 * WHAT IS INSTALLED
 *	The fetcher installs a set only when every filter in it is verified
 *	against its source's authentication (Remote Settings: the content
 *	signature of the collection and each attachment's size and SHA-256;
 *	an upki mirror: its manifest over HTTPS; a local upki cache: its
 *	own files, read as they are), parses, and the deltas chain from the
 *	full filter, and its lookup file is written; any failure keeps the
 *	set in force.  A set in force that readers cannot open (its lookup
 *	file missing, as a set of an earlier version's) is installed anew
 *	by the next update.
 */
#ifndef CRLCACHE_CRLITE_H
#define CRLCACHE_CRLITE_H

#define CRLC_CRLITE_DIR			"crlite"
#define CRLC_CRLITE_SET_NAME		"set"
#define CRLC_CRLITE_FILTER_SUFFIX	".filter"
#define CRLC_CRLITE_RS_HELD		"cert-revocations.json"
#define CRLC_CRLITE_MAGIC		"CRLCLITE"
#define CRLC_CRLITE_MAGIC_LEN		8
#define CRLC_CRLITE_VERSION		1u
#define CRLC_CRLITE_HDR_LEN		40
#define CRLC_CRLITE_REC_LEN		48
#define CRLC_CRLITE_TRAILER_LEN		8
/*
 * Filters in a set.  Mozilla's publisher (mozilla/crlite
 * moz_kinto_publisher/main.py, CHANNELS: the "default" channel's
 * max_filter_age_days = 45) publishes a delta at each of its two runs a
 * day and a new full filter only once the current one is 45 days old: a
 * set is one full filter and about 2 x 45 = 90 deltas the day before a
 * new full filter (92 filters in test/t_crlite_cycle.sh's replay, whose
 * new full filter comes on day 46).  128 leaves over 35 for extra runs
 * (a re-run, a late full filter: 17 more days at two a day).  A reader's
 * cost does not grow with it but for 16 bytes a log and filter in the
 * lookup file's head.
 */
#define CRLC_CRLITE_FILTERS_MAX		128u
/*
 * The filters' bytes a set may name: Mozilla's full filter and 90 days
 * of deltas are about 25 MB (2026); ten times that bounds what the
 * fetcher downloads, holds before it installs, and keeps.
 */
#define CRLC_CRLITE_SET_MAX_BYTES	((uint64_t)256 << 20)
/*
 * How long a set vouches "good" after its data's time (see FRESHNESS):
 * Mozilla publishes every 12 hours, each filter covering the CT logs up
 * to some hours before (the delta of run 20260624-1: up to 12:50 UTC
 * that day), and `update` runs hourly: a healthy host's data is at most
 * about a day old (CRLite runs 12 to 36 hours behind the CAs).  A day
 * of slack on top, for a late or missed publication.
 */
#define CRLC_CRLITE_FRESH_MAX		(2 * 86400)
#define CRLC_CRLITE_FULL		0u
#define CRLC_CRLITE_DELTA		1u
#define CRLC_CRLITE_SRC_REMOTE_SETTINGS	1u	/* content-signed collection */
#define CRLC_CRLITE_SRC_MIRROR		2u	/* an upki mirror's manifest */
#define CRLC_CRLITE_SRC_UPKI_DIR	3u	/* a local upki cache */

#define CRLC_CRLITE_LOOKUP_SUFFIX	".lookup"
#define CRLC_CRLITE_LOOKUP_MAGIC	"CRLCLKUP"
#define CRLC_CRLITE_LOOKUP_VERSION	1u
#define CRLC_CRLITE_LOOKUP_HDR_LEN	48
#define CRLC_CRLITE_LOOKUP_FANOUT	257
#define CRLC_CRLITE_LOOKUP_LOGS_AT	(CRLC_CRLITE_LOOKUP_HDR_LEN + \
	4 * CRLC_CRLITE_LOOKUP_FANOUT)
#define CRLC_CRLITE_LOOKUP_LOG_LEN	32
#define CRLC_CRLITE_LOOKUP_COV_LEN	16
#define CRLC_CRLITE_LOOKUP_ISSUER_LEN	48
#define CRLC_CRLITE_LOOKUP_PART_LEN	40
/*
 * The head every reader reads whole at open (fanout, logs, coverage):
 * Mozilla's filters cover about 50 logs, so about 100 KB for 128
 * filters; 512 KiB bounds a reader's memory whatever the file says.
 */
#define CRLC_CRLITE_LOOKUP_HEAD_MAX	((size_t)512 << 10)

#endif /* CRLCACHE_CRLITE_H */
