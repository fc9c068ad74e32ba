#!/usr/bin/env bash
# enable keeps a host's provider policy, and reports success only when a
# revoked certificate is refused through the new configuration (a
# self-test it runs on the candidate first, with a throwaway CA, leaves
# and CRL in an index of its own, in a private directory it removes).
# Hosts emulating one that leaves "default" unloaded (fips + base: there
# is no FIPS module on Debian, so base alone):
#  - base only, default_properties = provider=default: refused, saying
#    the proxies would never be chosen (before: enabled, a revoked
#    certificate verified);
#  - base only: no default provider is added (before: it was, switching
#    the default algorithms back on), and enable refuses, the self-test
#    failing;
#  - default_properties = ?provider=default, a preference that ties with
#    the proxies': refused by the self-test;
#  - default and base both activated: enabled, the providers are the
#    host's plus crlcache, a revoked certificate is refused.
# Each refusal leaves the file byte for byte as it was and no backup;
# the self-test leaves nothing in its directory.
. "$(dirname "$0")/lib.sh"
need_module
export CRLCACHE_MODULE=$MOD CRLCACHE_SNIPPET=$SNIP

offline_int_index

# The self-test's private directory: TMPDIR, when only its owner may
# write to it and above it (nothing under /tmp qualifies); as root one
# under /run, so that the test sees what it leaves.
priv=
if [ "$(id -u)" -eq 0 ]; then
    priv=$(mktemp -d /run/crlcache-t_enable_hostpolicy.XXXXXX)
    trap '_lib_cleanup; rm -rf "$priv"' EXIT
    export TMPDIR=$priv
fi
left_nothing() {  # left_nothing WHEN
    [ -z "$priv" ] && return 0
    [ -z "$(ls -A "$priv")" ] && case_ok "the self-test left nothing ($1)" \
        || case_fail leftover "$1: $(ls -A "$priv")"
}

# host FILE PROVIDER... [-- ALG_LINE]: a system openssl.cnf activating
# exactly the providers named, with ALG_LINE in its alg_section
host() {
    local f=$1 p alg=; shift
    local provs=()
    while [ $# -gt 0 ]; do
        [ "$1" = -- ] && { alg=$2; break; }
        provs+=("$1"); shift
    done
    {
        printf '%s\n' "HOME = ." "openssl_conf = host_init" "[host_init]" \
            "providers = host_providers" "alg_section = host_algs" "[host_providers]"
        for p in "${provs[@]}"; do echo "$p = host_$p"; done
        for p in "${provs[@]}"; do printf '[host_%s]\nactivate = 1\n' "$p"; done
        printf '[host_algs]\n%s\n' "$alg"
    } >"$f"
    cp "$f" "$f.orig"
}
en() { "$CRLCACHE" --state-dir "$STATE" enable --openssl-cnf "$1" --module "$MOD" --snippet "$SNIP"; }
untouched() {  # untouched NAME FILE
    cmp -s "$2" "$2.orig" && [ ! -e "$2.crlcache-backup" ] \
        && case_ok "$1: the file is untouched, no backup" \
        || case_fail "$1" "the refused enable changed $2 or left a backup"
}
# revoked_refused CNF: rev1 refused as revoked and good1 accepted under CNF
revoked_refused() {
    OPENSSL_CONF=$1 openssl verify -CAfile "$PKI/root/cert.pem" -untrusted "$PKI/int/cert.pem" \
        "$PKI/rev1.pem" >"$W/v.out" 2>&1 && return 1
    grep -q 'revoked (crlcache)' "$W/v.out" || return 1
    OPENSSL_CONF=$1 openssl verify -CAfile "$PKI/root/cert.pem" -untrusted "$PKI/int/cert.pem" \
        "$PKI/good1.pem" >>"$W/v.out" 2>&1
}
providers() {  # providers CNF: the active providers' names, sorted, one line
    OPENSSL_CONF=$1 openssl list -providers 2>&1 | awk '/^  [a-z]/ { print $1 }' | sort | tr '\n' ' '
}

# --- base only, default required by property: the proxies are never chosen
host "$W/h1.cnf" base -- 'default_properties = provider=default'
en "$W/h1.cnf" >"$W/h1.out" 2>&1; rc=$?
sed 's/^/    | /' "$W/h1.out"
if [ "$rc" -eq 4 ] && grep -q 'requires provider=default .*never be chosen' "$W/h1.out"; then
    case_ok "provider=default required: enable refuses, saying why"
elif [ "$rc" -eq 0 ] && revoked_refused "$W/h1.cnf"; then
    case_ok "provider=default required: enabled, and a revoked certificate is refused"
else
    case_fail h1 "enable exited $rc and a revoked certificate is not refused under the result"
fi
[ "$rc" -eq 0 ] || untouched h1 "$W/h1.cnf"
# exec makes the same configuration: the program never runs
OPENSSL_CONF=$W/h1.cnf "$CRLCACHE" --state-dir "$STATE" exec -- sh -c 'echo RAN' >"$W/x1.out" 2>&1; rc=$?
[ "$rc" -eq 4 ] && ! grep -q '^RAN$' "$W/x1.out" && case_ok "exec refuses it too" \
    || case_fail x1 "exec exited $rc: $(cat "$W/x1.out")"
left_nothing h1

# --- base only: no default provider comes back
host "$W/h2.cnf" base
OPENSSL_CONF=$W/h2.cnf "$CRLCACHE" --state-dir "$STATE" exec -- openssl list -providers >"$W/x2.out" 2>&1
if grep -q '^  crlcache$' "$W/x2.out" && ! grep -q '^  default$' "$W/x2.out"; then
    case_ok "base only: the generated configuration adds crlcache, not default"
else
    sed 's/^/    | /' "$W/x2.out"; case_fail x2 "exec did not add crlcache alone"
fi
en "$W/h2.cnf" >"$W/h2.out" 2>&1; rc=$?
sed 's/^/    | /' "$W/h2.out"
if [ "$rc" -eq 4 ] && grep -q 'self-test' "$W/h2.out"; then
    case_ok "base only: enable refuses (self-test)"
    untouched h2 "$W/h2.cnf"
elif [ "$rc" -eq 0 ] && revoked_refused "$W/h2.cnf" && [ "$(providers "$W/h2.cnf")" = "base crlcache " ]; then
    case_ok "base only: enabled with base and crlcache, a revoked certificate refused"
else
    case_fail h2 "enable exited $rc; providers: $(providers "$W/h2.cnf")"
fi
left_nothing h2

# --- a preference for default ties with the proxies': the self-test decides
host "$W/h3.cnf" default -- 'default_properties = ?provider=default'
en "$W/h3.cnf" >"$W/h3.out" 2>&1; rc=$?
sed 's/^/    | /' "$W/h3.out"
if [ "$rc" -eq 4 ] && grep -q 'self-test: .*not refused as revoked' "$W/h3.out"; then
    case_ok "?provider=default: enable refuses (self-test: revoked not refused)"
    untouched h3 "$W/h3.cnf"
elif [ "$rc" -eq 0 ] && revoked_refused "$W/h3.cnf"; then
    case_ok "?provider=default: enabled, and a revoked certificate is refused"
else
    case_fail h3 "enable exited $rc and a revoked certificate is not refused under the result"
fi
left_nothing h3

# --- default and base activated: enabled, the host's providers kept
host "$W/h4.cnf" default base
en "$W/h4.cnf" >"$W/h4.out" 2>&1; rc=$?
sed 's/^/    | /' "$W/h4.out"
if [ "$rc" -eq 0 ] && revoked_refused "$W/h4.cnf"; then
    case_ok "default + base: enabled, a revoked certificate refused"
else
    sed 's/^/    | /' "$W/v.out"; case_fail h4 "enable exited $rc, or a revoked certificate is accepted"
fi
p=$(providers "$W/h4.cnf")
[ "$p" = "base crlcache default " ] && case_ok "default + base: providers base, crlcache, default" \
    || case_fail h4-providers "providers: $p"
left_nothing h4
finish
