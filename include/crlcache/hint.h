/*
 * The hint spool: the contract between the provider, which writes hints
 * (provider/hint.c), and the fetcher, which proves them (fetcher/hint.c,
 * fetcher/enrolment.c).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 *	The spool is the directory CRLC_HINTS_DIR beside the index file
 *	(STATE_DIR/hints), mode CRLC_HINTS_MODE: every local user may create
 *	a file in it, nobody but its owner (the crlcache account) may list
 *	it.  The fetcher creates it.  One file per certificate that a
 *	program verified and that no CRL in the index covered (or whose
 *	covering CRL was past nextUpdate): the certificate's DER, named by
 *	the lowercase hex SHA-256 of that DER followed by CRLC_HINT_SUFFIX,
 *	at most CRLC_HINT_MAX bytes.  Everything in the spool is hostile
 *	input to the fetcher.
 */
#ifndef CRLCACHE_HINT_H
#define CRLCACHE_HINT_H

#define CRLC_HINTS_DIR		"hints"
#define CRLC_HINTS_MODE		01733
#define CRLC_HINT_SUFFIX	".crt"
/*
 * A TBSCertificate the provider captures (64 KiB at most), an RSA-16384
 * signature (2 KiB) and the headers around them.
 */
#define CRLC_HINT_MAX		(64 * 1024 + 4096)

#endif /* CRLCACHE_HINT_H */
