#!/usr/bin/env bash
# Many hosts behind one HTTP cache: three hosts' state directories update
# through a real Squid (http_proxy); the origin sees one request per CRL,
# Squid's access log shows the other hosts served from its cache, and a
# conditional GET through the cache still answers 304.  Then a proxy that
# alters the CRLs in transit: every host refuses them, names the cause and
# keeps the CRLs it holds.
. "$(dirname "$0")/lib.sh"
need_crlcache
SQUID=$(command -v squid || echo /usr/sbin/squid)
[ -x "$SQUID" ] || skip "squid not installed (Debian package squid; test/deps.sh)"

# The origin answers like a CA's CRL server: Last-Modified, ETag and a
# max-age (one hour) that lets a cache serve the CRL without asking again.
HTTPD_MAX_AGE=3600
served_chain_crls  # int.crl (rev1 revoked) for the leaves, root.crl for int

# ---------------------------------------------------------------- Squid
# Its own configuration, port, logs and pid file, a memory cache only, no
# system service.  Started as root, Squid drops to cache_effective_user
# (Debian: proxy), which must reach its directory: that one lies beside,
# not in, the test's directory, whose parents may be closed to others.
SQ=$(mktemp -d "${TMPDIR:-/tmp}/crlcache-squid.XXXXXX") || fail "mktemp"
trap '_lib_cleanup; rm -rf "$SQ"' EXIT
SQUID_PORT=$(closed_port)
if [ "$(id -u)" -eq 0 ]; then
    squser=proxy
    id "$squser" >/dev/null 2>&1 || squser=nobody
    chmod 711 "$SQ"
    chown "$squser" "$SQ"
    effective="cache_effective_user $squser"
else
    effective="# not root: Squid runs as $(id -un)"
fi
cat >"$W/squid.conf" <<EOF
http_port 127.0.0.1:$SQUID_PORT
$effective
visible_hostname crlcache-test
pid_filename $SQ/squid.pid
access_log stdio:$SQ/access.log squid
cache_log $SQ/cache.log
cache_store_log none
coredump_dir $SQ
netdb_filename none
pinger_enable off
cache_mem 16 MB
maximum_object_size_in_memory 4 MB
http_access allow localhost
http_access deny all
shutdown_lifetime 0 seconds
EOF
"$SQUID" -N -f "$W/squid.conf" >"$W/squid.out" 2>&1 &
bg_register $!
wait_port "$SQUID_PORT" || { cat "$W/squid.out" "$SQ/cache.log" >&2; fail "squid did not start"; }
note "squid $("$SQUID" -v | sed -n 's/^Squid Cache: Version //p') on 127.0.0.1:$SQUID_PORT"

# host N: its own state directory and configuration, the same sources
host() { STATE=$W/host$1; CONF=$W/host$1.conf; }
via() {     # via PROXY_URL ARGS...: crlcache update through a proxy
    local p=$1; shift
    env http_proxy="$p" no_proxy= NO_PROXY= "$CRLCACHE" --state-dir "$STATE" -c "$CONF" "$@"
}
for n in 1 2 3; do
    host $n
    write_conf "url = $BASE_URL/int.crl" "anchor = $PKI/root/cert.pem" \
        "untrusted = $PKI/int/cert.pem" "timeout = 10" "connect_timeout = 5" "retries = 0"
done

# 1. three hosts update through Squid: one request per CRL at the origin
for n in 1 2 3; do
    host $n
    assert_exit 0 via "http://127.0.0.1:$SQUID_PORT" update
    assert_grep '2 sources, 2 updated, 0 unchanged, 0 failed' "$W/last.err"
    check_is revoked 1 "$PKI/rev1.pem"
    check_is good 0 "$PKI/good1.pem"
done
[ "$(requests_for 'GET /int.crl')" = 1 ] || { cat "$HTTPD_LOG" >&2; fail "origin saw $(requests_for 'GET /int.crl') requests for int.crl, wanted 1"; }
[ "$(requests_for 'GET /root.crl')" = 1 ] || { cat "$HTTPD_LOG" >&2; fail "origin saw $(requests_for 'GET /root.crl') requests for root.crl, wanted 1"; }
# Squid's own account: a miss for the first host, hits for the two others
# (TCP_HIT, TCP_MEM_HIT ...; a TCP_CLIENT_REFRESH_MISS would mean the
# fetcher asked the cache not to answer from its store).
for c in int root; do
    hits=$(grep -cE "TCP_[A-Z_]*HIT/200 .* $BASE_URL/$c.crl " "$SQ/access.log")
    [ "$hits" -eq 2 ] || { cat "$SQ/access.log" >&2; fail "squid logged $hits hits for $c.crl, wanted 2"; }
done
assert_not_grep 'CLIENT_REFRESH' "$SQ/access.log"
case_ok "three hosts, one origin request per CRL, two cache hits each"

# 2. conditional GET through the cache: host 1 again asks with its
#    validators; Squid answers 304 from its store, the origin is not asked
host 1
assert_exit 0 via "http://127.0.0.1:$SQUID_PORT" update
assert_grep '2 sources, 0 updated, 2 unchanged, 0 failed' "$W/last.err"
[ "$(requests_for 'GET /int.crl')" = 1 ] || fail "origin asked again for int.crl while the cache was fresh"
grep -E "TCP_[A-Z_]*HIT/304 .* $BASE_URL/int.crl " "$SQ/access.log" >/dev/null \
    || { cat "$SQ/access.log" >&2; fail "no 304 hit from squid for the conditional GET"; }
case_ok "conditional GET answered 304 by the cache"

# 3. a proxy that alters CRLs in transit: the CA publishes new CRLs (rev2
#    revoked), the hosts fetch them through the hostile proxy, every host
#    refuses them, says why, and keeps what it held
proxy_start
ALTER=$PROXY
pki_revoke int "$PKI/rev2.pem"
pki_gencrl int "$W/int.crl"
serve "$W/int.crl" int.crl
pki_gencrl root "$W/root.crl"
serve "$W/root.crl" root.crl
for n in 1 2 3; do
    host $n
    g=$(generation)
    cc status >"$W/status.before" 2>&1
    via "$ALTER" update >"$W/upd.out" 2>"$W/upd.err"; rc=$?
    sed "s/^/    host $n: /" "$W/upd.err"
    [ "$rc" -eq 1 ] || fail "host $n: update through the altering proxy exited $rc, wanted 1"
    assert_grep '2 sources, 0 updated, 0 unchanged, 2 failed' "$W/upd.err"
    assert_grep -i "crlcache: $BASE_URL/int.crl: .*signature" "$W/upd.err"
    assert_grep -i "crlcache: $BASE_URL/root.crl: .*signature" "$W/upd.err"
    check_is revoked 1 "$PKI/rev1.pem"
    check_is good 0 "$PKI/rev2.pem"
    [ "$(generation)" = "$g" ] || fail "host $n: generation changed on refused CRLs"
    cc status >"$W/status.after" 2>&1
    assert_grep "^crl $BASE_URL/int.crl .*entries=1 " "$W/status.after"
    assert_grep "^source $BASE_URL/int.crl .*signature" "$W/status.after"
done
grep -c "^GET $BASE_URL/int.crl 200" "$AP_LOG" | grep -qx 3 || { cat "$AP_LOG" >&2; fail "the altering proxy did not serve int.crl three times"; }
case_ok "altered CRLs refused by every host, old CRLs kept"

# What the fetcher asks of a cache: never "do not answer from your store".
assert_not_grep -i 'cc=[^	]*no-cache|pragma=[^	]*no-cache|cc=[^	]*no-store' "$AP_LOG"
case_ok "no Cache-Control or Pragma no-cache in the fetcher's requests"

finish
