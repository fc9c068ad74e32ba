#!/usr/bin/env bash
# OneCRL end to end on loopback: the Remote Settings server
# (test/remotesettings.py on test/httpd.py) serves, beside a CRLite
# collection, a onecrl collection signed by the test content-signing chain
# (cs_chain, whose root the configuration pins) that lists a test PKI's
# intermediate A by issuer and serial (its record "enabled": false, which
# Firefox enforces all the same), intermediate B by subject and key hash,
# and one malformed record.  The index holds no CRL for any of them.
# After one update:
#   - the file holds the two entries, the malformed record is left out
#     and said once; status (text, --json, --prometheus) shows the count;
#   - openssl verify and s_client -verify_return_error under the provider
#     refuse the chains through A and B saying OneCRL, and accept the one
#     through C; crlcache check says revoked (OneCRL) for A and B;
#   - a second update asks monitor/changes only (it lists no change),
#     not the collection; a forged signature keeps the
#     file in force, says why and exits 1, and A is still refused; a
#     damaged file is refused whole by the provider (said), not used.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
python3 -c 'import cryptography' 2>/dev/null || skip "python3-cryptography not installed"
httpd_start
cs_chain

pki_root root "/CN=OneCRL Root/O=crlcache tests"
ROOT=$PKI/root/cert.pem
for c in A B C; do
    pki_ca "int$c" root "/CN=OneCRL Int $c/O=crlcache tests" keytype=ec
    prov_leaf "leaf$c" "int$c" "leaf-$c.test"
done
cat "$PKI/intA/cert.pem" "$PKI/intB/cert.pem" "$PKI/intC/cert.pem" >"$W/untrusted.pem"
python3 "$TESTDIR/onecrl_ref.py" records "$W/onecrl.json" --serial "$PKI/intA/cert.pem" \
    --key "$PKI/intB/cert.pem" --bad || fail "onecrl_ref.py records"
python3 "$TESTDIR/clubcard_build.py" suite "$W/cc" >/dev/null || fail "clubcard_build.py"
TS=1760000000000
publish() {     # publish [remotesettings.py options]: a new timestamp
    TS=$((TS + 1000))
    python3 "$TESTDIR/remotesettings.py" "$HTTPD_ROOT" "$BASE_URL" "$W/cs/ee.key" \
        "$W/cs/chain.pem" "$TS" F1="$W/cc/full.v3" "$@" || fail "remotesettings.py"
}
write_conf "crlite = $BASE_URL/v1/" "crlite_root = $CS_ROOT_FP" \
    "allow_private_urls = yes" "enroll = none"
mkdir -p "$STATE"

# 1. installed: two entries, the malformed record left out and said
publish --onecrl "$W/onecrl.json"
assert_exit 0 cc update
assert_grep 'onecrl: 2 entries installed \(some records left out\)' "$W/last.err"
[ "$(grep -c 'onecrl: 1 records left out as malformed (the first: record 00000000-0000-4000-8000-000000000003: issuerName is not base64' "$W/last.err")" = 1 ] ||
    { cat "$W/last.err"; fail "the malformed record not said once"; }
[ -f "$STATE/crlite/onecrl" ] || fail "no STATE/crlite/onecrl"
assert_exit 0 cc status
assert_grep '^onecrl entries=2 by_issuer_serial=1 by_subject_key=1 left_out=1 age=[0-9]+s in_use=yes' "$W/last.out"
assert_exit 0 cc status --json
python3 -c 'import json,sys; o=json.load(open(sys.argv[1]))["onecrl"]; assert o["entries"]==2 and o["in_use"] and o["timestamp"]>0, o' "$W/last.out" ||
    fail "status --json: onecrl"
assert_exit 0 cc status --prometheus "$W/prom"
grep -qx 'crlcache_onecrl_entries 2' "$W/prom" && grep -qx 'crlcache_onecrl_in_use 1' "$W/prom" ||
    { cat "$W/prom"; fail "status --prometheus: onecrl"; }
case_ok "update installs OneCRL's two entries, the malformed record left out (said once); status shows them"

# 2. the provider refuses chains through A and B, not through C
refused_onecrl() {  # refused_onecrl NAME: the client failed, saying OneCRL
    [ "$CLIENT_RC" != 0 ] && grep -q 'revoked (OneCRL' "$W/client.out" &&
        grep -q 'certificate is revoked (OneCRL, refused)' "$W/client.out" &&
        case_ok "$1" || { cat "$W/client.out"; case_fail "$1" "exit $CLIENT_RC"; }
}
cl_verify "$PKI/leafA.pem"
refused_onecrl "openssl verify: a leaf under the intermediate OneCRL lists by issuer and serial refused"
cl_verify "$PKI/leafB.pem"
refused_onecrl "openssl verify: a leaf under the intermediate OneCRL lists by subject and key refused"
cl_verify "$PKI/leafC.pem"
[ "$CLIENT_RC" = 0 ] && ! grep -q OneCRL "$W/client.out" && case_ok "openssl verify: the chain through C accepted" ||
    { cat "$W/client.out"; case_fail "verify C" "exit $CLIENT_RC"; }
for c in A B C; do srv_start "s$c" "leaf$c"; done
cl_sclient "$(srv_port sA)" 1.3
refused_onecrl "s_client: the server under A refused at the first handshake"
cl_sclient "$(srv_port sB)" 1.2
refused_onecrl "s_client: the server under B refused at the first handshake"
cl_sclient "$(srv_port sC)" 1.3
[ "$CLIENT_RC" = 0 ] && case_ok "s_client: the server under C accepted" ||
    { cat "$W/client.out"; case_fail "s_client C" "exit $CLIENT_RC"; }
check_is 'revoked \(OneCRL, listed by issuer and serial\)' 1 "$PKI/intA/cert.pem"
check_is 'revoked \(OneCRL, listed by subject and key\)' 1 "$PKI/intB/cert.pem"
check_is 'unknown' 2 "$PKI/intC/cert.pem"
case_ok "crlcache check: revoked (OneCRL) for A and B, not for C"

# 3. nothing new: monitor/changes lists no change, the collection is not
#    asked; a forged signature keeps the file
cp "$STATE/crlite/onecrl" "$W/onecrl.before"
n0=$(wc -l <"$HTTPD_LOG")
assert_exit 0 cc update
assert_grep 'onecrl unchanged' "$W/last.err"
tail -n +$((n0 + 1)) "$HTTPD_LOG" | grep -Eq 'monitor/collections/changes/changeset\?_expected=0&_since=' ||
    fail "the second update did not ask monitor/changes since its last answer"
! tail -n +$((n0 + 1)) "$HTTPD_LOG" | grep -q '/onecrl/changeset' ||
    fail "the second update asked OneCRL though nothing changed"
publish --onecrl-forge
cc update >"$W/forged.out" 2>"$W/forged.err"; rc=$?
[ "$rc" = 1 ] && grep -Eq 'onecrl: content signature: does not verify.*; the list in force is kept' "$W/forged.err" &&
    grep -q 'onecrl failed, the list in force kept' "$W/forged.err" &&
    cmp -s "$STATE/crlite/onecrl" "$W/onecrl.before" &&
    case_ok "a forged signature: the list in force kept, said, exit 1" ||
    { cat "$W/forged.err"; case_fail forged "exit $rc"; }
cl_verify "$PKI/leafA.pem"
refused_onecrl "after the forged collection A is still refused"

# 4. a damaged file: refused whole by a new process, said; not used
printf 'X' | dd of="$STATE/crlite/onecrl" bs=1 seek=50 conv=notrunc status=none
cl_verify "$PKI/leafA.pem"
[ "$CLIENT_RC" = 0 ] && grep -q 'OneCRL data in .* not used: onecrl: checksum mismatch' "$W/client.out" &&
    case_ok "a damaged file is refused whole, and said" ||
    { cat "$W/client.out"; case_fail damaged "exit $CLIENT_RC"; }
finish
