#!/usr/bin/env bash
# Air-gapped mirror: host A updates from the origin and writes its verified
# CRLs with `crlcache mirror DIR`; a real nginx serves DIR; host B, with
# `mirror =` and the origin gone, gets the same CRLs, its IDP checks and
# records still under the origin URLs, and refuses the revoked certificate.
# Hostile names and symbolic links in DIR never lead a write outside it.
. "$(dirname "$0")/lib.sh"
need_crlcache
need_nginx
umask 022

served_chain_crls  # int.crl (rev1 revoked) for the leaves, root.crl for int
# A partition: its IDP names the origin URL, which B never fetches.
PART=$BASE_URL/crl/part.crl
pki_leaf prev int "/CN=prev.test" cdp="$PART"
: >"$W/part.txt"
pki_revoke int "$PKI/prev.pem" db="$W/part.txt"
pki_gencrl int "$W/part.crl" db="$W/part.txt" idp="$PART" number=10
serve "$W/part.crl" crl/part.crl
# The same CRL at a second URL (as CAs name two CDPs), and a delta CRL on
# it: the index names one URL per scope, the sources name the others.
# (The delta's URL sorts last, so that update applies it after the base.)
serve "$W/int.crl" alt/int.crl
pki_leaf drev int "/CN=drev.test" cdp="$BASE_URL/int.crl"
: >"$W/delta.txt"
pki_revoke int "$PKI/drev.pem" db="$W/delta.txt"
pki_gencrl int "$W/delta.crl" db="$W/delta.txt" delta=1 number=20
serve "$W/delta.crl" zdelta.crl
ORIGIN=127.0.0.1:$HTTPD_PORT
srcs=("url = $BASE_URL/alt/int.crl" "url = $BASE_URL/zdelta.crl" "url = $BASE_URL/int.crl" "url = $PART" "anchor = $PKI/root/cert.pem"
    "untrusted = $PKI/int/cert.pem" "timeout = 10" "connect_timeout = 5" "retries = 0")

# ---------------------------------------------------------------- host A
STATE=$W/hostA CONF=$W/hostA.conf
write_conf "${srcs[@]}"
assert_exit 0 cc update
assert_grep '5 sources, 4 updated, 1 unchanged, 0 failed' "$W/last.err"
check_is revoked 1 "$PKI/drev.pem"
nginx_dir
MIR=$NG/mirror
mkdir -m 755 "$MIR"
assert_exit 0 cc mirror "$MIR"
assert_grep 'mirror: 5 written, 0 unchanged, 0 skipped, 0 failed' "$W/last.err"
cmp -s "$W/int.crl" "$MIR/http/$ORIGIN/alt/int.crl" || fail "mirror/http/$ORIGIN/alt/int.crl is not int.crl"
cmp -s "$W/delta.crl" "$MIR/http/$ORIGIN/zdelta.crl" || fail "mirror/http/$ORIGIN/zdelta.crl is not delta.crl"
cmp -s "$W/int.crl" "$MIR/http/$ORIGIN/int.crl" || fail "mirror/http/$ORIGIN/int.crl is not int.crl"
cmp -s "$W/root.crl" "$MIR/http/$ORIGIN/root.crl" || fail "mirror/http/$ORIGIN/root.crl is not root.crl"
cmp -s "$W/part.crl" "$MIR/http/$ORIGIN/crl/part.crl" || fail "mirror/http/$ORIGIN/crl/part.crl is not part.crl"
[ "$(stat -c %a "$MIR/http/$ORIGIN/int.crl")" = 644 ] || fail "mirror file not mode 0644"
m1=$(stat -c %Y.%i "$MIR/http/$ORIGIN/int.crl")
sleep 1.1
assert_exit 0 cc mirror "$MIR"
assert_grep 'mirror: 0 written, 5 unchanged' "$W/last.err"
[ "$(stat -c %Y.%i "$MIR/http/$ORIGIN/int.crl")" = "$m1" ] || fail "an unchanged CRL was rewritten"
case_ok "mirror writes DIR/scheme/host:port/path, leaves the same content alone"

# ---------------------------------------------------------------- nginx
NGPORT=$(closed_port)
nginx_start "$NGPORT" "
    access_log $NG/access.log;
    server {
        listen 127.0.0.1:$NGPORT;
        root $MIR;
    }"

# ---------------------------------------------------------------- host B
httpd_stop         # air gap: the origin is gone
STATE=$W/hostB CONF=$W/hostB.conf
write_conf "${srcs[@]}" "mirror = http://127.0.0.1:$NGPORT"
assert_exit 0 cc update
assert_grep '5 sources, 4 updated, 1 unchanged, 0 failed' "$W/last.err"
assert_grep "\"GET /http/$ORIGIN/int.crl HTTP/1.1\" 200" "$NG/access.log"
assert_grep "\"GET /http/$ORIGIN/crl/part.crl HTTP/1.1\" 200" "$NG/access.log"
check_is revoked 1 "$PKI/rev1.pem"
check_is good 0 "$PKI/good1.pem"
check_is revoked 1 "$PKI/prev.pem"      # the partition, IDP = origin URL
check_is revoked 1 "$PKI/drev.pem"      # the delta, on the base from alt/
cc status >"$W/status.out" 2>&1
assert_grep "^crl $BASE_URL/zdelta.crl scope=all entries=2 .* delta" "$W/status.out"
assert_grep "^source $BASE_URL/int.crl ok " "$W/status.out"
assert_grep "^source $PART ok " "$W/status.out"
case_ok "host B, origin stopped, gets the CRLs from nginx under the origin URLs"

# conditional GET against the mirror: nginx answers 304
assert_exit 0 cc update
assert_grep '5 sources, 0 updated, 5 unchanged, 0 failed' "$W/last.err"
assert_grep "\"GET /http/$ORIGIN/int.crl HTTP/1.1\" 304" "$NG/access.log"
case_ok "conditional GET through the mirror"

# A mirror is not trusted: a CRL altered on it is refused, B keeps its data.
f=$MIR/http/$ORIGIN/int.crl
python3 -c 'import sys; b=bytearray(open(sys.argv[1],"rb").read()); b[-1]^=1; open(sys.argv[1]+".t","wb").write(b)' "$f"
mv "$f.t" "$f"; touch -d '+1 min' "$f"
cc update >"$W/upd.out" 2>"$W/upd.err"; rc=$?
[ "$rc" -eq 1 ] || { cat "$W/upd.err" >&2; fail "update accepted an altered CRL from the mirror (exit $rc)"; }
assert_grep -i "crlcache: $BASE_URL/int.crl: .*signature" "$W/upd.err"
check_is revoked 1 "$PKI/rev1.pem"
case_ok "an altered CRL on the mirror is refused"

# A URL with no name on a mirror is not fetched from anywhere.
STATE=$W/hostQ CONF=$W/hostQ.conf
write_conf "url = $BASE_URL/int.crl?x=1" "anchor = $PKI/root/cert.pem" \
    "mirror = http://127.0.0.1:$NGPORT/"
assert_exit 1 cc update
assert_grep "crlcache: $BASE_URL/int.crl\\?x=1: not fetched: no name on the mirror: a query" "$W/last.err"
case_ok "a URL with a query is not fetched through the mirror"
# A CRL missing on the mirror: the error names the mirror's URL.
STATE=$W/hostB CONF=$W/hostB.conf
mv "$MIR/http/$ORIGIN/root.crl" "$W/root.crl.away"
assert_exit 1 cc update
assert_grep "crlcache: $BASE_URL/root.crl: from the mirror, http://127.0.0.1:$NGPORT/http/$ORIGIN/root.crl: HTTP status 404" "$W/last.err"
mv "$W/root.crl.away" "$MIR/http/$ORIGIN/root.crl"
case_ok "a failure names the mirror"

# ---------------------------------------------------------------- hostile
# Sources whose paths decode to "..", to a '/' or NUL, or that carry a
# query or a malformed escape (the test server maps paths to files
# verbatim): skipped and named, nothing written.
httpd_start
hostile=("a/%2e%2e/evil.crl" "x%2Fy.crl" "n%00.crl" "q.crl?v=1" "bad%zz.crl")
STATE=$W/hostC CONF=$W/hostC.conf
write_conf "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem"
for h in "${hostile[@]}"; do
    serve "$W/int.crl" "${h%%\?*}"
    echo "url = $BASE_URL/$h" >>"$CONF"
done
assert_exit 1 cc update    # int's CDP, root.crl, named the first origin
assert_grep '6 sources, 1 updated, 4 unchanged, 1 failed' "$W/last.err"
mkdir -m 755 "$W/mirC"
assert_exit 0 cc mirror "$W/mirC"
assert_grep 'evil.crl: skipped: an empty, "." or ".." path segment' "$W/last.err"
assert_grep 'x%2Fy.crl: skipped: an encoded NUL or ./.' "$W/last.err"
assert_grep 'n%00.crl: skipped: an encoded NUL or ./.' "$W/last.err"
assert_grep 'q.crl\?v=1: skipped: a query or fragment' "$W/last.err"
assert_grep 'bad%zz.crl: skipped: a malformed percent-encoding' "$W/last.err"
assert_grep 'mirror: 0 written, 0 unchanged, 5 skipped' "$W/last.err"
[ -z "$(find "$W/mirC" -type f)" ] || fail "a file was written for a '..' URL: $(find "$W/mirC")"
[ ! -e "$W/mirC/http/$ORIGIN/evil.crl" ] || fail "'..' was followed"
# A symbolic link in DIR is never followed: DIR/http -> elsewhere.
STATE=$W/hostA CONF=$W/hostA.conf
mkdir -m 755 "$W/mirL" "$W/elsewhere"
ln -s "$W/elsewhere" "$W/mirL/http"
assert_exit 1 cc mirror "$W/mirL"
assert_grep 'mirror: 0 written, 0 unchanged, 0 skipped, 5 failed' "$W/last.err"
[ -z "$(ls -A "$W/elsewhere")" ] || fail "mirror wrote through a symbolic link: $(ls -A "$W/elsewhere")"
# ... nor a link in the last component: it is replaced, its target untouched.
mkdir -m 755 "$W/mirF"
assert_exit 0 cc mirror "$W/mirF"
echo keep >"$W/target"
ln -sf "$W/target" "$W/mirF/http/$ORIGIN/int.crl"
assert_exit 0 cc mirror "$W/mirF"
[ "$(cat "$W/target")" = keep ] || fail "mirror wrote through a symbolic link as the file"
[ -f "$W/mirF/http/$ORIGIN/int.crl" ] && [ ! -L "$W/mirF/http/$ORIGIN/int.crl" ] \
    || fail "the link was not replaced by the CRL"
case_ok "hostile names and symbolic links in DIR"
finish
