#!/usr/bin/env bash
# The 8 CRL cases of the public x509-limbo suite (test/data/limbo/
# cases.json, limbo's own schema; its README.md says where it came from)
# through the fetcher: each case's CRLs are imported with its trusted
# certificates as anchors and its untrusted intermediates as --untrusted,
# into a fresh state directory, and
# `crlcache check` looks its peer certificate up.  SUCCESS must give
# import exit 0 and check "good"; FAILURE must give check "revoked", or
# "unknown" because import refused the CRL.  limbo's validation_time is not
# used: crlcache judges CRLs at the current time, and every certificate and
# CRL of these cases is valid from 1970 to 2969 (checked below).
#
# Two cases differ on purpose.  limbo wants crlnumber-missing and
# crlnumber-critical refused (RFC 5280 5.2.3: MUST be present, MUST be
# non-critical); crlcache takes both and says so in the log, because
# both rules bind the issuer without changing what the CRL means, and
# refusing a CRL ignores its revocations (docs/crl-quirks.md; Go, OpenSSL
# and webpki take them too).  For those, "tolerated" is the outcome
# wanted: import exit 0, the log line naming the quirk, check "good".
. "$(dirname "$0")/lib.sh"
need_crlcache
LIMBO=$DATA/limbo/cases.json
command -v python3 >/dev/null || skip "python3 not available to read cases.json"
write_conf "# x509-limbo"
python3 - "$LIMBO" "$W/cases" >"$W/cases.lst" <<'PY' || fail "cannot read $LIMBO"
import json, os, sys
d = json.load(open(sys.argv[1]))
for i, c in enumerate(d["testcases"]):
    out = os.path.join(sys.argv[2], str(i))
    os.makedirs(out)
    def put(name, pems):
        for j, p in enumerate(pems):
            open(os.path.join(out, "%s%d.pem" % (name, j)), "w").write(p)
    put("ta", c["trusted_certs"])
    put("im", c["untrusted_intermediates"])
    put("crl", c["crls"])
    open(os.path.join(out, "peer.pem"), "w").write(c["peer_certificate"])
    print(i, c["id"], c["expected_result"], c["validation_time"] or "-")
PY
[ "$(wc -l <"$W/cases.lst")" -eq 8 ] || fail "expected 8 cases in $LIMBO, found $(wc -l <"$W/cases.lst")"
agree=0 tolerated=0
while read -r i id want vtime; do
    d=$W/cases/$i
    STATE=$d/state
    # every certificate valid now: the current time stands for validation_time
    for c in "$d"/ta*.pem "$d"/im*.pem "$d/peer.pem"; do
        [ -e "$c" ] || continue
        openssl x509 -in "$c" -noout -checkend 0 >/dev/null \
            || { case_fail "$id" "$(basename "$c") not valid now (limbo time $vtime)"; continue 2; }
    done
    args=()
    for c in "$d"/ta*.pem; do args+=(--anchor "$c"); done
    for c in "$d"/im*.pem; do [ -e "$c" ] && args+=(--untrusted "$c"); done
    cc import "${args[@]}" "$d"/crl*.pem >"$d/import.out" 2>&1; irc=$?
    chain=()
    if ls "$d"/im*.pem >/dev/null 2>&1; then cat "$d"/im*.pem >"$d/chain.pem"; chain=(--chain "$d/chain.pem"); fi
    cc check ${chain[@]+"${chain[@]}"} "$d/peer.pem" >"$d/check.out" 2>&1; crc=$?
    got="import $irc, check $(awk 'NR==1{print $1}' "$d/check.out") ($crc)"
    why=$(grep -o 'rejected: .*' "$d/import.out" | head -n1)
    case $id in
        crl::crlnumber-missing) want=TOLERATED quirk='tolerated: no cRLNumber' ;;
        crl::crlnumber-critical) want=TOLERATED quirk='tolerated: cRLNumber marked critical' ;;
    esac
    case $want in
        TOLERATED) ok=$([ "$irc" -eq 0 ] && [ "$crc" -eq 0 ] &&
            grep -Fq "$quirk" "$d/import.out" && echo 1) ;;
        SUCCESS) ok=$([ "$irc" -eq 0 ] && [ "$crc" -eq 0 ] && echo 1) ;;
        FAILURE) ok=$([ "$crc" -eq 1 ] || { [ "$crc" -eq 2 ] && [ "$irc" -eq 1 ]; } && echo 1) ;;
        *) case_fail "$id" "unknown expected_result $want"; continue ;;
    esac
    if [ -n "$ok" ]; then
        [ "$want" = TOLERATED ] && tolerated=$((tolerated + 1)) || agree=$((agree + 1))
        case_ok "$id: want $want, $got${why:+; $why}"
    else
        case_fail "$id" "want $want, $got: $(cat "$d/import.out" "$d/check.out")"
    fi
done <"$W/cases.lst"
note "x509-limbo CRL cases: $agree/8 agree, $tolerated taken and logged where limbo refuses"
finish
