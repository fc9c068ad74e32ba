#!/usr/bin/env bash
# The format 4 publish (format.h PUBLISH): scope files and page files are
# named by their content, so a publish after one CRL changed writes the top
# file, that CRL's scope file and its issuer key's page only -- the others
# keep their inode; an import of nothing new publishes nothing; the
# replaced generation's files stay (readers re-check every 2 s), older ones
# and a stray file name are removed; temporary files of killed runs are
# removed, other names left alone; scope/ is 0755 and its files 0644 even
# under umask 077.
. "$(dirname "$0")/lib.sh"
need_crlcache
BASE_URL=http://127.0.0.1:9
pki_root root "/CN=Scope Root"
pki_ca int root "/CN=Scope Int"
pki_ca int2 root "/CN=Scope Int 2"
pki_leaf rev1 int "/CN=rev1.test" cdp="$BASE_URL/int.crl"
pki_leaf rev2 int2 "/CN=rev2.test" cdp="$BASE_URL/int2.crl"
pki_leaf good2 int2 "/CN=good2.test" cdp="$BASE_URL/int2.crl"
pki_revoke int "$PKI/rev1.pem"
pki_revoke int2 "$PKI/rev2.pem"
pki_gencrl int "$W/int.crl"
pki_gencrl int2 "$W/int2.crl"
pki_gencrl root "$W/root.crl"
write_conf "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem" \
    "untrusted = $PKI/int2/cert.pem"
S=$STATE/scope

# files of scope/ by name, of one kind (their magic: CRLCSCP or CRLCPAG)
files_of() { for f in $(ls "$S" | grep -E '^[0-9a-f]{32}$' | sort); do
    [ "$(head -c 7 "$S/$f")" = "$1" ] && echo "$f"; done; }
scope_files() { files_of CRLCSCP; }
page_files() { files_of CRLCPAG; }
imp() { (umask 077; cc import "$@") >"$W/imp.out" 2>&1 || { cat "$W/imp.out"; fail "import $*"; }; }
answers() {
    check_is revoked 1 "$PKI/rev1.pem"
    check_is revoked 1 "$PKI/rev2.pem"
    check_is good 0 "$PKI/good2.pem"
}

imp "$W/root.crl" "$W/int.crl" "$W/int2.crl"
answers
[ "$(stat -c %a "$S")" = 755 ] || fail "scope/ is mode $(stat -c %a "$S") under umask 077"
[ "$(scope_files | wc -l)" = 3 ] || { ls -la "$S"; fail "not one scope file per CRL"; }
[ "$(page_files | wc -l)" = 3 ] || { ls -la "$S"; fail "not one page file per issuer key"; }
for f in $(scope_files) $(page_files); do
    [ "$(stat -c %a "$S/$f")" = 644 ] || fail "scope file $f is mode $(stat -c %a "$S/$f")"
done
[ "$(stat -c %a "$STATE/index.mdb")" = 644 ] || fail "index.mdb is mode $(stat -c %a "$STATE/index.mdb")"
gen1=$(generation)
scope_files >"$W/gen1"
page_files >"$W/pages1"
stat -c '%n %i' "$S"/* | sort >"$W/inodes1"

# nothing new: no publish
imp "$W/int2.crl"
[ "$(generation)" = "$gen1" ] || fail "an unchanged import published (generation $gen1 -> $(generation))"

# one CRL changes: the top file, one new scope file and its key's page are
# written, the others kept as they are; the replaced generation's files stay
pki_gencrl int2 "$W/int2b.crl"
touch "$W/mark"; sleep 1
imp "$W/int2b.crl"
answers
[ "$(generation)" -gt "$gen1" ] || fail "the changed CRL was not published"
new=$(find "$STATE/index.mdb" "$S" -type f -newer "$W/mark" | wc -l)
[ "$new" = 3 ] || { find "$STATE" -newer "$W/mark" >&2; fail "$new files written for one changed CRL, not 3"; }
scope_files >"$W/gen2"
page_files >"$W/pages2"
[ "$(comm -13 "$W/gen1" "$W/gen2" | wc -l)" = 1 ] || fail "not one new scope file"
[ "$(comm -23 "$W/gen1" "$W/gen2" | wc -l)" = 0 ] || fail "the replaced generation's scope file was removed"
[ "$(comm -13 "$W/pages1" "$W/pages2" | wc -l)" = 1 ] || fail "not one new page file"
[ "$(comm -23 "$W/pages1" "$W/pages2" | wc -l)" = 0 ] || fail "the replaced generation's page file was removed"
kept=$(stat -c '%n %i' "$S"/* | sort | comm -12 - "$W/inodes1" | wc -l)
[ "$kept" = 6 ] || fail "$kept of 6 files kept their inode (unchanged CRLs rewritten?)"
note "one changed CRL: $(find "$STATE/index.mdb" "$S" -type f -newer "$W/mark" -printf '%s\n' | awk '{ s += $1 } END { print s }') bytes published"

# stray names: a file name no top names goes with the next publish;
# temporaries of killed runs go at the next run; other names stay
echo junk >"$S/00000000000000000000000000000000"
echo junk >"$S/.tmp.AbC123"
echo junk >"$STATE/.index.mdb.XyZ789"
echo keep >"$S/.tmp.longer-than-six"
echo keep >"$S/README"
pki_gencrl int2 "$W/int2c.crl"
imp "$W/int2c.crl"
answers
scope_files >"$W/gen3"
[ "$(wc -l <"$W/gen3")" = 4 ] || { cat "$W/gen3"; fail "not 4 scope files (3 current, 1 of the replaced generation)"; }
[ "$(comm -12 "$W/gen2" "$W/gen3" | wc -l)" = 3 ] || fail "the replaced generation's files are not all kept"
comm -23 "$W/gen1" "$W/gen3" | grep -q . || fail "the file two generations old was kept"
page_files >"$W/pages3"
[ "$(wc -l <"$W/pages3")" = 4 ] || { cat "$W/pages3"; fail "not 4 page files (3 current, 1 of the replaced generation)"; }
comm -23 "$W/pages1" "$W/pages3" | grep -q . || fail "the page file two generations old was kept"
[ ! -e "$S/00000000000000000000000000000000" ] || fail "a scope file no top names was kept"
[ ! -e "$S/.tmp.AbC123" ] || fail "a stale temporary scope file was kept"
[ ! -e "$STATE/.index.mdb.XyZ789" ] || fail "a stale temporary top file was kept"
[ -e "$S/.tmp.longer-than-six" ] && [ -e "$S/README" ] || fail "a name of another form was removed"
note "generation $(generation): $(wc -l <"$W/gen3") scope files, $(wc -l <"$W/pages3") page files"
