#!/usr/bin/env bash
# Format 1 to format 2 (format.h VERSIONS).  A state written in format 1 (made
# here by rewriting a format 2 state with test/format1.py): the published file
# still answers -- by the issuer's name, with one notice -- for `check` and the
# provider; `update` migrates the working index without losing a CRL (its
# records move to the key of the configured CA that verifies them) and
# publishes format 2.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
command -v mdb_dump >/dev/null && command -v mdb_load >/dev/null ||
    skip "lmdb-utils (mdb_dump, mdb_load) not installed"
BASE_URL=http://127.0.0.1:9
P1=$BASE_URL/p1.crl
pki_root root "/CN=Test Root"
pki_ca int root "/CN=Migrate Int"
pki_leaf rev1 int "/CN=rev1.test" cdp="$BASE_URL/int.crl"
pki_leaf good1 int "/CN=good1.test" cdp="$BASE_URL/int.crl"
pki_leaf p1rev int "/CN=p1rev.test" cdp="$P1"
pki_revoke int "$PKI/rev1.pem"
pki_revoke int "$PKI/p1rev.pem"
: >"$W/p1.txt"
pki_revoke int "$PKI/p1rev.pem" db="$W/p1.txt"
pki_gencrl int "$W/int.crl" number=05
pki_gencrl int "$W/p1.crl" db="$W/p1.txt" idp="$P1" number=07
pki_gencrl root "$W/root.crl"
write_conf "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem"
cc import "$W/root.crl" "$W/int.crl" "$W/p1.crl" >"$W/o" 2>"$W/e" || { cat "$W/e" >&2; fail "import"; }

# Rewrite both environments in format 1.
mdb_dump -a "$STATE/work" | "$PY" "$TESTDIR/format1.py" >"$W/work1.dump" || fail "format1.py (work)"
rm -rf "$STATE/work"; mkdir -m 700 "$STATE/work"
mdb_load -f "$W/work1.dump" "$STATE/work" || fail "mdb_load (work)"
mdb_dump -n -a "$STATE/index.mdb" | "$PY" "$TESTDIR/format1.py" >"$W/pub1.dump" || fail "format1.py"
rm -f "$W/index1.mdb"; mdb_load -n -f "$W/pub1.dump" "$W/index1.mdb" || fail "mdb_load"
install -m 644 "$W/index1.mdb" "$STATE/index.mdb"
mdb_dump -n -s meta -p "$STATE/index.mdb" | grep -A1 '^ format$' | tail -1 | grep -q '\\00\\00\\00\\01' \
    || fail "the published file is not format 1"

# Format 1 published: answered, with a notice.
check_is_soft revoked 1 "$PKI/rev1.pem" && case_ok v1-check-revoked || case_fail v1-check-revoked "rev1"
grep -q 'format 1' "$W/check.err" && case_ok v1-check-notice || case_fail v1-check-notice "no notice"
check_is_soft good 0 "$PKI/good1.pem" && case_ok v1-check-good || case_fail v1-check-good "good1"
ROOT=$PKI/root/cert.pem
cp "$PKI/int/cert.pem" "$W/untrusted.pem"
cl_verify "$PKI/rev1.pem" --set on_unknown=deny
if [ "$CLIENT_RC" -ne 0 ] && grep -q revoked "$W/client.out"; then case_ok v1-provider-revoked
else cat "$W/client.out" >&2; case_fail v1-provider-revoked "verify of rev1 did not fail as revoked"; fi
[ "$(grep -c 'format 1' "$W/client.out")" = 1 ] && case_ok v1-provider-notice \
    || { cat "$W/client.out" >&2; case_fail v1-provider-notice "not exactly one notice"; }

# update migrates the working index and publishes format 2.
if cc update >"$W/o" 2>"$W/e"; then case_ok update
else cat "$W/e" >&2; case_fail update "update failed"; fi
grep -q 'migrated from format 1' "$W/e" && case_ok migrated || { cat "$W/e" >&2; case_fail migrated "no migration"; }
grep -q '3 moved to their signer' "$W/e" && case_ok adopted || { cat "$W/e" >&2; case_fail adopted "records not moved"; }
mdb_dump -n -s meta -p "$STATE/index.mdb" | grep -A1 '^ format$' | tail -1 | grep -q '\\00\\00\\00\\02' \
    && case_ok published-v2 || case_fail published-v2 "published file not format 2"
for c in rev1:revoked:1 good1:good:0 p1rev:revoked:1; do
    IFS=: read -r n w code <<<"$c"
    check_is_soft "$w" "$code" "$PKI/$n.pem" && case_ok "v2-check-$n" || case_fail "v2-check-$n" "$n not $w"
    grep -q 'format 1' "$W/check.err" && case_fail "v2-notice-$n" "notice after the update"
done
cl_verify "$PKI/good1.pem" --set on_unknown=deny
[ "$CLIENT_RC" -eq 0 ] && case_ok v2-provider-good || { cat "$W/client.out" >&2; case_fail v2-provider-good "good1"; }
# the rollback state came along: CRL number 04 is older than the 05 held
pki_gencrl int "$W/int-old.crl" number=04
if cc import "$W/int-old.crl" >"$W/o" 2>"$W/e"; then case_fail rollback "an older CRL number was accepted"
elif grep -q rollback "$W/e"; then case_ok rollback
else cat "$W/e" >&2; case_fail rollback "refused, not as a rollback"; fi
finish
