#!/usr/bin/env bash
# CRLs of different scope never fight as a rollback (RFC 5280 5.2.5: each
# combination of onlyContainsUserCerts, onlyContainsCACerts and indirectCRL
# is its own scope, with its own CRL number sequence, 5.2.3).  For every
# pair of kinds one issuer publishes side by side -- complete, CA-only,
# user-only, indirect; without an IDP name (served at two URLs) and with
# the same one (served one after the other at that URL) -- the second
# numbered below the first: both are held after `crlcache update`, neither
# is refused as a rollback, and `crlcache check` and `openssl verify`
# through the provider refuse the revoked end-entity and CA certificates
# of the issuer and accept the good ones.  Then the attack: a genuine
# CA-only CRL with a higher number, served at the complete CRL's URL,
# makes no end-entity certificate unknown, and the real complete CRL served
# again afterwards is not refused.  `reset --kind` forgets one kind only.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
httpd_start
P=$BASE_URL/p.crl
pki_root root "/CN=Test Root/O=crlcache tests"
pki_ca int root "/CN=Test Kinds/O=crlcache tests"
# every certificate of the issuer names P: the named scopes cover them
pki_leaf eerev int "/CN=ee-rev.test" cdp="$P"
pki_leaf eegood int "/CN=ee-good.test" cdp="$P"
pki_ca carev int "/CN=CA Rev/O=crlcache tests" cdp="$P"
pki_ca cagood int "/CN=CA Good/O=crlcache tests" cdp="$P"
for db in all ca user; do : >"$W/$db.txt"; done
pki_revoke int "$PKI/eerev.pem" db="$W/all.txt"
pki_revoke int "$PKI/carev/cert.pem" db="$W/all.txt"
pki_revoke int "$PKI/carev/cert.pem" db="$W/ca.txt"
pki_revoke int "$PKI/eerev.pem" db="$W/user.txt"
pki_gencrl root "$W/root.crl"
serve "$W/root.crl" root.crl
CHAIN=$PKI/int/cert.pem
CONF_BASE=("url = $BASE_URL/root.crl" "anchor = $PKI/root/cert.pem" "untrusted = $CHAIN")

# kind_crl KIND NAME NUMBER OUT: int's CRL of KIND (complete, ca, user,
# indirect) listing what that kind covers, its IDP naming NAME (none: no
# distributionPoint)
kind_crl() {
    local kind=$1 name=$2 number=$3 out=$4 db=all idp=() ext=()
    case $kind in
        ca) db=ca idp+=("onlyCA = TRUE") ;;
        user) db=user idp+=("onlyuser = TRUE") ;;
        indirect) idp+=("indirectCRL = TRUE") ;;
    esac
    [ "$name" = none ] || idp+=("fullname = URI:$name")
    [ ${#idp[@]} -eq 0 ] ||
        ext=("ext=$(printf 'issuingDistributionPoint = critical,@idp_k\n[ idp_k ]'; printf '\n%s' "${idp[@]}")")
    pki_gencrl int "$out" db="$W/$db.txt" number="$number" ${ext[@]+"${ext[@]}"}
}
kind_crl user "$P" 01 "$W/probe.crl"
crl_text "$W/probe.crl" | grep -q "Only User Certificates" || fail "no onlyContainsUserCerts in probe CRL"
crl_text "$W/probe.crl" | grep -q "URI:$P" || fail "no IDP name in probe CRL"

upd() {  # upd CASE: crlcache update, its output in $W/upd.out
    cc -v update >"$W/upd.out" 2>&1 || { case_fail "$1" "update exit $?: $(cat "$W/upd.out")"; return 1; }
    ! grep -qi rollback "$W/upd.out" || { case_fail "$1" "refused as a rollback: $(cat "$W/upd.out")"; return 1; }
}
held() {  # held CASE N: status lists N CRLs held, the root's included
    local n
    cc status >"$W/status.out" 2>&1
    n=$(grep -c "^crl " "$W/status.out")
    [ "$n" = "$2" ] || { case_fail "$1" "$n CRLs held, not $2: $(cat "$W/status.out")"; return 1; }
}
pv() {  # pv CERT: openssl verify's exit under the provider
    px -- openssl verify -CAfile "$PKI/root/cert.pem" -untrusted "$CHAIN" "$1" >"$W/verify.out" 2>&1
}
answers() {  # answers CASE: check and the provider on the four certificates
    local c=$1
    check_is_soft revoked 1 --chain "$CHAIN" "$PKI/eerev.pem" || case_fail "$c" "end-entity not revoked"
    check_is_soft revoked 1 --chain "$CHAIN" "$PKI/carev/cert.pem" || case_fail "$c" "CA not revoked"
    check_is_soft good 0 --chain "$CHAIN" "$PKI/eegood.pem" || case_fail "$c" "end-entity not good"
    check_is_soft good 0 --chain "$CHAIN" "$PKI/cagood/cert.pem" || case_fail "$c" "CA not good"
    if pv "$PKI/eerev.pem"; then case_fail "$c" "provider verifies the revoked end-entity"
    else grep -qi revoked "$W/verify.out" || case_fail "$c" "provider: $(cat "$W/verify.out")"; fi
    if pv "$PKI/carev/cert.pem"; then case_fail "$c" "provider verifies the revoked CA"
    else grep -qi revoked "$W/verify.out" || case_fail "$c" "provider: $(cat "$W/verify.out")"; fi
    pv "$PKI/eegood.pem" || case_fail "$c" "provider refuses the good end-entity: $(cat "$W/verify.out")"
    pv "$PKI/cagood/cert.pem" || case_fail "$c" "provider refuses the good CA: $(cat "$W/verify.out")"
}

KINDS=(complete ca user indirect)
for ((i = 0; i < ${#KINDS[@]}; i++)); do
    for ((j = i + 1; j < ${#KINDS[@]}; j++)); do
        a=${KINDS[$i]} b=${KINDS[$j]}
        # no IDP name: side by side at two URLs, the second numbered lower
        c="$a+$b"; STATE=$W/state-$c
        fails=$_SOFT_FAILS
        kind_crl "$a" none 50 "$W/a.crl"; kind_crl "$b" none 10 "$W/b.crl"
        serve "$W/a.crl" a.crl; serve "$W/b.crl" b.crl
        write_conf "${CONF_BASE[@]}" "url = $BASE_URL/a.crl" "url = $BASE_URL/b.crl"
        upd "$c" && upd "$c-again" && held "$c" 3 && answers "$c"
        [ "$_SOFT_FAILS" = "$fails" ] && case_ok "$c"
        # named P: one after the other at P, the second numbered lower
        c="$a+$b@P"; STATE=$W/state-$a-$b-P
        fails=$_SOFT_FAILS
        kind_crl "$a" "$P" 50 "$W/a.crl"; kind_crl "$b" "$P" 10 "$W/b.crl"
        write_conf "${CONF_BASE[@]}" "url = $P"
        serve "$W/a.crl" p.crl; upd "$c-first" && held "$c-first" 2
        serve "$W/b.crl" p.crl; upd "$c" && held "$c" 3 && answers "$c"
        [ "$_SOFT_FAILS" = "$fails" ] && case_ok "$c"
    done
done

# --- the attack: the complete CRL (10) at full.crl, then a genuine CA-only
# CRL of the issuer (50) served there instead, then the complete one again
STATE=$W/state-attack
kind_crl complete none 10 "$W/full.crl"
kind_crl ca none 50 "$W/caonly.crl"
kind_crl complete none 11 "$W/full11.crl"
write_conf "${CONF_BASE[@]}" "url = $BASE_URL/full.crl"
serve "$W/full.crl" full.crl
upd attack-before && held attack-before 2 && answers attack-before
serve "$W/caonly.crl" full.crl
upd attack-swapped && held attack-swapped 3 &&
    check_is_soft good 0 --chain "$CHAIN" "$PKI/eegood.pem" && case_ok "swapped in: end-entity still good" ||
    case_fail attack-swapped "end-entity not good"
check_is_soft revoked 1 --chain "$CHAIN" "$PKI/eerev.pem" && case_ok "swapped in: end-entity still revoked" ||
    case_fail attack-swapped "end-entity not revoked"
serve "$W/full.crl" full.crl
upd attack-restored && held attack-restored 3 && answers attack-restored &&
    grep -q "full.crl: unchanged" "$W/upd.out" && case_ok "complete CRL served again: no rollback" ||
    case_fail attack-restored "$(cat "$W/upd.out")"
serve "$W/full11.crl" full.crl
upd attack-next && held attack-next 3 && answers attack-next &&
    grep -q "full.crl: updated" "$W/upd.out" && case_ok "next complete CRL taken" ||
    case_fail attack-next "$(cat "$W/upd.out")"

# --- reset names a kind: the CA-only scope goes, the complete one stays
cc reset --issuer "$CHAIN" --kind user-only,CA-only >"$W/reset.out" 2>&1
[ $? = 4 ] && case_ok "reset --kind user-only,CA-only refused" || case_fail reset-both "$(cat "$W/reset.out")"
cc reset --issuer "$CHAIN" --kind CA-only >"$W/reset.out" 2>&1 && grep -q "kind CA-only: removed" "$W/reset.out" &&
    held reset 2 && cc status 2>/dev/null | grep -q "full.crl scope=all .*kind=full " && case_ok "reset --kind CA-only" ||
    case_fail reset "$(cat "$W/reset.out")"
check_is_soft revoked 1 --chain "$CHAIN" "$PKI/carev/cert.pem" && case_ok "after reset: CA revoked by the complete CRL" ||
    case_fail reset-answer "CA not revoked"
finish
