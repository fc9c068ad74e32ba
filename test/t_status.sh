#!/usr/bin/env bash
# status: text, --json and --prometheus tell the truth about the index and
# its sources; a CRL whose nextUpdate passes turns stale (a real short
# nextUpdate, no faked clock) and status then exits 1.
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
std_pki
pki_revoke int "$PKI/rev1.pem"
pki_gencrl int "$W/int.crl" next="$(gt 4)"
serve "$W/int.crl" int.crl
write_conf "url = $BASE_URL/int.crl" "url = $BASE_URL/missing.crl" \
    "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem" "stale_grace = 0"
assert_exit 1 cc update          # missing.crl fails (404)

assert_exit 0 cc status
cc status >"$W/status.txt"
assert_grep '^generation 1$' "$W/status.txt"
assert_grep '^revoked 1$' "$W/status.txt"
assert_grep "^source $BASE_URL/missing.crl failing .*404" "$W/status.txt"
assert_grep "^source $BASE_URL/int.crl ok" "$W/status.txt"

cc status --json >"$W/s.json" || fail "status --json failed while fresh"
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

# let nextUpdate pass
sleep 6
assert_exit 1 cc status --json
cc status --json >"$W/s2.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["stale"] and d["crl"][0]["stale"], d' \
    "$W/s2.json" || fail "stale not reported in JSON"
assert_exit 1 cc status --prometheus "$W/crlcache.prom"
assert_grep '^crlcache_stale 1$' "$W/crlcache.prom"
assert_grep "^crlcache_crl_stale\\{source=\"$BASE_URL/int.crl\",scope=\"\"\\} 1$" "$W/crlcache.prom"
assert_grep "^crlcache_source_failing\\{url=\"$BASE_URL/missing.crl\"\\} 1$" "$W/crlcache.prom"
assert_grep '^crlcache_index_revoked_entries 1$' "$W/crlcache.prom"
check_is stale 3 "$PKI/good1.pem"
note "status ok"
