#!/usr/bin/env bash
# The times of a CRL outside RFC 5280's profile, properly signed
# (test/der_edit.py re-signs them with the issuer's key):
#   - a UTCTime with an offset from UTC or without seconds (X.680 forms,
#     4.1.2.5.1 asks YYMMDDHHMMSSZ): read as the instant it names, which
#     the test computes itself, and said in the log;
#   - no nextUpdate (5.1.2.5: MUST for issuers): taken, and stale once
#     stale_grace has passed since its thisUpdate, not current for ever.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
offline_pki
pki_revoke int "$PKI/rev1.pem"
pki_gencrl int "$W/int-openssl.crl" number=10
IMP=(import --anchor "$PKI/root/cert.pem" --untrusted "$PKI/int/cert.pem")
edit() {   # edit OUT COMMAND ARGS...: the intermediate's CRL, edited and re-signed
    local out=$W/$1.crl; shift
    "$PY" "$TESTDIR/der_edit.py" "$1" "${2:-$W/int-openssl.crl}" "$PKI/int/key.pem" "$out" \
        "${@:3}" || fail "der_edit.py $1 failed"
    "$PY" "$TESTDIR/der_edit.py" split "$out" "$W/tbs" "$W/sig" || fail "der_edit.py split failed"
    openssl dgst -sha256 -verify "$W/int-pub.pem" -signature "$W/sig" "$W/tbs" >/dev/null ||
        fail "$out: crafted CRL does not verify"
}
openssl x509 -in "$PKI/int/cert.pem" -noout -pubkey >"$W/int-pub.pem"
fresh() { STATE=$W/state-$1; write_conf "stale_grace = ${2:-86400}"; }
this_update_of() {   # the thisUpdate status --json reports for the one CRL
    cc status --json >"$W/st.json" 2>"$W/st.err"
    "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["crl"][0]["this_update"])' \
        "$W/st.json" 2>/dev/null || { cat "$W/st.json" "$W/st.err" >&2; fail "status --json unreadable"; }
}
now=$(now_epoch)
# utc OFFSET_SECONDS ZONE: now+OFFSET as a UTCTime in local time ZONE
# (+hhmm or -hhmm), e.g. utc -3600 +0200 names now-1h written as now+1h.
utc() {
    local z=$2 s=$(( ${2:1:2} * 3600 + ${2:3:2} * 60 ))
    [ "${z:0:1}" = - ] && s=$(( -s ))
    date -u -d "@$(( now + $1 + s ))" +%y%m%d%H%M%S"$z"
}

# 1. thisUpdate an hour ago, written in +0200; nextUpdate without seconds.
edit off crl-time "" thisUpdate "utc:$(utc -3600 +0200)"
edit off2 crl-time "$W/off.crl" nextUpdate "utc:$(date -u -d "@$(( now + 7 * 86400 ))" +%y%m%d%H%MZ)"
fresh offset
assert_exit 0 cc -v "${IMP[@]}" "$W/off2.crl"
assert_grep "off2.crl: CRL of .*tolerated: a UTCTime with an offset from UTC or without seconds \\(RFC 5280 4\\.1\\.2\\.5\\.1" "$W/last.err"
[ "$(this_update_of)" = "$((now - 3600))" ] || fail "thisUpdate +0200 read as $(this_update_of), not $((now - 3600))"
case_ok "offset thisUpdate read as the instant it names"
check_is revoked 1 "$PKI/rev1.pem"
check_is good 0 "$PKI/rev2.pem"

# 2. Still refused: a UTCTime offset past 23:59, a local time without one.
fresh refused
for t in "utc:$(utc -3600 +0200 | cut -c1-12)+2400" "utc:$(utc -3600 +0000 | cut -c1-12)"; do
    edit bad crl-time "" thisUpdate "$t"
    assert_exit 1 cc "${IMP[@]}" "$W/bad.crl"
    assert_grep 'rejected: malformed CRL: thisUpdate is no UTCTime' "$W/last.err"
done
case_ok "impossible offset and local time refused"

# 3. No nextUpdate, thisUpdate 10 minutes ago, stale_grace one hour:
#    current; the same CRL with stale_grace 5 minutes: stale.
edit nonext-t crl-time "" thisUpdate "utc:$(utc -600 +0000 | cut -c1-12)Z"
edit nonext drop-next-update "$W/nonext-t.crl"
crl_text "$W/nonext.crl" | grep -q 'Next Update: NONE' || fail "the CRL still has a nextUpdate"
fresh nonext 3600
assert_exit 0 cc "${IMP[@]}" "$W/nonext.crl"
check_is revoked 1 "$PKI/rev1.pem"
check_is good 0 "$PKI/rev2.pem"
assert_exit 0 cc status
write_conf "stale_grace = 300"
check_is stale 3 "$PKI/rev2.pem"
assert_exit 1 cc status
case_ok "without nextUpdate: stale once stale_grace has passed since thisUpdate"

# 4. The provider says the same, and why.
px --set stale_grace=300 --set on_stale=deny -- openssl verify -CAfile "$PKI/root/cert.pem" \
    -untrusted "$PKI/int/cert.pem" "$PKI/rev2.pem" >"$W/v.out" 2>&1 &&
    { cat "$W/v.out" >&2; fail "provider accepted a certificate whose CRL is stale"; }
assert_grep 'stale.*CRL without nextUpdate, thisUpdate' "$W/v.out"
px --set stale_grace=3600 --set on_stale=deny -- openssl verify -CAfile "$PKI/root/cert.pem" \
    -untrusted "$PKI/int/cert.pem" "$PKI/rev2.pem" >"$W/v.out" 2>&1 ||
    { cat "$W/v.out" >&2; fail "provider refused a certificate whose CRL is current"; }
case_ok "provider: stale, CRL without nextUpdate"
finish
