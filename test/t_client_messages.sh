#!/usr/bin/env bash
# The table "What clients print for a revoked certificate" in
# docs/how-it-works.md is
# what the clients print: each client of the table runs under `crlcache
# exec` against a revoked server (TLS 1.2 and 1.3 where the client lets us
# choose), and every `quoted` text of its row must be in its output, or one
# of `texts` joined by "or" where versions word it differently (curl 7.88
# and 8.14); a row that says it accepts: the client must succeed.  A client that is not
# installed is reported and its row left unchecked; the clients of
# t_provider_tls must all be there.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"

TABLE_DOC=$TESTDIR/../docs/how-it-works.md
[ -r "$TABLE_DOC" ] || fail "no $TABLE_DOC"
awk '/^### What clients print for a revoked certificate/ { on = 1; next }
     on && /^#/ { exit }
     on && /^\| `/ { print }' "$TABLE_DOC" >"$W/table"
[ -s "$W/table" ] || fail "no client table in docs/how-it-works.md"

tls_pki
tls_import
srv_start rev rev_ec
port=$(srv_port rev)

# run CLIENT VARIANT: run the client of a row -> CLIENT_RC, $W/client.out;
# 77 when it is not installed here.
run() {
    case $1 in
        "openssl s_client") cl_sclient "$port" "$2" ;;
        "openssl verify")   cl_verify "$PKI/rev_ec.pem" ;;
        curl)    command -v curl >/dev/null || return 77; cl_curl "$port" "$2" ;;
        python3) cl_python "$port" "$2" ;;
        node)    command -v node >/dev/null || return 77
                 # t_provider_node says why where node cannot load the provider
                 node_provider_active "$port" || return 78
                 cl_node "$port" ;;
        wget)    command -v wget >/dev/null || return 77; cl_wget "$port" ;;
        *) return 2 ;;
    esac
}

checked=0
while IFS= read -r row; do
    client=$(printf '%s\n' "$row" | awk -F' [|] ' '{ print $1 }' | sed -E 's/^\| `([^`]*)`.*/\1/')
    cell=$(printf '%s\n' "$row" | awk -F' [|] ' '{ print $2 }')
    case $client in "openssl s_client"|curl|python3) variants="1.2 1.3" ;; *) variants=- ;; esac
    for v in $variants; do
        label="$client${v#-}"; [ "$v" = - ] || label="$client TLS$v"
        run "$client" "$v"; rc=$?
        [ "$rc" -eq 77 ] && { note "$client not installed: its row is not checked"; continue 2; }
        [ "$rc" -eq 78 ] && { note "$client cannot load the provider here (see t_provider_node): its row is not checked"; continue 2; }
        [ "$rc" -eq 2 ] && { case_fail "$client" "a row of the table for a client this test does not know"; continue 2; }
        printf '    %s:\n' "$label"; grep -v '^crlcache: ' "$W/client.out" | head -3 | sed 's/^/    | /'
        case $cell in
            *"it accepts"*)
                [ "$CLIENT_RC" -eq 0 ] && case_ok "$label accepts, as the table says" \
                    || case_fail "$label" "the table says it accepts; it exited $CLIENT_RC" ;;
            *)
                [ "$CLIENT_RC" -ne 0 ] || { case_fail "$label" "accepted the revoked server"; continue; }
                missing=0
                # Each `text`, or `text` or `text` (one of them: versions differ)
                while IFS= read -r group; do
                    [ -n "$group" ] || continue
                    found=0
                    while IFS= read -r quoted; do
                        # curl names the OpenSSL it runs with
                        [ "$client" = curl ] && quoted=$(printf '%s' "$quoted" | sed -E "s#OpenSSL/[0-9.]+#$(curl --version | grep -o 'OpenSSL/[0-9.]*' | head -1)#")
                        grep -qF -- "$quoted" "$W/client.out" && found=1
                    done < <(printf '%s\n' "$group" | sed 's/` or `/\n/g' | tr -d '`')
                    [ "$found" -eq 1 ] || { missing=1; printf '    missing: %s\n' "$group"; }
                done < <(printf '%s\n' "$cell" | grep -oE '`[^`]*`( or `[^`]*`)*')
                [ "$missing" -eq 0 ] && case_ok "$label prints what the table says" \
                    || case_fail "$label" "output differs from the table" ;;
        esac
        checked=$((checked + 1))
    done
done <"$W/table"
[ "$checked" -ge 7 ] || fail "only $checked client runs checked"
finish
