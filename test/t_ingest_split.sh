#!/usr/bin/env bash
# A CRL larger than one ingest transaction (INGEST_CHUNK, 131,072 writes,
# in fetcher/store_int.h) is written in several commits, and a kill between
# them must change nothing: `import` of a 300,000-entry CRL B over a
# 200,000-entry CRL A is killed while its chunks are committed (the
# working index holds the "ingest_pending" meta record); the next run puts
# the scope back exactly as A left it (its "rev" database equals that of
# A imported alone) and publishes it; then B imported whole leaves exactly
# what B imported alone leaves.  Also: the index holds each of A's entries
# once, with B's count after B.
. "$(dirname "$0")/lib.sh"
need_crlcache
command -v mdb_dump >/dev/null || skip "lmdb-utils (mdb_dump) not installed"
ROUNDS=3
A=200000
B=300000
pki_root root "/CN=Split Root/O=crlcache tests"
pki_bulk_revoked "$PKI/root/index.txt" "$A"
pki_gencrl root "$W/a.crl"
pki_bulk_revoked "$PKI/root/index.txt" $((B - A)) 900000
pki_gencrl root "$W/b.crl"
: >"$CONF"
anchor="$PKI/root/cert.pem"
imp() { "$CRLCACHE" --state-dir "$1" -c "$CONF" import --anchor "$anchor" "$2"; }
rev_of() { mdb_dump -s rev "$1/work" | md5sum; }
pending() { mdb_dump -p -s meta "$STATE/work" 2>/dev/null | grep -q '^ ingest_pending$'; }

imp "$W/ref-a" "$W/a.crl" || fail "import of A alone"
imp "$W/ref-b" "$W/b.crl" || fail "import of B alone"
ref_a=$(rev_of "$W/ref-a")
ref_b=$(rev_of "$W/ref-b")
[ "$ref_a" != "$ref_b" ] || fail "A and B leave the same entries"
imp "$STATE" "$W/a.crl" || fail "import of A"
[ "$(rev_of "$STATE")" = "$ref_a" ] || fail "A over an empty index differs from A alone"

caught=0
for round in $(seq 1 "$ROUNDS"); do
    "$CRLCACHE" --state-dir "$STATE" -c "$CONF" import --anchor "$anchor" \
        "$W/b.crl" >/dev/null 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null && ! pending; do :; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null && fail "round $round: import of B finished before a chunk was committed"
    pending || fail "round $round: killed, but no ingest_pending record"
    caught=$((caught + 1))
    # A again: unchanged, but the run opens the index and mends it first.
    imp "$STATE" "$W/a.crl" 2>"$W/mend.err" || { cat "$W/mend.err" >&2; fail "round $round: the run after the kill failed"; }
    ! pending || fail "round $round: ingest_pending left after the next run"
    [ "$(rev_of "$STATE")" = "$ref_a" ] || fail "round $round: the scope is not as A left it"
    "$CRLCACHE" --state-dir "$STATE" status >"$W/status" 2>&1
    assert_grep "^revoked $A\$" "$W/status"
done
note "$caught kills while the chunks of a $B-entry CRL were committed"

# The disk fills up half way through B (root only: a small tmpfs): the run
# fails, publishes nothing new, and its chunks are undone, by itself or,
# when even that finds no room, by the next run.
full=$W/full
if [ "$(id -u)" -eq 0 ] && mkdir -p "$full" &&
    mount -t tmpfs -o size=64m,mode=0755 crlcache-split "$full" 2>/dev/null; then
    trap 'umount "$full" 2>/dev/null; _lib_cleanup' EXIT
    cp -a "$STATE/." "$full/"
    gen=$("$CRLCACHE" --state-dir "$full" status | sed -n 's/^generation //p')
    # room for a few chunks of B, not for all of it
    free_k=$(df -k --output=avail "$full" | tail -n1)
    fallocate -l $(( (free_k - 4096) * 1024 )) "$full/filler"
    "$CRLCACHE" -v --state-dir "$full" -c "$CONF" import --anchor "$anchor" \
        "$W/b.crl" >"$W/full.out" 2>&1 && fail "import of B succeeded on a full disk"
    sed 's/^/    | /' "$W/full.out"
    if grep -q 'committed are undone' "$W/full.out"; then
        note "the failed run undid its chunks itself"
    elif grep -q 'half written' "$W/full.out"; then
        note "the failed run left its chunks for the next run"
    else
        note "the disk filled before the first chunk was committed"
    fi
    "$CRLCACHE" --state-dir "$full" status >"$W/status" 2>&1
    assert_grep "^generation $gen\$" "$W/status"
    assert_grep "^revoked $A\$" "$W/status"
    rm -f "$full/filler"
    imp "$full" "$W/a.crl" || fail "the run after the full disk failed"
    mdb_dump -p -s meta "$full/work" | grep -q '^ ingest_pending$' &&
        fail "ingest_pending left after the full disk"
    [ "$(rev_of "$full")" = "$ref_a" ] || fail "the scope is not as A left it after the full disk"
    umount "$full"
fi

imp "$STATE" "$W/b.crl" || fail "import of B"
! pending || fail "ingest_pending left after B"
[ "$(rev_of "$STATE")" = "$ref_b" ] || fail "B over A differs from B alone"
"$CRLCACHE" --state-dir "$STATE" status >"$W/status" 2>&1
assert_grep "^revoked $B\$" "$W/status"
finish
