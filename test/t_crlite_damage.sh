#!/usr/bin/env bash
# A CRLite set that cannot be used is refused whole, said once per
# process, and the CRLs answer; nothing crashes (run under valgrind where
# installed).  From Mozilla's real delta (test/data/crlite) installed per
# include/crlcache/crlite.h, the GTS Root R1 site's revoked leaf verified
# twice in one `openssl verify`, with on_unknown = deny and no CRL in the
# index: a usable set refuses it as revoked (CRLite); a damaged one
# leaves it to the CRLs, which do not cover it (refused as unknown).
# Damage: a filter truncated, a filter rewritten in place (same size,
# other bytes: its header), a set naming a missing file, a set whose checksum does
# not hold, a filter writable by others, a filter that is a symlink.
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

install_set; truncate -s 100000 "$FILTER"
damaged "a truncated filter" "100000 bytes, the set says 176981"
install_set; printf '\377\377\377\377' | dd of="$FILTER" bs=1 conv=notrunc status=none
damaged "a filter rewritten in place" "\.filter: at byte"
install_set; rm -f "$FILTER"
damaged "a set naming a missing file" "\.filter: No such file or directory"
install_set; printf 'X' | dd of="$STATE/crlite/set" bs=1 seek=20 conv=notrunc status=none
damaged "a set whose checksum fails" "checksum mismatch"
install_set; chmod 0666 "$FILTER"
damaged "a filter writable by others" "not a regular file of the directory's owner, writable by it alone"
install_set; mv "$FILTER" "$W/elsewhere"; ln -s "$W/elsewhere" "$FILTER"
damaged "a filter that is a symlink" "\.filter: Too many levels of symbolic links"
# No set at all: nothing to say, the CRLs answer.
rm -rf "$STATE/crlite"
vfy
[ "$RC" != 0 ] && ! grep -q CRLite "$W/v.out" && grep -q 'revocation status unknown (refused)' "$W/v.out" \
    && case_ok "no set installed: nothing said, the CRLs answer" \
    || { cat "$W/v.out"; case_fail none "exit $RC"; }
finish
