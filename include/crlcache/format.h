/*
 * crlcache on-disk index format.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * This header is the contract between the writer (the `crlcache` fetcher)
 * and every reader (the `crlcache` CLI and the crlcache.so provider).
 * Change a layout here only together with CRLC_FORMAT_VERSION.
 *
 * FILE
 *	The published index is one LMDB environment in a single file,
 *	STATE_DIR/index.mdb (LMDB opened with MDB_NOSUBDIR).  A published
 *	file is never modified: the fetcher writes a private working
 *	environment (STATE_DIR/work/), then publishes a copy written in key
 *	order with MDB_APPEND into a fresh environment in a temporary file
 *	in the same directory (every page full: about half the size of a
 *	compacting mdb_env_copy2 of the randomly filled working tree),
 *	fsync()s it, rename()s it over index.mdb and fsync()s the directory.  Readers open it with MDB_RDONLY |
 *	MDB_NOLOCK | MDB_NOSUBDIR | MDB_NOTLS, need only read permission
 *	and never create a lock file.  A reader that still has the old file
 *	mapped keeps a consistent old generation until it reopens.
 *
 *	The temporary file is named "." INDEX_NAME ".XXXXXX" (mkostemp); a
 *	run killed while publishing leaves one, and the next writer removes
 *	such names under its lock.  STATE_DIR/work/unpublished exists while
 *	the working environment holds changes the published file lacks (made
 *	before the first change of a run commits, removed after a publish),
 *	so a run killed between ingest and publish has the next one publish.
 *
 *	Readers do not trust the path (crlc_index_open(), <crlcache/index.h>):
 *	index.mdb must be a regular file, not a symbolic link (the directories
 *	above it may be), not writable by group or others, owned by root or
 *	by the owner of STATE_DIR (the crlcache account), and STATE_DIR must
 *	not be writable by group or others unless it is sticky.  The fetcher
 *	publishes it mode 0644 in a STATE_DIR of mode 0755 it owns.  Readers
 *	map the descriptor they checked, sized from the file: the map size in
 *	the meta page (CRLC_MAP_SIZE, the writer's) is ignored by readers.
 *
 * READER CHECKS
 *	LMDB follows the pages of the file it maps without checking them, and
 *	a page past the end of the file faults (SIGBUS) in every program that
 *	verifies a certificate.  Before LMDB is handed the file, a reader
 *	checks from the descriptor, with pread() of the first two pages and
 *	of the main database's root page (lib/lmdbcheck.c), LMDB 0.9's layout
 *	(mdb.c MDB_page / MDB_meta / MDB_db, native byte order):
 *	- the file is a whole number of pages of the size the writer uses on
 *	  this host: the system page size, at most LMDB's MAX_PAGESIZE (32 KiB)
 *	  (a publish writes whole pages with MDB_APPEND, see FILE);
 *	- pages 0 and 1 are meta pages (P_META, magic 0xBEEFC0DE, data version
 *	  1) that both record that page size;
 *	- of the meta page LMDB reads (the higher mm_txnid, page 0 on a tie):
 *	  (mm_last_pg + 1) * page size <= file size, and the free and main
 *	  databases' root page numbers are P_INVALID (empty) or in
 *	  [2, mm_last_pg];
 *	- the main database's root is a leaf page (P_LEAF only) whose page
 *	  number field is its own, whose node offsets and sizes lie inside it,
 *	  and whose named-database records (F_SUBDATA, an MDB_db each) have
 *	  root page numbers P_INVALID or in [2, mm_last_pg]; the published
 *	  file's six (or seven) names always fit one leaf.
 *	Then LMDB opens the file; a reader checks again that the meta page
 *	LMDB read ends within the file (it may have been rewritten in
 *	between) and reads the "format" record.  Refusal: CRLC_E_FORMAT when
 *	it is not an LMDB file of this host's page size, else CRLC_E_CORRUPT;
 *	the provider passes through with one notice, `check` and `status`
 *	report the error.  LMDB itself refuses a page number past mm_last_pg
 *	(MDB_PAGE_NOTFOUND).
 *	Not checked (a damaged page can still crash a reader): the contents
 *	of every other page -- branch and leaf node offsets, key and data
 *	sizes, overflow (F_BIGDATA) lengths -- which LMDB trusts; bounding
 *	them needs a walk of the whole file or a checksum written at publish.
 *	A file rewritten in place (not by rename) changes under the readers'
 *	maps: the provider's periodic re-check (same inode, new size or
 *	mtime) retires the old map, but a lookup during the rewrite or before
 *	that re-check can fault.  Writers only ever rename a new file there.
 *
 * BYTE ORDER
 *	Every integer stored in a key or a value is big-endian (network
 *	order), unsigned unless noted.  Times are signed 64-bit seconds
 *	since the Unix epoch (UTC).  No C struct is ever written to disk:
 *	records are laid out at the byte offsets given below.
 *
 * PUBLISH
 *	(format 3; fetcher/publish.c)  The fetcher writes only its private
 *	working environment STATE_DIR/work/ (LMDB, mode 0700, the NAMED
 *	DATABASES below, CRLC_WORK_FORMAT_VERSION), and publishes from one
 *	read transaction of it, under its writer lock (STATE_DIR/lock):
 *	1. Each "crl" record, in key order, has a CONTENT ID: the first
 *	   CRLC_SCOPE_ID_LEN bytes of SHA-256("crlcache scope 3" || its key
 *	   || its value with fetchedAt (value offsets 24..31) zeroed).  Key
 *	   and value decide every byte of the scope file: its entries are
 *	   those the stored complete and delta CRLs list ("rev").  When
 *	   STATE_DIR/scope/<hex id> exists, a regular file whose header
 *	   carries that id, this format and its own size, it is kept as it
 *	   is: an unchanged CRL is never rewritten, so a publish writes the
 *	   top file and the scope files of the CRLs that changed, whatever
 *	   the size of the rest.  Else the scope's entries are collected from
 *	   "rev" (the records of its scope number under its issuer id and key
 *	   number; a hashed serial form gives its slot's hash), sorted by
 *	   slot, and the file is written to scope/.tmp.XXXXXX (mkostemp, mode
 *	   0644), fsync()ed and renamed to scope/<hex id>.  A scope file, once
 *	   renamed into place, is never changed.
 *	2. The top file: ALIAS, CANON and KEY from "alias", "canon" and
 *	   "key", a SCOPE record per "crl" record (its source with a URL's
 *	   userinfo redacted, "user:pass@" becoming "***@"; the "source"
 *	   database is never published), the generation (the working "meta"
 *	   "generation", incremented by every publish) and the time.  After
 *	   an fsync() of scope/ (a top never names a file a crash could
 *	   lose), it is written to "." INDEX_NAME ".XXXXXX" (mkostemp) in
 *	   STATE_DIR, mode 0644, fsync()ed, renamed over index.mdb, and
 *	   STATE_DIR is fsync()ed.  A reader opens the old top or the new,
 *	   and each names complete files only.
 *	3. Garbage collection: the scope files (names of exactly 32
 *	   lower-case hex digits) that neither the new top nor the top it
 *	   replaced names are removed; the replaced top's ids are read
 *	   (crlc_index_foreach_scope_id) before the rename, and a file of an
 *	   older format names none.  The replaced generation's files stay
 *	   until the next publish: a reader re-checks index.mdb only every
 *	   CRLC_RECHECK_MS (2 s, provider/snapshot.c) and opens scope files
 *	   lazily, at the first lookup that needs one, so it may still open
 *	   them after the rename.  (Two publishes within those 2 s can
 *	   remove a file such a reader has not opened yet: its lookup fails
 *	   and the program passes through with one notice until it re-checks.)
 *	   When the replaced top cannot be read for a reason that may pass
 *	   (memory, permissions), nothing is removed this time.
 *	STATE_DIR/scope/ is made mode 0755 by the account the fetcher runs as,
 *	the owner of STATE_DIR; a publish refuses one another account owns.
 *	A run killed while publishing leaves temporary names, which the next
 *	writer removes under its lock, and at worst scope files no top names,
 *	which the next publish removes.  STATE_DIR/work/unpublished exists
 *	while the working environment holds changes the published files lack
 *	(made before the first change of a run commits, removed after a
 *	publish), so a run killed between ingest and publish has the next
 *	one publish.  An index.mdb that is not a top file of this format
 *	that opens (an LMDB file of formats 1 and 2, which readers refuse,
 *	or a damaged one) is published anew by the next update or import
 *	even when nothing changed.
 *
 * VERSIONS
 *	Format 2 (CRLC_FORMAT_VERSION) identifies an issuer by its name and
 *	its key: two CAs of one name and different keys (a key rollover)
 *	have their own CRL records, CRL numbers and serial namespaces.  It
 *	keeps one revocation record per CRL scope that lists a serial and
 *	stores serials longer than CRLC_SERIAL_MAX octets by their hash.
 *	Format 1 (no "key" database; "crl" and "rev" keys start with the
 *	u32 issuer id alone; "rev" values of CRLC_REV_V1_LEN bytes; "crl"
 *	record version 1) is still read: readers say once that it is old
 *	and answer as format 1 did, by the name alone.  The fetcher migrates
 *	a format 1 working environment when it opens it (store.c): every
 *	CRL record moves to key number 0 of its issuer (signing key not
 *	recorded) and its entries are written anew from the stored CRLs;
 *	`update` and `import` then move each such record to the key of the
 *	configured CA certificate whose key verifies the stored CRL, and
 *	publish format 2.
 *
 * NAMED DATABASES (CRLC_DB_*)
 *
 *   "meta"	key: ASCII name, value: as listed
 *		"format"     u32  CRLC_FORMAT_VERSION of the writer
 *		"generation" u64  incremented by every publish, starts at 1
 *		"created"    i64  time of the publish
 *		"next_issuer_id" u32  the writer's next free issuer id (ids
 *		                      are dense, from 1, never reused)
 *		An issuer id names an issuer Name (by its canonical form); the
 *		keys that signed CRLs under that name are told apart by a key
 *		number (format 2, "key").
 *
 *   "canon"	key: SHA-256 of the canonical form of an issuer Name (32)
 *		value: u32 issuer id
 *		The canonical form is defined, and computed for writer and
 *		readers alike, by crlc_name_canon_hash() (<crlcache/name.h>):
 *		RFC 5280 7.1 / RFC 4518 in the simplified way OpenSSL's
 *		x509_name_canon uses (UTF-8, ASCII case folded, white space
 *		trimmed and folded; the AVAs of a RDN sorted, empty RDNs
 *		dropped; attribute types kept).  Two names with the same
 *		canonical form are the same issuer.
 *
 *   "alias"	key: SHA-256 of an issuer Name's exact DER encoding (32)
 *		value: u32 issuer id
 *		One alias per encoding the fetcher has seen for an issuer:
 *		the CRL's issuer field and the subject of the CA certificate
 *		that signed it.  Readers hash the issuer Name exactly as it
 *		appears in a TBSCertificate and need no canonicalisation on
 *		the hot path.  A certificate whose issuer encoding was never
 *		seen is looked up by its canonical form ("canon") instead.
 *
 *   "key"	(format 2) the keys that signed an issuer's CRLs
 *		key: u32 issuer id || SHA-256 of the signing key: of the
 *		     subjectPublicKey BIT STRING's bits in the signer
 *		     certificate's SubjectPublicKeyInfo (RFC 5280 4.1.2.7): for
 *		     RSA the DER RSAPublicKey (RFC 8017 A.1.1), for DSA the DER
 *		     INTEGER y (RFC 3279 2.3.2), for EdDSA the raw key (RFC
 *		     8410 4); for EC and SM2 keys (id-ecPublicKey) always the
 *		     uncompressed point 04 || X || Y (SEC 1 2.3.3), also when
 *		     the certificate holds it compressed or hybrid (RFC 5480
 *		     2.2): the provider sees a key object, not the
 *		     certificate's bytes (crlc_key_point(), <crlcache/point.h>)
 *		value: u32 key number (1, 2, ... per issuer id, never reused)
 *		       || u8 length L (0..CRLC_SKI_MAX) || L bytes: the signer
 *		       certificate's subjectKeyIdentifier, or the RFC 5280
 *		       4.2.1.2 method (1) SHA-1 of the key when it has none
 *		Key number 0 is never in this database: it holds the CRLs that
 *		answer for any key of the name -- those of a dedicated CRL
 *		signer (keyUsage without keyCertSign: its key issues no
 *		certificate; RFC 5280 6.3.3 (f), PKITS 4.4.19) and those of a
 *		format 1 index whose signer was not found (see VERSIONS).
 *		A reader that knows the key of the certificate's issuer (the
 *		provider: the key verifying the signature) uses its key number,
 *		or key number 0 when the key signed no CRL held.  A reader that
 *		does not know it uses the issuer's only key number, or 0 when
 *		the issuer has none or several.
 *
 *   "rev"	key: CRLC_PREFIX_LEN bytes (u32 issuer id || u32 key number)
 *		|| the serial form: the serial number's content octets exactly
 *		as DER-encoded in the INTEGER (a leading 00 is kept) when
 *		1..CRLC_SERIAL_MAX octets; a longer serial (RFC 5280 4.1.2.2
 *		allows 20 octets; CAs that break it still list them) as
 *		CRLC_SERIAL_HASHED_LEN bytes 00 00 || SHA-256 of its content
 *		octets, which no valid serial is (DER forbids a leading 00
 *		before a byte below 80) -- crlc_serial_key()
 *		value: one or more CRLC_REV_LEN-byte records, one per CRL scope
 *		of this issuer and key that lists the serial, in no order:
 *		  0  u16  scope number of the "crl" record (its offset 2)
 *		  2  i64  revocationDate
 *		 10  u8   reasonCode (RFC 5280 5.3.1), CRLC_REASON_NONE if absent
 *		 11  u8   flags: CRLC_REV_DELTA = listed by a delta CRL
 *		A scope's update or a delta's removeFromCRL removes that scope's
 *		record only: another CRL of the issuer (a complete CRL beside
 *		partitions) that lists the serial keeps it revoked.
 *
 *   "crl"	one record per CRL scope: what one complete CRL (plus at most
 *		one delta CRL applied onto it) says about one issuer.
 *		key: CRLC_PREFIX_LEN bytes (u32 issuer id || u32 key number)
 *		|| scope URI
 *		  The scope URI is empty for a CRL without an
 *		  issuingDistributionPoint distributionPoint (it covers every
 *		  certificate of the issuer).  For a partitioned CRL it is the
 *		  IDP's fullName URI, which RFC 5280 5.2.5 and the CA/B
 *		  Baseline Requirements require to equal, byte for byte, the
 *		  distribution point in the certificates it covers; for an
 *		  IDP without a URI, its directoryName (or its
 *		  nameRelativeToCRLIssuer made full with the CRL issuer's
 *		  Name) as CRLC_SCOPE_DIRNAME "#dirName:" followed by the 64
 *		  lower-case hex digits of the Name's canonical hash
 *		  (<crlcache/dpname.h>; no URI RFC 5280 4.2.1.6 allows starts
 *		  with "#").  Readers try every URI, directoryName and
 *		  relative name of the certificate's distribution points.
 *		value: CRLC_CRL_HDR_LEN header, then variable parts
 *		  0  u8   record version, 2 (1 in format 1: key without the
 *		          key number, offset 2 reserved)
 *		  1  u8   flags (CRLC_CRL_*)
 *		  2  u16  scope number, unique among the records of one issuer
 *		          id and key number, from 1 ("rev" records name it)
 *		  4  u32  number of revoked entries held for this scope
 *		  8  i64  thisUpdate of the complete CRL
 *		 16  i64  nextUpdate of the complete CRL (0: absent)
 *		 24  i64  fetchedAt: when the fetcher accepted it
 *		 32  i64  thisUpdate of the delta CRL (0: none applied)
 *		 40  i64  nextUpdate of the delta CRL (0: none applied)
 *		 48  u8   length of the CRL number (0..CRLC_CRLNUM_MAX)
 *		 49  u8[CRLC_CRLNUM_MAX] CRL number content octets (RFC 5280
 *		          5.2.3), zero padded; of the delta when one is applied
 *		 70  u8   length of the base CRL number (complete CRL's number)
 *		 71  u8[CRLC_CRLNUM_MAX] base CRL number content octets
 *		 92  u32  length U of the source (URL or file name)
 *		 96  u32  length B of the complete CRL's DER
 *		100  u32  length D of the applied delta CRL's DER (0: none)
 *		104  U bytes source, B bytes signed complete CRL (DER exactly as
 *		     received), D bytes signed delta CRL
 *		  The source is written without the userinfo of a URL
 *		  ("user:pass" in http: //user:pass@host/x becomes "***"):
 *		  the file is world-readable.
 *
 *   "source"	one record per configured URL, for `status` and for
 *		conditional GET.  PRIVATE: only the working environment
 *		(STATE_DIR/work/, mode 0700) holds it; a publish leaves it
 *		out, since the published file is world-readable and the URLs
 *		and error texts are not for every local user.  Files
 *		published by earlier writers may still contain it: readers
 *		must neither need it nor mind it.
 *		key: the URL bytes, its userinfo redacted as in "crl" (two
 *		URLs that differ only in their credentials share a record)
 *		value: CRLC_SRC_HDR_LEN header, then variable parts
 *		  0  i64  last attempt
 *		  8  i64  last success (fetched and ingested, or not modified)
 *		 16  u32  last HTTP status (0: none)
 *		 20  u32  length E of the ETag
 *		 24  u32  length M of the Last-Modified value
 *		 28  u32  length R of the last error text (0: none)
 *		 32  u32  length K of the "crl" key it last fed (0: none)
 *		 36  E bytes ETag, M bytes Last-Modified, R bytes error, K bytes key
 *		The error text is redacted like the key.
 */
#ifndef CRLCACHE_FORMAT_H
#define CRLCACHE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CRLC_FORMAT_VERSION	3u
/*
 * The LMDB layout of the fetcher's private working environment
 * (STATE_DIR/work/), the format 2 databases below: a format 3 publish
 * changes only the published files.
 */
#define CRLC_WORK_FORMAT_VERSION 2u
/* Oldest format readers still answer from (see VERSIONS). */
#define CRLC_FORMAT_OLDEST	1u

#define CRLC_DB_META	"meta"
#define CRLC_DB_CANON	"canon"
#define CRLC_DB_ALIAS	"alias"
#define CRLC_DB_REV	"rev"
#define CRLC_DB_KEY	"key"
#define CRLC_DB_CRL	"crl"
#define CRLC_DB_SOURCE	"source"	/* working environment only */
/* maxdbs for every environment: the published file has 6 (format 1: 5). */
#define CRLC_NUM_DBS	7

#define CRLC_META_FORMAT	"format"
#define CRLC_META_GENERATION	"generation"
#define CRLC_META_CREATED	"created"

#define CRLC_HASH_LEN		32	/* SHA-256 */
#define CRLC_ISSUER_ID_LEN	4
#define CRLC_KEY_NO_LEN		4
/* "crl" and "rev" keys start with issuer id || key number (format 2). */
#define CRLC_PREFIX_LEN		(CRLC_ISSUER_ID_LEN + CRLC_KEY_NO_LEN)
/* A subjectKeyIdentifier longer than this is not kept (real ones: 20). */
#define CRLC_SKI_MAX		64

/*
 * RFC 5280 4.1.2.2 allows 20 octets; real CAs have issued 21 with a
 * leading 00 and some private CAs more.  64 leaves room for sloppy CAs
 * while keeping every key far below LMDB's 511-byte limit.
 */
#define CRLC_SERIAL_MAX		64
/* The serial form of a longer serial: 00 00 || SHA-256. */
#define CRLC_SERIAL_HASHED_LEN	(2 + CRLC_HASH_LEN)
/* RFC 5280 5.2.3: CRL numbers are at most 20 octets (21 with a sign 00). */
#define CRLC_CRLNUM_MAX		21
/* LMDB's default compile-time key limit is 511; scope keys must fit. */
#define CRLC_KEY_MAX		511
#define CRLC_SCOPE_URI_MAX	(CRLC_KEY_MAX - CRLC_PREFIX_LEN)
/* Scope numbers are u16: more scopes of one issuer key are refused. */
#define CRLC_SCOPE_NO_MAX	0xffff

#define CRLC_REV_LEN		12
#define CRLC_REV_V1_LEN		10	/* format 1: one record, no scope */
#define CRLC_REV_DELTA		0x01
#define CRLC_REASON_NONE	0xff

#define CRLC_CRL_HDR_LEN	104
#define CRLC_CRL_RECORD_VERSION	2
#define CRLC_CRL_USER_ONLY	0x01	/* IDP onlyContainsUserCerts */
#define CRLC_CRL_CA_ONLY	0x02	/* IDP onlyContainsCACerts */
#define CRLC_CRL_HAS_DELTA	0x04	/* a delta CRL is applied */

#define CRLC_SRC_HDR_LEN	36

/* Format 3 published files (TOP FILE, SCOPE FILES above). */
#define CRLC_TOP_MAGIC		"CRLCTOP\n"
#define CRLC_SCOPE_MAGIC	"CRLCSCP\n"
#define CRLC_MAGIC_LEN		8
#define CRLC_TOP_HDR_LEN	64
#define CRLC_TOP_DESC_LEN	32
/* Descriptors a top file may have: 5 used, room to grow, bounded. */
#define CRLC_TOP_DESC_MAX	16
#define CRLC_TOP_TRAILER_LEN	CRLC_HASH_LEN
/*
 * Largest top file a reader copies into memory.  A top holds no
 * revocation entry and no CRL: about 250 bytes per scope record, so the
 * Web PKI (2,000 CRLs) is well under 1 MiB; 256 MiB leaves room for a
 * million scopes while bounding what a damaged length can make a
 * program allocate.
 */
#define CRLC_TOP_MAX		((uint64_t)256 << 20)
#define CRLC_SEC_ALIAS		1u
#define CRLC_SEC_CANON		2u
#define CRLC_SEC_KEY		3u
#define CRLC_SEC_SCOPE_INDEX	4u
#define CRLC_SEC_SCOPE_DATA	5u
#define CRLC_SEC_REQUIRED	5u	/* ids 1..5 must all be present */
#define CRLC_ISSUER_REC_LEN	(CRLC_HASH_LEN + CRLC_ISSUER_ID_LEN)
/* issuer id || key hash || key number || u8 SKI length || SKI */
#define CRLC_KEY_REC_LEN	(CRLC_ISSUER_ID_LEN + CRLC_HASH_LEN + \
				 CRLC_KEY_NO_LEN + 1 + CRLC_SKI_MAX)
#define CRLC_KEY_SORT_LEN	(CRLC_ISSUER_ID_LEN + CRLC_HASH_LEN)
#define CRLC_SCOPE_INDEX_REC_LEN 4
#define CRLC_SCOPE_REC_HDR_LEN	124
#define CRLC_SCOPE_ID_LEN	16
#define CRLC_SCOPE_HDR_LEN	96
#define CRLC_SCOPE_ENTRY_LEN	34
/* A serial's slot: up to 23 content octets inline, else their hash. */
#define CRLC_SLOT_LEN		24
#define CRLC_SLOT_INLINE	(CRLC_SLOT_LEN - 1)
#define CRLC_SLOT_HASHED	0xff

/*
 * Map size of the writer (the fetcher's working and published
 * environments; LMDB records it in the meta page).  The map is virtual
 * address space only; 8 GiB holds far more than the whole Web PKI's
 * revocations (Mozilla counted about 8 million unexpired ones in 2024, ~40
 * bytes each here, plus the signed CRLs).  A 32-bit process cannot map
 * that: 1 GiB there.  Readers never use it: they map the file's size.
 */
#if SIZE_MAX > 0xffffffffu
#define CRLC_MAP_SIZE		((size_t)8 << 30)
#else
#define CRLC_MAP_SIZE		((size_t)1 << 30)
#endif

/* Big-endian helpers shared by writer and readers. */
static inline void
crlc_put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

static inline uint32_t
crlc_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static inline void
crlc_put_u64(uint8_t *p, uint64_t v)
{
	crlc_put_u32(p, (uint32_t)(v >> 32));
	crlc_put_u32(p + 4, (uint32_t)v);
}

static inline uint64_t
crlc_get_u64(const uint8_t *p)
{
	return (uint64_t)crlc_get_u32(p) << 32 | crlc_get_u32(p + 4);
}

static inline void
crlc_put_i64(uint8_t *p, int64_t v)
{
	crlc_put_u64(p, (uint64_t)v);
}

static inline int64_t
crlc_get_i64(const uint8_t *p)
{
	return (int64_t)crlc_get_u64(p);
}

/*
 * The order of SCOPE records (format 3): memcmp of the 8-byte prefix
 * (issuer id || key number), then of the scope URIs over the shorter
 * length, the shorter first on a tie -- LMDB's default key order, so a
 * walk of the work env's "crl" database yields it.  <0, 0 or >0.
 */
static inline int
crlc_scope_cmp(const uint8_t pa[CRLC_PREFIX_LEN], const uint8_t *ua,
    size_t ula, const uint8_t pb[CRLC_PREFIX_LEN], const uint8_t *ub,
    size_t ulb)
{
	size_t n = ula < ulb ? ula : ulb;
	int c;

	if ((c = memcmp(pa, pb, CRLC_PREFIX_LEN)) != 0)
		return c;
	if (n > 0 && (c = memcmp(ua, ub, n)) != 0)
		return c;
	return ula < ulb ? -1 : ula > ulb;
}

#endif /* CRLCACHE_FORMAT_H */
