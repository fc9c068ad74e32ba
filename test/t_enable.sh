#!/usr/bin/env bash
# enable / disable on a copy of the distribution's stock openssl.cnf:
# enable makes `openssl list -providers` show crlcache active, a second
# enable changes nothing, disable restores the file byte for byte, and
# enable refuses (leaving the file alone) when the module is missing or
# is not a provider.
. "$(dirname "$0")/lib.sh"
need_module
stock_cnf
cp "$stock" "$W/orig.cnf"
mkdir -p "$STATE"

# the default module path is OpenSSL's modules directory, as pkg-config says
mdir=$(pkg-config --variable=modulesdir libcrypto)
if [ -n "$mdir" ] && [ ! -e "$mdir/crlcache.so" ]; then
    assert_exit 4 en enable --snippet "$SNIP"
    assert_grep "^crlcache: $mdir/crlcache.so: not installed" "$W/last.err"
fi

# refusals first: the file must stay untouched
assert_exit 4 en enable --module "$W/nonexistent.so" --snippet "$SNIP"
cmp -s "$W/openssl.cnf" "$W/orig.cnf" || fail "refused enable changed the file"
cp /bin/true "$W/fake.so"
en enable --module "$W/fake.so" --snippet "$SNIP" >"$W/fake.out" 2>&1 && fail "enable accepted a module that is not a provider"
assert_grep 'does not show crlcache active' "$W/fake.out"
cmp -s "$W/openssl.cnf" "$W/orig.cnf" || fail "refused enable changed the file"

assert_exit 0 en enable --module "$MOD" --snippet "$SNIP"
OPENSSL_CONF=$W/openssl.cnf openssl list -providers >"$W/list.out" 2>&1
assert_grep '^  crlcache$' "$W/list.out"
assert_grep 'status: active' "$W/list.out"
# the default provider stays available (Debian leaves its activation commented out)
OPENSSL_CONF=$W/openssl.cnf openssl list -providers | grep -q '^  default$' || fail "default provider gone"
cmp -s "$W/openssl.cnf.crlcache-backup" "$W/orig.cnf" || fail "backup differs from the original"
cp "$W/openssl.cnf" "$W/enabled.cnf"
# Node.js reads nodejs_conf only: the stock file names none, so ours is openssl_conf's
assert_grep '^nodejs_conf = crlcache_generated_init$' "$W/enabled.cnf"

assert_exit 0 en enable --module "$MOD" --snippet "$SNIP"
cmp -s "$W/openssl.cnf" "$W/enabled.cnf" || fail "second enable changed the file"

assert_exit 0 en disable
cmp -s "$W/openssl.cnf" "$W/orig.cnf" || fail "disable did not restore the file byte for byte"
assert_exit 0 en disable
cmp -s "$W/openssl.cnf" "$W/orig.cnf" || fail "second disable changed the file"

# a file without a final newline comes back without one
printf 'HOME = .\n[ ca ]\ndefault_ca = CA_default' >"$W/openssl.cnf"
cp "$W/openssl.cnf" "$W/nonl.cnf"
assert_exit 0 en enable --module "$MOD" --snippet "$SNIP"
assert_exit 0 en disable
cmp -s "$W/openssl.cnf" "$W/nonl.cnf" || fail "file without final newline not restored"
# through a symlink (Debian: /usr/lib/ssl/openssl.cnf -> /etc/ssl/openssl.cnf)
cp "$W/orig.cnf" "$W/real.cnf"
ln -s "$W/real.cnf" "$W/link.cnf"
assert_exit 0 "$CRLCACHE" --state-dir "$STATE" enable --openssl-cnf "$W/link.cnf" \
    --module "$MOD" --snippet "$SNIP"
[ -L "$W/link.cnf" ] || fail "enable replaced the symlink with a file"
grep -q '^# BEGIN crlcache' "$W/real.cnf" || fail "enable did not edit the link's target"
assert_exit 0 "$CRLCACHE" --state-dir "$STATE" disable --openssl-cnf "$W/link.cnf"
[ -L "$W/link.cnf" ] && cmp -s "$W/real.cnf" "$W/orig.cnf" || fail "disable through the link"
note "enable/disable ok"
