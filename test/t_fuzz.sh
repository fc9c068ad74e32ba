#!/usr/bin/env bash
# Bounded libFuzzer run (clang, ASan+UBSan) of the parsers that run inside
# every program's signature verification: lib/tbs.c, lib/name.c,
# lib/validity.c.  Seeds are real certificates made with the openssl CLI.
# A crash, a sanitizer report or a leak fails the test.
. "$(dirname "$0")/lib.sh"
CLANG=$(command -v clang || ls /usr/bin/clang-[0-9]* 2>/dev/null | head -n1)
[ -n "$CLANG" ] || skip "clang not installed (libFuzzer comes with it)"
src=$TESTDIR/..
"$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -I"$src/include" -o "$W/fuzz_tbs" "$src/test/fuzz/fuzz_tbs.c" \
    "$src/lib/tbs.c" "$src/lib/name.c" "$src/lib/validity.c" "$src/lib/hash.c" \
    $(pkg-config --cflags --libs libcrypto) 2>"$W/cc.err" \
    || { cat "$W/cc.err"; skip "clang cannot build a libFuzzer target here (libclang-rt missing?)"; }
mkdir -p "$W/corpus"
BASE_URL=http://127.0.0.1:9
std_pki
for c in "$PKI"/*.pem "$PKI"/root/cert.pem "$PKI"/int/cert.pem; do
    openssl x509 -in "$c" -outform DER -out "$W/corpus/$(basename "$(dirname "$c")")-$(basename "$c").der" 2>/dev/null
done
n=$(ls "$W/corpus" | wc -l)
[ "$n" -ge 3 ] || fail "seed corpus too small ($n)"
# no llvm-symbolizer children: a report still names the crashing input
ASAN_OPTIONS=symbolize=0 UBSAN_OPTIONS=symbolize=0 \
    "$W/fuzz_tbs" -runs=2000000 -max_len=4096 -rss_limit_mb=1024 -print_final_stats=1 \
    "$W/corpus" >"$W/fuzz.log" 2>&1
rc=$?
tail -n 15 "$W/fuzz.log"
[ "$rc" -eq 0 ] || fail "fuzzer found a problem (exit $rc)"
grep -q 'Done 2000000 runs' "$W/fuzz.log" || fail "fuzzer did not complete its runs"
note "2000000 runs clean"
