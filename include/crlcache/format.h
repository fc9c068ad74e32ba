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
 *	The published index (format 4) is a TOP file, STATE_DIR/index.mdb (the
 *	name of formats 1 and 2, kept so that enabled openssl.cnf files keep
 *	working; the content is no longer LMDB), PAGE files and one SCOPE file
 *	per CRL scope, all in STATE_DIR/scope/, each named by its content id
 *	(PUBLISH).  The top is small and does not grow with the CRLs held --
 *	issuers, keys, and the pages of each issuer key -- a page file holds
 *	the records of the scopes of one issuer key whose names hash to it,
 *	and each scope file holds one scope's sorted entries and its signed
 *	CRLs.  All are written whole, to a temporary name, and renamed into
 *	place; a published file is never modified (PUBLISH).  A reader that
 *	opened the old top keeps a consistent old generation.
 *	The fetcher's private working environment, STATE_DIR/work/ (mode
 *	0700), is LMDB, format 4 (CRLC_WORK_FORMAT_VERSION, NAMED DATABASES):
 *	no reader ever opens it.
 *
 *	Readers do not trust the path (crlc_index_open(), <crlcache/index.h>):
 *	index.mdb must be a regular file, not a symbolic link (the directories
 *	above it may be), not writable by group or others, owned by root or
 *	by the owner of STATE_DIR (the crlcache account), and STATE_DIR must
 *	not be writable by group or others unless it is sticky.  STATE_DIR/
 *	scope must be a directory, not a symbolic link, owned by root or the
 *	owner of index.mdb, writable by nobody else (sticky or not); a page
 *	or scope file, a regular file not a symbolic link, owned by root or
 *	the owner of scope/, writable by nobody else.  The fetcher publishes files mode
 *	0644 in directories of mode 0755 it owns.
 *
 * TOP FILE (CRLC_TOP_*)
 *	  0  8    magic CRLC_TOP_MAGIC "CRLCTOP\n"
 *	  8  u32  format version, CRLC_FORMAT_VERSION (4)
 *	 12  u32  N, number of section descriptors (1..CRLC_TOP_DESC_MAX)
 *	 16  u64  generation (incremented by every publish, from 1)
 *	 24  i64  created (time of the publish)
 *	 32  u64  file length: equals the file's size
 *	 40  24   zero
 *	 64  N descriptors of CRLC_TOP_DESC_LEN bytes:
 *	      0 u32 section id   4 u32 record size (0: a blob section)
 *	      8 u64 offset      16 u64 length     24 u64 record count
 *	 ... the sections, between the descriptors and the trailer ...
 *	 last CRLC_TOP_TRAILER_LEN (8) bytes: u64 CRLCSUM64 of every byte
 *	      before them (TOP CHECKSUM).
 *	Each section id at most once; ids readers do not know, and ids a
 *	file of its kind does not use, are skipped (room to grow); the four
 *	below are required, with these record sizes (CRLC_TOP_SECTIONS).  A
 *	fixed-size section is exactly count * record size long.
 *	CRLC_SEC_ALIAS (1), records of CRLC_ISSUER_REC_LEN (36): SHA-256 of
 *		an issuer Name's exact DER || u32 issuer id ("alias" below);
 *		strictly ascending by hash (memcmp), ids not 0.
 *	CRLC_SEC_CANON (2), records of 36: SHA-256 of the canonical form
 *		(crlc_name_canon_hash()) || u32 issuer id ("canon"); the same
 *		order.
 *	CRLC_SEC_KEY (3), records of CRLC_KEY_REC_LEN (105): u32 issuer id ||
 *		SHA-256 of the signing key ("key" below) || u32 key number (not
 *		0) || u8 SKI length L (0..CRLC_SKI_MAX) || CRLC_SKI_MAX bytes,
 *		the SKI zero padded; strictly ascending by the first
 *		CRLC_KEY_SORT_LEN (36) bytes.
 *	CRLC_SEC_PAGE (6), records of CRLC_PAGE_REC_LEN (48), the pages of
 *		each issuer key that has CRL scopes ("prefix": issuer id,
 *		key number, key number 0 for CRLs of the name that no key of
 *		it verified):
 *		  0 u32 issuer id (not 0)     4 u32 key number
 *		  8 u32 page number, 0 .. npages - 1
 *		 12 u32 npages: the key's pages, a power of two, at most
 *		        CRLC_PAGES_MAX; the same in all of the key's records
 *		 16 u32 scope records of the page (0: an empty page; it has
 *		        no file and its id is zero), at most 65,536
 *		 20 u32 zero
 *		 24 u64 sum of the entries of those records
 *		 32 u8[CRLC_SCOPE_ID_LEN] the page file's id
 *		strictly ascending by the first CRLC_PAGE_SORT_LEN (12) bytes;
 *		each key's records are pages 0 .. npages - 1, one after the
 *		other.  The page of a scope is PAGE(name) = CRLCSUM64 (TOP
 *		CHECKSUM) of the name, the scope URI without its reasons
 *		suffix (REASONS; empty for the complete CRL; a kind
 *		component is part of the name, SCOPE KINDS), AND (npages -
 *		1) (crlc_scope_page()): a name's records -- for every reason
 *		and its reason partitions -- are on one page.  A writer picks
 *		npages as the smallest power of two with at most
 *		CRLC_PAGE_SCOPES (16) scopes a page on average
 *		(crlc_page_count()); readers take any valid one.
 *
 * PAGE FILES
 *	The scope records of one page of one issuer key, in the TOP FILE's
 *	container: the same header but for
 *	 16  u8[16] id, equal to the file's name and to its PAGE record's
 *	(CRLC_PAGE_ID_OFF; no generation and no time), the magic
 *	CRLC_PAGE_MAGIC "CRLCPAG\n" and these sections (CRLC_PAGE_SECTIONS),
 *	then the checksum trailer (TOP CHECKSUM).  Its id, its content id,
 *	is the first CRLC_SCOPE_ID_LEN bytes of the SHA-256 of every byte
 *	after the id but the trailer, so that an unchanged page keeps its
 *	file.
 *	CRLC_SEC_SCOPE_INDEX (4), records of 4: u32 offset of a SCOPE record
 *		inside SCOPE_DATA (from the section's start), in the records'
 *		key order.
 *	CRLC_SEC_SCOPE_DATA (5), a blob of SCOPE records (CRLC_SCOPE_REC_HDR_LEN
 *		bytes, then the variable parts):
 *		  0 u32 issuer id (not 0)     4 u32 key number
 *		  8 u16 U, scope URI length (0..CRLC_SCOPE_URI_MAX; 0: the
 *		        complete CRL, no IDP distributionPoint)
 *		 10 u8  flags (CRLC_CRL_*; CRLC_CRL_INDIRECT: INDIRECT CRLS)
 *		 11 u8 0
 *		 12 u16 scope number
 *		 14 u16 reasons: the onlySomeReasons mask of the key's
 *		        reasons suffix (REASONS), 0 for a key without one
 *		 16 u32 entries of its scope file
 *		 20 i64 thisUpdate   28 i64 nextUpdate (0: absent)
 *		 36 i64 fetchedAt    44 i64 delta thisUpdate
 *		 52 i64 delta nextUpdate (0: no delta applied)
 *		 60 u8  CRL number length, 61 u8[21] the number (the delta's
 *		        when one is applied), zero padded
 *		 82 u8  base CRL number length, 83 u8[21] the number
 *		104 u8[CRLC_SCOPE_ID_LEN] scope file id
 *		120 u32 S, source length
 *		124 U bytes scope URI (the "crl" key's scope part, its
 *		    reasons suffix included), S bytes source (a URL's
 *		    userinfo redacted)
 *		The KEY of a record is (issuer id, key number, scope URI); the
 *		records are strictly ascending by crlc_scope_cmp(): memcmp of
 *		the 8 bytes (issuer id, key number), then of the URIs over the
 *		shorter length, the shorter first on a tie -- LMDB's default
 *		order of the working "crl" keys.  Every record of a page has
 *		its PAGE record's issuer id and key number and falls on its
 *		page number; their count and entries are its PAGE record's.
 *
 * TOP CHECKSUM (CRLCSUM64, crlc_sum64() in <crlcache/hash.h>)
 *	A 64-bit checksum, not a cryptographic hash: the writer is trusted by
 *	construction (FILE: only root or the crlcache account can write the
 *	file), so the trailer guards against accidents -- a torn write, a
 *	`cp` over index.mdb caught half way, bit rot -- not against a forger,
 *	and it must cost every verifying process little (a SHA-256 of a
 *	2,000-CRL top of format 3 was most of the process's overhead).  Of bytes
 *	D[0..n), all arithmetic modulo 2^64, rotl(x, r) a left rotation:
 *	  h = CRLC_SUM_IV (0x63726c6373756d31, "crlcsum1" big-endian)
 *	  for each 8-byte word w at offset 0, 8, ... of D, read big-endian,
 *	  the last n mod 8 bytes (if any) followed by zero bytes to 8 made
 *	  one more word:
 *	      h = rotl(h ^ (w * CRLC_SUM_K1), CRLC_SUM_ROT) * CRLC_SUM_K2
 *	  h ^= n
 *	  h ^= h >> 33; h *= CRLC_SUM_F1; h ^= h >> 29; h *= CRLC_SUM_F2;
 *	  h ^= h >> 32
 *	with K1 = 0x9e3779b97f4a7c15, ROT = 31, K2 = 0xc2b2ae3d27d4eb4f,
 *	F1 = 0xff51afd7ed558ccd, F2 = 0xc4ceb9fe1a85ec53 (all odd).  Every
 *	step is a bijection of h for a fixed w and of w for a fixed h (xor,
 *	rotation, multiplication by an odd number), and so is the finish: a
 *	change confined to one word -- any number of flipped bits in it --
 *	always changes the sum; other damage goes unseen with a chance of
 *	about 2^-64.  Truncation and extension are refused before it, by the
 *	header's length (READER CHECKS).  The empty D sums to
 *	0xab7ab6fd77a023cc, "abc" to 0x89195f48368d6865 (test/unit/t_hash.c).
 *
 * SCOPE FILES (CRLC_SCOPE_*)
 *	  0  8    magic CRLC_SCOPE_MAGIC "CRLCSCP\n"
 *	  8  u32  CRLC_SCOPE_FILE_VERSION, 3 (unchanged in format 4)
 *	 12  u32  entry record size, CRLC_SCOPE_ENTRY_LEN (34)
 *	 16  u8[16] id, equal to the file's name (32 lower-case hex digits,
 *	          crlc_scope_name()) and to its SCOPE record's
 *	 32  u64  file length: equals the file's size
 *	 40  u64  E, entry count: equals its SCOPE record's entries
 *	 48  u64  entries offset (CRLC_SCOPE_HDR_LEN)
 *	 56  u64  offset of the signed complete CRL   64 u64 its length (> 0)
 *	 72  u64  offset of the signed delta CRL      80 u64 its length (0: none)
 *	 88  8    zero
 *	then E entries strictly ascending by their CRLC_SLOT_LEN-byte slot
 *	(memcmp), then the complete CRL's DER, then the delta's, exactly as
 *	received.  An entry:
 *	  0  u8[24] slot of the serial's INTEGER content octets (RFC 5280
 *	          4.1.2.2, as DER-encoded, a leading 00 kept), length L:
 *	          L <= CRLC_SLOT_INLINE (23): the octets zero padded to 23
 *	          bytes, then u8 L; longer (hostile or broken CAs): the first
 *	          23 bytes of their SHA-256, then CRLC_SLOT_HASHED (0xff),
 *	          which no inline length is (crlc_scope_slot()); an entry
 *	          about another issuer's certificate (INDIRECT CRLS): the
 *	          first 23 bytes of its foreign form's hash, then
 *	          CRLC_SLOT_FOREIGN (0xfe) (crlc_foreign_slot())
 *	 24  i64  revocationDate
 *	 32  u8   reasonCode (RFC 5280 5.3.1), CRLC_REASON_NONE if absent
 *	 33  u8   flags: CRLC_REV_DELTA = listed by the delta CRL
 *	A scope is one complete CRL with at most one delta applied: its
 *	entries are those the pair lists, a delta's removeFromCRL removed.
 *
 * READER CHECKS
 *	(lib/indexopen.c, lib/indexpage.c)  No file is mapped.  The top
 *	file is READ: one private allocation of its size, refused above
 *	CRLC_TOP_MAX, filled with pread() from the descriptor checked above.  Then, before anything else reads it:
 *	magic (else CRLC_E_FORMAT; an LMDB file -- formats 1 and 2 -- with
 *	a detail that says to run `crlcache update`), version (a newer one:
 *	CRLC_E_FORMAT; an older one, format 3: CRLC_E_FORMAT, with a detail
 *	that says to run `crlcache publish`), the length field equal to the
 *	size read, the checksum trailer (TOP CHECKSUM), N and every
 *	descriptor (inside the file between descriptors and trailer, record
 *	sizes as above, lengths exactly count records, each required id
 *	once), every ALIAS, CANON and KEY record in strict order with ids
 *	and SKI lengths in range, the PAGE records in strict order, each
 *	key's pages complete (PAGE), an empty page's id zero.  Any failure
 *	is CRLC_E_CORRUPT.  Why a private copy: whatever happens to
 *	index.mdb afterwards -- a `cp` over it, a truncation, an editor --
 *	changes neither what the checks saw nor what lookups read, so damage
 *	to the top can cost a refusal at open, never a fault in a program
 *	(an LMDB map trusted its pages).  Its open costs the read, one
 *	checksum pass and a linear walk of issuers, keys and pages, none of
 *	which grows with the CRLs of a key: the format 3 top of 16,000 CRLs
 *	was 3.2 MB, and every `openssl verify` read and checked it whole.
 *	A page file is read, the same way, by the first lookup that needs
 *	one of its scopes -- openat() in the scope directory kept open since
 *	crlc_index_open(), O_NOFOLLOW | O_NONBLOCK, the trust checks of FILE
 *	on its fstat, at most CRLC_TOP_MAX bytes into a private allocation
 *	-- and checked whole before it is used: magic, version, id equal to
 *	its PAGE record's, length, checksum trailer, descriptors, every
 *	SCOPE_INDEX offset inside SCOPE_DATA with its record, URI (<=
 *	CRLC_SCOPE_URI_MAX), numbers (<= CRLC_CRLNUM_MAX) and source inside
 *	it, its reasons field equal to its key's (0 without a suffix; else
 *	the suffix's mask, not 0, no bit outside CRLC_REASONS_ALL: REASONS),
 *	the records in strict key order, each of the page's issuer key and
 *	falling on its page, their count and entries those of the PAGE
 *	record.  A page file that fails is not used, and is tried again by
 *	the next lookup that needs it.
 *	A scope file is never mapped: its owner, the crlcache account, could
 *	truncate a mapping under a program (SIGBUS).  The first lookup that
 *	needs it opens it as a page file and reads its header with pread();
 *	the header is checked: magic, version, entry size, id, length =
 *	size, E = the SCOPE record's entries, the entries and both CRLs
 *	inside the file.  Its entries are read into private memory a block
 *	of 120 entries (4,080 bytes, lib/index_int.h SCOPE_BLOCK_ENTRIES) at
 *	a time, by the first lookup whose binary search visits the block, and
 *	kept until the index is closed: a lookup reads about log2(E / 120)
 *	blocks the first time, and none once held -- no system call per
 *	lookup, and no more memory than the blocks visited and a pointer a
 *	block (a 1,000,000-entry scope is 34 MB: 8,334 blocks, 67 kB of
 *	pointers, and one lookup visits 14 blocks, 57 kB).  A block
 *	is read from the file opened again (the checks of FILE, the size of
 *	its header), so a file truncated since costs that lookup (a short
 *	read), never a fault; blocks already held keep answering.  The CRLs
 *	are read the same way by a walk (crlc_index_foreach_crl()) into a
 *	buffer the walk owns.  Every access is bounded by the lengths
 *	checked at the header; the entries' order is not checked (a disorder
 *	only misleads the binary search of that one scope, within bounds),
 *	and no checksum covers a scope file's entries or CRLs: damage inside
 *	them can change that scope's answers (a serial's slot flipped is no
 *	longer found), never make a read leave the file.  A missing,
 *	untrusted or damaged page or scope file costs the lookups that need
 *	it: they fail, and the provider passes through with its one notice,
 *	`check` reports the error; a revocation listed by another covering
 *	scope still counts.
 *
 * REASONS
 *	(<crlcache/reasons.h>, lib/reasons.c)  A CRL may answer for some
 *	revocation reasons only: its IDP's onlySomeReasons (RFC 5280 5.2.5),
 *	a ReasonFlags BIT STRING (4.2.1.13) read as strict DER.  Its mask
 *	holds ReasonFlags bit i as 1 << i for keyCompromise (1) ..
 *	aACompromise (8), CRLC_REASONS_ALL (0x01fe) being every reason; bit
 *	0 (unused) and unknown bits add no reason, and a CRL left with no
 *	reason is refused.  Its scope key (the "crl" key, the SCOPE record's
 *	key) is its distribution point name (and kind component, SCOPE
 *	KINDS) followed by the SUFFIX 00 || u16
 *	mask when the mask is not CRLC_REASONS_ALL; a CRL for every reason
 *	(no onlySomeReasons, or one naming them all) has no suffix and its
 *	key is that of format 3 before reasons: the format version did not
 *	change.  No scope name holds a 00 byte (the fetcher takes no IDP
 *	URI with one, directoryName scopes are text; a certificate's URI
 *	with a 00 where a suffix would start matches nothing), so
 *	a name's records -- for every reason, then its reason partitions --
 *	are adjacent in key order.  A delta CRL is applied onto the base of
 *	its own key: it has its base's reasons (RFC 5280 5.2.4).
 *	Lookup (RFC 5280 6.3.3 (d), (j)-(k)): every record of a name (under
 *	each kind that may cover the certificate, SCOPE KINDS) that
 *	covers the certificate (the complete CRL's, each distribution point
 *	name's, at most 255 per name and 64 in all, else unknown; an index
 *	with no reason partition walks one record per name) adds an interim
 *	mask, the record's reasons AND those of the certificate's
 *	distribution point
 *	(4.2.1.13 reasons; none named: every reason; the complete CRL: every
 *	reason); an empty interim mask does not cover.  A serial any covering
 *	record lists is revoked; else good (or stale) only when the interim
 *	masks together make CRLC_REASONS_ALL, and unknown otherwise.  The
 *	times reported, and staleness, are those of the first record that
 *	covers every reason alone, else of the record whose nextUpdate comes
 *	first.
 *
 * SCOPE KINDS
 *	(RFC 5280 5.2.5, 5.2.3.)  What a CRL covers is set by its IDP name,
 *	onlySomeReasons (REASONS) and kind, the CRLC_CRL_KIND of its flags:
 *	onlyContainsUserCerts, onlyContainsCACerts, indirectCRL.  Each
 *	combination is a scope of its own, with its own CRL numbers: were a
 *	CA-only CRL to take the place of the complete one (a genuine one served
 *	at the complete CRL's URL), every end-entity certificate would be
 *	unknown and the complete CRL refused as a rollback.  A scope key is
 *	the name; then, for a kind other than 0, the kind component of
 *	CRLC_SCOPE_KIND_LEN bytes, 00 || CRLC_SCOPE_KIND_TAG | kind
 *	(crlc_scope_put_kind(), <crlcache/dpname.h>); then the reasons suffix.
 *	Read from the end: a 00 three bytes before it starts the reasons
 *	suffix, then a 00 two bytes before it and a byte with the tag the kind
 *	(no name holds a 00).  The record's flags carry the same kind (the
 *	writer refuses a key whose kind is not its record's).  The tag sorts
 *	a kind after the bare name's reason partitions (their first mask byte
 *	is at most 0x01), and for PAGE a kind's records are a name of their
 *	own (the key without its reasons suffix is hashed).
 *	The rollback rule (fetcher/scope.c admissible(): CRL number, then
 *	thisUpdate) compares a CRL with the one held under its own key only;
 *	a delta CRL applies onto the base of its own key (5.2.4).
 *	Lookup: a reader walks each name (REASONS) under four kinds: 0, the
 *	certificate's role (CRLC_CRL_CA_ONLY for a CA certificate, else
 *	CRLC_CRL_USER_ONLY), CRLC_CRL_INDIRECT, and that with the role -- four
 *	searches, on one page or up to four; each record's flags still decide
 *	(6.3.3 (b)(2)(ii), (iii)), and a cRLIssuer's lookup takes
 *	CRLC_CRL_INDIRECT records only.
 *	onlyContainsAttributeCerts: such a CRL answers for attribute
 *	certificates only, which no reader looks up (5.2.5: conforming CRL
 *	issuers set it FALSE; 6.3.3 (b)(2)(iv): it does not serve to validate
 *	a public-key certificate).  The fetcher refuses it, touching no scope.
 *	Earlier format 4 writers keyed a scope by name and reasons only, its
 *	kind a flag.  No format version changed: no layout did, and each side
 *	reads the other.  A reader finds such a record under kind 0 and goes by
 *	its flags; a reader that predates kinds reads a key with one as another
 *	name (with a reasons suffix, another name's reason partition), whose
 *	page and reasons field agree with that reading, and never matches it:
 *	it answers as if that CRL were not held until it runs this version.
 *	Before the fetcher compares a CRL with anything, it moves a record of
 *	a kind held under the bare key of the CRL's name and reasons to its
 *	kind's key (value and "crlhash"; its scope number, so its "rev"
 *	records, stay), or removes it with its entries when that key holds a
 *	CRL already (fetcher/scope.c settle_unkinded()); the next publish
 *	writes it anew.  test/t_scope_legacy.sh makes such a state (the
 *	earlier keys byte for byte) and checks the index after the move
 *	against one built afresh.
 *
 * BYTE ORDER
 *	Every integer stored in a key or a value is big-endian (network
 *	order), unsigned unless noted.  Times are signed 64-bit seconds
 *	since the Unix epoch (UTC).  No C struct is ever written to disk:
 *	records are laid out at the byte offsets given below.
 *
 * PUBLISH
 *	(format 4; fetcher/publish.c)  The fetcher writes only its private
 *	working environment STATE_DIR/work/ (LMDB, mode 0700, the NAMED
 *	DATABASES below, CRLC_WORK_FORMAT_VERSION), and publishes from one
 *	read transaction of it, under its writer lock (STATE_DIR/lock):
 *	1. Each "crl" record, in key order, has a CONTENT ID: the first
 *	   CRLC_SCOPE_ID_LEN bytes of SHA-256("crlcache scope 3b" || its key
 *	   || its CRLC_CRL_HDR_LEN-byte header with fetchedAt (offsets
 *	   24..31) zeroed || the SHA-256 of the rest of its value, which
 *	   "crlhash" holds).  So a publish reads the 104-byte headers, not
 *	   the stored CRLs (300 MB at Web PKI scale), and hashes
 *	   a CRL only when it is ingested.  (Format 3 writers before work
 *	   format 3 hashed the whole value under the tag "crlcache scope 3":
 *	   their scope files are written once more under the new ids, and
 *	   the old ones collected.)  Key
 *	   and value decide every byte of the scope file: its entries are
 *	   those the stored complete and delta CRLs list ("rev").  When
 *	   STATE_DIR/scope/<hex id> exists, a regular file whose header
 *	   carries that id, this format and its own size, it is kept as it
 *	   is: an unchanged CRL is never rewritten, so a publish writes the
 *	   top file and the scope files of the CRLs that changed, whatever
 *	   the size of the rest.  Else the scope's entries are taken from
 *	   "rev" (the range of its issuer id, key number and scope number,
 *	   which holds that scope's records only; a hashed serial form gives
 *	   its slot's hash) and the file is written to scope/.tmp.XXXXXX
 *	   (six random letters or digits, as mkostemp's, made relative to
 *	   the directory's descriptor; mode 0644) as they come: in "rev" key
 *	   order the serials
 *	   of up to
 *	   CRLC_SLOT_INLINE octets already come in slot order (zero padding
 *	   then the length orders as LMDB's shorter-first comparison does),
 *	   so no array of them is held; a scope with a longer serial (a
 *	   hashed slot) has its entries collected again and sorted by slot.
 *	   The file is fsync()ed and renamed to scope/<hex id>.  A scope file, once
 *	   renamed into place, is never changed.
 *	2. The pages: when the walk has read the last "crl" record of an
 *	   issuer key, the SCOPE records of its scopes (each source with a
 *	   URL's userinfo redacted, "user:pass@" becoming "***@"; the
 *	   "source" database is never published) go to the key's pages
 *	   (PAGE), and each page file to scope/ like a scope file: kept when
 *	   scope/<hex id> exists as a regular file of its length whose
 *	   header carries this format and that id, else written to a
 *	   temporary name, fsync()ed and renamed.  A changed CRL changes its
 *	   SCOPE record, so the page it is on, and no other: a publish
 *	   writes those pages, about 16 records each, not a record per CRL
 *	   held.
 *	3. The top file: ALIAS, CANON and KEY from "alias", "canon" and
 *	   "key", the PAGE records, the generation (the working "meta"
 *	   "generation", incremented by every publish) and the time.  After
 *	   an fsync() of scope/ (a top never names a file a crash could
 *	   lose), it is written to "." INDEX_NAME ".XXXXXX" (as above) in
 *	   STATE_DIR, mode 0644, fsync()ed, renamed over index.mdb, and
 *	   STATE_DIR is fsync()ed.  A reader opens the old top or the new,
 *	   and each names complete files only.
 *	4. Garbage collection: the page and scope files (names of exactly
 *	   32 lower-case hex digits) that neither the new top nor the top it
 *	   replaced names are removed; the replaced top's ids are read
 *	   (crlc_index_foreach_file_id: its pages, and the scopes they list)
 *	   before the rename, and a file of an older format names none.  The
 *	   replaced generation's files stay until the next publish: a reader
 *	   re-checks index.mdb only every CRLC_RECHECK_MS (2 s,
 *	   provider/snapshot.c) and opens page and scope files lazily, at
 *	   the first lookup that needs one, so it may still open them after
 *	   the rename.  (Two publishes within those 2 s can
 *	   remove a file such a reader has not opened yet: its lookup fails
 *	   and the program passes through with one notice until it re-checks.)
 *	   When the replaced top or one of its pages cannot be read for a
 *	   reason that may pass (memory, permissions), nothing is removed
 *	   this time.
 *	STATE_DIR/scope/ is made mode 0755 by the account the fetcher runs as,
 *	the owner of STATE_DIR; a publish refuses one another account owns.
 *	A run killed while publishing leaves temporary names, which the next
 *	writer removes under its lock, and at worst page and scope files no
 *	top names, which the next publish removes.  STATE_DIR/work/unpublished exists
 *	while the working environment holds changes the published files lack
 *	(made before the first change of a run commits, removed after a
 *	publish), so a run killed between ingest and publish has the next
 *	one publish.  An index.mdb that is not a top file of this format
 *	that opens (an LMDB file of formats 1 and 2, which readers refuse,
 *	or a damaged one) is published anew by the next update or import
 *	even when nothing changed.
 *
 * INDIRECT CRLS
 *	(RFC 5280 5.2.5 indirectCRL, 5.3.3 certificateIssuer, 4.2.1.13
 *	cRLIssuer.)  A CRL whose issuingDistributionPoint asserts indirectCRL
 *	is stored like any other, under its issuer's id and key number, a
 *	scope of its own kind (SCOPE KINDS), with
 *	CRLC_CRL_INDIRECT in its flags ("crl" offset 1, SCOPE record offset
 *	10; `crlcache status` kind "+indirect").  Its entries before the
 *	first certificateIssuer, and those a certificateIssuer naming the CRL
 *	issuer itself governs (5.3.3: it applies to its entry and all that
 *	follow up to the next one), are about the CRL issuer's own
 *	certificates: ordinary "rev" keys and slots.  An entry about another
 *	issuer's certificate is keyed apart, so that it never matches a
 *	lookup of the CRL issuer's own serial: "rev" serial form 00 01 ||
 *	SHA-256(canonical hash of the certificate issuer's Name (the
 *	certificateIssuer's one directoryName) || the serial's content
 *	octets) (CRLC_FOREIGN_FORM_LEN bytes, crlc_foreign_form(); no valid
 *	serial starts 00 01, DER forbids it), its scope file slot the first
 *	23 bytes of that hash then CRLC_SLOT_FOREIGN.  The writer refuses a
 *	certificateIssuer in a CRL without indirectCRL, one that is not
 *	critical, one without a directoryName or with several, more than 255
 *	distinct certificate issuers in one CRL, and a delta CRL whose
 *	indirectCRL differs from its base's.  An IDP with no URI and several
 *	directoryNames is stored once under each, up to 8 (one "crl" record
 *	and scope each; PKITS 4.14.34).
 *	Readers: a certificate's distribution point with a cRLIssuer is
 *	served only by that issuer's indirect CRLs (RFC 5280 6.3.3 (b)(1)):
 *	its names never match the certificate issuer's own scopes, and a
 *	certificate all of whose distribution points have a cRLIssuer is not
 *	covered by its issuer's complete CRL either.  The CRL issuer is the
 *	cRLIssuer's first directoryName, found by name (ALIAS, else CANON)
 *	with its only key number (or 0, a dedicated CRL signer); a name with
 *	several keys is not used (unknown: nothing says which key signs
 *	those CRLs).  Its scopes that cover are those with CRLC_CRL_INDIRECT
 *	and IDP flags that admit the certificate: the complete one (no IDP
 *	name), and the one of each distribution point name (a
 *	nameRelativeToCRLIssuer made full with the cRLIssuer's Name); the
 *	certificate is looked up there by its foreign slot.  No format
 *	version change: a reader that predates this ignores the flag, so an
 *	indirect CRL covers, for it, the CRL issuer's own certificates only
 *	(correct), and no lookup of it can meet a foreign slot (0xfe is no
 *	slot it computes) -- it answers certificates of other issuers as it
 *	did before the indirect CRL was stored.
 *
 * VERSIONS
 *	Format 4 (CRLC_FORMAT_VERSION, and CRLC_WORK_FORMAT_VERSION for the
 *	working environment) is the first released one, that of crlcache
 *	1.0.0; no release wrote an earlier one, and nothing converts one.
 *	(Kind components of scope keys came within format 4: no layout
 *	changed, and the transition is SCOPE KINDS'.)
 *	Readers open nothing else: a top of another version, or a file
 *	that is no top (such as an LMDB file under the same name), is
 *	CRLC_E_FORMAT, and the next publish, update or import writes format
 *	4 from the working environment (PUBLISH).  A working environment
 *	whose "meta" "format" is not CRLC_WORK_FORMAT_VERSION is refused by
 *	every writer (fetcher/store.c), which says to run `crlcache reset
 *	--all`: that empties it, and the next update fills it again.
 *	A release that changes either format must bring, in the same
 *	change: the new version number here; a migration from format 4
 *	that the fetcher runs once, in the transaction that stamps the new
 *	version (or resumably, when it writes more than one transaction may
 *	hold), so that an upgrade keeps every CRL and rollback lock; a test
 *	that builds a state directory of the older format with the older
 *	release's code or data and checks the index after the migration
 *	against one built afresh; and the readers' handling of the older
 *	top while the package upgrade runs `crlcache publish`.
 *
 * NAMED DATABASES (CRLC_DB_*)
 *	Of the working environment STATE_DIR/work/ (LMDB, format 4), which
 *	only the fetcher opens; a publish derives the files above from them.
 *
 *   "meta"	key: ASCII name, value: as listed
 *		"format"     u32  CRLC_WORK_FORMAT_VERSION of the writer
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
 *		certificate; RFC 5280 6.3.3 (f), PKITS 4.4.19).
 *		A reader that knows the key of the certificate's issuer (the
 *		provider: the key verifying the signature) uses its key number,
 *		or key number 0 when the key signed no CRL held.  A reader that
 *		does not know it uses the issuer's only key number, or 0 when
 *		the issuer has none or several.
 *
 *   "rev"	(work format 4) one record per serial a CRL scope lists
 *		key: CRLC_PREFIX_LEN bytes (u32 issuer id || u32 key number)
 *		|| u16 scope number of the "crl" record (its offset 2) || the
 *		serial form: the serial number's content octets exactly
 *		as DER-encoded in the INTEGER (a leading 00 is kept) when
 *		1..CRLC_SERIAL_MAX octets; a longer serial (RFC 5280 4.1.2.2
 *		allows 20 octets; CAs that break it still list them) as
 *		CRLC_SERIAL_HASHED_LEN bytes 00 00 || SHA-256 of its content
 *		octets, which no valid serial is (DER forbids a leading 00
 *		before a byte below 80) -- crlc_serial_key(); a serial of
 *		another issuer listed by an indirect CRL as 00 01 || SHA-256
 *		(INDIRECT CRLS)
 *		value: CRLC_REV_LEN bytes
 *		  0  i64  revocationDate
 *		  8  u8   reasonCode (RFC 5280 5.3.1), CRLC_REASON_NONE if absent
 *		  9  u8   flags: CRLC_REV_DELTA = listed by a delta CRL
 *		A scope's records are one range (CRLC_REV_SCOPE_LEN bytes of
 *		key in common): an update of the scope replaces that range and
 *		dirties the pages of that scope only, and a publish of the
 *		scope reads that range only.  Another CRL of the issuer that
 *		lists the serial (a complete CRL beside partitions) has its
 *		own record, which a delta's removeFromCRL in this scope leaves.
 *		(Work formats 2 and 3: the key without the scope number, the
 *		value one 12-byte record -- u16 scope number, then the above --
 *		per scope that lists the serial.)
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
 *		  A CRL whose IDP asserts onlyContainsUserCerts,
 *		  onlyContainsCACerts or indirectCRL has that name (empty
 *		  or not) followed by a kind component (SCOPE KINDS).
 *		  A CRL whose IDP has onlySomeReasons (RFC 5280 5.2.5)
 *		  other than every reason has that name (and kind)
 *		  followed by a reasons suffix (REASONS).
 *		value: CRLC_CRL_HDR_LEN header, then variable parts
 *		  0  u8   record version, 2
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
 *   "crlhash"	(work format 3) one record per "crl" record, written and
 *		removed with it (in the same transaction)
 *		key: the "crl" key
 *		value: SHA-256 (CRLC_HASH_LEN bytes) of the "crl" value from
 *		offset CRLC_CRL_HDR_LEN: source || complete CRL || delta CRL
 *		A publish finding none (or one of another length) hashes the
 *		value itself.
 *
 *   "source"	one record per source URL the last full run listed (a
 *		CRL URL, the CRLite index, OneCRL's changeset), for `status`
 *		and for conditional GET.  A full run that read everything its
 *		list is made from removes the records of the URLs it no
 *		longer lists, but a pruned proposed URL's (its history spaces
 *		its retries): what the configuration no longer names counts
 *		nowhere, the CRLs it fed stay until they expire.  PRIVATE: only the working environment
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
 *		then, if the last answer said how long it stays fresh (RFC
 *		9111 4.2) or the history follows, CRLC_SRC_FRESH_LEN bytes:
 *		i64 fresh until (0: not said).  Its absence (records of
 *		earlier writers) means not said.
 *		then the history, CRLC_SRC_HIST_LEN bytes, which writers
 *		since the URL's origin was recorded always add:
 *		  0  u8   origin: where the run that last asked had the URL
 *		          from: CRLC_SRC_ORIGIN_CONFIGURED (1, the
 *		          configuration: a url line, a configured CA
 *		          certificate, a CCADB file), _DIRECTORY (2, the
 *		          issuer directory or a downloaded CCADB export),
 *		          _PROPOSED (3, only the CRL distribution points of
 *		          certificates hints or `crlcache enroll` proved);
 *		          0 is unknown (no history: earlier writers)
 *		  1  u8[3] zero
 *		  4  u32  consecutive failed fetches (0 after a success)
 *		  8  i64  the first of them (0: none)
 *		A record without it (earlier writers) has origin unknown and
 *		no failure counted.  Whether the URL ever served a valid CRL
 *		is last success not 0: it is set only by a CRL ingested, or
 *		by a 304 to validators that only an ingested CRL gave.
 *		The error text is redacted like the key.
 */
#ifndef CRLCACHE_FORMAT_H
#define CRLCACHE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CRLC_FORMAT_VERSION	4u
/* The version scope files carry: unchanged since format 3. */
#define CRLC_SCOPE_FILE_VERSION	3u
/*
 * The LMDB layout of the fetcher's private working environment
 * (STATE_DIR/work/), the format 4 databases below ("rev" by scope, format 3
 * with "crlhash"): CRLC_FORMAT_VERSION is that of the published files
 * only.
 */
#define CRLC_WORK_FORMAT_VERSION 4u

#define CRLC_DB_META	"meta"
#define CRLC_DB_CANON	"canon"
#define CRLC_DB_ALIAS	"alias"
#define CRLC_DB_REV	"rev"
#define CRLC_DB_KEY	"key"
#define CRLC_DB_CRL	"crl"
#define CRLC_DB_SOURCE	"source"	/* working environment only */
#define CRLC_DB_CRLHASH	"crlhash"	/* working environment only */
/* maxdbs of the working environment (8 names). */
#define CRLC_NUM_DBS	8

#define CRLC_META_FORMAT	"format"
#define CRLC_META_GENERATION	"generation"
#define CRLC_META_CREATED	"created"
/*
 * Working environment only, and only while a large CRL is ingested in
 * several transactions: u16 scope number || the scope's "crl" key.  Its
 * "rev" records may then be half written; the fetcher writes them anew
 * from the "crl" record before it does anything else, and never
 * publishes while the record exists.
 */
#define CRLC_META_PENDING	"ingest_pending"

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
/* The form of another issuer's certificate (INDIRECT CRLS): 00 01 || hash. */
#define CRLC_FOREIGN_FORM_LEN	(2 + CRLC_HASH_LEN)
/* RFC 5280 5.2.3: CRL numbers are at most 20 octets (21 with a sign 00). */
#define CRLC_CRLNUM_MAX		21
/* LMDB's default compile-time key limit is 511; scope keys must fit. */
#define CRLC_KEY_MAX		511
#define CRLC_SCOPE_URI_MAX	(CRLC_KEY_MAX - CRLC_PREFIX_LEN)
/* Scope numbers are u16: more scopes of one issuer key are refused. */
#define CRLC_SCOPE_NO_MAX	0xffff

/* "rev" (work format 4): the key's prefix and scope number, its value. */
#define CRLC_SCOPE_NO_LEN	2
#define CRLC_REV_SCOPE_LEN	(CRLC_PREFIX_LEN + CRLC_SCOPE_NO_LEN)
#define CRLC_REV_LEN		10
#define CRLC_REV_DELTA		0x01
#define CRLC_REASON_NONE	0xff

#define CRLC_CRL_HDR_LEN	104
#define CRLC_CRL_RECORD_VERSION	2
#define CRLC_CRL_USER_ONLY	0x01	/* IDP onlyContainsUserCerts */
#define CRLC_CRL_CA_ONLY	0x02	/* IDP onlyContainsCACerts */
#define CRLC_CRL_HAS_DELTA	0x04	/* a delta CRL is applied */
#define CRLC_CRL_INDIRECT	0x20	/* IDP indirectCRL (INDIRECT CRLS) */
/* The flags that change what a CRL covers: its scope's KIND (SCOPE KINDS). */
#define CRLC_CRL_KIND		(CRLC_CRL_USER_ONLY | CRLC_CRL_CA_ONLY | \
				 CRLC_CRL_INDIRECT)
/*
 * A scope key's kind component, 00 || CRLC_SCOPE_KIND_TAG | kind: the tag
 * makes the byte sort after every reasons suffix's first mask byte (at
 * most 0x01) and never 00.
 */
#define CRLC_SCOPE_KIND_LEN	2
#define CRLC_SCOPE_KIND_TAG	0x80u

#define CRLC_SRC_HDR_LEN	36
#define CRLC_SRC_FRESH_LEN	8
#define CRLC_SRC_HIST_LEN	16
#define CRLC_SRC_ORIGIN_UNKNOWN	0u
#define CRLC_SRC_ORIGIN_CONFIGURED 1u
#define CRLC_SRC_ORIGIN_DIRECTORY 2u
#define CRLC_SRC_ORIGIN_PROPOSED 3u

/* Published files (TOP FILE, PAGE FILES, SCOPE FILES above). */
#define CRLC_TOP_MAGIC		"CRLCTOP\n"
#define CRLC_PAGE_MAGIC		"CRLCPAG\n"
#define CRLC_SCOPE_MAGIC	"CRLCSCP\n"
#define CRLC_MAGIC_LEN		8
#define CRLC_TOP_HDR_LEN	64
#define CRLC_TOP_DESC_LEN	32
/* Descriptors a top file may have: 5 used, room to grow, bounded. */
#define CRLC_TOP_DESC_MAX	16
/* The trailer: u64 CRLCSUM64 (TOP CHECKSUM). */
#define CRLC_TOP_TRAILER_LEN	8
#define CRLC_SUM_IV		0x63726c6373756d31u	/* "crlcsum1" */
#define CRLC_SUM_K1		0x9e3779b97f4a7c15u
#define CRLC_SUM_K2		0xc2b2ae3d27d4eb4fu
#define CRLC_SUM_ROT		31
#define CRLC_SUM_F1		0xff51afd7ed558ccdu
#define CRLC_SUM_F2		0xc4ceb9fe1a85ec53u
/*
 * Largest top or page file a reader copies into memory.  A top holds
 * issuers, keys and pages (about 250 bytes per issuer key with one
 * page), a page about 250 bytes per scope record: the Web PKI (a few
 * thousand keys, 16,000 CRLs) is well under 1 MiB; 256 MiB bounds what a
 * damaged length can make a program allocate.
 */
#define CRLC_TOP_MAX		((uint64_t)256 << 20)
#define CRLC_SEC_ALIAS		1u
#define CRLC_SEC_CANON		2u
#define CRLC_SEC_KEY		3u
#define CRLC_SEC_SCOPE_INDEX	4u
#define CRLC_SEC_SCOPE_DATA	5u
#define CRLC_SEC_PAGE		6u
#define CRLC_SEC_IDS		6u	/* ids 1..6 are known */
/* The sections a top file, and a page file, must have (as 1 << id). */
#define CRLC_TOP_SECTIONS	(1u << CRLC_SEC_ALIAS | 1u << CRLC_SEC_CANON | \
				 1u << CRLC_SEC_KEY | 1u << CRLC_SEC_PAGE)
#define CRLC_PAGE_SECTIONS	(1u << CRLC_SEC_SCOPE_INDEX | \
				 1u << CRLC_SEC_SCOPE_DATA)
#define CRLC_ISSUER_REC_LEN	(CRLC_HASH_LEN + CRLC_ISSUER_ID_LEN)
/* issuer id || key hash || key number || u8 SKI length || SKI */
#define CRLC_KEY_REC_LEN	(CRLC_ISSUER_ID_LEN + CRLC_HASH_LEN + \
				 CRLC_KEY_NO_LEN + 1 + CRLC_SKI_MAX)
#define CRLC_KEY_SORT_LEN	(CRLC_ISSUER_ID_LEN + CRLC_HASH_LEN)
#define CRLC_SCOPE_INDEX_REC_LEN 4
/* A PAGE record; its first 12 bytes (prefix, page number) sort it. */
#define CRLC_PAGE_REC_LEN	48
#define CRLC_PAGE_SORT_LEN	12
/* A page file's id, in its header (PAGE FILES). */
#define CRLC_PAGE_ID_OFF	16
/*
 * Pages of one issuer key: a power of two, at most one per 16 of its
 * scopes (CRLC_PAGE_SCOPES), and scope numbers are u16 (65,536 scopes).
 */
#define CRLC_PAGE_SCOPES	16
#define CRLC_PAGES_MAX		4096u
#define CRLC_SCOPE_REC_HDR_LEN	124
#define CRLC_SCOPE_ID_LEN	16
#define CRLC_SCOPE_HDR_LEN	96
#define CRLC_SCOPE_ENTRY_LEN	34
/* A serial's slot: up to 23 content octets inline, else their hash. */
#define CRLC_SLOT_LEN		24
#define CRLC_SLOT_INLINE	(CRLC_SLOT_LEN - 1)
#define CRLC_SLOT_HASHED	0xff
/* The slot of an entry about another issuer's certificate (INDIRECT CRLS). */
#define CRLC_SLOT_FOREIGN	0xfe

/*
 * Map size of the fetcher's working environment (LMDB records it in the
 * meta page).  The map is virtual address space only; 8 GiB holds far
 * more than the whole Web PKI's revocations (Mozilla counted about 8
 * million unexpired ones in 2024, ~40 bytes each here, plus the signed
 * CRLs).  A 32-bit process cannot map that: 1 GiB there.  Readers of the
 * published index never map it.
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

/*
 * One load and a byte swap where the compiler says how (GCC and clang
 * assemble the bytes one by one otherwise, and readers order-check every
 * record of a top or page file they read).
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CRLC_BE32(v)		__builtin_bswap32(v)
#define CRLC_BE64(v)		__builtin_bswap64(v)
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define CRLC_BE32(v)		(v)
#define CRLC_BE64(v)		(v)
#endif

static inline uint32_t
crlc_get_u32(const uint8_t *p)
{
#ifdef CRLC_BE32
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return CRLC_BE32(v);
#else
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
#endif
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
#ifdef CRLC_BE64
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return CRLC_BE64(v);
#else
	return (uint64_t)crlc_get_u32(p) << 32 | crlc_get_u32(p + 4);
#endif
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
 * The order of SCOPE records (PAGE FILES): memcmp of the 8-byte prefix
 * (issuer id || key number), then of the scope URIs over the shorter
 * length, the shorter first on a tie -- LMDB's default key order, so a
 * walk of the work env's "crl" database yields it.  <0, 0 or >0.
 */
_Static_assert(CRLC_PREFIX_LEN == 8, "crlc_scope_cmp reads the prefix as a u64");
static inline int
crlc_scope_cmp(const uint8_t pa[CRLC_PREFIX_LEN], const uint8_t *ua,
    size_t ula, const uint8_t pb[CRLC_PREFIX_LEN], const uint8_t *ub,
    size_t ulb)
{
	size_t n = ula < ulb ? ula : ulb;
	uint64_t a = crlc_get_u64(pa), b = crlc_get_u64(pb);
	int c;

	/* memcmp of the prefix, without a call: readers order-check every
	 * record of a page they read */
	if (a != b)
		return a < b ? -1 : 1;
	if (n > 0 && (c = memcmp(ua, ub, n)) != 0)
		return c;
	return ula < ulb ? -1 : ula > ulb;
}

#endif /* CRLCACHE_FORMAT_H */
