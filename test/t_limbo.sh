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
agree=0
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
    case $want in
        SUCCESS) ok=$([ "$irc" -eq 0 ] && [ "$crc" -eq 0 ] && echo 1) ;;
        FAILURE) ok=$([ "$crc" -eq 1 ] || { [ "$crc" -eq 2 ] && [ "$irc" -eq 1 ]; } && echo 1) ;;
        *) case_fail "$id" "unknown expected_result $want"; continue ;;
    esac
    if [ -n "$ok" ]; then
        agree=$((agree + 1))
        case_ok "$id: want $want, $got${why:+; $why}"
    else
        case_fail "$id" "want $want, $got: $(cat "$d/import.out" "$d/check.out")"
    fi
done <"$W/cases.lst"
note "x509-limbo CRL cases: $agree/8 agree"
finish
