#!/usr/bin/env bash
# A broken index never breaks a program: with a truncated file, a file of
# garbage, an index of a newer format version, a directory in its place, or
# a file others may write, `openssl verify` of a revoked leaf and an
# s_client handshake both still succeed (pass-through), and the provider
# says why exactly once.  Then a good index appears and, without a restart
# of anything but the client, the revoked leaf is refused again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
command -v mdb_dump >/dev/null && command -v mdb_load >/dev/null ||
    skip "lmdb-utils (mdb_dump, mdb_load) not installed"
tls_pki
tls_import
good=$W/good.mdb
cp "$STATE/index.mdb" "$good"
srv_start srv good_ec

# variants of index.mdb
size=$(stat -c %s "$good")
head -c $((size / 2)) "$good" >"$W/truncated.mdb"
head -c "$size" /dev/urandom >"$W/garbage.mdb"
mdb_dump -n -a "$good" >"$W/dump.txt"
# meta "format" (hex 666f726d6174) -> version 255, newer than any
awk '{ print } / 666f726d6174$/ { getline; print " 000000ff" }' "$W/dump.txt" >"$W/dump2.txt"
mdb_load -n -f "$W/dump2.txt" "$W/newer.mdb" || fail "mdb_load"
rm -f "$W/newer.mdb-lock"
cp "$good" "$W/writable.mdb"; chmod 666 "$W/writable.mdb"

for kind in truncated garbage newer directory writable; do
    rm -rf "$STATE/index.mdb"
    if [ "$kind" = directory ]; then mkdir "$STATE/index.mdb"
    else cp -p "$W/$kind.mdb" "$STATE/index.mdb"; fi
    [ "$kind" = writable ] && chmod 666 "$STATE/index.mdb"
    if px -- openssl verify -CAfile "$ROOT" -untrusted "$W/untrusted.pem" \
        "$PKI/rev_ec.pem" >"$W/v.out" 2>&1; then
        n=$(grep -c '^crlcache: index ' "$W/v.out")
        [ "$n" -eq 1 ] && case_ok "$kind: passes through; $(grep -m1 '^crlcache: index ' "$W/v.out" | cut -c1-150)" \
            || { cat "$W/v.out"; case_fail "$kind" "expected one notice, saw $n"; }
    else
        cat "$W/v.out"; case_fail "$kind" "verification failed instead of passing through"
    fi
    cl_sclient "$(srv_port srv)" 1.3
    [ "$CLIENT_RC" -eq 0 ] && case_ok "$kind: handshake ok" \
        || { cat "$W/client.out"; case_fail "$kind" "handshake failed"; }
done
rm -rf "$STATE/index.mdb"
cp "$good" "$STATE/index.mdb"
px -- openssl verify -CAfile "$ROOT" -untrusted "$W/untrusted.pem" "$PKI/rev_ec.pem" \
    >"$W/v.out" 2>&1 && { cat "$W/v.out"; case_fail good "revoked leaf accepted with a good index"; } \
    || case_ok "good index: revoked leaf refused again"
finish
