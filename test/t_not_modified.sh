#!/usr/bin/env bash
# Conditional GET: a second update against an unchanged server sends a
# conditional request, gets 304, reports 0 updated / 1 unchanged, keeps the
# generation and does not republish index.mdb.  One at a time, transfers
# follow each other without a pause.
. "$(dirname "$0")/lib.sh"
served_int_crl

assert_exit 0 cc update
assert_grep '1 sources, 1 updated, 0 unchanged, 0 failed' "$W/last.err"
g1=$(generation); [ -n "$g1" ] || fail "no generation in status"
st1=$(stat -c '%i %Y %s' "$STATE/index.mdb")
sleep 1.1   # so that a rewrite of index.mdb would change its mtime
cp "$HTTPD_LOG" "$HTTPD_LOG.before"

assert_exit 0 cc update
assert_grep '1 sources, 0 updated, 1 unchanged, 0 failed' "$W/last.err"
# the second request was conditional and answered 304
tail -n +$(( $(wc -l <"$HTTPD_LOG.before") + 1 )) "$HTTPD_LOG" >"$W/new.log"
cat "$W/new.log"
assert_grep '^GET /int.crl 304' "$W/new.log"
assert_not_grep '^GET /int.crl 200' "$W/new.log"
grep -E '^GET /int.crl 304' "$W/new.log" | grep -Eq 'inm="|ims=[A-Z]' || fail "304 without a conditional header?"
g2=$(generation)
[ "$g2" = "$g1" ] || fail "generation changed on a 304: $g1 -> $g2"
st2=$(stat -c '%i %Y %s' "$STATE/index.mdb")
[ "$st1" = "$st2" ] || fail "index.mdb was republished (inode mtime size: $st1 -> $st2)"
check_is revoked 1 "$PKI/rev1.pem"

# Which validator did the fetcher send?  Both are fine; report it.
grep -E '^GET /int.crl 304' "$W/new.log" | grep -q 'inm="' && note "fetcher sent If-None-Match"
grep -E '^GET /int.crl 304' "$W/new.log" | grep -q 'ims=[A-Z]' && note "fetcher sent If-Modified-Since"

# The validator must survive across runs only while the content is the same:
# change the CRL -> 200 and a new generation.
pki_revoke int "$PKI/rev2.pem"
pki_gencrl int "$W/int.crl"
serve "$W/int.crl" int.crl
assert_exit 0 cc update
assert_grep '1 sources, 1 updated, 0 unchanged, 0 failed' "$W/last.err"
g3=$(generation); [ "$g3" -gt "$g2" ] || fail "generation did not increase after a real change ($g2 -> $g3)"
check_is revoked 1 "$PKI/rev2.pem"

# The next transfer starts as soon as a slot frees: with
# parallel = 1 the fetcher used to wait about 1 s for traffic that could
# not come after each transfer.  PACE_SOURCES unchanged sources must take
# well under PACE_SOURCES seconds (about 0.1 s each here).
PACE_SOURCES=12
urls=()
for i in $(seq 1 $PACE_SOURCES); do
    serve "$W/int.crl" "pace/$i.crl"
    urls+=("url = $BASE_URL/pace/$i.crl")
done
write_conf "${urls[@]}" "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem" \
    "parallel = 1"
assert_exit 0 cc update
t0=$(date +%s%N)
assert_exit 0 cc update
ms=$((($(date +%s%N) - t0) / 1000000))
assert_grep "$PACE_SOURCES sources, 0 updated, $PACE_SOURCES unchanged, 0 failed" "$W/last.err"
note "$PACE_SOURCES conditional GETs one at a time: $ms ms"
[ "$ms" -lt $((PACE_SOURCES * 1000 / 2)) ] || fail "$PACE_SOURCES unchanged sources took $ms ms"
finish
