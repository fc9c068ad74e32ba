#!/usr/bin/env bash
# Provider, real programs: openssl s_server on 127.0.0.1 presents (a) a good
# leaf, (b) a revoked leaf, (c) a good leaf under an intermediate that the
# root's CRL revokes, with RSA and ECDSA leaves.  Clients run under
# `crlcache exec` with no CRL flags: openssl s_client -verify_return_error
# (TLS 1.2 and 1.3), openssl verify, curl, python3 urllib (TLS 1.2 and 1.3).
# (a) must succeed, (b) and (c) must fail; each client's words are printed.
# Control: the same revoked server is accepted by the same clients without
# the provider, so the refusals come from crlcache.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"

tls_ready

for kt in rsa ec; do
    srv_start "good_$kt" "good_$kt"
    srv_start "rev_$kt" "rev_$kt"
    srv_start "under2_$kt" "under2_$kt"
done

# expect WANT(ok|fail) CLIENT LABEL: judge CLIENT_RC and $W/client.out
expect() {
    local want=$1 client=$2 label=$3
    if [ "$want" = ok ]; then
        if [ "$CLIENT_RC" -eq 0 ]; then
            case_ok "$label"
        else
            sed 's/^/    | /' "$W/client.out"
            case_fail "$label" "$client exit $CLIENT_RC, wanted success"
        fi
        return
    fi
    printf '    %s: %s says:\n' "$label" "$client"
    client_words "$client" | sed 's/^/    | /'
    if [ "$CLIENT_RC" -eq 0 ]; then
        sed 's/^/    | /' "$W/client.out"
        case_fail "$label" "$client accepted a revoked chain"
        return
    fi
    # The refusal must be crlcache's (not, say, a connection problem).
    case $client in
        s_client) grep -Eq 'verify error:num=7:certificate signature failure' "$W/client.out" \
                  && grep -q 'certificate is revoked (crlcache)' "$W/client.out" ;;
        verify)   grep -q 'certificate signature failure' "$W/client.out" \
                  && grep -q 'certificate is revoked (crlcache)' "$W/client.out" ;;
        curl)     grep -Eq 'SSL certificate problem: certificate signature failure|certificate is revoked' "$W/client.out" ;;
        python)   grep -q 'CERTIFICATE_VERIFY_FAILED.*certificate signature failure' "$W/client.out" ;;
    esac || { sed 's/^/    | /' "$W/client.out"; case_fail "$label" "$client failed, but not with crlcache's refusal"; return; }
    case_ok "$label"
}

for kt in rsa ec; do
    for srv in good rev under2; do
        want=fail; [ "$srv" = good ] && want=ok
        port=$(srv_port "${srv}_$kt")
        for v in 1.2 1.3; do
            cl_sclient "$port" "$v";  expect "$want" s_client "$srv-$kt s_client TLS$v"
            cl_curl "$port" "$v";     expect "$want" curl "$srv-$kt curl TLS$v"
            cl_python "$port" "$v";   expect "$want" python "$srv-$kt python TLS$v"
        done
        cl_verify "$PKI/${srv}_$kt.pem"; expect "$want" verify "$srv-$kt openssl verify"
    done
done

# The server signed its handshakes (RSA and ECDSA keys) with the provider
# loaded: the successful TLS 1.2 and 1.3 handshakes above prove it.  Its log
# must not show provider trouble.
for kt in rsa ec; do
    for srv in good rev under2; do
        if grep -q 'crlcache:' "$W/srv-${srv}_$kt.log"; then
            sed 's/^/    | /' "$W/srv-${srv}_$kt.log"
            case_fail "server-$srv-$kt" "s_server logged crlcache messages"
        fi
    done
done

# Control: without the provider the revoked server is accepted.
port=$(srv_port rev_ec)
echo | openssl s_client -connect "127.0.0.1:$port" -verify_return_error -CAfile "$ROOT" \
    >"$W/ctl.out" 2>&1 && case_ok "control: s_client without provider accepts rev_ec" \
    || { sed 's/^/    | /' "$W/ctl.out"; case_fail control "s_client without the provider refused rev_ec"; }
curl -sS --cacert "$ROOT" -o /dev/null "https://127.0.0.1:$port/" >"$W/ctl.out" 2>&1 \
    && case_ok "control: curl without provider accepts rev_ec" \
    || { sed 's/^/    | /' "$W/ctl.out"; case_fail control "curl without the provider refused rev_ec"; }

finish
