#!/usr/bin/env bash
# status: text, --json and --prometheus tell the truth about the index and
# its sources; a CRL whose nextUpdate passes turns stale (a real short
# nextUpdate, no faked clock) and status then exits 1.  Before the first
# update it says what to run; a failing source is exit 2, not 0; the text
# starts with a summary line, which says when a user who may not read the
# working index is shown no sources, directory or coverage; that user is
# given the same verdict and exit status as root.
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
std_pki
pki_revoke int "$PKI/rev1.pem"
pki_gencrl int "$W/int.crl" next="$(gt 4)"
serve "$W/int.crl" int.crl
write_conf "url = $BASE_URL/int.crl" "url = $BASE_URL/missing.crl" \
    "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem" "stale_grace = 0"
mkdir -p "$STATE"                # as the package leaves it: no update yet
assert_exit 4 cc status          # no index yet
assert_grep 'no index yet: run `crlcache update`' "$W/last.err"
assert_not_grep 'no index file: no index file' "$W/last.err"
assert_exit 1 cc update          # missing.crl fails (404)

assert_exit 2 cc status          # 2: a source is failing, no CRL stale
cc status >"$W/status.txt"
[ "$(head -n 1 "$W/status.txt")" = "summary sources failing: 1 of 1 CRLs fresh, 1 of 2 sources ok, directory ok" ] ||
    { cat "$W/status.txt" >&2; fail "no summary line first"; }
assert_grep '^generation 1$' "$W/status.txt"
assert_grep '^revoked 1$' "$W/status.txt"
assert_grep "^source $BASE_URL/missing.crl failing .*404" "$W/status.txt"
assert_grep "^source $BASE_URL/int.crl ok" "$W/status.txt"

cc status --json >"$W/s.json"; [ $? = 2 ] || fail "status --json: not exit 2 while a source fails"
python3 - "$W/s.json" "$BASE_URL" <<'PY' || fail "status --json content wrong"
import json, sys
d = json.load(open(sys.argv[1])); base = sys.argv[2]
assert d["generation"] == 1 and d["revoked"] == 1 and d["crls"] == 1, d
assert d["stale"] is False and d["failing"] is True, d
crl = d["crl"][0]
assert crl["source"] == base + "/int.crl" and crl["entries"] == 1 and not crl["stale"], crl
src = {s["url"]: s for s in d["sources"]}
assert src[base + "/missing.crl"]["http_status"] == 404 and src[base + "/missing.crl"]["error"], src
assert src[base + "/int.crl"]["error"] is None and src[base + "/int.crl"]["last_success"] > 0, src
PY

# a user who may not read the working index is told what is left out, and
# the same verdict as root: the last run's, exit 2 (one host, one verdict)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
    d=$W
    while case $d in "${TMPDIR:-/tmp}"/?*) true ;; *) false ;; esac; do
        chmod o+x "$d"; d=$(dirname "$d")
    done
    setpriv --reuid=nobody --regid=nogroup --clear-groups \
        "$CRLCACHE" --state-dir "$STATE" -c "$CONF" status >"$W/nob.txt" 2>"$W/nob.err"; rc=$?
    head -n 1 "$W/nob.txt" | grep -q '^summary sources failing: 1 of 1 CRLs fresh, 1 of 2 sources ok, directory ok (the last run.s verdict); sources, directory and coverage not shown: only root and the state directory.s owner may read them$' &&
        case_ok "non-root: summary says what is not shown" ||
        { cat "$W/nob.txt" "$W/nob.err" >&2; case_fail "non-root summary" "not root's verdict, or no word of what is left out"; }
    [ "$rc" = 2 ] && case_ok "non-root: exit 2, as root's" || case_fail "non-root exit" "exit $rc, root's is 2"
    setpriv --reuid=nobody --regid=nogroup --clear-groups \
        "$CRLCACHE" --state-dir "$STATE" -c "$CONF" status --json >"$W/nob.json" 2>/dev/null
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["failing"] is True and d["sources_readable"] is False, d' \
        "$W/nob.json" && case_ok "non-root JSON: failing" || case_fail "non-root json" "$(cat "$W/nob.json")"
else
    note "not root or no setpriv/nobody: the non-root summary is not checked"
fi

# let nextUpdate pass
sleep 6
assert_exit 1 cc status --json
cc status --json >"$W/s2.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["stale"] and d["crl"][0]["stale"], d' \
    "$W/s2.json" || fail "stale not reported in JSON"
assert_exit 1 cc status --prometheus "$W/crlcache.prom"
assert_exit 1 cc status
assert_grep '^summary stale: 0 of 1 CRLs fresh, 1 of 2 sources ok, directory ok$' "$W/last.out"
assert_grep '^crlcache_directory_failing 0$' "$W/crlcache.prom"
assert_grep '^crlcache_stale 1$' "$W/crlcache.prom"
assert_grep "^crlcache_crl_stale\\{source=\"$BASE_URL/int.crl\",scope=\"\"\\} 1$" "$W/crlcache.prom"
assert_grep "^crlcache_source_failing\\{url=\"$BASE_URL/missing.crl\"\\} 1$" "$W/crlcache.prom"
assert_grep '^crlcache_index_revoked_entries 1$' "$W/crlcache.prom"
check_is stale 3 "$PKI/good1.pem"
note "status ok"
finish
