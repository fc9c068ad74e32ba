#!/usr/bin/env bash
# import finds a CRL's issuer among the configured `ca` certificates, as
# update does and as its error message ("among the anchors and CA
# certificates") says: no --untrusted needed.  Offline.
. "$(dirname "$0")/lib.sh"
offline_int_crl
write_conf "ca = $PKI/int/cert.pem" "anchor = $PKI/root/cert.pem"
cc import "$W/int.crl" >"$W/o" 2>"$W/e"; rc=$?
[ "$rc" = 0 ] || { cat "$W/e" >&2; fail "import with the issuer in ca =: exit $rc"; }
check_is revoked 1 "$PKI/rev1.pem"
check_is good 0 "$PKI/good1.pem"
# ... and the configured untrusted with --untrusted given: both are used
write_conf "untrusted = $PKI/int/cert.pem" "anchor = $PKI/root/cert.pem"
pki_root other "/CN=Other Root/O=crlcache tests"
STATE=$W/state2
assert_exit 0 cc import --untrusted "$PKI/other/cert.pem" "$W/int.crl"
check_is revoked 1 "$PKI/rev1.pem"
# the control: no issuer configured at all is refused, naming both
write_conf "anchor = $PKI/root/cert.pem"
STATE=$W/state3
assert_exit 1 cc import "$W/int.crl"
assert_grep 'among the anchors and CA certificates' "$W/last.err"
finish
