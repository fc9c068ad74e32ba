#!/usr/bin/env bash
# CRLite from a local upki cache (crlite_upki_dir =): index.bin (C2SP
# upki-revocation, version upkiidx1, written here by a few lines of
# Python) and the filters it names (test/clubcard_build.py's), read in
# place.  update copies the three into the state; run again it changes
# nothing; a delta upki adds is taken; an index naming a filter out of
# range, an unsafe name, a filter that does not parse and a filter gone
# missing each keep the set in force and exit 1; a full filter and the 91
# deltas of Mozilla's 45 days are taken, 129 filters refused.
. "$(dirname "$0")/lib.sh"
need_crlcache
python3 "$TESTDIR/clubcard_build.py" suite "$W/cc" >/dev/null || fail "clubcard_build.py"
U=$W/upki
mkdir -p "$U"
cp "$W/cc/full.v4" "$U/20260624-0.filter"
cp "$W/cc/delta.v4" "$U/20260624-1.delta"
cp "$W/cc/main.v4" "$U/20260625-0.delta"
# index NAME... [-- IDX]: index.bin naming the files, one log whose entries
# point at each (and at filter IDX, when given)
index() {
    python3 - "$U/index.bin" "$@" <<'EOF'
import struct, sys
out, args = sys.argv[1], sys.argv[2:]
extra = []
if "--" in args:
    extra = [int(args[args.index("--") + 1])]
    args = args[:args.index("--")]
names = [a.encode() for a in args]
logs = [b"\x11" * 32, b"\x22" * 32]
head = b"upkiidx1" + struct.pack(">HI", len(names), len(logs))
table = b"".join(n.ljust(32, b"\0") for n in names)
base = len(head) + len(table) + 42 * len(logs)
idx = list(range(len(names))) + extra
sections, directory = b"", b""
for log in logs:
    entries = b"".join(struct.pack(">HQQ", i, 0, 2 ** 63) for i in idx)
    directory += log + struct.pack(">QH", base + len(sections), len(idx))
    sections += entries
open(out + ".tmp", "wb").write(head + table + directory + sections)
import os; os.replace(out + ".tmp", out)
EOF
}
index 20260624-0.filter 20260624-1.delta 20260625-0.delta
write_conf "crlite_upki_dir = $U" "enroll = none"
sha() { sha256sum "$1" | cut -d' ' -f1; }

assert_exit 0 cc update
assert_grep 'crlite: 3 filters installed \(3 fetched, 0 bytes\)' "$W/last.err"
for f in 20260624-0.filter 20260624-1.delta 20260625-0.delta; do
    [ -f "$STATE/crlite/$(sha "$U/$f").filter" ] || fail "$f not installed"
done
assert_exit 0 cc status
assert_grep '^crlite source=upki-dir filters=3 .*in_use=yes' "$W/last.out"
case_ok "three filters from the upki cache"
# The lookup file the fetcher wrote (lib/crlitelookup.c) is the one
# test/crlite_set.py writes apart from the same filters, but for the set's
# checksum (bytes 16 to 24: the sets differ in their install time).
python3 "$TESTDIR/crlite_set.py" "$W/apart" "$U/20260624-0.filter" "$U/20260624-1.delta" \
    "$U/20260625-0.delta" || fail "crlite_set.py"
python3 - "$STATE"/crlite/*.lookup "$W"/apart/crlite/*.lookup <<'EOF' || fail "the lookup files differ"
import sys
a, b = (bytearray(open(p, "rb").read()) for p in sys.argv[1:3])
a[16:24] = b[16:24] = bytes(8)
sys.exit(a != b or len(a) < 2000)
EOF
case_ok "the fetcher's lookup file is the one written apart ($(stat -c %s "$W"/apart/crlite/*.lookup) bytes)"

cp "$STATE/crlite/set" "$W/set.before"
assert_exit 0 cc update
assert_grep 'crlite unchanged \(3 filters' "$W/last.err"
cmp -s "$STATE/crlite/set" "$W/set.before" || fail "set rewritten"
case_ok "read again: nothing changed"

# a set without its lookup file (as an earlier version installed it):
# readers refuse it, so the next update installs it anew, nothing fetched
rm -f "$STATE"/crlite/*.lookup
assert_exit 0 cc update
assert_grep 'crlite: the set in force cannot be read \(.*\.lookup: No such file or directory\); installed anew' "$W/last.err"
assert_grep 'crlite: 3 filters installed \(0 fetched, 0 bytes\)' "$W/last.err"
assert_exit 0 cc status
assert_grep '^crlite source=upki-dir filters=3 .*in_use=yes' "$W/last.out"
case_ok "a set without its lookup file installed anew"
cp "$STATE/crlite/set" "$W/set.before"

# kept: the set in force, the run exit 1 and say why
kept() {        # kept NAME MESSAGE-RE
    cc update >"$W/$1.out" 2>"$W/$1.err"; rc=$?
    if [ "$rc" = 1 ] && grep -Eq "crlite: .*$2.*; the set in force is kept" "$W/$1.err" &&
        cmp -s "$STATE/crlite/set" "$W/set.before"; then
        case_ok "$1"
    else
        cat "$W/$1.err" >&2; case_fail "$1" "exit $rc"
    fi
}
index 20260624-0.filter 20260624-1.delta 20260625-0.delta -- 3
kept filter-out-of-range 'index.bin: log 0 names filter 3 of 3'
index 20260624-0.filter ../etc
kept unsafe-name "index.bin: filter name 1 is not 1 to 32 letters"
head -c 100 /dev/zero >"$U/20260626-0.delta"
index 20260624-0.filter 20260626-0.delta
kept not-a-filter 'file 20260626-0.delta: not a clubcard filter'
index 20260624-0.filter 20260627-0.delta
kept missing "$U/20260627-0.delta: "

# a set file damaged in the state: status says so, update installs anew
printf 'x' >>"$STATE/crlite/set"
cc status >"$W/s.out" 2>&1
assert_grep '^crlite source=unknown filters=0 issuers=0 in_use=no why=".*set: 3 filters in 193 bytes.* fetched_last_run=0 fetched_total=0$' "$W/s.out"
cp "$W/cc/delta.v3" "$U/20260626-0.delta"
index 20260624-0.filter 20260624-1.delta 20260625-0.delta 20260626-0.delta
assert_exit 0 cc update
assert_grep 'crlite: 4 filters installed \(1 fetched' "$W/last.err"
case_ok "a delta upki added is taken"

# Mozilla's whole cycle: the full filter and the 91 deltas of its 45
# days (include/crlcache/crlite.h); 129 files are past the bound
cycle() {   # cycle N: the full filter and N - 1 deltas (as recent as the set
            # in force: no rollback), distinct by padding
    local names=(20260624-0.filter) i
    python3 - "$TESTDIR" "$W/cc/main.v4" "$U" "$1" <<'EOF' || fail "deltas"
import os, sys
sys.path.insert(0, sys.argv[1])
import crlite_pki
delta, u, n = sys.argv[2], sys.argv[3], int(sys.argv[4])
for i in range(1, n):
    crlite_pki.pad(delta, os.path.join(u, "c%03d.delta" % i), os.path.getsize(delta) + 8 * i)
EOF
    for ((i = 1; i < $1; i++)); do names+=("$(printf 'c%03d.delta' "$i")"); done
    index "${names[@]}"
}
cycle 92
assert_exit 0 cc update
assert_grep 'crlite: 92 filters installed \(91 fetched' "$W/last.err"
cp "$STATE/crlite/set" "$W/set.before"
cycle 129
kept cycle-129 'index.bin: 129 filters, not 1 to 128'
case_ok "a full filter and 91 deltas (a 45-day cycle) taken; 129 refused"
finish
