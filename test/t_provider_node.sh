#!/usr/bin/env bash
# Node.js reads only the nodejs_conf section of openssl.cnf (its own,
# often bundled, OpenSSL).  Under `crlcache exec` and after `crlcache
# enable`, a Node.js https.get must refuse a revoked server and accept a
# good one; disable restores the file byte for byte (node accepts the
# revoked server again); a system nodejs_conf of its own (here: the legacy
# provider, which md4 needs) keeps working under both.  Skipped where no
# node is installed or where its OpenSSL cannot load crlcache.so, with
# the reason.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"

command -v node >/dev/null || skip "no node in PATH (Debian: apt-get install nodejs)"
NODEV=$(node --version)
OSSLV=$(node -p 'process.versions.openssl' 2>/dev/null)
case $OSSLV in
    3.*) ;;
    *) skip "node $NODEV uses OpenSSL ${OSSLV:-?}, which has no providers (OpenSSL 3 is needed)" ;;
esac

tls_pki
tls_import
srv_start rev rev_ec
srv_start good good_ec
rport=$(srv_port rev) gport=$(srv_port good)

if ! node_provider_active "$rport"; then
    sed 's/^/    | /' "$W/probe.out"
    # Through openssl_conf instead: then our nodejs_conf is what is broken.
    node --help 2>/dev/null | grep -q -- --openssl-shared-config && node_provider_active "$rport" --openssl-shared-config \
        && fail "node loads crlcache through openssl_conf (--openssl-shared-config) but not through the nodejs_conf exec wrote"
    px -- sh -c 'LD_DEBUG=files node -e 0 2>&1' | grep -c 'crlcache.so' >"$W/ld.count" || true
    if [ "$(cat "$W/ld.count")" -gt 0 ]; then
        skip "node $NODEV (OpenSSL $OSSLV) loads crlcache.so but does not activate it: its OpenSSL skips a provider whose initialisation fails, silently"
    fi
    skip "node $NODEV (OpenSSL $OSSLV) never opens crlcache.so: it reads neither nodejs_conf nor openssl_conf from OPENSSL_CONF"
fi
note "node $NODEV (OpenSSL $OSSLV$(ldd "$(command -v node)" | grep -q libssl || echo ', bundled')) loads the provider"

# expect_node ok|fail LABEL
expect_node() {
    if [ "$1" = ok ]; then
        [ "$CLIENT_RC" -eq 0 ] && { case_ok "$2"; return; }
        sed 's/^/    | /' "$W/client.out"; case_fail "$2" "node exit $CLIENT_RC, wanted success"; return
    fi
    client_words node | sed 's/^/    | /'
    if [ "$CLIENT_RC" -ne 0 ] && grep -q '^node: CERT_SIGNATURE_FAILURE certificate signature failure' "$W/client.out"; then
        case_ok "$2"
    else
        sed 's/^/    | /' "$W/client.out"; case_fail "$2" "node did not refuse the revoked server with crlcache's failure"
    fi
}

# ---- exec
cl_node "$rport"; expect_node fail "exec: node refuses the revoked server"
cl_node "$gport"; expect_node ok "exec: node accepts the good server"
cp "$W/client.out" "$W/node-good.out"

# ---- enable / disable on a copy of the system openssl.cnf
stock_cnf
assert_exit 0 en enable --module "$CRLCACHE_MODULE" --snippet "$SNIP"
NODE_ENV_CONF=$W/openssl.cnf
cl_node "$rport"; expect_node fail "enable: node refuses the revoked server"
cl_node "$gport"; expect_node ok "enable: node accepts the good server"
assert_exit 0 en disable
cmp -s "$W/openssl.cnf" "$stock" && case_ok "disable restores the file byte for byte" \
    || case_fail disable "openssl.cnf differs from the original after disable"
cl_node "$rport"
[ "$CLIENT_RC" -eq 0 ] && case_ok "control: after disable node accepts the revoked server" \
    || { sed 's/^/    | /' "$W/client.out"; case_fail control "node refused the revoked server without crlcache"; }

# ---- a system nodejs_conf of its own keeps working
md4() {  # md4 [exec]: can node hash with md4 (the legacy provider)?
    local js='try { require("crypto").createHash("md4").update("x").digest("hex"); console.log("md4 ok") }
              catch (e) { console.log("md4:", e.message); process.exitCode = 1 }'
    if [ "${1:-}" = exec ]; then
        OPENSSL_CONF=$W/nodesys.cnf px -- node -e "$js"
    else
        OPENSSL_CONF=$W/openssl.cnf node -e "$js"
    fi >"$W/md4.out" 2>&1
}
{
    echo "nodejs_conf = node_init"
    cat "$stock"
    printf '\n[node_init]\nproviders = node_providers\n[node_providers]\n'
    printf 'default = node_default\nlegacy = node_legacy\n[node_default]\nactivate = 1\n'
    printf '[node_legacy]\nactivate = 1\n'
} >"$W/nodesys.cnf"
cp "$W/nodesys.cnf" "$W/openssl.cnf"
md4 || { cat "$W/md4.out" >&2; skip "node $NODEV has no legacy provider to test a system nodejs_conf with"; }
OPENSSL_CONF=/dev/null node -e 'require("crypto").createHash("md4")' >/dev/null 2>&1 \
    && skip "node $NODEV hashes md4 without the legacy provider: no way to see its nodejs_conf"
assert_exit 0 en enable --module "$CRLCACHE_MODULE" --snippet "$SNIP"
md4 && case_ok "enable keeps the system nodejs_conf (legacy provider)" \
    || { cat "$W/md4.out" >&2; case_fail nodejs_conf "enable lost the system nodejs_conf's legacy provider"; }
cl_node "$rport"; expect_node fail "enable with a system nodejs_conf: node refuses the revoked server"
cl_node "$gport"; expect_node ok "enable with a system nodejs_conf: node accepts the good server"
assert_exit 0 en disable
cmp -s "$W/openssl.cnf" "$W/nodesys.cnf" || case_fail disable "file with nodejs_conf not restored byte for byte"
unset NODE_ENV_CONF
md4 exec && case_ok "exec keeps the system nodejs_conf (legacy provider)" \
    || { cat "$W/md4.out" >&2; case_fail nodejs_conf "exec lost the system nodejs_conf's legacy provider"; }
OPENSSL_CONF=$W/nodesys.cnf cl_node "$rport"
expect_node fail "exec with a system nodejs_conf: node refuses the revoked server"
finish
