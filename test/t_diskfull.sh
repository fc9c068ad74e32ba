#!/usr/bin/env bash
# Disk full during publish: the state directory is a
# small tmpfs (mounted by the test; root only).  With the space nearly
# used up, an update whose new CRL fits the working index but not the
# files it publishes (index.mdb and the CRL's scope file) fails, says "No
# space left on device", keeps the old index (same generation, still
# opens, still answers), leaves no temporary file; once space is back the
# next run publishes.
. "$(dirname "$0")/lib.sh"
need_crlcache
[ "$(id -u)" -eq 0 ] || skip "mounting a tmpfs needs root"
TMPFS_MB=16         # room for both indexes of a BULK-entry CRL, and a filler
BULK=20000
httpd_start
std_pki
pki_revoke int "$PKI/rev1.pem"
pki_gencrl int "$W/small.crl"
pki_bulk_revoked "$PKI/int/index.txt" "$BULK"
pki_gencrl int "$W/big.crl"
write_conf "url = $BASE_URL/int.crl" "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem"

# The sizes this takes, measured on ordinary storage first.
serve "$W/small.crl" int.crl
assert_exit 0 cc update
work_a=$(du -k "$STATE/work/data.mdb" | cut -f1)
serve "$W/big.crl" int.crl
assert_exit 0 cc update
work_b=$(du -k "$STATE/work/data.mdb" | cut -f1)
index_b=$(du -sk "$STATE/index.mdb" "$STATE/scope" | awk '{ s += $1 } END { print s }')
note "working index ${work_a} KiB -> ${work_b} KiB; published ${index_b} KiB"
rm -rf "$STATE"

mkdir -p "$STATE"
mount -t tmpfs -o size=${TMPFS_MB}m,mode=0755 crlcache-test "$STATE" 2>"$W/mount.err" \
    || { cat "$W/mount.err"; skip "cannot mount a tmpfs here"; }
trap 'umount "$STATE" 2>/dev/null; _lib_cleanup' EXIT
serve "$W/small.crl" int.crl
assert_exit 0 cc update
gen=$(generation)
# Leave room for the working index to grow, and half the published files.
free_k=$(df -k --output=avail "$STATE" | tail -n1)
want_k=$(( work_b - work_a + index_b / 2 ))
[ "$free_k" -gt "$want_k" ] || fail "tmpfs too small: $free_k KiB free, $want_k needed"
fallocate -l $(( (free_k - want_k) * 1024 )) "$STATE/filler" 2>/dev/null \
    || dd if=/dev/zero of="$STATE/filler" bs=1k count=$((free_k - want_k)) 2>/dev/null
serve "$W/big.crl" int.crl
cc update >"$W/full.out" 2>&1 && { cat "$W/full.out"; fail "update succeeded on a full disk"; }
sed 's/^/    | /' "$W/full.out"
assert_grep 'No space left on device' "$W/full.out"
grep -q 'publish' "$W/full.out" && note "the publish ran out of space" \
    || note "the working index ran out of space before the publish"
[ "$(generation)" = "$gen" ] || fail "the generation changed after a failed publish"
check_is revoked 1 "$PKI/rev1.pem"
[ "$(cc status | sed -n 's/^revoked //p')" = 1 ] || fail "the old index is not the one published"
! compgen -G "$STATE/.index.mdb.*" >/dev/null || fail "a temporary index file was left behind"
! compgen -G "$STATE/scope/.tmp.*" >/dev/null || fail "a temporary scope file was left behind"

rm -f "$STATE/filler"
assert_exit 0 cc update
[ "$(generation)" -gt "$gen" ] || fail "no new generation once space was back"
[ "$(cc status | sed -n 's/^revoked //p')" = $((BULK + 1)) ] || fail "the big CRL is not published"
note "published once space was back: generation $(generation)"
