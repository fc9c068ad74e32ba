#!/usr/bin/env bash
# The world-readable index holds no source state and no credentials: a URL
# with userinfo (http://USER:PASS@host/...) is fetched with its credentials
# (the server demands them), yet, read as `nobody`, the published files
# (index.mdb, scope/*) hold no source state (the failing URL, its error)
# and not one byte of the credentials; neither do the
# working index's source keys and error texts, status (text, --json,
# --prometheus) nor the log lines, which show the URL as http://***@host/...
. "$(dirname "$0")/lib.sh"
need_crlcache
command -v mdb_dump >/dev/null && command -v mdb_stat >/dev/null &&
    command -v mdb_load >/dev/null || skip "lmdb-utils (mdb_dump, mdb_stat, mdb_load) not installed"
command -v setpriv >/dev/null || skip "setpriv not installed"
[ "$(id -u)" = 0 ] || skip "needs root to run readers as nobody"
id nobody >/dev/null 2>&1 || skip "no user nobody"
httpd_start
std_pki
pki_revoke int "$PKI/rev1.pem"
pki_gencrl int "$W/int.crl"
serve "$W/int.crl" int.crl
USER=crlfetch PASS=Sekr3tPassw0rd
echo "$USER:$PASS" >"$HTTPD_ROOT/int.crl.auth"
HOSTPORT=127.0.0.1:$HTTPD_PORT
write_conf "url = http://$USER:$PASS@$HOSTPORT/int.crl" \
    "url = http://$USER:$PASS@$HOSTPORT/missing.crl" \
    "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem"
# no credential, in any form a reader could spot
leaks() { grep -a -c -e "$PASS" -e "$USER:" "$@"; }

cc -v update >"$W/upd.out" 2>"$W/upd.err"; rc=$?
[ "$rc" = 1 ] || { cat "$W/upd.err" >&2; fail "update exit $rc (wanted 1: missing.crl 404)"; }
# fetched with the credentials: the server refuses the URL without them
grep -q '^GET /int.crl 200' "$HTTPD_LOG" || fail "int.crl not fetched with its credentials"
check_is revoked 1 "$PKI/rev1.pem"
assert_grep "^crlcache: http://\\*\\*\\*@$HOSTPORT/missing.crl: HTTP status 404" "$W/upd.err"
[ "$(leaks "$W/upd.out" "$W/upd.err" | awk -F: '{ s += $NF } END { print s }')" = 0 ] ||
    { cat "$W/upd.err" >&2; fail "log lines show the credentials"; }

# the published files, as an unprivileged local user reads them
# nobody must reach the state directory: open up the test's own directories
d=$W
while case $d in "${TMPDIR:-/tmp}"/?*) true ;; *) false ;; esac; do
    chmod o+x "$d"; d=$(dirname "$d")
done
nob() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
pub=("$STATE/index.mdb" "$STATE"/scope/*)
[ "${#pub[@]}" -ge 2 ] || fail "no scope file published"
for f in "${pub[@]}"; do
    nob cat "$f" >/dev/null || fail "nobody cannot read $f"
done
[ "$(head -c 8 "$STATE/index.mdb")" = CRLCTOP ] || fail "index.mdb is not a top file"
# the CRL's source is there (in its page file), redacted; no source state
# (the failing URL, its error)
grep -a -l "http://\*\*\*@$HOSTPORT/int.crl" "$STATE"/scope/* | xargs -r head -qc 7 | grep -q CRLCPAG ||
    fail "no page file holds the CRL's redacted source"
grep -a -l -e missing.crl -e 'HTTP status' "${pub[@]}" && fail "the published files hold source state"
[ "$(leaks "${pub[@]}" | awk -F: '{ s += $NF } END { print s }')" = 0 ] ||
    fail "the published files hold the credentials"
# the reader, as nobody, opens the top and the scope file it needs
nob "$CRLCACHE" --state-dir "$STATE" -c "$CONF" check "$PKI/rev1.pem" >"$W/nobcheck.out" 2>&1
grep -q '^revoked' "$W/nobcheck.out" || { cat "$W/nobcheck.out"; fail "check as nobody"; }

# the working index: keys and error texts redacted too
mdb_dump -a -p "$STATE/work" >"$W/work.txt" || fail "mdb_dump of the working index"
assert_grep '^database=source$' "$W/work.txt"
[ "$(leaks "$W/work.txt" | awk -F: '{ s += $NF } END { print s }')" = 0 ] ||
    fail "the working index holds the credentials"

# status in every format names the sources, redacted
cc status >"$W/st.txt" 2>&1
assert_grep "^source http://\\*\\*\\*@$HOSTPORT/int.crl ok" "$W/st.txt"
assert_grep "^source http://\\*\\*\\*@$HOSTPORT/missing.crl failing .*404" "$W/st.txt"
assert_grep "^crl http://\\*\\*\\*@$HOSTPORT/int.crl " "$W/st.txt"
cc status --json >"$W/st.json" 2>&1
python3 - "$W/st.json" "http://***@$HOSTPORT" <<'PY' || fail "status --json"
import json, sys
d = json.load(open(sys.argv[1])); base = sys.argv[2]
assert {s["url"] for s in d["sources"]} == {base + "/int.crl", base + "/missing.crl"}, d
assert d["crl"][0]["source"] == base + "/int.crl", d
PY
cc status --prometheus "$W/st.prom" >/dev/null 2>&1
assert_grep "^crlcache_source_failing\\{url=\"http://\\*\\*\\*@$HOSTPORT/missing.crl\"\\} 1$" "$W/st.prom"
[ "$(leaks "$W/st.txt" "$W/st.json" "$W/st.prom" | awk -F: '{ s += $NF } END { print s }')" = 0 ] ||
    fail "status shows the credentials"

# the redacted key finds its record again: the next update asks conditionally
cc -v update >"$W/upd2.out" 2>"$W/upd2.err"
tail -n 1 "$HTTPD_LOG" | grep -q $'^GET /int.crl 304\t' ||
    grep -q $'^GET /int.crl 304\t' "$HTTPD_LOG" || fail "second update did not ask conditionally"
[ "$(leaks "$W/upd2.err" | awk -F: '{ s += $NF } END { print s }')" = 0 ] ||
    fail "log lines show the credentials"

# a configured URL the redaction could not see whole is refused, unlogged
write_conf "url = http://$USER:a b$PASS@$HOSTPORT/int.crl" "anchor = $PKI/root/cert.pem"
assert_exit 4 cc update
[ "$(leaks "$W/last.err" | awk -F: '{ s += $NF } END { print s }')" = 0 ] ||
    { cat "$W/last.err" >&2; fail "refusal shows the credentials"; }
note "published index private ok"
