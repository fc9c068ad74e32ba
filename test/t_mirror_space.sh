#!/usr/bin/env bash
# `mirror DIR` writes what the state's owner sends it, as root: up to
# 200,000 files of up to 1 GiB.  What bounds it is the room it leaves: a
# CRL that would leave DIR's filesystem (a small tmpfs, mounted by the
# test) with less than 5% of its space free is not written, the run says
# so once, writes nothing more and exits 1; with room again the next run
# writes the rest.  On the old code the filesystem was filled to the last
# block.  (t_mirror_dirs: the directories and inodes on the way.)
. "$(dirname "$0")/lib.sh"
need_crlcache
[ "$(id -u)" -eq 0 ] || skip "mounting a tmpfs needs root"
TMPFS_KB=4096
httpd_start
std_pki
pki_revoke int "$PKI/rev1.pem"
pki_gencrl int "$W/small.crl"
pki_ca big root "/CN=Mirror Big CA/O=crlcache tests"
pki_bulk_revoked "$PKI/big/index.txt" 4000
pki_gencrl big "$W/big.crl"
serve "$W/small.crl" int.crl
serve "$W/big.crl" big.crl
write_conf "url = $BASE_URL/int.crl" "url = $BASE_URL/big.crl" \
    "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem" \
    "untrusted = $PKI/big/cert.pem"
assert_exit 0 cc update
big=$(stat -c %s "$W/big.crl")
[ "$big" -gt 65536 ] || fail "the big CRL is only $big bytes"

DIR=$W/mirror
mkdir -p "$DIR"
mount -t tmpfs -o size=${TMPFS_KB}k,mode=0755 crlcache-test "$DIR" 2>"$W/mount.err" \
    || { cat "$W/mount.err"; skip "cannot mount a tmpfs here"; }
trap 'umount "$DIR" 2>/dev/null; _lib_cleanup' EXIT
avail_kb() { df -k --output=avail "$DIR" | tail -1 | tr -d ' '; }
# Leave 5% of the filesystem and half the big CRL: the small one fits.
keep_kb=$(( TMPFS_KB / 20 + big / 2048 ))
dd if=/dev/zero of="$DIR/filler" bs=1k count=$(( $(avail_kb) - keep_kb )) status=none 2>/dev/null
before=$(avail_kb)
assert_exit 1 cc mirror "$DIR"
assert_grep 'less than 1/20 of its space free; nothing more is written' "$W/last.err"
[ "$(grep -c 'space free' "$W/last.err")" = 1 ] || fail "the low space was said more than once"
after=$(avail_kb)
[ "$after" -ge $(( TMPFS_KB / 20 )) ] || fail "mirror left ${after} KiB of ${TMPFS_KB} KiB free"
find "$DIR" -name big.crl | grep -q . && fail "the CRL that does not fit was written"
note "low space: ${before} KiB free before, ${after} KiB after (5% is $(( TMPFS_KB / 20 )) KiB); the big CRL skipped"

rm "$DIR/filler"
assert_exit 0 cc mirror "$DIR"
cmp -s "$(find "$DIR" -name big.crl)" "$W/big.crl" || fail "the big CRL was not written once there was room"
cmp -s "$(find "$DIR" -name int.crl)" "$W/small.crl" || fail "the small CRL was not written once there was room"
note "room again: the rest written"
