#!/usr/bin/env bash
# CRLite from a Remote Settings server on loopback (test/remotesettings.py
# writes what test/httpd.py serves): a collection of a full filter and two
# deltas (test/clubcard_build.py's filters), content-signed by a test
# chain made with the openssl CLI (P-384 root, intermediate, end-entity
# for onecrl.content-signature.mozilla.org with the code signing usage)
# whose root the configuration pins.  update installs the three filters
# and STATE/crlite/set names them; a second update asks monitor/changes
# only and downloads nothing; a forged signature, a wrong attachment hash, a delta
# whose parent is missing, a truncated attachment, a record the signature
# does not cover, no signature, a chain to another root, an end-entity
# without the code signing usage or for another signer each leave the set
# in force, say why and exit 1; a bad signature listed before a good one
# is passed over; a filter lost on disk is fetched again; a new full
# filter supersedes the old set, whose files are removed.
. "$(dirname "$0")/lib.sh"
need_crlcache
python3 -c 'import cryptography' 2>/dev/null || skip "python3-cryptography not installed"
httpd_start
cs_chain
# end-entities Firefox refuses: no code signing usage, another name
cs_cert ee-noeku "/CN=$CS_SIGNER" int "keyUsage=critical,digitalSignature
subjectAltName=DNS:$CS_SIGNER"
cs_cert ee-cn "/CN=$CS_SIGNER" int "extendedKeyUsage=codeSigning
subjectAltName=DNS:remote-settings.content-signature.mozilla.org"
cs_cert root2 "/CN=another content signing root" - "basicConstraints=critical,CA:true"

# The filters: a full filter and deltas, then a new full filter.
python3 "$TESTDIR/clubcard_build.py" suite "$W/cc" >/dev/null || fail "clubcard_build.py"
cp "$W/cc/full.v3" "$W/full1.filter"; cp "$W/cc/delta.v3" "$W/delta1.filter"
cp "$W/cc/main.v3" "$W/delta2.filter"; cp "$W/cc/main.v4" "$W/delta3.filter"
cp "$W/cc/full.v4" "$W/full2.filter"; cp "$W/cc/delta.v4" "$W/delta21.filter"
sha() { sha256sum "$1" | cut -d' ' -f1; }

TS=1760000000000
EE=ee
# publish [options] SPEC...: the collection as the server now serves it,
# signed by $EE's key, its x5u the chain of $EE
publish() {
    TS=$((TS + 1000))
    cat "$W/cs/$EE.pem" "$W/cs/int.pem" "$W/cs/${ROOT:-root}.pem" >"$W/cs/chain.pem"
    python3 "$TESTDIR/remotesettings.py" "$HTTPD_ROOT" "$BASE_URL" \
        "$W/cs/$EE.key" "$W/cs/chain.pem" "$TS" "$@" || fail "remotesettings.py"
}
BASE3=(F1="$W/full1.filter" D1="$W/delta1.filter:F1" D2="$W/delta2.filter:D1")
write_conf "crlite = $BASE_URL/v1/" "crlite_root = $CS_ROOT_FP" \
    "allow_private_urls = yes" "enroll = none"

# The set file as a list: KIND HASH SIZE per filter (crlite.h's layout).
set_list() {
    python3 - "$STATE/crlite/set" <<'EOF'
import struct, sys
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"CRLCLITE", "magic"
ver, n = struct.unpack(">II", b[8:16])
assert ver == 1 and len(b) == 40 + 48 * n + 8, "length"
for i in range(n):
    r = b[40 + 48 * i: 88 + 48 * i]
    size, = struct.unpack(">Q", r[32:40])
    print(("full" if r[40] == 0 else "delta"), r[:32].hex(), size)
EOF
}
expect_set() {  # expect_set FILE... : the set names exactly these, in order
    local want="" f k=full
    for f in "$@"; do want+="$k $(sha "$f") $(stat -c %s "$f")"$'\n'; k=delta; done
    [ "$(set_list)" = "${want%$'\n'}" ] || { set_list; fail "set is not $*"; }
    for f in "$@"; do [ -f "$STATE/crlite/$(sha "$f").filter" ] ||
        fail "$(basename "$f") not on disk"; done
}

# 1. the whole chain installed
publish "${BASE3[@]}" --compat C1="$W/delta3.filter"
assert_exit 0 cc update
assert_grep 'crlite: 3 filters installed \(3 fetched' "$W/last.err"
expect_set "$W/full1.filter" "$W/delta1.filter" "$W/delta2.filter"
# the set, its filters, its lookup file and OneCRL (the server's
# collection is empty here), and the two collections' last verified
# changesets
[ "$(ls "$STATE/crlite" | wc -l)" = 8 ] || { ls "$STATE/crlite"; fail "files besides the set's"; }
assert_not_grep 'delta3' "$HTTPD_LOG"
assert_exit 0 cc status
assert_grep '^crlite source=remote-settings filters=3 issuers=1 .*in_use=yes' "$W/last.out"
assert_exit 0 cc status --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["crlite"]; assert c["filters"]==3 and c["in_use"] and c["fetched_total"]>0, c' "$W/last.out" ||
    fail "status --json: crlite"
assert_exit 0 cc status --prometheus "$W/prom"
grep -qx 'crlcache_crlite_filters 3' "$W/prom" && grep -qx 'crlcache_crlite_in_use 1' "$W/prom" &&
    grep -Eqx 'crlcache_crlite_fetched_bytes\{source="remote-settings"\} [1-9][0-9]*' "$W/prom" ||
    { cat "$W/prom"; fail "status --prometheus: crlite"; }
case_ok "full filter and two deltas installed"

# 2. nothing new: monitor/changes (asked since its last answer) lists
#    nothing, nothing else is asked
cp "$STATE/crlite/set" "$W/set.before"
n0=$(grep -vc /onecrl/ "$HTTPD_LOG")
assert_exit 0 cc update
assert_grep 'crlite unchanged \(3 filters, 0 bytes fetched\)' "$W/last.err"
grep -v /onecrl/ "$HTTPD_LOG" >"$W/crlite.log"
only_request "$W/crlite.log" "$n0" 'monitor/collections/changes/changeset\?_expected=0&_since=[0-9]+ 200'
cmp -s "$STATE/crlite/set" "$W/set.before" || fail "set rewritten unchanged"
case_ok "second update: monitor/changes only, nothing downloaded"

# 3. each spoilt collection keeps the set in force, says why, exits 1
spoilt() {      # spoilt NAME MESSAGE-RE OPTIONS...
    local name=$1 re=$2; shift 2
    publish "$@"
    cc update >"$W/$name.out" 2>"$W/$name.err"; rc=$?
    if [ "$rc" = 1 ] && grep -Eq "crlite: .*$re.*; the set in force is kept" "$W/$name.err" &&
        grep -Eq 'crlite failed \(.*\), the set in force kept' "$W/$name.err" &&
        cmp -s "$STATE/crlite/set" "$W/set.before" &&
        [ "$(ls "$STATE/crlite" | wc -l)" = 8 ]; then
        case_ok "$name"
    else
        cat "$W/$name.err" >&2; ls "$STATE/crlite" >&2
        case_fail "$name" "exit $rc"
    fi
}
D3=D3="$W/delta3.filter:D2"
spoilt forged 'content signature: does not verify' "${BASE3[@]}" "$D3" --forge
spoilt unsigned 'changeset: unsigned' "${BASE3[@]}" "$D3" --no-signature
spoilt wrong-hash "record D3: the attachment's SHA-256 is not the one the signed record says" \
    "${BASE3[@]}" "$D3" --wrong-hash D3
spoilt missing-parent "delta D3's parent D9 is not in the collection" \
    "${BASE3[@]}" D3="$W/delta3.filter:D9"
spoilt truncated "record D3: attachment of $(( $(stat -c %s "$W/delta3.filter") - 1 )) bytes" \
    "${BASE3[@]}" "$D3" --truncate D3
spoilt unsigned-record 'content signature: does not verify' "${BASE3[@]}" --unsigned "$D3"
# the x5u chain ending at another root; certificates Firefox refuses
ROOT=root2 spoilt other-root "root is not the pinned content-signing root" \
    "${BASE3[@]}" "$D3"
EE=ee-noeku spoilt no-code-signing "certificate 0 of the chain does not allow code signing" \
    "${BASE3[@]}" "$D3"
EE=ee-cn spoilt other-signer "the certificate is not for $CS_SIGNER" "${BASE3[@]}" "$D3"
assert_exit 2 cc status
assert_grep 'cert-revocations/changeset failing .*error=content signature: the certificate is not for' "$W/last.out"

# 4. a third delta, then a new full filter supersedes: old files removed.
#    The failures kept the changeset held: asked with _since it.
#    A bad signature listed before the good one (a key rotating) is fine.
publish "${BASE3[@]}" "$D3" --rotating
n0=$(wc -l <"$HTTPD_LOG")
assert_exit 0 cc update
tail -n +$((n0 + 1)) "$HTTPD_LOG" | grep -Eq 'cert-revocations/changeset\?_expected=[0-9]+&_since=[0-9]+ 200' ||
    fail "after a failure the changeset was not asked with _since"
assert_grep 'crlite: 4 filters installed \(1 fetched' "$W/last.err"
expect_set "$W/full1.filter" "$W/delta1.filter" "$W/delta2.filter" "$W/delta3.filter"
case_ok "a third delta added"
# a filter of the set lost on disk: asked whole, downloaded again
rm "$STATE/crlite/$(sha "$W/delta1.filter").filter"
assert_exit 0 cc update
assert_grep 'filter 1 of the set in force is missing or damaged' "$W/last.err"
assert_grep 'crlite: 4 filters installed \(1 fetched' "$W/last.err"
expect_set "$W/full1.filter" "$W/delta1.filter" "$W/delta2.filter" "$W/delta3.filter"
case_ok "a lost filter fetched again"
publish "${BASE3[@]}" "$D3" F2="$W/full2.filter" D21="$W/delta21.filter:F2"
assert_exit 0 cc update
assert_grep 'crlite: 2 filters installed \(2 fetched' "$W/last.err"
expect_set "$W/full2.filter" "$W/delta21.filter"
# the set, its two filters, its lookup file, OneCRL and the two changesets
[ "$(ls "$STATE/crlite" | wc -l)" = 7 ] || { ls "$STATE/crlite"; fail "superseded files kept"; }
case_ok "a new full filter supersedes; the old files removed"
finish
