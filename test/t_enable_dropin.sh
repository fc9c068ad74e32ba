#!/usr/bin/env bash
# enable where the system openssl.cnf includes a drop-in directory (as
# Fedora's and RHEL's do, and docs/debian-openssl-dropin.md proposes for
# Debian): the wiring goes into DIR/crlcache-enable.cnf and openssl.cnf,
# another package's conffile, is not changed by a byte; the provider is
# active through it; a second enable changes nothing; a file of that name
# not written by crlcache is left alone; disable removes the file.
# Then, without a drop-in directory: `crlcache status` warns once the block
# enable added is gone from openssl.cnf (an upgrade of openssl that took the
# maintainer's version of the file), and says nothing after disable.
. "$(dirname "$0")/lib.sh"
need_module
stock_cnf
mkdir -p "$STATE" "$W/ossl.d"
# another package's drop-in, read before and after: it must stay read
printf '[other_pkg_sect]\nkey = value\n' >"$W/ossl.d/other.cnf"
printf '\n.include %s\n' "$W/ossl.d" >>"$W/openssl.cnf"
cp "$W/openssl.cnf" "$W/orig.cnf"
DROPIN=$W/ossl.d/crlcache-enable.cnf

assert_exit 0 en enable --module "$MOD" --snippet "$SNIP"
cmp -s "$W/openssl.cnf" "$W/orig.cnf" || fail "enable changed openssl.cnf with a drop-in directory there"
[ -f "$DROPIN" ] || fail "enable wrote no $DROPIN"
assert_grep 'crlcache-enable.cnf: crlcache enabled \(drop-in' "$W/last.err"
[ ! -e "$W/openssl.cnf.crlcache-backup" ] || fail "enable made a backup of a file it did not change"
OPENSSL_CONF=$W/openssl.cnf openssl list -providers >"$W/list.out" 2>&1
assert_grep '^  crlcache$' "$W/list.out"
assert_grep 'status: active' "$W/list.out"
grep -q '^  default$' "$W/list.out" || fail "default provider gone"
# the drop-in does not read its own directory again
assert_not_grep "^\.include $W/ossl\.d" "$DROPIN"
cp "$DROPIN" "$W/dropin.1"
assert_exit 0 en enable --module "$MOD" --snippet "$SNIP"
cmp -s "$DROPIN" "$W/dropin.1" || fail "second enable changed the drop-in"
assert_grep 'already enabled' "$W/last.err"
case_ok "enable writes a drop-in, openssl.cnf untouched"

assert_exit 0 en disable
[ ! -e "$DROPIN" ] || fail "disable left $DROPIN"
cmp -s "$W/openssl.cnf" "$W/orig.cnf" || fail "disable changed openssl.cnf"
OPENSSL_CONF=$W/openssl.cnf openssl list -providers >"$W/list.out" 2>&1
assert_not_grep 'crlcache' "$W/list.out"
case_ok "disable removes the drop-in"

echo '# the administrator'"'"'s own' >"$DROPIN"
assert_exit 4 en enable --module "$MOD" --snippet "$SNIP"
assert_grep 'not written by crlcache enable' "$W/last.err"
assert_exit 4 en disable
assert_grep -i 'administrator' "$DROPIN"
rm -f "$DROPIN"
case_ok "a file of that name not ours is left alone"

# No drop-in directory: the block in openssl.cnf, then lost to an upgrade.
stock_cnf
cp "$W/openssl.cnf" "$W/orig.cnf"
assert_exit 0 en enable --module "$MOD" --snippet "$SNIP"
OPENSSL_CONF=$W/openssl.cnf "$CRLCACHE" --state-dir "$STATE" status >"$W/st.out" 2>"$W/st.err"
assert_not_grep 'lost the block' "$W/st.err"
cp "$W/orig.cnf" "$W/openssl.cnf"      # dpkg installs the maintainer's version
OPENSSL_CONF=$W/openssl.cnf "$CRLCACHE" --state-dir "$STATE" status >"$W/st.out" 2>"$W/st.err"
assert_grep "warning: $W/openssl\.cnf has lost the block .crlcache enable. added" "$W/st.err"
assert_exit 0 en enable --module "$MOD" --snippet "$SNIP"
assert_exit 0 en disable
[ ! -e "$W/openssl.cnf.crlcache-backup" ] || fail "disable left the backup (status would warn)"
OPENSSL_CONF=$W/openssl.cnf "$CRLCACHE" --state-dir "$STATE" status >"$W/st.out" 2>"$W/st.err"
assert_not_grep 'lost the block' "$W/st.err"
case_ok "status warns when the enabled block is gone"
finish
