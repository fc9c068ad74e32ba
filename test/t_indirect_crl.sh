#!/usr/bin/env bash
# Indirect CRLs (RFC 5280 5.2.5 indirectCRL, 5.3.3 certificateIssuer,
# 4.2.1.13 cRLIssuer), through `crlcache check` and the provider: CA X
# publishes an indirect CRL that also revokes a certificate of CA Y whose
# distribution point names X as its cRLIssuer.  That certificate is
# revoked; X's own certificate with the same serial stays good; a Y
# certificate whose distribution point names X, but whose URI is one of
# Y's own partitions, is never answered by Y's CRL ("unknown"); a
# certificateIssuer in a CRL without indirectCRL, not critical, or
# without a directoryName is refused; a delta CRL of an indirect CRL
# applies, one whose indirectCRL differs from its base's is refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
STATE=$W/state
pki_root root "/CN=Test Root/O=crlcache tests"
pki_ca x root "/CN=Test X/O=crlcache tests"
pki_ca y root "/CN=Test Y/O=crlcache tests"
XURL=http://127.0.0.1:9/x-ind.crl YURL=http://127.0.0.1:9/y-part.crl

# leaf_ind NAME CA SUBJ URI: a leaf whose one distribution point is
# fullName URI with cRLIssuer = X's subject (RFC 5280 4.2.1.13)
leaf_ind() {
    local name=$1 ca=$2 subj=$3 uri=$4
    _newkey ec "$PKI/$name.key"
    openssl req -new -config "$(_req_conf utf8only)" -key "$PKI/$name.key" -subj "$subj" \
        -out "$PKI/$name.csr" 2>"$W/openssl.err" || fail "leaf_ind $name: req failed"
    cat >"$PKI/$name.ext" <<EOF
[ ext ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
crlDistributionPoints = dp
[ dp ]
fullname = URI:$uri
CRLissuer = dirName:crl_issuer
[ crl_issuer ]
CN = Test X
O = crlcache tests
EOF
    _issue "$ca" "$PKI/$name.csr" "$PKI/$name.pem" "$PKI/$name.ext"
}
# The first leaf of X and of Y get the same serial (both start at 1000).
pki_leaf x_same x "/CN=x-same.test" cdp="$XURL"
leaf_ind y_rev y "/CN=y-rev.test" "$XURL"
[ "$(serial_of "$PKI/x_same.pem")" = "$(serial_of "$PKI/y_rev.pem")" ] || fail "serials differ"
pki_leaf x_rev x "/CN=x-rev.test" cdp="$XURL"
leaf_ind y_good y "/CN=y-good.test" "$XURL"
leaf_ind y_delta y "/CN=y-delta.test" "$XURL"
leaf_ind y_part y "/CN=y-part.test" "$YURL"
# X names itself as cRLIssuer (RFC 5280 4.2.1.13 says to omit it): its CRL
# lists the certificate as its own, without certificateIssuer
leaf_ind x_self x "/CN=x-self.test" "$XURL"
openssl x509 -in "$PKI/y_rev.pem" -noout -text | grep -q "CRL Issuer" || fail "no cRLIssuer in y_rev"
cat "$PKI/x/cert.pem" "$PKI/y/cert.pem" >"$W/cas.pem"
cat "$PKI/y/cert.pem" >"$W/ychain.pem"; cat "$PKI/x/cert.pem" >"$W/xchain.pem"
imp() { cc import --anchor "$PKI/root/cert.pem" --untrusted "$W/cas.pem" "$@" >"$W/imp.out" 2>&1; }
XKEY=$PKI/x/key.pem
add_foreign() {  # add_foreign IN OUT CERT [FLAW]: revoke CERT (of another CA) in X's CRL
    python3 "$TESTDIR/der_edit.py" add-foreign "$1" "$XKEY" "$2" "$(serial_of "$3")" \
        "$PKI/y/cert.pem" ${4:+"$4"} || fail "der_edit add-foreign failed"
}

# --- X's indirect CRL: its own x_rev, then y_rev of Y (certificateIssuer)
pki_revoke x "$PKI/x_rev.pem"
pki_revoke x "$PKI/x_self.pem"
pki_gencrl x "$W/x0.crl" idp="$XURL" indirect=1 number=10
add_foreign "$W/x0.crl" "$W/x.crl" "$PKI/y_rev.pem"
crl_text "$W/x.crl" | grep -q "Indirect CRL" || fail "no indirectCRL in x.crl"
crl_text "$W/x.crl" | grep -q "Certificate Issuer: critical" || fail "no certificateIssuer in x.crl"
write_conf "# no URL: imports only"
pki_gencrl root "$W/root.crl"
imp "$W/root.crl" || fail "root CRL: $(cat "$W/imp.out")"
if imp "$W/x.crl"; then case_ok "indirect CRL imported"
else case_fail indirect-import "$(cat "$W/imp.out")"; fi
check_is_soft revoked 1 --chain "$W/ychain.pem" "$PKI/y_rev.pem" && case_ok "y_rev revoked by X's indirect CRL" \
    || case_fail y_rev "not revoked"
check_is_soft good 0 --chain "$W/ychain.pem" "$PKI/y_good.pem" && case_ok "y_good good" \
    || case_fail y_good "not good"
check_is_soft good 0 --chain "$W/xchain.pem" "$PKI/x_same.pem" && case_ok "x_same (y_rev's serial, issued by X) good" \
    || case_fail x_same "X's own certificate with Y's revoked serial not good"
check_is_soft revoked 1 --chain "$W/xchain.pem" "$PKI/x_rev.pem" && case_ok "x_rev revoked" \
    || case_fail x_rev "X's own entry in its indirect CRL not revoked"
check_is_soft revoked 1 --chain "$W/xchain.pem" "$PKI/x_self.pem" && case_ok "x_self (cRLIssuer its own issuer) revoked" \
    || case_fail x_self "X's own entry missed through its own cRLIssuer"
cc status >"$W/status.out" 2>&1
grep -q "+indirect" "$W/status.out" && case_ok "status shows +indirect" \
    || case_fail status "no +indirect: $(cat "$W/status.out")"

# --- Y's own partition y-part.crl lists nothing; y_part names it with
# cRLIssuer X: only X's indirect CRLs may answer (6.3.3 (b)(1)), X has
# none for that name, so "unknown", never "good" from Y's partition.
pki_gencrl y "$W/y.crl" idp="$YURL" number=05
imp "$W/y.crl" || case_fail y-import "$(cat "$W/imp.out")"
check_is_soft unknown 2 --chain "$W/ychain.pem" "$PKI/y_part.pem" &&
    grep -q "indirect CRL of the cRLIssuer" "$W/check.out" && case_ok "y_part unknown (not Y's partition)" \
    || case_fail y_part "answered from Y's own partition"

# --- the provider agrees: y_rev refused, y_good and x_same verify
pv() {  # pv CERT CHAIN -> openssl verify's exit under the provider
    px -- openssl verify -CAfile "$PKI/root/cert.pem" -untrusted "$2" "$1" \
        >"$W/verify.out" 2>&1
}
pv "$PKI/y_rev.pem" "$W/ychain.pem" && case_fail provider-y_rev "verified: $(cat "$W/verify.out")" \
    || { grep -qi revoked "$W/verify.out" && case_ok "provider refuses y_rev" \
         || case_fail provider-y_rev "refused for another reason: $(cat "$W/verify.out")"; }
pv "$PKI/y_good.pem" "$W/ychain.pem" && case_ok "provider: y_good verifies" \
    || case_fail provider-y_good "$(cat "$W/verify.out")"
pv "$PKI/x_same.pem" "$W/xchain.pem" && case_ok "provider: x_same verifies" \
    || case_fail provider-x_same "$(cat "$W/verify.out")"
pv "$PKI/x_rev.pem" "$W/xchain.pem" && case_fail provider-x_rev "verified" \
    || case_ok "provider refuses x_rev"

# --- a delta of the indirect CRL (base 10) revokes y_delta
pki_gencrl x "$W/xd0.crl" idp="$XURL" indirect=1 delta=16 number=11 db="$W/empty.txt"
add_foreign "$W/xd0.crl" "$W/xd.crl" "$PKI/y_delta.pem"
if imp "$W/xd.crl"; then
    check_is_soft revoked 1 --chain "$W/ychain.pem" "$PKI/y_delta.pem" && case_ok "delta revokes y_delta" \
        || case_fail y_delta "not revoked by the delta"
    check_is_soft revoked 1 --chain "$W/ychain.pem" "$PKI/y_rev.pem" && case_ok "y_rev still revoked" \
        || case_fail y_rev-delta "lost"
else case_fail delta-import "$(cat "$W/imp.out")"; fi
# a delta that is not indirect onto the indirect base
pki_gencrl x "$W/xdd.crl" idp="$XURL" delta=16 number=12 db="$W/empty.txt"
if imp "$W/xdd.crl"; then case_fail delta-mixed "accepted"
else grep -q "indirectCRL" "$W/imp.out" && case_ok "delta differing in indirectCRL refused" \
    || case_fail delta-mixed "refused for another reason: $(cat "$W/imp.out")"; fi

# --- indirect CRLs partitioned by reason (RFC 5280 5.2.5 onlySomeReasons):
# the cover walk takes the reasons of X's indirect partitions for Y's
# certificate as for X's own: good only once every reason is covered
XR=http://127.0.0.1:9/x-reasons.crl
leaf_ind y_rgood y "/CN=y-rgood.test" "$XR"
leaf_ind y_rrev y "/CN=y-rrev.test" "$XR"
reasons_idp() {  # reasons_idp LIST: an indirect IDP for XR with onlySomeReasons LIST
    printf 'issuingDistributionPoint = critical,@idp_r\n[ idp_r ]\nfullname = URI:%s\nindirectCRL = TRUE\nonlysomereasons = %s' "$XR" "$1"
}
KC="keyCompromise, CACompromise"
OTHER="affiliationChanged, superseded, cessationOfOperation, certificateHold, privilegeWithdrawn, AACompromise"
pki_gencrl x "$W/xr-kc0.crl" number=40 db="$W/empty.txt" ext="$(reasons_idp "$KC")"
add_foreign "$W/xr-kc0.crl" "$W/xr-kc.crl" "$PKI/y_rrev.pem"
pki_gencrl x "$W/xr-other.crl" number=41 db="$W/empty.txt" ext="$(reasons_idp "$OTHER")"
imp "$W/xr-kc.crl" || case_fail xr-kc-import "$(cat "$W/imp.out")"
check_is_soft unknown 2 --chain "$W/ychain.pem" "$PKI/y_rgood.pem" &&
    grep -q "only some reasons" "$W/check.out" && case_ok "one reason partition of X: y_rgood unknown (only some reasons)" \
    || case_fail xr-kc-only "not unknown for only some reasons"
check_is_soft revoked 1 --chain "$W/ychain.pem" "$PKI/y_rrev.pem" && case_ok "y_rrev revoked by X's keyCompromise partition" \
    || case_fail xr-rrev "not revoked"
imp "$W/xr-other.crl" || case_fail xr-other-import "$(cat "$W/imp.out")"
check_is_soft good 0 --chain "$W/ychain.pem" "$PKI/y_rgood.pem" && case_ok "both reason partitions of X: y_rgood good" \
    || case_fail xr-both "not good"

# --- a second key of the name "Test X" signs a CRL: which key signs the
# indirect CRLs of the cRLIssuer is no longer known, so "unknown"
pki_ca x2 root "/CN=Test X/O=crlcache tests"
pki_gencrl x2 "$W/x2.crl" number=30
cat "$PKI/x2/cert.pem" >>"$W/cas.pem"
imp "$W/x2.crl" || case_fail x2-import "$(cat "$W/imp.out")"
check_is_soft unknown 2 --chain "$W/ychain.pem" "$PKI/y_rev.pem" &&
    grep -q "several keys" "$W/check.out" && case_ok "cRLIssuer with two keys: unknown" \
    || case_fail two-keys "not unknown for its several keys"
check_is_soft good 0 --chain "$W/xchain.pem" "$PKI/x_same.pem" && case_ok "x_same still good by its own key" \
    || case_fail x_same-two-keys "not good"

# --- certificateIssuer where RFC 5280 5.3.3 does not allow it
STATE=$W/state2
imp "$W/root.crl" || fail "root CRL: $(cat "$W/imp.out")"
pki_gencrl x "$W/plain0.crl" number=20 db="$W/empty.txt"
add_foreign "$W/plain0.crl" "$W/plain.crl" "$PKI/y_rev.pem"
if imp "$W/plain.crl"; then case_fail no-indirect "certificateIssuer in a CRL without indirectCRL accepted"
else grep -q "does not assert indirectCRL" "$W/imp.out" && case_ok "certificateIssuer without indirectCRL refused" \
    || case_fail no-indirect "refused for another reason: $(cat "$W/imp.out")"; fi
pki_gencrl x "$W/nc0.crl" idp="$XURL" indirect=1 number=21 db="$W/empty.txt"
add_foreign "$W/nc0.crl" "$W/nc.crl" "$PKI/y_rev.pem" noncritical
if imp "$W/nc.crl"; then case_fail noncritical "accepted"
else grep -q "MUST be critical" "$W/imp.out" && case_ok "certificateIssuer not critical refused" \
    || case_fail noncritical "refused for another reason: $(cat "$W/imp.out")"; fi
add_foreign "$W/nc0.crl" "$W/nd.crl" "$PKI/y_rev.pem" nodirname
if imp "$W/nd.crl"; then case_fail nodirname "accepted"
else grep -q "without a directoryName" "$W/imp.out" && case_ok "certificateIssuer without a directoryName refused" \
    || case_fail nodirname "refused for another reason: $(cat "$W/imp.out")"; fi
check_is_soft unknown 2 --chain "$W/ychain.pem" "$PKI/y_rev.pem" && case_ok "nothing stored from the refused CRLs" \
    || case_fail refused-stored "y_rev answered from a refused CRL"
finish
