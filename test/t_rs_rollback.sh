#!/usr/bin/env bash
# No rollback from Remote Settings (fetcher/rsclient.c): version 1 of
# both collections (CRLite: a full filter and a delta; OneCRL: one
# intermediate by issuer and serial) is published, then version 2 (a
# second delta; a second intermediate by subject and key) and installed.
# A third version is published (monitor/changes says so; OneCRL adds a
# third intermediate), but the way to
# the server replays version 1's changesets, validly signed (a stale
# cache): update refuses both, naming both timestamps, exits 1, and the
# set of three filters and the two OneCRL entries stay in force.  The
# same from a server without monitor/changes (each collection asked with
# _since).  Once the server serves the newest again, it is installed.
. "$(dirname "$0")/lib.sh"
need_crlcache
python3 -c 'import cryptography' 2>/dev/null || skip "python3-cryptography not installed"
httpd_start
cs_chain
pki_root root "/CN=Rollback Root/O=crlcache tests"
for c in A B C; do pki_ca "int$c" root "/CN=Rollback Int $c/O=crlcache tests" keytype=ec; done
python3 "$TESTDIR/onecrl_ref.py" records "$W/onecrl1.json" --serial "$PKI/intA/cert.pem" ||
    fail "onecrl_ref.py"
python3 "$TESTDIR/onecrl_ref.py" records "$W/onecrl2.json" --serial "$PKI/intA/cert.pem" \
    --key "$PKI/intB/cert.pem" || fail "onecrl_ref.py"
python3 "$TESTDIR/onecrl_ref.py" records "$W/onecrl3.json" --serial "$PKI/intA/cert.pem" \
    --key "$PKI/intB/cert.pem" --serial "$PKI/intC/cert.pem" || fail "onecrl_ref.py"
python3 "$TESTDIR/clubcard_build.py" suite "$W/cc" >/dev/null || fail "clubcard_build.py"
COLL=$HTTPD_ROOT/v1/buckets/security-state/collections
TS=1760000000000
publish() {     # publish ONECRL SPEC...: a new version, 1000 ms later
    local onecrl=$1; shift
    TS=$((TS + 1000))
    python3 "$TESTDIR/remotesettings.py" "$HTTPD_ROOT" "$BASE_URL" "$W/cs/ee.key" \
        "$W/cs/chain.pem" "$TS" "$@" --onecrl "$onecrl" || fail "remotesettings.py"
}
V1=(F1="$W/cc/full.v3" D1="$W/cc/delta.v3:F1")
V2=("${V1[@]}" D2="$W/cc/main.v3:D1")
write_conf "crlite = $BASE_URL/v1/" "crlite_root = $CS_ROOT_FP" \
    "allow_private_urls = yes" "enroll = none"
in_force() {    # the set has 3 filters and OneCRL 2 entries
    cc status >"$W/status.out" 2>&1
    grep -Eq '^crlite source=remote-settings filters=3 ' "$W/status.out" &&
        grep -Eq '^onecrl entries=2 ' "$W/status.out"
}

publish "$W/onecrl1.json" "${V1[@]}"
T1=$TS
mkdir -p "$W/v1"
for c in cert-revocations onecrl; do
    cp "$COLL/$c/changeset" "$W/v1/$c"; cp "$COLL/$c/changeset.tombstones" "$W/v1/$c.tombstones"
done
assert_exit 0 cc update
publish "$W/onecrl2.json" "${V2[@]}"
T2=$TS
assert_exit 0 cc update
in_force || { cat "$W/status.out"; fail "version 2 not installed"; }
case_ok "version 2 installed: 3 filters, 2 OneCRL entries"

# replay: the server published version 3, the way serves version 1
replay() {
    for c in cert-revocations onecrl; do
        cp "$W/v1/$c" "$COLL/$c/changeset"; cp "$W/v1/$c.tombstones" "$COLL/$c/changeset.tombstones"
    done
}
refused() {     # refused NAME: exit 1, both collections refused, said
    local rc=0
    cc update >"$W/replay.out" 2>"$W/replay.err" || rc=$?
    for c in cert-revocations onecrl; do
        grep -Eq "$c: the changeset's timestamp is $T1 \(.*\), older than the one in force, $T2 \(.*\): refused" "$W/replay.err" ||
            { cat "$W/replay.err" >&2; case_fail "$1" "$c: no refusal said"; return; }
    done
    [ "$rc" = 1 ] || { cat "$W/replay.err" >&2; case_fail "$1" "exit $rc"; return; }
    in_force || { cat "$W/status.out" >&2; case_fail "$1" "rolled back"; return; }
    case_ok "$1"
}
publish "$W/onecrl3.json" "${V2[@]}"
replay
refused "a replayed version 1 refused, version 2 kept, exit 1"
mkdir -p "$HTTPD_ROOT/v1/buckets/monitor/collections/changes"
echo 404 >"$HTTPD_ROOT/v1/buckets/monitor/collections/changes/changeset.status"
refused "without monitor/changes: the replay refused all the same"
grep -q "cert-revocations/changeset?_expected=0&_since=$T2 200" "$HTTPD_LOG" ||
    fail "without monitor/changes the collection was not asked with _since"

rm "$HTTPD_ROOT/v1/buckets/monitor/collections/changes/changeset.status"
publish "$W/onecrl3.json" "${V2[@]}" D3="$W/cc/delta.v4:D2"
assert_exit 0 cc update
assert_grep 'crlite: 4 filters installed \(1 fetched' "$W/last.err"
assert_grep 'onecrl: 3 entries installed' "$W/last.err"
case_ok "the newest version installed once served"
finish
