#!/usr/bin/env bash
# A program under an address-space limit is still protected.
# Readers used to map the writer's 8 GiB (CRLC_MAP_SIZE, from the
# meta page): under `ulimit -v` (systemd LimitAS=, limits.conf `as`) the map
# failed and the program ran without revocation checks.  The map is now the
# size of the file.  Under 6 GiB and 1 GiB limits: `openssl verify` under
# the provider refuses the revoked leaf and accepts the good one, an
# s_client handshake to the revoked server fails, and `crlcache check`
# says revoked (exit 1).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
tls_pki
tls_import
srv_start rev rev_ec

for kb in 6291456 1048576; do
    lim="ulimit -v $kb"
    ( ulimit -v "$kb" && cl_verify "$PKI/rev_ec.pem" --set hints=off; exit "$CLIENT_RC" )
    if [ $? -ne 0 ] && grep -q 'certificate is revoked (crlcache)' "$W/client.out"; then
        case_ok "$lim: openssl verify refuses the revoked leaf"
    else
        cat "$W/client.out"; case_fail "$lim revoked" "revoked leaf not refused"
    fi
    ( ulimit -v "$kb" && cl_verify "$PKI/good_ec.pem" --set hints=off; exit "$CLIENT_RC" )
    if [ $? -eq 0 ] && ! grep -q '^crlcache: index ' "$W/client.out"; then
        case_ok "$lim: openssl verify accepts the good leaf, no notice"
    else
        cat "$W/client.out"; case_fail "$lim good" "good leaf refused or index notice"
    fi
    ( ulimit -v "$kb" && cl_sclient "$(srv_port rev)" 1.3 --set hints=off; exit "$CLIENT_RC" )
    if [ $? -ne 0 ] && grep -q 'certificate signature failure' "$W/client.out"; then
        case_ok "$lim: s_client handshake to the revoked server fails"
    else
        cat "$W/client.out"; case_fail "$lim s_client" "handshake not refused"
    fi
    ( ulimit -v "$kb" && exec "$CRLCACHE" --state-dir "$STATE" check "$PKI/rev_ec.pem" ) \
        >"$W/c.out" 2>&1
    rc=$?
    [ "$rc" -eq 1 ] && case_ok "$lim: crlcache check says revoked" \
        || { cat "$W/c.out"; case_fail "$lim check" "crlcache check exit $rc, wanted 1"; }
done
finish
