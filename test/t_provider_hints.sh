#!/usr/bin/env bash
# Hints ("installed means protected"): when a program verifies a
# certificate that no CRL in the index covers, the provider leaves the
# certificate in the spool beside the index (STATE/hints, mode 3733, made
# by the fetcher; made here by hand) as its DER, mode 0640, under a fresh
# random name, once per issuer and process.  A covered certificate leaves
# nothing.  Another user can neither read a hint, nor find it by the
# certificate's hash, nor stop it by taking names first.  A missing,
# unwritable, listable, not setgid or symlinked spool, one the index's
# owner does not own, a small RLIMIT_FSIZE: the program verifies exactly
# as before, says nothing more, and nothing is written through a link.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
command -v prlimit >/dev/null || skip "prlimit (util-linux) not installed"

# root (RSA) -> covered (EC): its CRL is in the index
#            -> uncov (EC), uncovrsa (RSA): no CRL
# root's CRL is imported too, so every intermediate itself is covered and
# only the leaves under uncov and uncovrsa are unknown.
pki_root root "/CN=Hint Test Root/O=crlcache tests"
pki_ca covered root "/CN=Hint Covered CA/O=crlcache tests" keytype=ec
pki_ca uncov root "/CN=Hint Uncovered CA/O=crlcache tests" keytype=ec
pki_ca uncovrsa root "/CN=Hint Uncovered RSA CA/O=crlcache tests" keytype=rsa
prov_leaf cov1 covered cov1.test
prov_leaf unc1 uncov unc1.test
prov_leaf unc2 uncov unc2.test
prov_leaf unc3 uncov unc3.test
prov_leaf rsa1 uncovrsa rsa1.test keytype=rsa
pki_gencrl covered "$W/covered.crl"
pki_gencrl root "$W/root.crl"
ROOT=$PKI/root/cert.pem
cat "$PKI/covered/cert.pem" "$PKI/uncov/cert.pem" "$PKI/uncovrsa/cert.pem" >"$W/untrusted.pem"
tls_import "$W/covered.crl" "$W/root.crl"
prov_assert_active
SPOOL=$STATE/hints

show() { sed 's/^/    | /' "$1"; }
spool_new() { rm -rf "$SPOOL"; mkdir -m "${1:-3733}" "$SPOOL"; chmod "${1:-3733}" "$SPOOL"; }
spool_list() { ls -A "$SPOOL" 2>/dev/null | sort | tr '\n' ' '; }
der() { openssl x509 -in "$PKI/$1.pem" -outform DER; }
hash_name() { echo "$(der "$1" | sha256sum | cut -c1-64).crt"; }
# hints_of NAME: the spool's files holding NAME's DER byte for byte.
hints_of() {
    local f
    der "$1" >"$W/want.der"
    for f in "$SPOOL"/*.crt; do
        [ -f "$f" ] && [ ! -L "$f" ] && cmp -s "$W/want.der" "$f" && basename "$f"
    done
}
# hint_is NAME [OTHERS]: the spool holds NAME's hint, its DER byte for byte,
# under a random name, mode 0640, and OTHERS entries besides (0 unless told).
hint_is() {
    local h n; h=$(hints_of "$1"); n=$(ls -A "$SPOOL" | wc -l)
    [ "$(printf '%s\n' "$h" | grep -c .)" = 1 ] && [ "$n" = $((1 + ${2:-0})) ] \
        || { echo "spool: $(spool_list), hint of $1: '$h'" >&2; return 1; }
    [[ $h =~ ^[0-9a-f]{32}\.crt$ ]] || { echo "name $h is not 32 random hex digits" >&2; return 1; }
    openssl x509 -inform DER -in "$SPOOL/$h" -noout || return 1
    [ "$(stat -c %a "$SPOOL/$h")" = 640 ] || { echo "mode $(stat -c %a "$SPOOL/$h")" >&2; return 1; }
    [ "$(stat -c %g "$SPOOL/$h")" = "$(stat -c %g "$SPOOL")" ] \
        || { echo "group $(stat -c %G "$SPOOL/$h"), not the spool's" >&2; return 1; }
}
spool_empty() { [ -z "$(ls -A "$SPOOL" 2>/dev/null)" ]; }

# What each verify prints without hints: the others must print the same.
spool_new
cl_verify "$PKI/unc1.pem" --set hints=off; cp "$W/client.out" "$W/base-unc1.out"
[ "$CLIENT_RC" -eq 0 ] && spool_empty || { show "$W/base-unc1.out"; fail "baseline verify failed"; }
# same_as_base: the last run exited 0 and printed what the baseline did.
same_as_base() {
    [ "$CLIENT_RC" -eq 0 ] && cmp -s "$W/client.out" "$W/base-unc1.out" && return 0
    echo "exit $CLIENT_RC; output:" >&2; show "$W/client.out" >&2
    return 1
}

# 1. Uncovered: exactly one file, the certificate's DER under a random name.
spool_new
cl_verify "$PKI/unc1.pem"
same_as_base && hint_is unc1 && case_ok "uncovered EC leaf: verify OK, hint = its DER, random name, 0640, spool's group" \
    || case_fail uncovered "spool: $(spool_list)"
spool_new
( umask 077; cl_verify "$PKI/unc1.pem"; exit "$CLIENT_RC" ); CLIENT_RC=$?
same_as_base && hint_is unc1 && case_ok "a program with umask 077 leaves a hint the fetcher's group can read (0640)" \
    || case_fail umask "spool: $(ls -l "$SPOOL")"
spool_new
cl_verify "$PKI/rsa1.pem"
[ "$CLIENT_RC" -eq 0 ] && hint_is rsa1 && case_ok "uncovered RSA leaf (long-form lengths): hint = its DER" \
    || { show "$W/client.out"; case_fail uncovered-rsa "exit $CLIENT_RC, spool: $(spool_list)"; }
# The same through TLS: curl and s_client against a server with an uncovered leaf.
srv_start unc unc3
spool_new
cl_curl "$(srv_port unc)" 1.3
[ "$CLIENT_RC" -eq 0 ] && hint_is unc3 && case_ok "curl to an uncovered server: one hint, the server's leaf" \
    || { show "$W/client.out"; case_fail uncovered-curl "exit $CLIENT_RC, spool: $(spool_list)"; }
spool_new
cl_sclient "$(srv_port unc)" 1.2
[ "$CLIENT_RC" -eq 0 ] && hint_is unc3 && case_ok "s_client to an uncovered server: one hint" \
    || { show "$W/client.out"; case_fail uncovered-sclient "exit $CLIENT_RC, spool: $(spool_list)"; }

# 2. Covered (leaf and intermediate): nothing.
spool_new
cl_verify "$PKI/cov1.pem"
[ "$CLIENT_RC" -eq 0 ] && spool_empty && case_ok "covered leaf: no hint" \
    || { show "$W/client.out"; case_fail covered "exit $CLIENT_RC, spool: $(spool_list)"; }
srv_start cov cov1
cl_curl "$(srv_port cov)" 1.2
[ "$CLIENT_RC" -eq 0 ] && spool_empty && case_ok "curl to a covered server: no hint" \
    || { show "$W/client.out"; case_fail covered-curl "exit $CLIENT_RC, spool: $(spool_list)"; }

# 3. Two leaves of one uncovered issuer in one process: one hint (the first);
#    a second process hints the other.
spool_new
px -- openssl verify -CAfile "$ROOT" -untrusted "$W/untrusted.pem" "$PKI/unc1.pem" "$PKI/unc2.pem" \
    >"$W/client.out" 2>&1; CLIENT_RC=$?
[ "$CLIENT_RC" -eq 0 ] && [ "$(grep -c ': OK$' "$W/client.out")" -eq 2 ] && hint_is unc1 \
    && case_ok "two leaves, one issuer, one process: one hint" \
    || { show "$W/client.out"; case_fail once-per-issuer "exit $CLIENT_RC, spool: $(spool_list)"; }
cl_verify "$PKI/unc2.pem"
hint_is unc2 1 && case_ok "the next process hints the second leaf" || case_fail next-process "spool: $(spool_list)"

# 4. Hostile or unusable spools: same verify output, nothing written.
rm -rf "$SPOOL"
cl_verify "$PKI/unc1.pem"
same_as_base && [ ! -e "$SPOOL" ] && case_ok "no spool: same output, nothing created" \
    || case_fail no-spool "spool: $(ls -la "$SPOOL" 2>&1)"

# Another user: make the test files reachable (the run's own temp dirs only).
for d in "$W" "$(dirname "$W")"; do
    case $d in */crlcache-*) chmod o+x "$d" ;; esac
done
chmod o+x "$W" "$STATE" "$PKI"
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
# The user must reach the module and the snippet too: the tree may lie
# where it cannot (a clone under /root), so it gets copies in $W.
cp "$CRLCACHE_MODULE" "$W/crlcache.so"
cp "$TESTDIR/../openssl.cnf.d/crlcache.cnf" "$W/crlcache.cnf"
chmod 644 "$W/crlcache.so" "$W/crlcache.cnf"
as_nobody() {
    CRLCACHE_MODULE=$W/crlcache.so CRLCACHE_SNIPPET=$W/crlcache.cnf \
    px -- setpriv --reuid=nobody --regid=nogroup --clear-groups openssl verify \
        -CAfile "$ROOT" -untrusted "$W/untrusted.pem" "$PKI/unc1.pem" >"$W/client.out" 2>&1
    CLIENT_RC=$?
}
if ! nobody test -r "$PKI/unc1.pem" -a -r "$STATE/index.mdb"; then
    note "nobody cannot reach $W: the two cases as another user are not run"
else
    spool_new
    as_nobody
    same_as_base && hint_is unc1 && [ "$(stat -c %U "$SPOOL/$(hints_of unc1)")" = nobody ] \
        && case_ok "an unprivileged user leaves a hint in the 3733 spool" \
        || case_fail nobody-3733 "spool: $(ls -la "$SPOOL" 2>&1)"
    spool_new 0755
    as_nobody
    same_as_base && spool_empty && case_ok "spool not writable by the user: same output, nothing written" \
        || case_fail nobody-0755 "spool: $(spool_list)"
fi

spool_new 3777
cl_verify "$PKI/unc1.pem"
same_as_base && spool_empty && case_ok "listable spool (3777): not used" \
    || case_fail listable "spool: $(spool_list)"
spool_new 1733
cl_verify "$PKI/unc1.pem"
same_as_base && spool_empty && case_ok "spool without the setgid bit (1733): not used" \
    || case_fail not-setgid "spool: $(spool_list)"

rm -rf "$SPOOL" "$W/elsewhere"; mkdir -m 3733 "$W/elsewhere"; chmod 3733 "$W/elsewhere"
ln -s "$W/elsewhere" "$SPOOL"
cl_verify "$PKI/unc1.pem"
same_as_base && [ -L "$SPOOL" ] && [ -z "$(ls -A "$W/elsewhere")" ] \
    && case_ok "spool is a symlink to a directory: not followed, nothing written" \
    || case_fail spool-symlink "elsewhere: $(ls -A "$W/elsewhere")"
rm -f "$SPOOL"

# Entries planted where a guessable name would be (the certificate's hash):
# a symlink, a dangling one, a FIFO.  None is opened; the hint still goes
# under a fresh name of its own.
spool_new
printf 'precious\n' >"$W/victim"; cp "$W/victim" "$W/victim.orig"
ln -s "$W/victim" "$SPOOL/$(hash_name unc1)"
cl_verify "$PKI/unc1.pem"
same_as_base && cmp -s "$W/victim" "$W/victim.orig" && [ -L "$SPOOL/$(hash_name unc1)" ] \
    && [ "$(readlink "$SPOOL/$(hash_name unc1)")" = "$W/victim" ] && hint_is unc1 1 \
    && case_ok "symlink planted at the certificate's hash: victim unchanged, hint written beside it" \
    || case_fail planted-symlink "victim: $(cat "$W/victim"), spool: $(ls -la "$SPOOL")"
spool_new
ln -s "$W/created-through-link" "$SPOOL/$(hash_name unc1)"
cl_verify "$PKI/unc1.pem"
same_as_base && [ ! -e "$W/created-through-link" ] && hint_is unc1 1 \
    && case_ok "dangling symlink at the certificate's hash: its target is not created, hint written" \
    || case_fail dangling-symlink "spool: $(ls -la "$SPOOL")"
spool_new
mkfifo "$SPOOL/$(hash_name unc1)"
cl_verify "$PKI/unc1.pem"
same_as_base && [ -p "$SPOOL/$(hash_name unc1)" ] && hint_is unc1 1 \
    && case_ok "FIFO at the certificate's hash: not opened, no hang, hint written" \
    || case_fail fifo "exit $CLIENT_RC"

# RLIMIT_FSIZE: a write that starts at the limit raises SIGXFSZ, which
# kills; one that crosses it is cut short.  Neither may show.  (Output
# through a pipe: the program's own writes to a file would hit the limit.)
for lim in 0 $(($(der unc1 | wc -c) - 1)); do
    spool_new
    px -- prlimit --fsize="$lim" openssl verify -CAfile "$ROOT" -untrusted "$W/untrusted.pem" \
        "$PKI/unc1.pem" 2>&1 | cat >"$W/client.out"; CLIENT_RC=${PIPESTATUS[0]}
    same_as_base && spool_empty && case_ok "RLIMIT_FSIZE $lim (below the certificate): no hint, no SIGXFSZ" \
        || case_fail "fsize-$lim" "spool: $(spool_list)"
done

# 5. hints = off, mode = off: nothing; a bad value passes through, says so.
spool_new
cl_verify "$PKI/unc1.pem" --set hints=off
[ "$CLIENT_RC" -eq 0 ] && spool_empty && case_ok "hints = off: no hint" || case_fail hints-off "spool: $(spool_list)"
cl_verify "$PKI/unc1.pem" --set mode=off
[ "$CLIENT_RC" -eq 0 ] && spool_empty && case_ok "mode = off: no hint" || case_fail mode-off "spool: $(spool_list)"
cl_verify "$PKI/unc1.pem" --set hints=maybe
[ "$CLIENT_RC" -eq 0 ] && grep -q 'bad value "maybe" for hints' "$W/client.out" && spool_empty \
    && case_ok "hints = maybe: reported, passes through" \
    || { show "$W/client.out"; case_fail hints-bad "exit $CLIENT_RC"; }

# 6. A covering CRL past its nextUpdate: the fetcher hears the issuer is met.
# past_next CASE LAST NEXT TEXT: the covering CRL with thisUpdate / nextUpdate
# LAST / NEXT seconds from now, in a state directory of its own; cov1
# passes and leaves its hint.
past_next() {
    STATE=$W/$1-state SPOOL=$W/$1-state/hints
    pki_gencrl covered "$W/covered-$1.crl" last="$(gt "$2")" next="$(gt "$3")"
    tls_import "$W/covered-$1.crl" "$W/root.crl"
    spool_new
    cl_verify "$PKI/cov1.pem"
    [ "$CLIENT_RC" -eq 0 ] && hint_is cov1 && case_ok "$4" \
        || { show "$W/client.out"; case_fail "$1" "exit $CLIENT_RC, spool: $(spool_list)"; }
}
past_next late -14400 -3600 "CRL an hour past nextUpdate (within grace): hint"
past_next stale -259200 -172800 "stale CRL (past grace): hint"

finish
