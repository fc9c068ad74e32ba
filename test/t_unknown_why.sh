#!/usr/bin/env bash
# Why a certificate is unknown: `check` and the provider
# say "no CRL of this issuer" when the index holds none of its issuer, and
# name the certificate's distribution point when the issuer's partitions
# are held but none is its own; `status` (text and --json) shows each
# scope's kind: full, partition, user-only, CA-only, delta applied.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"

BASE_URL=http://127.0.0.1:9   # only written into CDPs and IDPs, never fetched
pki_root root "/CN=Why Root/O=crlcache tests"
pki_ca int root "/CN=Why Int/O=crlcache tests"
pki_ca none root "/CN=Why Uncovered/O=crlcache tests"
pki_leaf p1 int "/CN=p1.test" cdp="$BASE_URL/p1.crl"
pki_leaf p2 int "/CN=p2.test" cdp="$BASE_URL/p2.crl"
pki_leaf other none "/CN=other.test" cdp="$BASE_URL/none.crl"
# (pki_gencrl writes idp= as the idp_sect fullName line: a second line
# there makes the partition user-only)
pki_gencrl int "$W/p1.crl" idp="$BASE_URL/p1.crl"$'\n'"onlyuser = TRUE" number=10
crl_text "$W/p1.crl" | grep -q 'Only User Certificates' || fail "CRL setup: not user-only"
pki_gencrl root "$W/root.crl" number=05
pki_gencrl root "$W/root-delta.crl" delta=5 number=06
write_conf "# why unknown"
cc import --anchor "$PKI/root/cert.pem" --untrusted "$PKI/int/cert.pem" \
    "$W/p1.crl" "$W/root.crl" "$W/root-delta.crl" >"$W/imp.out" 2>&1 || fail "import: $(cat "$W/imp.out")"

check_is good 0 "$PKI/p1.pem"
check_is unknown 2 "$PKI/p2.pem"
assert_grep "holds CRLs of this issuer, none for this user certificate's distribution point URI:$BASE_URL/p2.crl" "$W/check.out"
check_is unknown 2 "$PKI/other.pem"
assert_grep 'no CRL of this issuer in the index' "$W/check.out"
assert_not_grep 'distribution point' "$W/check.out"

cc status >"$W/status.out" 2>&1 || fail "status: $(cat "$W/status.out")"
assert_grep "scope=$BASE_URL/p1.crl .* kind=partition\+user-only( |$)" "$W/status.out"
assert_grep "scope=all .* kind=full\+delta( |$)" "$W/status.out"
cc status --json >"$W/status.json" 2>&1 || fail "status --json"
python3 - "$W/status.json" <<'PY' || fail "status --json kinds: $(cat "$W/status.json")"
import json, sys
d = json.load(open(sys.argv[1]))
kinds = sorted((c["kind"], c["partition"], c["user_only"], c["ca_only"], c["delta"]) for c in d["crl"])
assert kinds == [("full+delta", False, False, False, True),
                 ("partition+user-only", True, True, False, False)], kinds
PY

# The provider says the same (on_unknown = deny).
cat "$PKI/int/cert.pem" "$PKI/none/cert.pem" >"$W/untrusted.pem"
ROOT=$PKI/root/cert.pem
cl_verify "$PKI/p2.pem" --set on_unknown=deny
[ "$CLIENT_RC" -ne 0 ] || fail "provider: p2 accepted with on_unknown = deny"
assert_grep "holds CRLs of this issuer, none for its distribution point $BASE_URL/p2.crl" "$W/client.out"
cl_verify "$PKI/other.pem" --set on_unknown=deny
[ "$CLIENT_RC" -ne 0 ] || fail "provider: other accepted with on_unknown = deny"
assert_grep 'no CRL of this issuer in the index' "$W/client.out"
cl_verify "$PKI/p1.pem" --set on_unknown=deny
[ "$CLIENT_RC" -eq 0 ] || fail "provider: p1 refused: $(cat "$W/client.out")"
note "all ok"
