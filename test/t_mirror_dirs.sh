#!/usr/bin/env bash
# `mirror DIR` creates, as root, the directories of every URL the state's
# owner names: up to 31 for one URL (scheme, host, 29 path segments).
# Every directory counts against the share of DIR's filesystem a mirror
# leaves free, as one block and one inode, before it is created.  Here
# one CRL is fed from 13 URLs, each 29 directories deep in a path of its
# own, and mirrored onto
#   - a tmpfs of 200 inodes, which holds 6 of them (inodes run low), and
#   - an ext4 image whose directories take a 4 KiB block each, filled to
#     hold one of them (blocks run low).
# Each run says once what would run low, creates nothing more (no
# "No space left"), exits 1 and leaves 5% of the inodes and of the blocks
# free; with room, all 13 are written.  On the old code root made
# directories until the inodes, or the blocks, ran out (0 free).
. "$(dirname "$0")/lib.sh"
need_crlcache
[ "$(id -u)" -eq 0 ] || skip "mounting a filesystem needs root"
INODES=200
URLS=13
httpd_start
std_pki
rev1_crl
deep=$(printf 's/%.0s' $(seq 28))   # 28 segments, and dK: 29 directories
served_at "$W/int.crl" "$URLS" "d%d/${deep}int.crl"
assert_exit 0 cc update
assert_grep "$URLS sources, 1 updated, $(( URLS - 1 )) unchanged, 0 failed" "$W/last.err"

DIR=$W/mirror
mkdir -p "$DIR"
trap 'umount "$DIR" 2>/dev/null; _lib_cleanup' EXIT
# stat -f: blocks, blocks available, inodes, inodes available
room() { stat -f -c "$1" "$DIR"; }
# mirror_low WHAT: mirror onto what is mounted on DIR, which runs low of
# WHAT (space or inodes) first.
mirror_low() {
    local what=$1 blocks inodes bfree ifree dirs files
    blocks=$(room %b) inodes=$(room %c)
    assert_exit 1 cc mirror "$DIR"
    bfree=$(room %a) ifree=$(room %d)
    dirs=$(find "$DIR" -mindepth 1 -type d ! -name lost+found | wc -l) files=$(find "$DIR" -name int.crl | wc -l)
    note "$(findmnt -no FSTYPE "$DIR"): $dirs directories and $files CRLs created, $bfree of $blocks blocks and $ifree of $inodes inodes left free"
    assert_not_grep 'No space left' "$W/last.err"
    assert_grep "less than 1/20 of its $what free; nothing more is written" "$W/last.err"
    [ "$(grep -c 'nothing more is written' "$W/last.err")" = 1 ] || fail "the refusal was said more than once"
    [ "$bfree" -ge $(( blocks / 20 )) ] || fail "mirror left $bfree of $blocks blocks free"
    [ "$ifree" -ge $(( inodes / 20 )) ] || fail "mirror left $ifree of $inodes inodes free"
    assert_grep "mirror: $files written, 0 unchanged, $(( URLS - files )) skipped, 0 failed" "$W/last.err"
    [ "$files" -ge 1 ] || fail "not even the first URL's CRL was written"
    # Stopped at the first refusal: every directory leads to a CRL written.
    [ "$(find "$DIR" -mindepth 3 -type d -empty | wc -l)" = 0 ] || fail "directories made for a CRL not written"
}
mirror_all() {
    assert_exit 0 cc mirror "$DIR"
    assert_grep "mirror: $URLS written, 0 unchanged, 0 skipped, 0 failed" "$W/last.err"
    cmp -s "$DIR/http/127.0.0.1:$HTTPD_PORT/d$URLS/${deep}int.crl" "$W/int.crl" || fail "the last URL's CRL is not int.crl"
}

mount -t tmpfs -o size=1m,nr_inodes=$INODES,mode=0755 crlcache-test "$DIR" 2>"$W/mount.err" \
    || { cat "$W/mount.err"; skip "cannot mount a tmpfs with an inode limit here"; }
mirror_low inodes
umount "$DIR"
mount -t tmpfs -o size=1m,nr_inodes=$(( INODES * 3 )),mode=0755 crlcache-test "$DIR" || fail "remount"
mirror_all
umount "$DIR"
note "tmpfs of $(( INODES * 3 )) inodes: all $URLS written"

# ext4 (no blocks reserved for root, inodes to spare): filled so that 5%
# and 40 blocks are free, room for one URL's 31 directories and CRL.
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4 for the ext4 case (the tmpfs case passed)"
truncate -s 4M "$W/ext4.img"
mkfs.ext4 -q -F -b 4096 -m 0 -N 2048 -O ^has_journal "$W/ext4.img" || fail "mkfs.ext4"
mount -o loop "$W/ext4.img" "$DIR" 2>"$W/mount.err" \
    || { cat "$W/mount.err"; skip "cannot mount an ext4 image here (the tmpfs case passed)"; }
dd if=/dev/zero of="$DIR/filler" bs=4k count=$(( $(room %a) - $(room %b) / 20 - 40 )) status=none
mirror_low space
rm "$DIR/filler"
find "$DIR" -mindepth 1 -maxdepth 1 -type d ! -name lost+found -exec rm -r {} +
mirror_all
note "ext4 with room: all $URLS written"
