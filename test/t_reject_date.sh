#!/usr/bin/env bash
# A time naming no possible date (February 29 of 2023, April 31)
# in a CRL or a certificate, properly signed (test/der_edit.py re-signs it
# with the issuer's key).  import refuses such a CRL with a reason naming
# the field (RFC 5280 5.1.2.4, 5.1.2.5) and keeps its data; a leap day is
# read.  A certificate with such a notBefore is refused by `check`, and
# the provider still looks its revocation up where OpenSSL skips its time
# checks (-no_check_time): it is a certificate, not "anything else".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
offline_pki
pki_revoke int "$PKI/rev1.pem"
pki_gencrl int "$W/int-openssl.crl" number=10
pki_gencrl root "$W/root.crl"   # the intermediate's status, for the provider
write_conf "# empty"
IMP=(import --anchor "$PKI/root/cert.pem" --untrusted "$PKI/int/cert.pem")

crl_time() {   # crl_time NAME FIELD TIME: the intermediate's CRL with FIELD = TIME
    "$PY" "$TESTDIR/der_edit.py" crl-time "$W/int-openssl.crl" "$PKI/int/key.pem" \
        "$W/$1.crl" "$2" "$3" || fail "der_edit.py crl-time $1 failed"
    # the date is the only flaw: the signature holds
    openssl crl -inform DER -in "$W/$1.crl" -noout -CAfile "$PKI/int/cert.pem" 2>&1 \
        | grep -q 'verify OK' || fail "$1: crafted CRL does not verify"
}
reject_case() {   # reject_case NAME REGEX
    local f=$W/$1.crl rc
    cc "${IMP[@]}" "$f" >"$W/o" 2>"$W/e"; rc=$?
    sed "s/^/    [$1] /" "$W/e"
    if [ "$rc" -eq 0 ]; then case_fail "$1" "import exit 0"; return; fi
    if grep -F "crlcache: $f: rejected: " "$W/e" | grep -Eq -- "$2"; then case_ok "$1"
    else case_fail "$1" "no 'crlcache: $f: rejected: ' line matching /$2/"; fi
}

# A leap day (2024-02-29, a UTCTime) is a date: the CRL is imported.
crl_time leapday thisUpdate 240229120000Z
if cc "${IMP[@]}" "$W/root.crl" "$W/leapday.crl" >"$W/o" 2>"$W/e"; then case_ok import-leap-day
else cat "$W/e" >&2; case_fail import-leap-day "a thisUpdate of 2024-02-29 was refused"; fi
check_is revoked 1 "$PKI/rev1.pem"
pki_revoke int "$PKI/rev2.pem"
pki_gencrl int "$W/int-openssl.crl" number=20

crl_time feb29 thisUpdate 230229120000Z             # 2023: no leap year
reject_case feb29 'thisUpdate.*RFC 5280 5\.1\.2\.4'
crl_time apr31 thisUpdate 250431120000Z
reject_case apr31 'thisUpdate.*RFC 5280 5\.1\.2\.4'
crl_time feb29-2100 nextUpdate 21000229000000Z      # 2100: no leap year
reject_case feb29-2100 'nextUpdate.*RFC 5280 5\.1\.2\.5'
# nothing of the refused CRLs was taken: rev2 is still good
check_is_soft revoked 1 "$PKI/rev1.pem" && case_ok kept-rev1 || case_fail kept-rev1 "rev1"
check_is_soft good 0 "$PKI/rev2.pem" && case_ok kept-rev2 || case_fail kept-rev2 "rev2"

# Certificates: rev1 (revoked) and good1 with notBefore 2023-02-29.
for c in rev1 good1; do
    "$PY" "$TESTDIR/der_edit.py" cert-time "$PKI/$c.pem" "$PKI/int/key.pem" \
        "$W/$c-feb29.pem" notBefore 230229000000Z || fail "der_edit.py cert-time $c failed"
done
cc check "$W/good1-feb29.pem" >"$W/o" 2>"$W/e" && case_fail check-bad-date "check exit 0"
if grep -q 'notBefore or notAfter is no possible date' "$W/e"; then case_ok check-bad-date
else cat "$W/o" "$W/e" >&2; case_fail check-bad-date "no reason naming the date"; fi

ROOT=$PKI/root/cert.pem
cp "$PKI/int/cert.pem" "$W/untrusted.pem"
NCT=(openssl verify -no_check_time -CAfile "$ROOT" -untrusted "$W/untrusted.pem")
# OpenSSL itself refuses the date when it checks times
cl_verify "$W/good1-feb29.pem" --set on_unknown=deny
if [ "$CLIENT_RC" -ne 0 ] && grep -q "format error in certificate's notBefore field" "$W/client.out"
then case_ok openssl-refuses-date
else cat "$W/client.out" >&2; case_fail openssl-refuses-date "openssl verify did not refuse the date"; fi
# without time checks the revoked one is still refused as revoked ...
px --set on_unknown=deny -- "${NCT[@]}" "$W/rev1-feb29.pem" >"$W/client.out" 2>&1; rc=$?
if [ "$rc" -ne 0 ] && grep -q revoked "$W/client.out"; then case_ok provider-revoked-bad-date
else cat "$W/client.out" >&2; case_fail provider-revoked-bad-date "revoked certificate with a bad date passed"; fi
# ... and the good one, covered by the CRL, passes (status good)
px --set on_unknown=deny -- "${NCT[@]}" "$W/good1-feb29.pem" >"$W/client.out" 2>&1; rc=$?
if [ "$rc" -eq 0 ]; then case_ok provider-good-bad-date
else cat "$W/client.out" >&2; case_fail provider-good-bad-date "good certificate with a bad date refused"; fi
finish
