#!/usr/bin/env bash
# Root never follows what the crlcache account planted in the state
# directory: with work/lock.mdb a symbolic link to a
# root-owned file, `status` run as root leaves that file alone (it reads
# the state as the directory's owner), and still reports the sources;
# `check` as root maps only the published index (opened without following
# links, lib/index.c) and leaves the file alone as well; and --allow-root
# does not let root write another account's state directory.
. "$(dirname "$0")/lib.sh"
need_crlcache
[ "$(id -u)" -eq 0 ] || skip "needs root"
id nobody >/dev/null 2>&1 || skip "no user nobody to own the state directory"

offline_int_crl
write_conf "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem"
assert_exit 0 cc import "$W/int.crl"
[ -e "$STATE/work/lock.mdb" ] || fail "no working lock file to replace"

# The state becomes another account's, as under make install.
# nobody must reach it: let it traverse the test's directories.
d=$W
while [ "$d" != / ] && [ "$(stat -c %u "$d")" -eq 0 ]; do chmod o+x "$d"; d=$(dirname "$d"); done
chown -R nobody "$STATE"
"$CRLCACHE" --state-dir "$STATE" -c "$CONF" status --json >"$W/s.json" || fail "status --json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["sources_readable"], d' \
    "$W/s.json" || fail "status as root no longer reads the working state"
printf 'root secret\n' >"$W/victim"
chmod 0600 "$W/victim"
before=$(sha256sum <"$W/victim")
rm -f "$STATE/work/lock.mdb"
ln -s "$W/victim" "$STATE/work/lock.mdb"
chown -h nobody "$STATE/work/lock.mdb"

env -u CRLCACHE_ALLOW_ROOT "$CRLCACHE" --state-dir "$STATE" -c "$CONF" status \
    >"$W/status.txt" 2>"$W/status.err" || { cat "$W/status.err"; fail "status failed"; }
[ "$(sha256sum <"$W/victim")" = "$before" ] || fail "status as root wrote through work/lock.mdb"
[ "$(stat -c %U "$W/victim")" = root ] || fail "the victim changed owner"
assert_grep '^revoked 1$' "$W/status.txt"
# --prometheus: the state read as nobody, the file written as root.
mkdir -m 0700 "$W/prom"
cc status --prometheus "$W/prom/crlcache.prom" || fail "status --prometheus failed"
assert_grep '^crlcache_index_revoked_entries 1$' "$W/prom/crlcache.prom"
[ "$(stat -c %U "$W/prom/crlcache.prom")" = root ] || fail "the metrics file is not root's"

check_is revoked 1 "$PKI/rev1.pem"
# --allow-root is for a state directory root owns, not for nobody's.
assert_exit 4 cc import "$W/int.crl"
assert_exit 4 cc reset --issuer "$PKI/int/cert.pem"
[ "$(sha256sum <"$W/victim")" = "$before" ] || fail "check as root wrote through work/lock.mdb"
note "root reads the state as its owner"

# import --anchor with a file only root may read (as /root/pki/root.pem):
# import runs as the state's owner, and the error says so, with the OS's
mkdir -m 700 "$W/rootonly"
cp "$PKI/root/cert.pem" "$W/rootonly/root.pem"
env -u CRLCACHE_ALLOW_ROOT "$CRLCACHE" --state-dir "$STATE" -c "$CONF" \
    import --anchor "$W/rootonly/root.pem" "$W/int.crl" >"$W/imp.out" 2>"$W/imp.err"; rc=$?
[ "$rc" = 4 ] || { cat "$W/imp.err" >&2; fail "import with a root-only anchor: exit $rc"; }
assert_grep 'rootonly/root.pem: cannot open certificate file: Permission denied: this command runs as the state directory.s owner \(nobody, uid [0-9]+\)' "$W/imp.err"
note "a root-only anchor file: the error names the account and the OS error"
