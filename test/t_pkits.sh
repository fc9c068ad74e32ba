#!/usr/bin/env bash
# NIST PKITS (Debian's python3-cryptography-vectors) through the real
# fetcher: every PKITS CRL is imported with the PKITS trust anchor, and the
# CRLs PKITS builds to be unusable must be rejected with the right reason;
# then `crlcache check` must agree with PKITS on the revocation, CRL,
# name-chaining, distribution point, indirect CRL and delta-CRL tests
# (sections 4.3, 4.4, 4.14.1-4.14.35, 4.15): a path PKITS calls invalid
# for revocation reasons is never "good", a valid one is.  Distribution
# points match by URI, directoryName and nameRelativeToCRLIssuer (RFC 5280
# 6.3.3 (b)(2)); one with a cRLIssuer only the indirect CRLs of that
# issuer (6.3.3 (b)(1)); CRLs partitioned by reason (onlySomeReasons,
# 4.14.15-4.14.21) answer good only when together they cover every reason
# (6.3.3 (d), (j)-(k)).  Features crlcache refuses on purpose
# (onlyContainsAttributeCerts; DSA parameter inheritance) are rejected and
# leave their certificates "unknown", never "good".
. "$(dirname "$0")/lib.sh"
need_crlcache
V=$(/usr/bin/python3 -c 'import cryptography_vectors, os; print(os.path.dirname(cryptography_vectors.__file__))' 2>/dev/null)
P=$V/x509/PKITS_data
[ -n "$V" ] && [ -d "$P/crls" ] || skip "python3-cryptography-vectors (PKITS) not installed"
mkdir -p "$W/pem"
for c in "$P"/certs/*.crt; do
    openssl x509 -inform DER -in "$c" -out "$W/pem/$(basename "$c" .crt).pem" 2>/dev/null
done
cat "$W"/pem/*.pem >"$W/all.pem"
TA=$P/certs/TrustAnchorRootCertificate.crt
write_conf "# PKITS"
imp() { cc import --anchor "$TA" --untrusted "$W/all.pem" "$P/crls/$1" >"$W/imp.out" 2>&1; }

# The anchor's own CRL first: it revokes CA certificates that other CRLs'
# issuers chain through (RFC 5280 6.3.3: the CRL issuer's path is validated).
imp TrustAnchorRootCRL.crl || { cat "$W/imp.out"; fail "trust anchor CRL rejected"; }
declare -A reason=(
    [BadCRLSignatureCACRL.crl]='bad signature'
    [BadCRLIssuerNameCACRL.crl]='no issuer certificate'
    [BadSignedCACRL.crl]='does not chain'
    [BadnotBeforeDateCACRL.crl]='does not chain'
    [BadnotAfterDateCACRL.crl]='does not chain'
    [UnknownCRLExtensionCACRL.crl]='unknown critical CRL extension'
    [UnknownCRLEntryExtensionCACRL.crl]='unknown critical CRL entry extension'
    [keyUsageCriticalcRLSignFalseCACRL.crl]='lacks cRLSign'
    [keyUsageNotCriticalcRLSignFalseCACRL.crl]='lacks cRLSign'
    [deltaCRLIndicatorNoBaseCACRL.crl]='BaseCRLNumber'
    [RevokedsubCACRL.crl]='in its chain is revoked'
    [SeparateCertificateandCRLKeysCA2CRL.crl]='in its chain is revoked'
    [onlyContainsAttributeCertsCACRL.crl]='onlyContainsAttributeCerts'
)
accepted=0 rejected=0
for f in $(cd "$P/crls" && ls | sort); do
    [ "$f" = TrustAnchorRootCRL.crl ] && continue
    if imp "$f"; then
        accepted=$((accepted + 1))
        [ -z "${reason[$f]:-}" ] || case_fail "$f" "accepted, PKITS made it unusable (${reason[$f]})"
    else
        rejected=$((rejected + 1))
        grep -q ': rejected: ' "$W/imp.out" || case_fail "$f" "failed without a rejection line: $(cat "$W/imp.out")"
        if [ -n "${reason[$f]:-}" ]; then
            grep -q -- "${reason[$f]}" "$W/imp.out" && case_ok "$f rejected (${reason[$f]})" \
                || case_fail "$f" "rejected for another reason: $(cat "$W/imp.out")"
        fi
    fi
done
note "PKITS CRLs: $accepted accepted, $rejected rejected"

# EE, the CA certificate(s) of its path below the anchor, expected check exit
# (0 good, 1 revoked, 2 unknown, 3 stale).  PKITS test numbers in comments.
# Indirect CRLs (4.14.22-4.14.35), in table order: 22, 23 CA1's own
# certificates in its indirect CRL; 24, 25 CA2's, cRLIssuer CA1 (25's
# serial is listed, but as CA1's own); 26 cRLIssuer "indirectCRL CA1x",
# 27 cRLIssuer "Good CA": no CRL of CA1x is in PKITS and Good CA's is not
# indirect, so the status cannot be determined -- PKITS's expected
# failure, "unknown" here; 28-30 a dedicated CRL signer (keyUsage cRLSign
# only, no basicConstraints) as cRLIssuer, by directoryName and by
# nameRelativeToCRLIssuer; 31-33 CA5's indirect CRL with certificateIssuer
# entries for CA6 (32: the entry after the one that names CA6; 33: an
# entry of CA7's, not CA6's); 34 CA5's own entry after a certificateIssuer
# naming CA5, under the third directoryName of the IDP; 35 cRLIssuer CA6,
# which publishes no CRL: "unknown", although CA5's CRL names the
# distribution point (6.3.3 (b)(1): the CRL issuer must be the cRLIssuer).
while read -r ee want chain; do
    [ -n "$ee" ] || continue
    args=()
    if [ -n "$chain" ]; then
        for c in $chain; do cat "$W/pem/$c.pem"; done >"$W/chain.pem"
        args=(--chain "$W/chain.pem")
    fi
    cc check "${args[@]}" "$W/pem/$ee.pem" >"$W/check.out" 2>&1; rc=$?
    [ "$rc" -eq "$want" ] && case_ok "$ee: $(awk '{print $1}' "$W/check.out" | tr '\n' ' ')" \
        || case_fail "$ee" "exit $rc, want $want: $(cat "$W/check.out")"
done <<'TABLE'
ValidCertificatePathTest1EE 0 GoodCACert
InvalidMissingCRLTest1EE 2 NoCRLCACert
InvalidRevokedCATest2EE 1 RevokedsubCACert GoodCACert
InvalidRevokedEETest3EE 1 GoodCACert
InvalidBadCRLSignatureTest4EE 2 BadCRLSignatureCACert
InvalidBadCRLIssuerNameTest5EE 2 BadCRLIssuerNameCACert
InvalidWrongCRLTest6EE 2 WrongCRLCACert
ValidTwoCRLsTest7EE 0 TwoCRLsCACert
InvalidUnknownCRLEntryExtensionTest8EE 2 UnknownCRLEntryExtensionCACert
InvalidUnknownCRLExtensionTest9EE 2 UnknownCRLExtensionCACert
InvalidUnknownCRLExtensionTest10EE 2 UnknownCRLExtensionCACert
InvalidOldCRLnextUpdateTest11EE 3 OldCRLnextUpdateCACert
Invalidpre2000CRLnextUpdateTest12EE 3 pre2000CRLnextUpdateCACert
ValidGeneralizedTimeCRLnextUpdateTest13EE 0 GeneralizedTimeCRLnextUpdateCACert
ValidNegativeSerialNumberTest14EE 0 NegativeSerialNumberCACert
InvalidNegativeSerialNumberTest15EE 1 NegativeSerialNumberCACert
ValidLongSerialNumberTest16EE 0 LongSerialNumberCACert
ValidLongSerialNumberTest17EE 0 LongSerialNumberCACert
InvalidLongSerialNumberTest18EE 1 LongSerialNumberCACert
ValidSeparateCertificateandCRLKeysTest19EE 0 SeparateCertificateandCRLKeysCertificateSigningCACert
InvalidSeparateCertificateandCRLKeysTest20EE 1 SeparateCertificateandCRLKeysCertificateSigningCACert
InvalidSeparateCertificateandCRLKeysTest21EE 2 SeparateCertificateandCRLKeysCA2CertificateSigningCACert
InvalidkeyUsageCriticalcRLSignFalseTest4EE 2 keyUsageCriticalcRLSignFalseCACert
InvalidkeyUsageNotCriticalcRLSignFalseTest5EE 2 keyUsageNotCriticalcRLSignFalseCACert
ValidUTF8StringEncodedNamesTest9EE 0 UTF8StringEncodedNamesCACert
ValidRolloverfromPrintableStringtoUTF8StringTest10EE 0 RolloverfromPrintableStringtoUTF8StringCACert
ValidUTF8StringCaseInsensitiveMatchTest11EE 0 UTF8StringCaseInsensitiveMatchCACert
InvaliddeltaCRLIndicatorNoBaseTest1EE 2 deltaCRLIndicatorNoBaseCACert
ValiddeltaCRLTest2EE 0 deltaCRLCA1Cert
InvaliddeltaCRLTest3EE 1 deltaCRLCA1Cert
InvaliddeltaCRLTest4EE 1 deltaCRLCA1Cert
ValiddeltaCRLTest5EE 0 deltaCRLCA1Cert
InvaliddeltaCRLTest6EE 1 deltaCRLCA1Cert
ValiddeltaCRLTest7EE 0 deltaCRLCA1Cert
ValiddeltaCRLTest8EE 0 deltaCRLCA2Cert
InvaliddeltaCRLTest9EE 1 deltaCRLCA2Cert
InvaliddeltaCRLTest10EE 3 deltaCRLCA3Cert
ValiddistributionPointTest1EE 0 distributionPoint1CACert
InvaliddistributionPointTest2EE 1 distributionPoint1CACert
InvaliddistributionPointTest3EE 2 distributionPoint1CACert
ValiddistributionPointTest4EE 0 distributionPoint1CACert
ValiddistributionPointTest5EE 0 distributionPoint2CACert
InvaliddistributionPointTest6EE 1 distributionPoint2CACert
ValiddistributionPointTest7EE 0 distributionPoint2CACert
InvaliddistributionPointTest8EE 2 distributionPoint2CACert
InvaliddistributionPointTest9EE 2 distributionPoint2CACert
ValidNoissuingDistributionPointTest10EE 0 NoissuingDistributionPointCACert
InvalidonlyContainsUserCertsTest11EE 2 onlyContainsUserCertsCACert
InvalidonlyContainsCACertsTest12EE 2 onlyContainsCACertsCACert
ValidonlyContainsCACertsTest13EE 0 onlyContainsCACertsCACert
InvalidonlyContainsAttributeCertsTest14EE 2 onlyContainsAttributeCertsCACert
InvalidonlySomeReasonsTest15EE 1 onlySomeReasonsCA1Cert
InvalidonlySomeReasonsTest16EE 1 onlySomeReasonsCA1Cert
InvalidonlySomeReasonsTest17EE 2 onlySomeReasonsCA2Cert
ValidonlySomeReasonsTest18EE 0 onlySomeReasonsCA3Cert
ValidonlySomeReasonsTest19EE 0 onlySomeReasonsCA4Cert
InvalidonlySomeReasonsTest20EE 1 onlySomeReasonsCA4Cert
InvalidonlySomeReasonsTest21EE 1 onlySomeReasonsCA4Cert
ValidIDPwithindirectCRLTest22EE 0 indirectCRLCA1Cert
InvalidIDPwithindirectCRLTest23EE 1 indirectCRLCA1Cert
ValidIDPwithindirectCRLTest24EE 0 indirectCRLCA2Cert
ValidIDPwithindirectCRLTest25EE 0 indirectCRLCA2Cert
InvalidIDPwithindirectCRLTest26EE 2 indirectCRLCA2Cert
InvalidcRLIssuerTest27EE 2 indirectCRLCA2Cert
ValidcRLIssuerTest28EE 0 indirectCRLCA3Cert
ValidcRLIssuerTest29EE 0 indirectCRLCA3Cert
ValidcRLIssuerTest30EE 0 indirectCRLCA4Cert
InvalidcRLIssuerTest31EE 1 indirectCRLCA6Cert
InvalidcRLIssuerTest32EE 1 indirectCRLCA6Cert
ValidcRLIssuerTest33EE 0 indirectCRLCA6Cert
InvalidcRLIssuerTest34EE 1 indirectCRLCA5Cert
InvalidcRLIssuerTest35EE 2 indirectCRLCA5Cert
TABLE
finish
