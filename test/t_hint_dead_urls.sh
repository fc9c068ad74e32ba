#!/usr/bin/env bash
# A URL that a hint's certificate proposed and that does not answer is
# that URL's failure, never the run's: any local user can leave public
# certificates whose CRL distribution point is dead, and a hint run that
# failed for them would, repeated, leave crlcache-hints.service and its
# path unit failed (learning stopped for everybody) and every hourly run
# and `status` failing.
#   1. hints of certificates whose CRL DP answers 404 or refuses the
#      connection (a loopback port nobody listens on) are proven beside a
#      good one: `update --hints` exits 0 and names each URL's failure,
#      and the good issuer's CRL is published;
#   2. `status` is not failing for them: they are "retrying", with their
#      failures counted; the hourly `update` exits 0 too;
#   3. a hint run backs off: a URL that failed 8 times in a row is not
#      asked again within hint_refetch << 7, however often it is hinted;
#   4. after 8 failures over a day (the last run under faketime, 25 hours
#      on) the dead URLs, which never served a CRL, are pruned: gone from
#      the enrolled issuers and from `status`, no longer fetched by the
#      hourly run, nor by a hint run when hinted again;
#   5. a configured URL that fails still fails the run (exit 1);
#   6. a source record of the layout before the history is still read.
. "$(dirname "$0")/lib.sh"
need_crlcache
command -v faketime >/dev/null || skip "faketime not installed (test/deps.sh)"
httpd_start
DEAD_PORT=$(closed_port)
pki_root root "/CN=Dead URL Root/O=crlcache tests"
pki_ca intG root "/CN=Dead URL Good CA/O=crlcache tests"
pki_ca intN root "/CN=Dead URL 404 CA/O=crlcache tests"
pki_ca intR root "/CN=Dead URL Refused CA/O=crlcache tests"
pki_leaf g1 intG "/CN=g1.test" cdp="$BASE_URL/intG.crl"
pki_leaf n1 intN "/CN=n1.test" cdp="$BASE_URL/gone.crl"
pki_leaf r1 intR "/CN=r1.test" cdp="http://127.0.0.1:$DEAD_PORT/refused.crl"
pki_gencrl intG "$W/intG.crl"
serve "$W/intG.crl" intG.crl
write_conf "anchor = $PKI/root/cert.pem" "allow_private_urls = yes" \
    "untrusted = $PKI/intG/cert.pem" "untrusted = $PKI/intN/cert.pem" \
    "untrusted = $PKI/intR/cert.pem" "hint_refetch = 1" "retries = 0"
DEAD_RE="(gone.crl|:$DEAD_PORT/refused.crl)"

# 1. The hint run: exit 0, each dead URL's failure said, the good CRL out.
for c in g1 n1 r1; do hint "$PKI/$c.pem" >/dev/null; done
assert_exit 0 cc update --hints
assert_grep "/gone.crl: .*404.* \\(a proposed URL: its failure 1 in a row, not the run's\\)" "$W/last.err"
assert_grep ":$DEAD_PORT/refused.crl: .*\\(a proposed URL: its failure 1 in a row, not the run's\\)" "$W/last.err"
check_is good 0 "$PKI/g1.pem"
note "1. update --hints exits 0, names both dead URLs' failures; the good CRL is published"

# 2. status: not failing; the dead URLs retrying.  The hourly run: exit 0.
assert_exit 0 cc status
assert_grep '^summary ok: 1 of 1 CRLs fresh, 1 of 3 sources ok, 2 retrying, directory ok$' "$W/last.out"
assert_grep "^source .*/gone.crl retrying failures=1 last_success=never error=.*404" "$W/last.out"
assert_grep "^source .*:$DEAD_PORT/refused.crl retrying failures=1 " "$W/last.out"
assert_exit 0 cc status --json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["failing"] is False, d["failing"]
dead = [s for s in d["sources"] if s["error"]]
assert len(dead) == 2 and all(s["origin"] == "proposed" and not s["failing"] and s["failures"] == 1 for s in dead), dead
' "$W/last.out" || fail "status --json: the dead URLs are not proposed, retrying"
for i in 2 3 4 5 6 7 8; do
    assert_exit 0 cc update
done
assert_grep "/gone.crl: .*its failure 8 in a row, not the run's" "$W/last.err"
assert_exit 0 cc status
assert_grep "^source .*/gone.crl retrying failures=8 " "$W/last.out"
note "2. status exits 0 (2 retrying); 7 hourly runs exit 0, each dead URL failed 8 times in a row"

# 3. The hint run backs off: 8 failures, hint_refetch 1 s: 128 s to wait.
sleep 2
before=$(requests_for /gone.crl)
hint "$PKI/n1.pem" >/dev/null; hint "$PKI/r1.pem" >/dev/null
assert_exit 0 cc -v update --hints
assert_grep 'backing off after failures' "$W/last.err"
[ "$(requests_for /gone.crl)" = "$before" ] || fail "a hint run asked a URL that is backing off"
note "3. hinted again 2 s later (past hint_refetch): not asked, backing off"

# 4. A day later: the ninth failure prunes them.
assert_exit 0 env NO_FAKE_STAT=1 DONT_FAKE_MONOTONIC=1 faketime -f +25h \
    "$CRLCACHE" --state-dir "$STATE" -c "$CONF" update
assert_grep "enroll: .*/gone.crl: proposed by certificates, it never served a valid CRL and keeps failing: pruned" "$W/last.err"
assert_grep "enroll: .*:$DEAD_PORT/refused.crl: .*pruned" "$W/last.err"
grep -Eq "^url .*$DEAD_RE" "$STATE/work/enrolled" && fail "a pruned URL is still enrolled"
grep -q "^url $BASE_URL/intG.crl$" "$STATE/work/enrolled" || fail "the good URL was pruned"
assert_exit 0 cc status
assert_not_grep "^source .*$DEAD_RE" "$W/last.out"
assert_grep '^summary ok: 1 of 1 CRLs fresh, 1 of 1 sources ok, directory ok$' "$W/last.out"
before=$(requests_for /gone.crl)
assert_exit 0 cc update
[ "$(requests_for /gone.crl)" = "$before" ] || fail "the hourly run asked a pruned URL"
sleep 2
hint "$PKI/n1.pem" >/dev/null
assert_exit 0 cc update --hints
[ "$(requests_for /gone.crl)" = "$before" ] || fail "a hint run asked a pruned URL hinted again"
grep -Eq "^url .*$DEAD_RE" "$STATE/work/enrolled" && fail "a pruned URL hinted again is enrolled"
note "4. 8 failures over a day: pruned, gone from status and enrolment, asked by no run, even hinted again"

# 5. A configured URL's failure is still the run's.
write_conf "anchor = $PKI/root/cert.pem" "allow_private_urls = yes" \
    "untrusted = $PKI/intG/cert.pem" "url = $BASE_URL/missing.crl" "retries = 0"
assert_exit 1 cc update
assert_exit 2 cc status
note "5. a configured URL that fails: update exits 1, status 2"

# 6. A source record of the layout before the history (format.h "source":
#    no fresh-until, no history) is still read: its failure is listed and
#    counts (origin unknown, one failure), and the next run adds the history.
if command -v mdb_dump >/dev/null && command -v mdb_load >/dev/null; then
    mdb_dump -s source "$STATE/work" >"$W/source.dump" || fail "mdb_dump"
    python3 - "$W/source.dump" "$W/source.old" <<'PY' || fail "cannot rewrite the record"
import sys
lines = open(sys.argv[1]).read().split("\n")
end = lines.index("HEADER=END") + 1
# db_pagesize: a header line mdb_load of LMDB 0.9.24 does not know
out, i = [l for l in lines[:end] if not l.startswith("db_pagesize=")], end
while lines[i].startswith(" "):
    key, val = lines[i], bytes.fromhex(lines[i + 1].strip())
    if bytes.fromhex(key.strip()).endswith(b"/missing.crl"):
        e, m, r, k = (int.from_bytes(val[o:o + 4], "big") for o in (20, 24, 28, 32))
        val = val[:36 + e + m + r + k]      # as earlier writers left it
    out += [key, " " + val.hex()]
    i += 2
open(sys.argv[2], "w").write("\n".join(out + lines[i:]))
PY
    mdb_load -s source "$STATE/work" <"$W/source.old" || fail "mdb_load"
    assert_exit 2 cc status --json
    python3 -c '
import json, sys
s = [s for s in json.load(open(sys.argv[1]))["sources"] if s["url"].endswith("/missing.crl")]
assert len(s) == 1 and s[0]["origin"] == "unknown" and s[0]["failing"] and s[0]["failures"] == 1, s   # failing: at least one failure
' "$W/last.out" || fail "a record of the earlier layout is not read as such"
    assert_exit 1 cc update
    assert_exit 2 cc status --json
    python3 -c '
import json, sys
s = [s for s in json.load(open(sys.argv[1]))["sources"] if s["url"].endswith("/missing.crl")]
assert len(s) == 1 and s[0]["origin"] == "configured" and s[0]["failures"] == 1, s
' "$W/last.out" || fail "the next run did not add the history"
    note "6. a record of the earlier layout: read (origin unknown, failing), the history added by the next run"
else
    note "6. lmdb-utils not installed: the earlier record layout not tested"
fi
