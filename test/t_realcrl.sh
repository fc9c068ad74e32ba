#!/usr/bin/env bash
# The real-CRL corpus (test/data/realcrl, SOURCES.md says where
# each file came from): 20 real CRLs of 12 public CAs.  Each CRL is
# imported into a fresh state directory with `--at` an hour after its
# thisUpdate (they are all long expired) and its real root as the anchor;
# the set of serials the index holds (its scope files' entries) must be
# exactly the set `openssl crl -text` lists.  Each real certificate whose
# issuer signed the CRL is then checked at the same instant: revoked when
# the CRL lists its serial, good when the CRL's scope covers it (no IDP,
# or an IDP whose flags and URI fit, worked out here from openssl's text),
# else unknown.  Two CRLs must be refused, for their own reason: the
# REALTS2019 CRL was signed by an earlier key than the certificate given
# here, and the Ukrainian CA's root carries critical extensions
# (qcStatements) no verifier handles.  Last, `--at` outside a CRL's
# validity: stale after nextUpdate, refused before thisUpdate, and no
# --at at all refuses what only an archived instant makes valid.
. "$(dirname "$0")/lib.sh"
REAL=$DATA/realcrl
need_crlcache
CA=$REAL/ca
cat "$CA"/*.pem >"$W/cas.pem"
write_conf "# real CRLs"

crl_in() { case $1 in *.pem) echo PEM ;; *) echo DER ;; esac; }
crl_txt() { openssl crl -inform "$(crl_in "$1")" -in "$1" -noout "${@:2}"; }
epoch() { date -u -d "$1" +%s; }
# Serials as upper-case hex without leading 00 octets, sorted, unique.
norm() { tr a-f A-F | sed -E 's/^(00)+//' | sort -u; }
crl_serials() { crl_txt "$1" -text | sed -n 's/^ *Serial Number: *//p' | norm; }
# The entries of the scope files (format.h SCOPE FILE): a slot holds a
# serial's content octets, zero padded, then their count (0xff: a hash of
# a serial over 23 octets, printed as such); one CRL per fresh state
# directory, whose scope/ holds only its file.
index_serials() {
    python3 - "$STATE/scope" <<'EOF' | norm
import os, struct, sys
d = sys.argv[1]
for name in os.listdir(d):
    if len(name) != 32:
        continue
    b = open(os.path.join(d, name), "rb").read()
    e, off = struct.unpack(">QQ", b[40:56])
    for i in range(e):
        slot = b[off + 34 * i:off + 34 * i + 24]
        n = slot[23]
        print(slot[:n].hex() if n <= 23 else "HASHED" + slot[:23].hex())
EOF
}

# What the oracle below needs of each real certificate, read once.
declare -A ihash cser cisca cdps
for c in "$REAL"/cert/*.pem; do
    ihash[$c]=$(openssl x509 -in "$c" -noout -issuer_hash)
    cser[$c]=$(openssl x509 -in "$c" -noout -serial | cut -d= -f2 | norm)
    cisca[$c]=$(openssl x509 -in "$c" -noout -ext basicConstraints 2>/dev/null | grep -c 'CA:TRUE')
    cdps[$c]=$(openssl x509 -in "$c" -noout -ext crlDistributionPoints 2>/dev/null | sed -n 's/^ *URI:\([^ ]*\).*/\1/p')
done

# CRL, anchor, expected import outcome (ok, or a part of the rejection).
while read -r crl anchor want; do
    [ -n "$crl" ] || continue
    f=$REAL/crl/$crl
    STATE=$W/state-$crl
    at=$(( $(epoch "$(crl_txt "$f" -lastupdate | cut -d= -f2)") + 3600 ))
    cc import --at "$at" --anchor "$CA/$anchor" --untrusted "$W/cas.pem" "$f" >"$W/imp.out" 2>&1; rc=$?
    if [ "$want" != ok ]; then
        [ "$rc" -ne 0 ] && grep -q -- "rejected: .*$want" "$W/imp.out" \
            && case_ok "$crl refused ($want)" \
            || case_fail "$crl" "want refusal '$want', got exit $rc: $(cat "$W/imp.out")"
    elif [ "$rc" -ne 0 ]; then
        case_fail "$crl" "import exit $rc: $(cat "$W/imp.out")"
        continue
    else
        crl_serials "$f" >"$W/want.ser"
        index_serials >"$W/got.ser"
        if cmp -s "$W/want.ser" "$W/got.ser"; then
            case_ok "$crl: $(wc -l <"$W/got.ser") serials, exactly the CRL's"
        else
            case_fail "$crl" "index serials differ from the CRL's: $(diff "$W/want.ser" "$W/got.ser" | head -5)"
        fi
    fi
    # The real certificates this CRL's issuer signed.
    idp=$(crl_txt "$f" -text | sed -n '/Issuing Distribution Point/,/CRL Number\|Revoked\|Signature Alg/p')
    uri=$(printf '%s\n' "$idp" | sed -n 's/^ *URI:\([^ ]*\).*/\1/p')
    hash=$(crl_txt "$f" -hash)
    for c in "$REAL"/cert/*.pem; do
        [ "${ihash[$c]}" = "$hash" ] || continue
        ser=${cser[$c]} isca=${cisca[$c]} dps=${cdps[$c]}
        if [ "$want" != ok ]; then
            exp=2                       # the CRL was refused: nothing covers it
        elif grep -qx -- "$ser" "$W/want.ser"; then
            exp=1
        elif [ -z "$idp" ]; then
            exp=0
        elif { printf '%s' "$idp" | grep -q 'Only User' && [ "$isca" -eq 1 ]; } ||
             { printf '%s' "$idp" | grep -q 'Only CA' && [ "$isca" -eq 0 ]; } ||
             { [ -n "$uri" ] && ! printf '%s\n' "$dps" | grep -qxF -- "$uri"; }; then
            exp=2
        else
            exp=0
        fi
        cc check --at "$at" "$c" >"$W/check.out" 2>&1; rc=$?
        [ "$rc" -eq "$exp" ] && case_ok "$(basename "$c") under $crl: $(awk '{print $1}' "$W/check.out")" \
            || case_fail "$(basename "$c") under $crl" "exit $rc, want $exp: $(cat "$W/check.out")"
    done
done <<'TABLE'
belgium-citizen-ca-201631.crl belgium-root-ca4.pem ok
belgium-root-ca2-2014.crl belgium-root-ca2.pem ok
belgium-root-ca2-2019.crl belgium-root-ca2.pem ok
belgium-root-ca2.crl belgium-root-ca2.pem ok
belgium-root-ca2.crl.pem belgium-root-ca2.pem ok
belgium-root-ca3-2014.crl belgium-root-ca3.pem ok
belgium-root-ca4.crl belgium-root-ca4.pem ok
d-trust-root-ca-1-2017.crl.pem d-trust-root-ca-1-2017.pem ok
ee-govca2018.crl ee-govca2018.pem ok
fr-realts2019.crl fr-realts2019.pem bad signature
google-giag2.crl.pem geotrust-global-ca.pem ok
le-r3-105.crl.pem isrg-root-x1.pem ok
luxtrust-global-root.crl luxtrust-global-root.pem ok
luxtrust-root-ca.crl.pem gte-cybertrust-global-root.pem ok
penneo-root.crl penneo-qualified-root-ca.pem ok
pt-ecraizestado-arl.crl baltimore-cybertrust-root.pem ok
reniec-class2.crl reniec-high-grade-ca.pem ok
sk-eid-sk-2011.crl sk-ee-certification-centre-root-ca.pem ok
ti-trust-ca1.crl ti-trust-technologies-ca1.pem ok
ua-justice-ca.crl ua-central-certification-authority.pem unhandled critical extension
TABLE

# --at outside the CRL's validity (GIAG2: thisUpdate 2017-06-29T01:00:02Z,
# nextUpdate 2017-07-09T01:00:02Z, 4 entries).
STATE=$W/state-at
G=$REAL/crl/google-giag2.crl.pem
GA=(--anchor "$CA/geotrust-global-ca.pem" --untrusted "$W/cas.pem")
cc import "${GA[@]}" "$G" >"$W/imp.out" 2>&1 && fail "GIAG2 CRL accepted at the current time (its issuer expired in 2018)"
assert_grep 'does not chain.*expired' "$W/imp.out"
cc import --at 2017-06-28 "${GA[@]}" "$G" >"$W/imp.out" 2>&1 && fail "GIAG2 CRL accepted a day before its thisUpdate"
assert_grep 'thisUpdate is in the future' "$W/imp.out"
cc import --at 2017-07-01T12:00:00+02:00 "${GA[@]}" "$G" >"$W/imp.out" 2>&1 || fail "GIAG2 CRL refused inside its validity: $(cat "$W/imp.out")"
GM=$REAL/cert/google-mail.google.com.pem
cc check --at 2017-07-01T00:00:00Z "$GM" >"$W/check.out" 2>&1; rc=$?
[ "$rc" -eq 0 ] && grep -q '^good ' "$W/check.out" || fail "inside validity: want good, exit $rc: $(cat "$W/check.out")"
cc check --at "$(epoch 2017-09-01)" "$GM" >"$W/check.out" 2>&1; rc=$?
[ "$rc" -eq 3 ] && grep -q '^stale ' "$W/check.out" || fail "after nextUpdate: want stale, exit $rc: $(cat "$W/check.out")"
cc status --at 2017-07-01 >"$W/status.out" 2>&1 || fail "status inside validity: exit $?: $(cat "$W/status.out")"
assert_not_grep ' stale' "$W/status.out"
cc status --at 2017-09-01 >"$W/status.out" 2>&1; rc=$?
[ "$rc" -eq 1 ] && grep -q ' stale' "$W/status.out" || fail "status after nextUpdate: want stale (exit 1), got $rc: $(cat "$W/status.out")"
for bad in 2017-13-01 2017-07-01T25:00:00Z yesterday 2017-07-01T00:00:00 ""; do
    cc check --at "$bad" "$GM" >/dev/null 2>&1; rc=$?
    [ "$rc" -eq 4 ] || fail "check --at '$bad' accepted (exit $rc)"
done
case_ok "--at inside and outside GIAG2's validity"
finish
