#!/usr/bin/env bash
# import rejections: one "crlcache: FILE: rejected: REASON" line per rejected
# CRL, non-zero exit, earlier data kept; a good CRL next to a bad one.
. "$(dirname "$0")/lib.sh"
offline_pki
pki_root evilroot "/CN=Evil Root"
pki_ca evilint evilroot "/CN=Test Int/O=crlcache tests"
pki_revoke int "$PKI/rev1.pem"
pki_gencrl int "$W/good.crl" number=10
write_conf "# empty"
IMP=(import --anchor "$PKI/root/cert.pem" --untrusted "$PKI/int/cert.pem")
assert_exit 0 cc "${IMP[@]}" "$W/good.crl"
check_is revoked 1 "$PKI/rev1.pem"
pki_revoke int "$PKI/rev2.pem"

pki_gencrl int "$W/badsig.crl" number=20
python3 -c 'import sys; p=sys.argv[1]; b=bytearray(open(p,"rb").read()); b[-1]^=0x55; open(p,"wb").write(b)' "$W/badsig.crl"
pki_gencrl int "$W/evil.crl" number=20 cert="$PKI/evilint/cert.pem" key="$PKI/evilint/key.pem"
pki_gencrl int "$W/crit.crl" number=20 ext='1.2.3.4.5 = critical,ASN1:UTF8String:x'
pki_gencrl int "$W/future.crl" number=20 last="$(gt 172800)" next="$(gt 777600)"
pki_gencrl int "$W/older.crl" number=05
head -c 100 "$W/good.crl" >"$W/trunc.crl"
printf 'this is not a CRL\n' >"$W/garbage.crl"

imp_case() {   # imp_case NAME FILE REGEX [extra import args]
    local name=$1 f=$2 re=$3 rc; shift 3
    cc "${IMP[@]}" "$@" "$f" >"$W/o" 2>"$W/e"; rc=$?
    sed "s/^/    [$name] /" "$W/e"
    if [ "$rc" -eq 0 ]; then case_fail "$name" "import exit 0"; return; fi
    if ! grep -Fq "crlcache: $f: rejected: " "$W/e"; then case_fail "$name" "no 'crlcache: $f: rejected: ' line"; return; fi
    if ! grep -F "crlcache: $f: rejected: " "$W/e" | grep -Eiq -- "$re"; then case_fail "$name" "reason does not match /$re/"; return; fi
    if ! check_is_soft revoked 1 "$PKI/rev1.pem"; then case_fail "$name" "earlier data lost"; return; fi
    if ! check_is_soft good 0 "$PKI/rev2.pem"; then case_fail "$name" "rejected CRL changed data (rev2 revoked)"; return; fi
    case_ok "$name"
}
imp_case signature "$W/badsig.crl" 'signature'
imp_case issuer    "$W/evil.crl"   'issuer|chain|trust|signature|verif|anchor' --untrusted "$PKI/evilint/cert.pem"
imp_case issuer-not-found "$W/evil.crl" 'issuer|chain|trust|signature|verif|anchor'
imp_case critical  "$W/crit.crl"   'critical'
imp_case future    "$W/future.crl" 'future'
imp_case rollback  "$W/older.crl"  'rollback|older'
imp_case truncated "$W/trunc.crl"  'parse|malformed|truncated|decode'
imp_case garbage   "$W/garbage.crl" 'parse|malformed|truncated|decode'
imp_case missing-file "$W/no-such.crl" '.'

# good + bad in one call: non-zero, exactly one rejection line, naming the bad file
pki_gencrl int "$W/good2.crl" number=30
cc "${IMP[@]}" "$W/good2.crl" "$W/badsig.crl" >"$W/o" 2>"$W/e"; rc=$?
sed 's/^/    [mixed] /' "$W/e"
if [ "$rc" -eq 0 ]; then case_fail mixed "exit 0"
elif [ "$(grep -c ': rejected: ' "$W/e")" -ne 1 ] || ! grep -Fq "crlcache: $W/badsig.crl: rejected: " "$W/e"; then
    case_fail mixed "expected exactly one rejection line, for badsig.crl"
elif ! check_is_soft revoked 1 "$PKI/rev1.pem"; then case_fail mixed "rev1 lost"
else case_ok mixed; fi
finish
