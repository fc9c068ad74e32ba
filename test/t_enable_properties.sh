#!/usr/bin/env bash
# enable and exec keep the system's default_properties and append crlcache's
# (the proxy still catches a revoked certificate under the merged query);
# where the system requires fips=yes, in any form OpenSSL accepts, both
# refuse with the reason and leave the file byte for byte as it was.
. "$(dirname "$0")/lib.sh"
need_module
export CRLCACHE_MODULE=$MOD CRLCACHE_SNIPPET=$SNIP

offline_int_index

# sysconf FILE ALG_LINE: a system openssl.cnf whose alg_section holds ALG_LINE
sysconf() {
    printf '%s\n' "HOME = ." "openssl_conf = sys_init" "[sys_init]" \
        "alg_section = sys_algs" "[sys_algs]" "$2" >"$1"
}
en() { "$CRLCACHE" --state-dir "$STATE" enable --openssl-cnf "$1" --module "$MOD" --snippet "$SNIP"; }
MERGED='^default_properties = \?foo\.bar=yes,\?crlcache\.sig=yes,\?crlcache\.km=no$'
# verify_under CNF: the proxy refuses rev1 and accepts good1 under CNF
verify_under() {
    OPENSSL_CONF=$1 openssl verify -CAfile "$PKI/root/cert.pem" -untrusted "$PKI/int/cert.pem" \
        "$PKI/good1.pem" >"$W/v.out" 2>&1 || { cat "$W/v.out" >&2; fail "good1 refused under $1"; }
    if OPENSSL_CONF=$1 openssl verify -CAfile "$PKI/root/cert.pem" -untrusted "$PKI/int/cert.pem" \
        "$PKI/rev1.pem" >"$W/v.out" 2>&1; then
        cat "$W/v.out" >&2; fail "rev1 accepted under $1"
    fi
    grep -q 'revoked (crlcache)' "$W/v.out" || { cat "$W/v.out" >&2; fail "rev1 not refused as revoked"; }
}

# --- enable keeps the system's properties
mkdir -p "$STATE"
sysconf "$W/keep.cnf" 'default_properties = ?foo.bar=yes'
cp "$W/keep.cnf" "$W/keep.orig"
assert_exit 0 en "$W/keep.cnf"
assert_grep "$MERGED" "$W/keep.cnf"
OPENSSL_CONF=$W/keep.cnf openssl list -providers >"$W/list.out" 2>&1
grep -A3 '^  crlcache$' "$W/list.out" | grep -q 'status: active' ||
    { cat "$W/list.out" >&2; fail "crlcache not active under the merged properties"; }
verify_under "$W/keep.cnf"
assert_exit 0 "$CRLCACHE" --state-dir "$STATE" disable --openssl-cnf "$W/keep.cnf"
cmp -s "$W/keep.cnf" "$W/keep.orig" || fail "disable did not restore the file"

# an optional fips preference does not make the host FIPS-only
sysconf "$W/opt.cnf" 'default_properties = ?fips=yes'
assert_exit 0 en "$W/opt.cnf"
assert_grep '^default_properties = \?fips=yes,\?crlcache\.sig=yes,\?crlcache\.km=no$' "$W/opt.cnf"

# --- a system that requires fips=yes: refused, file untouched
n=0
for line in 'default_properties = fips=yes' 'default_properties =  fips = yes ' \
    'default_properties = provider=default,FIPS=YES' 'default_properties = ?foo.bar=yes, fips' \
    'default_properties = fips!=no' 'fips_mode = yes'; do
    n=$((n + 1))
    sysconf "$W/fips$n.cnf" "$line"
    cp "$W/fips$n.cnf" "$W/fips$n.orig"
    assert_exit 4 en "$W/fips$n.cnf"
    assert_grep 'requires FIPS .*crlcache is not a FIPS provider' "$W/last.err"
    cmp -s "$W/fips$n.cnf" "$W/fips$n.orig" || fail "refused enable ($line) changed the file"
    [ ! -e "$W/fips$n.cnf.crlcache-backup" ] || fail "refused enable ($line) left a backup"

    # exec: the program never runs
    OPENSSL_CONF=$W/fips$n.cnf assert_exit 4 "$CRLCACHE" --state-dir "$STATE" exec -- \
        sh -c 'echo RAN'
    assert_not_grep '^RAN$' "$W/last.out"
    assert_grep 'requires FIPS .*crlcache is not a FIPS provider' "$W/last.err"
    cmp -s "$W/fips$n.cnf" "$W/fips$n.orig" || fail "exec changed the file"
done

# --- exec keeps the system's properties too
OPENSSL_CONF=$W/keep.cnf "$CRLCACHE" --state-dir "$STATE" exec -- \
    sh -c 'cat "$OPENSSL_CONF"' >"$W/exec.cnf" || fail "exec failed"
assert_grep "$MERGED" "$W/exec.cnf"
OPENSSL_CONF=$W/keep.cnf "$CRLCACHE" --state-dir "$STATE" exec -- \
    openssl list -providers >"$W/xlist.out" 2>&1
grep -A3 '^  crlcache$' "$W/xlist.out" | grep -q 'status: active' ||
    { cat "$W/xlist.out" >&2; fail "crlcache not active under exec"; }
cp "$W/exec.cnf" "$W/exec-copy.cnf"
verify_under "$W/exec-copy.cnf"
note "default_properties kept, FIPS refused"
