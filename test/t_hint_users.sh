#!/usr/bin/env bash
# The hint spool against another local user (played by nobody): a user
# can neither see what root's programs verified, nor stop their hints, nor
# crowd them out, nor keep a world-writable directory in the fetcher's
# private state, nor take the spool's place.
#   1. root's hint is unreadable by nobody and not found under the
#      certificate's hash;
#   2. a file nobody planted at that hash does not stop root's hint;
#   3. 20,000 hints nobody left (each for another issuer) do not crowd
#      out root's one: its issuer is enrolled by the next update;
#   4. a directory with content nobody left in the spool, which the
#      fetcher cannot remove, is parked closed (0700), never world-writable;
#   5. in a sticky, world-writable state directory, a "hints" nobody made
#      first is not written by root's programs and not read by update,
#      run as root or as the state's owner.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
[ "$(id -u)" = 0 ] || skip "playing another user needs root"
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
httpd_start

pki_root root "/CN=Users Root/O=crlcache tests"
pki_ca intA root "/CN=Users CA A/O=crlcache tests"
pki_ca unc root "/CN=Users Uncovered CA/O=crlcache tests" keytype=ec
pki_leaf a1 intA "/CN=a1.test" cdp="$BASE_URL/intA.crl"
prov_leaf unc1 unc unc1.test
pki_gencrl intA "$W/intA.crl"
pki_gencrl root "$W/root.crl"
serve "$W/intA.crl" intA.crl
ROOT=$PKI/root/cert.pem
cat "$PKI/intA/cert.pem" "$PKI/unc/cert.pem" >"$W/untrusted.pem"

# nobody must reach the state directories (the run's own temp dirs only).
for d in "$W" "$(dirname "$W")"; do
    case $d in */crlcache-*) chmod o+x "$d" ;; esac
done
chmod o+x "$W" "$PKI"
nobody test -x "$W" || skip "nobody cannot reach $W"

SPOOL=$STATE/hints
write_conf "anchor = $ROOT" "untrusted = $PKI/intA/cert.pem" "allow_private_urls = yes"
assert_exit 0 cc import --anchor "$ROOT" "$W/root.crl"
assert_exit 0 cc update                     # makes the spool as it ships
chmod o+x "$STATE"
# An older version's spool (1733, which programs no longer write into):
# `publish`, which the package runs on upgrade, makes it as it ships.
chmod 01733 "$SPOOL"   # five digits: chmod keeps a directory's setgid otherwise
assert_exit 0 cc publish
[ "$(stat -c %a "$SPOOL")" = 3733 ] && case_ok "publish gives an older spool its mode" ||
    case_fail publish-spool-mode "spool mode $(stat -c %a "$SPOOL") after publish"
der() { openssl x509 -in "$PKI/$1.pem" -outform DER; }
hash_name() { echo "$(der "$1" | sha256sum | cut -c1-64).crt"; }
# hints_of NAME: the spool's files holding NAME's DER (root looks).
hints_of() {
    local f
    der "$1" >"$W/want.der"
    for f in "$SPOOL"/*; do
        [ -f "$f" ] && [ ! -L "$f" ] && cmp -s "$W/want.der" "$f" && echo "$f"
    done
}

# 1. What root's programs verify stays root's and the fetcher's.
cl_verify "$PKI/unc1.pem"
[ "$CLIENT_RC" -eq 0 ] || { cat "$W/client.out"; fail "verify failed"; }
h=$(hints_of unc1)
[ -n "$h" ] || fail "no hint left: $(ls -la "$SPOOL")"
if nobody cat "$h" >/dev/null 2>&1; then
    case_fail unreadable "nobody read root's hint $(stat -c '%A %U:%G' "$h")"
elif nobody test -e "$SPOOL/$(hash_name unc1)"; then
    case_fail unguessable "nobody found root's hint by the certificate's hash"
else
    case_ok "root's hint: unreadable by another user, not found by the certificate's hash"
fi

# 2. A name taken first does not stop a hint.
rm -f "$SPOOL"/*
nobody sh -c 'printf planted >"$1"' sh "$SPOOL/$(hash_name unc1)" || fail "nobody cannot write the spool"
cl_verify "$PKI/unc1.pem"
[ -n "$(hints_of unc1)" ] && case_ok "a file planted at the certificate's hash: root's hint is still written" \
    || case_fail planted "a name nobody took first stopped root's hint: $(ls -la "$SPOOL")"
rm -f "$SPOOL"/*

# 3. A flood of well-formed hints from one user: another's hint is proven.
pki_root flood "/CN=Flood 00000/O=crlcache tests"
pki_leaf f1 flood "/CN=f1.test"
openssl x509 -in "$PKI/f1.pem" -outform DER -out "$W/flood.der"
nobody /usr/bin/python3 - "$SPOOL" "$W/flood.der" <<'PY' || fail "nobody could not flood the spool"
import hashlib, os, sys
spool, tmpl = sys.argv[1], open(sys.argv[2], "rb").read()
assert tmpl.count(b"Flood 00000") == 1  # the issuer name
for i in range(20000):
    der = tmpl.replace(b"Flood 00000", b"Flood %05d" % i)  # another issuer each
    with open(os.path.join(spool, hashlib.sha256(der).hexdigest() + ".crt"), "wb") as f:
        f.write(der)
PY
hint "$PKI/a1.pem" >/dev/null
before=$(requests_for /intA.crl)
assert_exit 0 cc -v update
[ "$(requests_for /intA.crl)" -gt "$before" ] && grep -q '^issuer ' "$STATE/work/enrolled" \
    && case_ok "20,000 hints of one user: another user's hint still enrolls its issuer" \
    || case_fail flood "root's hint was crowded out by nobody's 20,000: $(grep hints "$W/last.err" | tail -3)"

# 4. What the fetcher cannot remove is closed, not left world-writable.
nobody sh -c 'mkdir -m 755 "$1/keep" && echo x >"$1/keep/f"' sh "$SPOOL" || fail "nobody cannot mkdir"
assert_exit 0 cc update
[ -z "$(ls -A "$SPOOL")" ] || fail "the spool was not emptied"
bad=$(find "$STATE/work" -type d \( -perm -0002 -o -perm -1000 \) 2>/dev/null)
parked=$(find "$STATE/work" -name f | head -1)
if [ -n "$bad" ]; then
    case_fail junk "world-writable or sticky directory left in work/: $bad"
elif [ -z "$parked" ] || nobody test -e "$parked"; then
    case_fail junk-reach "the parked file '$parked' is still reachable for nobody"
else
    case_ok "an entry the fetcher cannot remove: parked 0700, unreachable for its maker"
fi

# 5. A spool another user made first in a shared state directory.
STATE=$W/shared SPOOL=$W/shared/hints
# (root's fetcher refuses a world-writable state directory: the index is
# imported first, then the directory opened to everyone)
mkdir -m 0755 "$STATE"
assert_exit 0 cc import --anchor "$ROOT" "$W/root.crl"
chmod 1777 "$STATE"
nobody mkdir -m 3733 "$SPOOL" || fail "nobody cannot create the spool"
nobody chmod 3733 "$SPOOL"
cl_verify "$PKI/unc1.pem"
[ "$CLIENT_RC" -eq 0 ] || { cat "$W/client.out"; fail "verify failed"; }
[ -z "$(ls -A "$SPOOL")" ] && case_ok "a spool not owned by the index's owner: root's programs leave nothing in it" \
    || case_fail foreign-spool-write "root's program wrote into nobody's spool: $(ls -A "$SPOOL")"
der a1 >"$W/a1.der"; chmod 644 "$W/a1.der"
nobody cp "$W/a1.der" "$SPOOL/planted.crt"
before=$(requests_for /intA.crl)
cc -v update >"$W/last.out" 2>"$W/last.err"
# Refused by the spool check, or before it by the choice of the account a
# root run acts as (a state directory every user may write to).
if ! grep -qE "belongs to uid $(id -u nobody)|writable by every user" "$W/last.err"; then
    case_fail foreign-spool-read "update did not refuse nobody's spool"
elif [ "$(requests_for /intA.crl)" != "$before" ] || [ ! -e "$SPOOL/planted.crt" ] ||
    [ "$(stat -c %U "$SPOOL")" != nobody ]; then
    case_fail foreign-spool-read "update read the hints of nobody's spool"
else
    case_ok "a spool of another owner: update says so and reads nothing from it"
fi

# The same with the state's owner not root (daemon here), whose update
# runs as that account: the owner of a sticky state directory may move
# anyone's entries, so only the spool check keeps nobody's spool out.
if id daemon >/dev/null 2>&1 && setpriv --reuid=daemon --regid=daemon --clear-groups \
    test -x "$CRLCACHE" -a -r "$CONF"; then
    as_daemon() { setpriv --reuid=daemon --regid=daemon --clear-groups "$CRLCACHE" \
        --state-dir "$W/shared2" -c "$CONF" "$@"; }
    mkdir -m 1777 "$W/shared2"; chown daemon: "$W/shared2"
    chmod o+r "$W/root.crl"
    as_daemon import --anchor "$ROOT" "$W/root.crl" >"$W/last.out" 2>"$W/last.err" ||
        { cat "$W/last.err"; fail "daemon cannot import"; }
    nobody mkdir -m 1733 "$W/shared2/hints" && nobody chmod 1733 "$W/shared2/hints"
    nobody cp "$W/a1.der" "$W/shared2/hints/planted.crt"
    before=$(requests_for /intA.crl)
    as_daemon -v update >"$W/last.out" 2>"$W/last.err"
    if ! grep -q "hints belongs to uid $(id -u nobody), not to this account" "$W/last.err"; then
        case_fail foreign-spool-owner "update as the state's owner did not refuse nobody's spool"
    elif [ "$(requests_for /intA.crl)" != "$before" ] || [ ! -e "$W/shared2/hints/planted.crt" ]; then
        case_fail foreign-spool-owner "update as the state's owner read nobody's spool"
    else
        case_ok "a spool of another owner, update as the state's owner: refused, nothing read"
    fi
else
    note "daemon cannot run $CRLCACHE: the case as the state's owner is not run"
fi
finish
