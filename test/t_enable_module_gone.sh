#!/usr/bin/env bash
# What removing the package leaves when the administrator had enabled
# crlcache: openssl.cnf keeps the block (no maintainer script edits
# another package's conffile), the module is gone, and after a purge the
# snippet too.  Every OpenSSL program must go on working: openssl
# s_client, curl and python3 connect to a TLS server on 127.0.0.1 and
# verify it, with nothing on stderr; openssl list -providers shows the
# default provider and no crlcache.  OpenSSL 3.0 and 3.5 skip a provider
# whose module is missing, and an .include of a missing file; but under
# the stock file's config_diagnostics = 1 a provider naming a section
# that is not there stops every program at start ("FATAL: Startup
# failure"): the block must define every section it names itself (the
# snippet that also defines them is gone after a purge).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
need_module
stock_cnf
# as Debian's stock file says; where it does not, the test says it for it
grep -q '^config_diagnostics *= *1' "$W/openssl.cnf" || sed -i '1i config_diagnostics = 1' "$W/openssl.cnf"
mkdir -p "$STATE" "$W/mods"
cp "$MOD" "$W/mods/crlcache.so"
cp "$SNIP" "$W/snippet.cnf"
assert_exit 0 en enable --module "$W/mods/crlcache.so" --snippet "$W/snippet.cnf"
assert_grep '^soft_load = 1$' "$W/openssl.cnf"

pki_root root "/CN=Gone Test Root/O=crlcache tests"
pki_ca int root "/CN=Gone Test Int/O=crlcache tests"
prov_leaf srv int localhost
ROOT=$PKI/root/cert.pem
PORT=$(closed_port)
openssl s_server -accept "127.0.0.1:$PORT" -www -cert "$PKI/srv.pem" \
    -cert_chain "$PKI/srv.ca.pem" -key "$PKI/srv.key" </dev/null >"$W/s.log" 2>&1 &
bg_register $!
wait_port "$PORT" || fail "s_server did not start"

# every_program WHAT: the three clients and openssl list on the enabled file
every_program() {
    local what=$1
    export OPENSSL_CONF=$W/openssl.cnf
    openssl s_client -connect "127.0.0.1:$PORT" -servername localhost -verify_return_error \
        -CAfile "$ROOT" </dev/null >"$W/sc.out" 2>"$W/sc.err" ||
        { cat "$W/sc.out" "$W/sc.err" >&2; fail "$what: openssl s_client failed"; }
    curl -sS --max-time 20 --cacert "$ROOT" -o /dev/null "https://localhost:$PORT/" \
        --resolve "localhost:$PORT:127.0.0.1" 2>"$W/curl.err" ||
        { cat "$W/curl.err" >&2; fail "$what: curl failed"; }
    python3 - "$PORT" "$ROOT" 2>"$W/py.err" <<'PY' || { cat "$W/py.err" >&2; fail "$what: python3 failed"; }
import socket, ssl, sys
ctx = ssl.create_default_context(cafile=sys.argv[2])
with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20) as s:
    with ctx.wrap_socket(s, server_hostname="localhost") as t:
        t.sendall(b"GET / HTTP/1.0\r\n\r\n")
        assert t.recv(64).startswith(b"HTTP/1.0 200"), "no 200"
PY
    openssl list -providers >"$W/list.out" 2>"$W/list.err" || fail "$what: openssl list failed"
    unset OPENSSL_CONF
    for f in curl py list; do
        [ ! -s "$W/$f.err" ] || { cat "$W/$f.err" >&2; fail "$what: $f printed on stderr"; }
    done
    grep -q 'error' "$W/sc.err" && { cat "$W/sc.err" >&2; fail "$what: s_client printed an error"; }
    assert_grep '^  default$' "$W/list.out"
}

every_program "enabled"
assert_grep '^  crlcache$' "$W/list.out"
case_ok "enabled: the clients connect"

rm -f "$W/mods/crlcache.so"            # dpkg -r: the module goes, the conffiles stay
every_program "module removed"
assert_not_grep 'crlcache' "$W/list.out"
case_ok "module removed: every program works, without crlcache"

rm -f "$W/snippet.cnf"                 # dpkg --purge: the snippet goes too
every_program "module and snippet removed"
assert_not_grep 'crlcache' "$W/list.out"
case_ok "module and snippet removed: every program works"
finish
