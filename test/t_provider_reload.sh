#!/usr/bin/env bash
# Fresh data without a restart: ONE long-running python3 process (under
# `crlcache exec`) does a TLS handshake to a server presenting good_ec every
# 0.2 s for 20 s.  After ~6 s the test imports a new int CRL that revokes
# good_ec (a new generation of the index).  The same process must go from
# accepting to refusing within 5 s of the publish, and never accept again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"

tls_ready
srv_start good good_ec
port=$(srv_port good)

tls_loop "$port" 20 --set log=stderr
pid=$TLS_LOOP_PID
sleep 6
pki_revoke int "$PKI/good_ec.pem" reason=superseded
pki_gencrl int "$W/int-new.crl"
assert_exit 0 cc import --anchor "$ROOT" --untrusted "$W/untrusted.pem" "$W/int-new.crl"
t_pub=$(date +%s.%N)
note "published the revocation of good_ec at $t_pub (generation $(generation))"
wait "$pid"; rc=$?
[ "$rc" -eq 0 ] || case_fail loop "python exit $rc"
awk '{print "    | " $0}' "$W/loop.out" | sed -n '1,3p;/refused/{p;q}'
sed 's/^/    | stderr: /' "$W/loop.err" | sort -u | head -5

# Judge: ok before the publish, refused from at most 5 s after it, nothing else.
tls_loop_judge "$t_pub" 10 >"$W/judge.out"; jrc=$?
note "$(cat "$W/judge.out")"
[ "$jrc" -eq 0 ] && case_ok "long-running process refuses within 5 s of the publish, no restart" \
    || { sed 's/^/    | /' "$W/loop.out"; case_fail reload "see counts above"; }
grep -q 'refused certificate signature failure' "$W/loop.out" \
    || case_fail reload-words "refusal was not certificate signature failure"
finish
