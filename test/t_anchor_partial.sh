#!/usr/bin/env bash
# An intermediate CA named as --anchor: the CRL it
# signs is accepted with a partial chain ending at it (OpenSSL's
# -partial_chain), with or without its root among the untrusted
# certificates, and `check` answers from it; a certificate that is
# neither self-signed nor a CA is refused as an anchor.
. "$(dirname "$0")/lib.sh"

offline_int_crl
write_conf "# partial chain"

cc import --anchor "$PKI/int/cert.pem" "$W/int.crl" >"$W/imp.out" 2>&1 \
    || fail "CRL of an intermediate anchor refused: $(cat "$W/imp.out")"
check_is revoked 1 "$PKI/rev1.pem"
check_is good 0 "$PKI/good1.pem"

# With the root known but not trusted, the chain still ends at the anchor.
rm -rf "$STATE"
cc import --anchor "$PKI/int/cert.pem" --untrusted "$PKI/root/cert.pem" "$W/int.crl" \
    >"$W/imp.out" 2>&1 || fail "refused with the root as untrusted: $(cat "$W/imp.out")"
check_is revoked 1 "$PKI/rev1.pem"

# A leaf is no anchor.
rm -rf "$STATE"
cc import --anchor "$PKI/good1.pem" "$W/int.crl" >"$W/imp.out" 2>&1; rc=$?
[ "$rc" -eq 4 ] || fail "a leaf accepted as an anchor (exit $rc): $(cat "$W/imp.out")"
assert_grep 'neither self-signed nor a CA' "$W/imp.out"

# The root as the anchor still works, and the intermediate is no anchor
# when only the root is named.
cc import --anchor "$PKI/root/cert.pem" --untrusted "$PKI/int/cert.pem" "$W/int.crl" \
    >"$W/imp.out" 2>&1 || fail "refused under its root: $(cat "$W/imp.out")"
check_is revoked 1 "$PKI/rev1.pem"
note "all ok"
