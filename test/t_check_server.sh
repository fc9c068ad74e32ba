#!/usr/bin/env bash
# crlcache check HOST:PORT: a real TLS handshake with openssl s_server on
# 127.0.0.1, the chain it presents looked up in the index, one line per
# certificate.  A revoked leaf, a good leaf, a good leaf under a revoked
# intermediate, a leaf whose issuer no CRL covers; exit 1 (revoked),
# 0 (good), 1, 2 (unknown), 4 (nothing listening); a good server whose
# root's CRL is not in the index, 0.  check runs with the
# provider switched on in its own environment (under `crlcache exec`):
# its handshake must still get the revoked server's chain, and does not
# depend on the system configuration at all.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"

tls_pki
pki_ca int3 root "/CN=Prov Test Int 3/O=crlcache tests" cdp=http://127.0.0.1:9/root.crl keytype=ec
prov_leaf nocrl int3 "nocrl.test" cdp=http://127.0.0.1:9/int3.crl
tls_import
for s in rev_ec good_ec under2_rsa nocrl; do srv_start "$s" "$s"; done

# chk SERVER WANT_RC: check under exec (the provider on) -> $W/check.out
chk() {
    local rc
    px -- "$CRLCACHE" --state-dir "$STATE" -c "$CONF" check "127.0.0.1:$(srv_port "$1")" \
        >"$W/check.out" 2>"$W/check.err"
    rc=$?
    sed 's/^/    | /' "$W/check.out" "$W/check.err"
    [ "$rc" -eq "$2" ] || { case_fail "$1" "exit $rc, wanted $2"; return 1; }
}
has() {  # has LABEL REGEX
    grep -Eq "$2" "$W/check.out" && case_ok "$1" || case_fail "$1" "no line matching $2"
}

# The provider is on where check runs: s_client there refuses rev_ec.
cl_sclient "$(srv_port rev_ec)" 1.3
[ "$CLIENT_RC" -ne 0 ] || fail "s_client under exec accepted rev_ec: the provider is not on"

chk rev_ec 1 && {
    has "revoked leaf" '^revoked subject=CN=rev-ec.test serial=[0-9A-F]+ issuer=O=crlcache tests,CN=Prov Test Int revoked=[^ ]+ reason=keyCompromise'
    has "its intermediate good" '^good subject=O=crlcache tests,CN=Prov Test Int serial=[0-9A-F]+ issuer=O=crlcache tests,CN=Prov Test Root thisUpdate='
}
assert_not_grep 'crlcache: certificate is revoked' "$W/check.err"
chk good_ec 0 && has "good leaf" '^good subject=CN=good-ec.test '
chk under2_rsa 1 && {
    has "leaf under a revoked intermediate: good" '^good subject=CN=under2-rsa.test '
    has "revoked intermediate" '^revoked subject=O=crlcache tests,CN=Prov Test Int 2 .* reason=cACompromise'
}
chk nocrl 2 && has "unknown, with the reason" '^unknown subject=CN=nocrl.test .*\(no CRL of this issuer in the index'

# The root's own CRL not configured: the intermediate the good server sends
# is shown unknown, but the good server exits 0.
STATE=$W/state-noroot
tls_import "$W/int.crl"
chk good_ec 0 && {
    has "good leaf, root CRL absent" '^good subject=CN=good-ec.test '
    has "intermediate unknown, not counted" '^unknown subject=O=crlcache tests,CN=Prov Test Int .*not counted in the exit status'
}
chk rev_ec 1
STATE=$W/state

# The handshake does not depend on what the system configuration selects:
# one that leaves the default library context no algorithms (fips=yes, no
# FIPS provider) does not stop check.
printf 'openssl_conf = init\n[init]\nalg_section = algs\n[algs]\ndefault_properties = fips=yes\n' >"$W/nofips.cnf"
OPENSSL_CONF=$W/nofips.cnf openssl s_client -connect "127.0.0.1:$(srv_port good_ec)" </dev/null >/dev/null 2>&1 \
    && fail "s_client worked with fips=yes and no FIPS provider: the control proves nothing"
OPENSSL_CONF=$W/nofips.cnf "$CRLCACHE" --state-dir "$STATE" -c "$CONF" check "127.0.0.1:$(srv_port rev_ec)" \
    >"$W/check.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q '^revoked subject=CN=rev-ec.test' "$W/check.out" \
    && case_ok "handshake in a library context of its own" \
    || { sed 's/^/    | /' "$W/check.out"; case_fail libctx "exit $rc under a configuration with no usable algorithms"; }

port=$(closed_port)
"$CRLCACHE" --state-dir "$STATE" -c "$CONF" check "127.0.0.1:$port" >"$W/check.out" 2>"$W/check.err"
rc=$?
[ "$rc" -eq 4 ] && grep -q "check: 127.0.0.1:$port: cannot connect" "$W/check.err" \
    && case_ok "nothing listening: exit 4" || case_fail closed "exit $rc: $(cat "$W/check.err")"
"$CRLCACHE" --state-dir "$STATE" -c "$CONF" check --chain "$W/untrusted.pem" "127.0.0.1:$port" \
    >/dev/null 2>"$W/check.err"
[ $? -eq 4 ] && case_ok "--chain with HOST:PORT refused" || case_fail chain "--chain with HOST:PORT accepted"
finish
