#!/usr/bin/env bash
# A CRLite set that cannot be used is refused whole, said once per
# process, and the CRLs answer; nothing crashes (run under valgrind where
# installed).  From Mozilla's real delta (test/data/crlite) installed per
# include/crlcache/crlite.h, the GTS Root R1 site's revoked leaf verified
# twice in one `openssl verify`, with on_unknown = deny and no CRL in the
# index: a usable set refuses it as revoked (CRLite); a damaged one
# leaves it to the CRLs, which do not cover it (refused as unknown).
# Damage the readers see: a set whose checksum does not hold, a set
# naming one filter many times (each of 24 MiB: a reader that read them
# would hold 192 MiB), its lookup file truncated, of another set,
# writable by others or a symlink.  Damage they do not read: a filter
# truncated, rewritten in place (its hash no longer its name) or
# missing: the lookup file the fetcher wrote from the verified filters
# answers (the next `crlcache update` fetches them again: t_crlite_rs).
# Every verifying process holds at most a small bound more than one
# without CRLite (VmHWM, measured without valgrind).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
SITES=$DATA/crlite/sites
DELTA=$DATA/crlite/20260624-1-default.filter.delta
ATTIME=$(date -u -d 2026-06-25T00:00:00Z +%s)
openssl x509 -inform DER -in "$SITES/gts-root-r1.leaf.der" -out "$W/leaf.pem"
openssl x509 -inform DER -in "$SITES/gts-root-r1.issuer.der" -out "$W/issuer.pem"
write_conf "# no CRL sources: an empty index"
assert_exit 0 cc update
FILTER=$STATE/crlite/$(sha256sum "$DELTA" | cut -d' ' -f1).filter
install_set() { rm -rf "$STATE/crlite"; "$PY" "$TESTDIR/crlite_set.py" "$STATE" "$DELTA" || fail "crlite_set.py"; }
lookup() { echo "$STATE"/crlite/*.lookup; }
# peak_kb: the peak RSS (kB) of the verifying process, without valgrind
peak_kb() {
    px --set on_unknown=deny -- /usr/bin/time -f 'PEAK %M' openssl verify -partial_chain \
        -attime "$ATTIME" -CAfile "$W/issuer.pem" "$W/leaf.pem" "$W/leaf.pem" 2>&1 |
        sed -n 's/^PEAK //p'
}
# The bound: CRLC_CRLITE_LOOKUP_HEAD_MAX + CRLC_CRLITESET_HELD_MAX
# (768 KiB) and room for the allocator and the page cache's whims.
PEAK_SLACK=4096
rm -rf "$STATE/crlite"
PEAK0=$(peak_kb)
[ -n "$PEAK0" ] || fail "no peak RSS measured"
# bounded LABEL: the last process's peak within PEAK_SLACK of none
bounded() {
    local kb
    kb=$(peak_kb)
    [ -n "$kb" ] && [ "$kb" -le $((PEAK0 + PEAK_SLACK)) ] \
        && case_ok "$1: peak RSS $kb kB (without a set $PEAK0 kB)" \
        || case_fail "$1: peak RSS" "${kb:-none} kB, without a set $PEAK0 kB"
}
VG=()
command -v valgrind >/dev/null && VG=(valgrind -q --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite,possible --log-file="$W/vg.log")
[ ${#VG[@]} -gt 0 ] || note "valgrind not installed: run without it"
vfy() {  # vfy: the revoked leaf twice in one process -> $W/v.out, RC
    rm -f "$W/vg.log"
    px --set on_unknown=deny -- ${VG[@]+"${VG[@]}"} openssl verify -partial_chain \
        -attime "$ATTIME" -CAfile "$W/issuer.pem" "$W/leaf.pem" "$W/leaf.pem" >"$W/v.out" 2>&1
    RC=$?
    if [ "$RC" = 99 ] || [ -s "$W/vg.log" ]; then cat "$W/vg.log"; fail "valgrind reported errors"; fi
}
# damaged LABEL REASON_REGEX: refused, said once, the CRLs answer
damaged() {
    vfy
    [ "$RC" != 0 ] && [ "$(grep -c 'CRLite data in .* not used' "$W/v.out")" = 1 ] \
        && grep -Eq "not used: .*$2" "$W/v.out" \
        && [ "$(grep -c 'revocation status unknown (refused)' "$W/v.out")" = 2 ] \
        && ! grep -q 'revoked (CRLite' "$W/v.out" \
        && case_ok "$1: $(grep -o 'not used: [^;]*' "$W/v.out" | head -1)" \
        || { cat "$W/v.out"; case_fail "$1" "exit $RC"; }
}

install_set
vfy
[ "$RC" != 0 ] && [ "$(grep -c 'certificate is revoked (CRLite, refused)' "$W/v.out")" = 2 ] \
    && ! grep -q 'not used' "$W/v.out" \
    && case_ok "a usable set: revoked (CRLite), twice" \
    || { cat "$W/v.out"; case_fail usable "exit $RC"; }

# unread: the filters (the lookup file holds what a lookup needs)
usable() {
    vfy
    [ "$RC" != 0 ] && [ "$(grep -c 'certificate is revoked (CRLite, refused)' "$W/v.out")" = 2 ] \
        && ! grep -q 'not used' "$W/v.out" && case_ok "$1: not read, the set answers" \
        || { cat "$W/v.out"; case_fail "$1" "exit $RC"; }
    bounded "$1"
}
install_set; truncate -s 100000 "$FILTER"
usable "a truncated filter"
install_set; printf '\377\377\377\377' | dd of="$FILTER" bs=1 conv=notrunc status=none
usable "a filter rewritten in place (its hash not its name)"
install_set; rm -f "$FILTER"
usable "a set naming a missing filter"
install_set; printf 'X' | dd of="$STATE/crlite/set" bs=1 seek=20 conv=notrunc status=none
damaged "a set whose checksum fails" "checksum mismatch"
install_set; truncate -s 100000 "$(lookup)"
damaged "a truncated lookup file" "not the lookup file of this set"
bounded "a truncated lookup file"
# the set's checksum in the lookup file's header spoilt
install_set; printf '\377' | dd of="$(lookup)" bs=1 seek=16 conv=notrunc status=none
damaged "a lookup file of another set" "not the lookup file of this set"
install_set; chmod 0666 "$(lookup)"
damaged "a lookup file writable by others" "not a regular file of the directory's owner, writable by it alone"
install_set; L=$(lookup); mv "$L" "$W/elsewhere"; ln -s "$W/elsewhere" "$L"
damaged "a lookup file that is a symlink" "\.lookup: Too many levels of symbolic links"
# The state's owner naming one large filter many times: refused, and no
# reader holds it (a reader that read each named filter whole would hold
# 8 x 24 MiB).
"$PY" "$TESTDIR/crlite_pki.py" pad "$DELTA" "$W/big.filter" $((24 << 20)) || fail "pad"
rm -rf "$STATE/crlite"
"$PY" "$TESTDIR/crlite_set.py" "$STATE" "$W/big.filter" "$W/big.filter" "$W/big.filter" \
    "$W/big.filter" "$W/big.filter" "$W/big.filter" "$W/big.filter" "$W/big.filter" || fail "crlite_set.py"
damaged "one 24 MiB filter named 8 times" "record 1 names the filter of record 0 again"
bounded "one 24 MiB filter named 8 times"
# No set at all: nothing to say, the CRLs answer.
rm -rf "$STATE/crlite"
vfy
[ "$RC" != 0 ] && ! grep -q CRLite "$W/v.out" && grep -q 'revocation status unknown (refused)' "$W/v.out" \
    && case_ok "no set installed: nothing said, the CRLs answer" \
    || { cat "$W/v.out"; case_fail none "exit $RC"; }
finish
