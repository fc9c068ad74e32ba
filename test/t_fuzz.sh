#!/usr/bin/env bash
# Bounded libFuzzer runs (clang, ASan+UBSan) of the parsers that take
# hostile input: lib/tbs.c, lib/name.c and lib/validity.c, which run
# inside every program's signature verification (seeds: real certificates
# made with the openssl CLI), fetcher/ccadb.c, the CSV export parser
# (seeds: small exports), and fetcher/report.c, the parsers of the CCADB's
# records and PEM reports (seeds: a synthetic CCADB in the real formats,
# see ccadb_row in lib.sh); and the CRL ingest path, fetcher/ingest.c's
# ingest_buffer (parse, verify, store; seeds: CRLs of a test PKI, which
# verify and reach the store, and the small real CRLs beside the clone
# when present, copied at test time).  A crash, a sanitizer report or a
# leak fails.  And the index reader, lib/index.c and lib/indexpage.c, on
# a top file, a page file and a scope file (seeds: an index the fetcher
# published from those CRLs).  And the CRLite filter reader, lib/clubcard.c
# with lib/sct.c (seeds: filters of both encodings test/clubcard_build.py
# builds, real certificates with embedded SCTs).  And the JSON reader and
# canonical serializer, fetcher/json.c (seeds: changeset-, root document-
# and manifest-shaped documents): a canonical form must read back to
# itself.
. "$(dirname "$0")/lib.sh"
CLANG=$(command -v clang || ls /usr/bin/clang-[0-9]* 2>/dev/null | head -n1)
[ -n "$CLANG" ] || skip "clang not installed (libFuzzer comes with it)"
src=$TESTDIR/..
RUNS=1000000
SECONDS_PER_TARGET=15   # a bound on each run besides RUNS, to keep make check short
FUZZ_CC=("$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all)
# Whether this clang can build a libFuzzer target at all (libclang-rt)...
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$W/probe.c"
"${FUZZ_CC[@]}" -o "$W/probe" "$W/probe.c" 2>"$W/cc.err" ||
    { cat "$W/cc.err"; skip "clang cannot build a libFuzzer target here (libclang-rt missing?)"; }
# ...so that a target of ours that does not build is a failure, not a skip.
build() {   # build NAME SOURCES...
    local name=$1; shift
    "${FUZZ_CC[@]}" -D_GNU_SOURCE -Werror=incompatible-pointer-types -Werror=implicit-function-declaration -I"$src/include" -o "$W/$name" "$@" \
        $(pkg-config --cflags --libs libcrypto lmdb) 2>"$W/cc.err" \
        || { cat "$W/cc.err"; fail "cannot build $name"; }
}
run() {     # run NAME CORPUS [MAX_LEN]
    # no llvm-symbolizer children: a report still names the crashing input
    ASAN_OPTIONS=symbolize=0 UBSAN_OPTIONS=symbolize=0 \
        "$W/$1" -runs=$RUNS -max_total_time=$SECONDS_PER_TARGET -max_len="${3:-4096}" \
        -rss_limit_mb=1024 -print_final_stats=1 "$2" >"$W/$1.log" 2>&1
    local rc=$? runs
    tail -n 6 "$W/$1.log"
    [ "$rc" -eq 0 ] || fail "$1: the fuzzer found a problem (exit $rc)"
    runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$W/$1.log")
    [ -n "$runs" ] || fail "$1: the fuzzer did not finish"
    note "$1: $runs runs clean"
}
LIB=("$src/lib/tbs.c" "$src/lib/name.c" "$src/lib/validity.c" "$src/lib/hash.c" "$src/lib/index.c"
    "$src/lib/indexopen.c" "$src/lib/indexpage.c"
    "$src/lib/dpname.c" "$src/lib/point.c" "$src/lib/civil.c" "$src/lib/reasons.c"
    "$src/lib/hex.c")
build fuzz_tbs "$src/test/fuzz/fuzz_tbs.c" "${LIB[@]}"
CSV=("$src/fetcher/ccadb.c" "$src/fetcher/csv.c" "$src/fetcher/util.c")
build fuzz_ccadb "$src/test/fuzz/fuzz_ccadb.c" "${CSV[@]}" "${LIB[@]}"
build fuzz_records "$src/test/fuzz/fuzz_records.c" "$src/fetcher/report.c" "${CSV[@]}" "${LIB[@]}"
build fuzz_pems "$src/test/fuzz/fuzz_pems.c" "$src/fetcher/report.c" "${CSV[@]}" "${LIB[@]}"
STORE=("$src/fetcher/store.c" "$src/fetcher/work.c" "$src/fetcher/issuerid.c" "$src/fetcher/entries.c"
    "$src/fetcher/scope.c" "$src/fetcher/source.c" "$src/fetcher/proposed.c" "$src/fetcher/scopehash.c")
INGEST=("$src/fetcher/ingest.c" "$src/fetcher/crl.c" "${STORE[@]}" "$src/fetcher/trust.c" "$src/fetcher/chain.c"
    "$src/fetcher/name.c" "$src/fetcher/util.c" "$src/fetcher/at.c" "$src/fetcher/idp.c"
    "$src/fetcher/publish.c" "$src/fetcher/pubkeep.c" "$src/fetcher/state.c" "$src/lib/indexwrite.c"
    "$src/lib/statefile.c")
build fuzz_crl "$src/test/fuzz/fuzz_crl.c" "${INGEST[@]}" "${LIB[@]}"
build fuzz_index "$src/test/fuzz/fuzz_index.c" "${LIB[@]}"
build fuzz_clubcard "$src/test/fuzz/fuzz_clubcard.c" "$src/lib/clubcard.c" "$src/lib/sct.c" "${LIB[@]}"
build fuzz_json "$src/test/fuzz/fuzz_json.c" "$src/fetcher/json.c" "$src/lib/hex.c"

mkdir -p "$W/certs" "$W/csv" "$W/crls"
BASE_URL=http://127.0.0.1:9
std_pki
# CRL seeds: entries with reasons, PEM and DER, a partition (IDP), a delta,
# a CRL for some reasons (IDP onlySomeReasons),
# an empty one; the real CRLs of public CAs (at most 4 KiB each).
pki_revoke int "$PKI/rev1.pem" reason=keyCompromise
pki_revoke int "$PKI/rev2.pem" reason=certificateHold
pki_gencrl int "$W/crls/int.der"
pki_gencrl int "$W/crls/int.pem" form=pem
pki_gencrl int "$W/crls/int-idp.der" idp="$BASE_URL/int.crl"
pki_gencrl int "$W/crls/int-delta.der" delta=1
pki_gencrl int "$W/crls/int-reasons.der" ext="$(printf 'issuingDistributionPoint = critical,@idp_r\n[ idp_r ]\nonlysomereasons = keyCompromise, CACompromise')"
pki_gencrl root "$W/crls/root.der"
find "$src/test/data/realcrl/crl" -type f -size -4k -exec cp {} "$W/crls/" \;
note "CRL seeds: $(ls "$W/crls" | wc -l)"
for c in "$PKI"/*.pem "$PKI"/root/cert.pem "$PKI"/int/cert.pem; do
    openssl x509 -in "$c" -outform DER -out "$W/certs/$(basename "$(dirname "$c")")-$(basename "$c").der" 2>/dev/null
done
[ "$(ls "$W/certs" | wc -l)" -ge 3 ] || fail "certificate seed corpus too small"
printf 'A,Full CRL Issued By This CA,JSON Array of Partitioned CRLs\r\nx,http://a/b.crl,"[""http://a/1.crl"",""http://a/2.crl""]"\r\n' >"$W/csv/1"
printf 'Full CRL Issued By This CA\n"http://a/""q"".crl"\n"multi\nline",\n' >"$W/csv/2"
# the CCADB reports: the standard PKI in the real formats, and small ones
ccadb_row "$PKI/root/cert.pem" type=root full="$BASE_URL/root.crl"
ccadb_row "$PKI/int/cert.pem" parent="$PKI/root/cert.pem" \
    parts="$BASE_URL/p1.crl,$BASE_URL/p2.crl" status="Parent Cert Revoked"
ccadb_row "$PKI/int/cert.pem" full="$BASE_URL/int.crl" valid_to=2000.01.01
ccadb_write "$W/ccadb"
mkdir -p "$W/records" "$W/pems"
cp "$W/ccadb/records.csv" "$W/records/1"
printf 'SHA-256 Fingerprint,Certificate Record Type,Revocation Status,Valid To (GMT),Full CRL Issued By This CA,JSON Array of Partitioned CRLs\n%s,Intermediate Certificate,,2099.01.31,http://a/b.crl,"[""http://a/1.crl""]"\n' \
    "$(cert_fp "$PKI/int/cert.pem")" >"$W/records/2"
cp "$W/ccadb/pems-$(date -u +%Y).csv" "$W/pems/1"
printf '"SHA-256 Fingerprint","X.509 Certificate (PEM)"\n"%s","%s"\n' \
    "$(cert_fp "$PKI/int/cert.pem")" "$(cat "$PKI/int/cert.pem")" >"$W/pems/2"
run fuzz_tbs "$W/certs"
run fuzz_ccadb "$W/csv"
run fuzz_records "$W/records" 16384
run fuzz_pems "$W/pems" 16384
FUZZ_CRL_ANCHORS=$PKI/root/cert.pem FUZZ_CRL_CERTS=$PKI/int/cert.pem \
    FUZZ_CRL_URL=$BASE_URL/int.crl FUZZ_CRL_STATE=$W/fuzz-state run fuzz_crl "$W/crls" 8192
# index seeds: u32 L || a top file the fetcher published || u32 M || one
# of its page files || one of its scope files (a complete CRL, a
# partition, the root's)
need_crlcache
write_conf "# fuzz seeds"
cc import --anchor "$PKI/root/cert.pem" --untrusted "$PKI/int/cert.pem" \
    "$W/crls/int.der" "$W/crls/int-idp.der" "$W/crls/root.der" >"$W/import.out" 2>&1 ||
    { cat "$W/import.out"; fail "import of the index seeds"; }
mkdir -p "$W/index"
python3 - "$STATE" "$W/index" <<'PY'
import os, struct, sys
state, out = sys.argv[1:]
top = open(os.path.join(state, "index.mdb"), "rb").read()
files = [open(os.path.join(state, "scope", n), "rb").read()
         for n in sorted(os.listdir(os.path.join(state, "scope")))]
pages = [f for f in files if f[:8] == b"CRLCPAG\n"]
scopes = [f for f in files if f[:8] == b"CRLCSCP\n"]
i = 0
for p in pages:
    for s in scopes:
        open(os.path.join(out, str(i)), "wb").write(
            struct.pack(">I", len(top)) + top + struct.pack(">I", len(p)) + p + s)
        i += 1
PY
[ "$(ls "$W/index" | wc -l)" -ge 3 ] || fail "index seed corpus too small"
FUZZ_INDEX_DIR=$W run fuzz_index "$W/index" 65536
python3 "$src/test/clubcard_build.py" suite "$W/clubcard-build" || fail "clubcard_build.py suite"
mkdir -p "$W/clubcard"
cp "$W/clubcard-build"/*.v3 "$W/clubcard-build"/*.v4 "$src"/test/data/crlite/sites/*.der "$W/clubcard/"
run fuzz_clubcard "$W/clubcard" 8192
# JSON seeds: a Remote Settings changeset and root document, an upki
# manifest, escapes and numbers of every kind
mkdir -p "$W/json"
printf '%s' '{"metadata":{"signatures":[{"x5u":"https://a/b.pem","signature":"AbC-_"}]},"changes":[{"id":"F1","incremental":false,"channel":"default","attachment":{"hash":"e7","size":219,"location":"a/b"},"details":"r\u00e9 \ud834\udd1e \"q\" \\ /"}],"timestamp":1760000000000}' >"$W/json/changeset"
printf '%s' '{"capabilities":{"attachments":{"base_url":"https://cdn/","bundles":true}}}' >"$W/json/root"
printf '%s' '{"generated_at":1,"comment":"x","files":[{"filename":"a.filter","size":11,"hash":"b94d"}]}' >"$W/json/manifest"
printf '%s' '[0,-1,1.5,2e10,-0.0e-1,9007199254740991,true,false,null,"\b\f\n\r\t\u0000",{},[]]' >"$W/json/values"
printf '\xef\xbf\xbd"\xf0\x9d\x84\x9e"' >"$W/json/utf8"
# 8 s: t_fuzz runs near its 300 s limit on a loaded host
SECONDS_PER_TARGET=8 run fuzz_json "$W/json" 8192
