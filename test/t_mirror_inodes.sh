#!/usr/bin/env bash
# `mirror DIR` creates, as root, the directories of every URL the state's
# owner names: up to 31 for one URL (scheme, host, 29 path segments).
# Every directory counts against the share of DIR's filesystem a mirror
# leaves free, as one block and one inode, before it is created: here one
# CRL fed from 13 URLs, each 29 directories deep in a path of its own, is
# mirrored onto a tmpfs of 200 inodes, which holds 6 of them.  The run
# says once that the inodes would run low, creates nothing more (no
# "No space left"), exits 1 and leaves 5% of the inodes and of the blocks
# free; on a larger tmpfs all 13 are written.  On the old code root made
# directories until the inodes ran out (0 free) and failed on each URL
# after.
. "$(dirname "$0")/lib.sh"
need_crlcache
[ "$(id -u)" -eq 0 ] || skip "mounting a tmpfs needs root"
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
mount -t tmpfs -o size=1m,nr_inodes=$INODES,mode=0755 crlcache-test "$DIR" 2>"$W/mount.err" \
    || { cat "$W/mount.err"; skip "cannot mount a tmpfs with an inode limit here"; }
trap 'umount "$DIR" 2>/dev/null; _lib_cleanup' EXIT
free_of() { df --output="$1" "$DIR" | tail -1 | tr -d ' '; }
assert_exit 1 cc mirror "$DIR"
ifree=$(free_of iavail) kfree=$(free_of avail) ktotal=$(free_of size)
dirs=$(find "$DIR" -mindepth 1 -type d | wc -l) files=$(find "$DIR" -type f | wc -l)
note "$INODES inodes: $dirs directories and $files files created, $ifree inodes and $kfree of $ktotal KiB left free"
assert_not_grep 'No space left' "$W/last.err"
assert_grep 'less than 1/20 of its inodes free; nothing more is written' "$W/last.err"
[ "$(grep -c 'nothing more is written' "$W/last.err")" = 1 ] || fail "the refusal was said more than once"
[ "$ifree" -ge $(( INODES / 20 )) ] || fail "mirror left $ifree of $INODES inodes free"
[ "$kfree" -ge $(( ktotal / 20 )) ] || fail "mirror left $kfree of $ktotal KiB free"
assert_grep "mirror: $files written, 0 unchanged, $(( URLS - files )) skipped, 0 failed" "$W/last.err"
[ "$files" -ge 1 ] || fail "not even the first URL's CRL was written"
# Stopped at the first refusal: every directory leads to a file written.
[ "$(find "$DIR" -mindepth 3 -type d -empty | wc -l)" = 0 ] || fail "directories made for a CRL not written"

umount "$DIR"
mount -t tmpfs -o size=1m,nr_inodes=$(( INODES * 3 )),mode=0755 crlcache-test "$DIR" || fail "remount"
assert_exit 0 cc mirror "$DIR"
assert_grep "mirror: $URLS written, 0 unchanged, 0 skipped, 0 failed" "$W/last.err"
cmp -s "$DIR/http/127.0.0.1:$HTTPD_PORT/d$URLS/${deep}int.crl" "$W/int.crl" || fail "the last URL's CRL is not int.crl"
note "$(( INODES * 3 )) inodes: all $URLS written"
