#!/usr/bin/env bash
# HTTP failures: 404, 500, connection closed, stall past `timeout = 2`, a body
# trickling slower than the timeout, refused connection.  Each: update exits 1,
# names the URL and the reason, and the earlier data stays.
. "$(dirname "$0")/lib.sh"
# retries = 0 here: each failure below is one attempt (retries: at the end)
served_int_crl "timeout = 2" "connect_timeout = 2" "retries = 0"
U=$BASE_URL/int.crl
assert_exit 0 cc update
check_is revoked 1 "$PKI/rev1.pem"

# fail_case NAME REGEX MAXSECONDS: update must fail for $U with REGEX in the line
fail_case() {
    local name=$1 re=$2 max=$3 t0 t1 rc ms
    t0=$(date +%s%N)
    cc update >"$W/upd.out" 2>"$W/upd.err"; rc=$?
    t1=$(date +%s%N); ms=$(( (t1 - t0) / 1000000 ))
    sed "s/^/    [$name] /" "$W/upd.err"
    if [ "$rc" -ne 1 ]; then case_fail "$name" "update exit $rc, expected 1"; return; fi
    if ! grep -F "crlcache: $U: " "$W/upd.err" | grep -Eiq -- "$re"; then
        case_fail "$name" "no 'crlcache: $U: ' line matching /$re/"; return
    fi
    if ! grep -Eq 'crlcache: update: 1 sources, 0 updated, 0 unchanged, 1 failed' "$W/upd.err"; then
        case_fail "$name" "summary line missing or wrong"; return
    fi
    if [ "$ms" -gt $((max * 1000)) ]; then
        case_fail "$name" "update took ${ms} ms, more than ${max} s"; return
    fi
    if ! check_is_soft revoked 1 "$PKI/rev1.pem"; then
        case_fail "$name" "earlier data lost: rev1 no longer revoked"; return
    fi
    case_ok "$name (${ms} ms)"
}

inject int.crl 404;   fail_case 404 '404' 10
inject int.crl 500;   fail_case 500 '500' 10
inject int.crl close; fail_case close '.' 10
# timeout = 2: a server that accepts and never answers, and one that trickles
# the body at 2 bytes/s, must each be cut off after ~2 s.
inject int.crl stall; fail_case stall 'timed out|timeout' 5
inject int.crl slow;  fail_case slow  'timed out|timeout' 5
inject int.crl ""
assert_exit 0 cc update           # recovers
check_is revoked 1 "$PKI/rev1.pem"

# refused: stop the server -> nothing listens on the port of $U
port=$HTTPD_PORT
httpd_stop
fail_case refused 'connect|refused' 10
httpd_start "$port" || true
if [ "$HTTPD_PORT" = "$port" ]; then
    assert_exit 0 cc update       # recovers once the server is back
else
    note "could not rebind port $port; skipping recovery step"
fi

# Several sources: one good, one 404 by path, one refused port.  Only the bad
# ones are reported; exit 1; the good one is still ingested.
cport=$(closed_port)
pki_revoke int "$PKI/rev2.pem" reason=keyCompromise
pki_gencrl int "$W/int.crl"
serve "$W/int.crl" int.crl
write_conf "url = $BASE_URL/int.crl" "url = $BASE_URL/status/404/x.crl" \
    "url = http://127.0.0.1:$cport/y.crl" \
    "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem" "timeout = 2" "connect_timeout = 2" \
    "retries = 0"
cc update >"$W/upd.out" 2>"$W/upd.err"; rc=$?
sed 's/^/    [mixed] /' "$W/upd.err"
if [ "$rc" -ne 1 ]; then case_fail mixed "exit $rc, expected 1"
elif ! grep -Eq "crlcache: $BASE_URL/status/404/x.crl: .*404" "$W/upd.err"; then case_fail mixed "404 source not reported"
elif ! grep -Eiq "crlcache: http://127.0.0.1:$cport/y.crl: .*(connect|refused)" "$W/upd.err"; then case_fail mixed "refused source not reported"
elif grep -Fq "crlcache: $BASE_URL/int.crl: " "$W/upd.err"; then case_fail mixed "good source reported as failed"
elif ! grep -Eq 'crlcache: update: 3 sources, 1 updated, 0 unchanged, 2 failed' "$W/upd.err"; then case_fail mixed "summary wrong"
elif ! check_is_soft revoked 1 "$PKI/rev2.pem"; then case_fail mixed "good source not ingested"
else case_ok mixed
fi
# Retries with backoff: one 500 then the CRL -> retries = 1 succeeds after a
# second request; a 503 that persists -> exactly 1 + retries requests, failed;
# a 404 is not retried.
n_req() { grep -c "^GET /int.crl " "$HTTPD_LOG"; }
pki_revoke int "$PKI/good1.pem" reason=superseded
pki_gencrl int "$W/int.crl"
serve "$W/int.crl" int.crl
write_conf "url = $BASE_URL/int.crl" "anchor = $PKI/root/cert.pem" \
    "untrusted = $PKI/int/cert.pem" "timeout = 5" "retries = 1"
inject int.crl "500 1"
r0=$(n_req)
if ! cc update >"$W/upd.out" 2>"$W/upd.err"; then case_fail retry-recovers "update failed: $(cat "$W/upd.err")"
elif [ $(( $(n_req) - r0 )) -ne 2 ]; then case_fail retry-recovers "expected 2 requests, saw $(( $(n_req) - r0 ))"
elif ! check_is_soft revoked 1 "$PKI/good1.pem"; then case_fail retry-recovers "CRL fetched on retry not ingested"
else case_ok retry-recovers; fi
write_conf "url = $BASE_URL/int.crl" "anchor = $PKI/root/cert.pem" \
    "untrusted = $PKI/int/cert.pem" "timeout = 5" "retries = 2"
inject int.crl 503
r0=$(n_req)
cc update >"$W/upd.out" 2>"$W/upd.err"; rc=$?
if [ "$rc" -ne 1 ] || [ $(( $(n_req) - r0 )) -ne 3 ]; then
    case_fail retry-gives-up "exit $rc, $(( $(n_req) - r0 )) requests (want 1, 3)"
else case_ok retry-gives-up; fi
inject int.crl 404
r0=$(n_req)
cc update >"$W/upd.out" 2>"$W/upd.err"
[ $(( $(n_req) - r0 )) -eq 1 ] && case_ok no-retry-on-404 || case_fail no-retry-on-404 "404 was retried"
inject int.crl ""

finish
