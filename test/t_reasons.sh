#!/usr/bin/env bash
# CRLs partitioned by reason (RFC 5280 5.2.5 onlySomeReasons, 6.3.3 (d),
# (j)-(k)): an issuer publishes one CRL for keyCompromise and cACompromise
# and one for every other reason.  A certificate listed by either is
# revoked; one listed by neither is good only when both are held, and
# unknown ("for only some reasons") with one; `status` shows the reasons,
# `reset --reasons` forgets one partition, and a delta CRL whose
# onlySomeReasons differ from its base's is refused.  Through `check` and
# the provider (openssl verify under `crlcache exec`).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
need_crlcache

pki_root root "/CN=Reasons Root/O=crlcache tests"
pki_ca int root "/CN=Reasons Int/O=crlcache tests"
pki_leaf good int "/CN=good.test"
pki_leaf revkc int "/CN=revoked-keycompromise.test"
pki_leaf revsup int "/CN=revoked-superseded.test"
: >"$W/kc.txt"; : >"$W/other.txt"
pki_revoke int "$PKI/revkc.pem" db="$W/kc.txt" reason=keyCompromise
pki_revoke int "$PKI/revsup.pem" db="$W/other.txt" reason=superseded
# reasons_ext LIST: an IDP that names only onlySomeReasons (no distributionPoint)
reasons_ext() {
    printf 'issuingDistributionPoint = critical,@idp_r\n[ idp_r ]\nonlysomereasons = %s' "$1"
}
KC="keyCompromise, CACompromise"
OTHER="affiliationChanged, superseded, cessationOfOperation, certificateHold, privilegeWithdrawn, AACompromise"
pki_gencrl int "$W/kc.crl" db="$W/kc.txt" number=05 ext="$(reasons_ext "$KC")"
pki_gencrl int "$W/other.crl" db="$W/other.txt" number=07 ext="$(reasons_ext "$OTHER")"
pki_gencrl root "$W/root.crl"
crl_text "$W/kc.crl" | grep -A2 'Issuing Distribution Point' | grep -q 'Key Compromise, CA Compromise' \
    || fail "kc.crl has no onlySomeReasons"
ROOT=$PKI/root/cert.pem
cp "$PKI/int/cert.pem" "$W/untrusted.pem"
write_conf "# reasons"
imp() { cc import --anchor "$ROOT" --untrusted "$W/untrusted.pem" "$@" >"$W/imp.out" 2>&1 \
    || { cat "$W/imp.out"; fail "import $* failed"; }; }
show() { sed 's/^/    | /' "$1"; }

# --- one partition held: keyCompromise, cACompromise (and the root's CRL)
imp "$W/root.crl" "$W/kc.crl"
check_is_soft unknown 2 "$PKI/good.pem" && show "$W/check.out"
grep -q 'for only some reasons: keyCompromise,cACompromise' "$W/check.out" \
    && case_ok "check: good leaf unknown with one partition, says which reasons" \
    || case_fail kc-only-check "$(cat "$W/check.out")"
check_is_soft revoked 1 "$PKI/revkc.pem" && case_ok "check: listed in the held partition: revoked" \
    || case_fail kc-only-revoked "$(cat "$W/check.out")"
check_is_soft unknown 2 "$PKI/revsup.pem" && case_ok "check: listed in the partition not held: unknown" \
    || case_fail kc-only-revsup "$(cat "$W/check.out")"
cl_verify "$PKI/good.pem" --set on_unknown=deny; show "$W/client.out"
[ "$CLIENT_RC" -ne 0 ] && grep -q 'for only some reasons: keyCompromise,cACompromise' "$W/client.out" \
    && case_ok "provider: on_unknown=deny refuses the good leaf, only some reasons" \
    || case_fail kc-only-provider "exit $CLIENT_RC"
cl_verify "$PKI/revkc.pem"; show "$W/client.out"
[ "$CLIENT_RC" -ne 0 ] && grep -q 'certificate is revoked (crlcache)' "$W/client.out" \
    && case_ok "provider: revoked in the held partition refused" \
    || case_fail kc-only-provider-revoked "exit $CLIENT_RC"
cc status >"$W/status.out" 2>&1; show "$W/status.out"
grep -q 'kind=full+some-reasons .*reasons=keyCompromise,cACompromise' "$W/status.out" \
    && case_ok "status: kind full+some-reasons, reasons=" || case_fail status-text "$(cat "$W/status.out")"

# --- both partitions: every reason covered
imp "$W/other.crl"
check_is_soft good 0 "$PKI/good.pem" && case_ok "check: both partitions: good" \
    || case_fail both-good "$(cat "$W/check.out")"
check_is_soft revoked 1 "$PKI/revsup.pem" && grep -q 'reason=superseded' "$W/check.out" \
    && case_ok "check: both partitions: superseded leaf revoked" \
    || case_fail both-revsup "$(cat "$W/check.out")"
check_is_soft revoked 1 "$PKI/revkc.pem" && case_ok "check: both partitions: keyCompromise leaf revoked" \
    || case_fail both-revkc "$(cat "$W/check.out")"
cl_verify "$PKI/good.pem" --set on_unknown=deny; show "$W/client.out"
[ "$CLIENT_RC" -eq 0 ] && case_ok "provider: both partitions: good leaf verifies with on_unknown=deny" \
    || case_fail both-provider-good "exit $CLIENT_RC"
for leaf in revkc revsup; do
    cl_verify "$PKI/$leaf.pem"; show "$W/client.out"
    [ "$CLIENT_RC" -ne 0 ] && grep -q 'certificate is revoked (crlcache)' "$W/client.out" \
        && case_ok "provider: both partitions: $leaf refused" \
        || case_fail "both-provider-$leaf" "exit $CLIENT_RC"
done
cc status --json >"$W/status.json" 2>&1
python3 - "$W/status.json" <<'PY' && case_ok "status --json: reasons of each CRL" || case_fail status-json "$(cat "$W/status.json")"
import json, sys
d = json.load(open(sys.argv[1]))
crls = [c for c in d["crl"] if c["reasons"] != "all"]
assert len(d["crl"]) == 3, d["crl"]
got = sorted(c["reasons"] for c in crls)
assert got == ["affiliationChanged,superseded,cessationOfOperation,certificateHold,privilegeWithdrawn,aACompromise",
               "keyCompromise,cACompromise"], got
assert all(c["kind"] == "full+some-reasons" for c in crls), crls
PY

# --- a delta CRL must have its base's reasons (RFC 5280 5.2.4, 5.2.5)
: >"$W/delta.txt"
pki_gencrl int "$W/delta.crl" db="$W/delta.txt" number=08 delta=5 ext="$(reasons_ext keyCompromise)"
if cc import --anchor "$ROOT" --untrusted "$W/untrusted.pem" "$W/delta.crl" >"$W/imp.out" 2>&1; then
    case_fail delta-reasons "a delta with other reasons than its base was accepted"
else
    show "$W/imp.out"
    grep -q 'same scope and onlySomeReasons' "$W/imp.out" && case_ok "delta with other reasons refused" \
        || case_fail delta-reasons "refused for another reason: $(cat "$W/imp.out")"
fi

# --- reset one partition by its reasons
cc reset --issuer "$PKI/int/cert.pem" --reasons nonsense >"$W/reset.out" 2>&1
[ $? -ne 0 ] && case_ok "reset --reasons with an unknown name refused" || case_fail reset-bad "exit 0"
cc reset --issuer "$PKI/int/cert.pem" >"$W/reset.out" 2>&1
[ $? -eq 1 ] && case_ok "reset without --reasons: no complete CRL for all reasons held" \
    || case_fail reset-all "$(cat "$W/reset.out")"
assert_exit 0 cc reset --issuer "$PKI/int/cert.pem" --reasons "cACompromise,keyCompromise"
grep -q 'scope all, reasons keyCompromise,cACompromise: removed CRL number 05 ' "$W/last.err" \
    && case_ok "reset --reasons: the log names the partition" || case_fail reset-log "$(cat "$W/last.err")"
check_is_soft unknown 2 "$PKI/good.pem" && grep -q 'only some reasons: affiliationChanged' "$W/check.out" \
    && case_ok "reset --reasons: that partition forgotten, good leaf unknown again" \
    || case_fail reset-kc "$(cat "$W/check.out")"
check_is_soft revoked 1 "$PKI/revsup.pem" && case_ok "reset --reasons: the other partition kept" \
    || case_fail reset-kept "$(cat "$W/check.out")"
finish
