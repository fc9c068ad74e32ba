#!/usr/bin/env bash
# caIssuers followed level by level, and its bounds: hints proven with no
# issuer directory and no configured intermediate, every intermediate
# found only through the caIssuers URL of the certificate below it.
#   1. three intermediates (leaf -> I3 -> I2 -> I1 -> root): the hint is
#      proven in one run with three fetches, its issuer I3 enrolled;
#   2. four intermediates: past three levels (aia.c AIA_MAX_LEVELS) the
#      walk stops, the hint is refused (named by serial and issuer), and
#      the fourth level's URL is never asked for;
#   3. a certificate naming 8 caIssuers URLs that give nothing, with its
#      writer's whole share of fetches (3) spent on them, is refused, not
#      left waiting to spend the same in every run;
#   4. a hint whose path needs more fetches than its writer has left (an
#      older hint of the same writer spent one) waits, and the next run
#      proves it.
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
pki_root root "/CN=Levels Root/O=crlcache tests"
# chain PREFIX N: PREFIX1 under the root ... PREFIXN under PREFIX(N-1),
# each serving its certificate at BASE/PREFIXk.der and naming its
# parent's URL as its own caIssuers
chain() {
    local p=$1 n=$2 k parent=root aia=""
    for k in $(seq 1 "$n"); do
        pki_ca "$p$k" "$parent" "/CN=Levels $p$k/O=crlcache tests" ${aia:+aia=$aia}
        openssl x509 -in "$PKI/$p$k/cert.pem" -outform DER -out "$W/$p$k.der"
        serve "$W/$p$k.der" "$p$k.der"
        parent=$p$k aia=$BASE_URL/$p$k.der
    done
}
chain a 3
pki_leaf la a3 "/CN=la.test" cdp="$BASE_URL/a3.crl" aia="$BASE_URL/a3.der"
chain b 4
chain c 1
pki_leaf lc c1 "/CN=lc.test" cdp="$BASE_URL/c1.crl" aia="$BASE_URL/c1.der"
pki_leaf lb b4 "/CN=lb.test" cdp="$BASE_URL/b4.crl" aia="$BASE_URL/b4.der"
write_conf "anchor = $PKI/root/cert.pem" "allow_private_urls = yes"
enrolled() { grep -q "^issuer $(openssl x509 -in "$PKI/$1/cert.pem" -outform DER |
    sha256sum | cut -c1-64) " "$STATE/work/enrolled" 2>/dev/null; }

# 1. three intermediates
hint "$PKI/la.pem" >/dev/null
cc -v update --hints >"$W/last.out" 2>"$W/last.err"	# a3.crl is not served
if enrolled a3 && [ "$(requests_for '/a[123]\.der ')" = 3 ]; then
    case_ok "three intermediates above a hint: proven with three caIssuers fetches"
else
    cat "$W/last.err"; case_fail three "a3 not enrolled, or $(requests_for '/a[123]\.der ') fetches"
fi

# 2. four intermediates: three levels, then the walk stops
rm -rf "$STATE"
hint "$PKI/lb.pem" >/dev/null
assert_exit 0 cc -v update --hints
assert_grep 'hint CN=lb.test \(serial [0-9A-F]+ of O=crlcache tests,CN=Levels b4\): refused: ' "$W/last.err"
if [ "$(requests_for '/b1\.der ')" = 0 ] && [ "$(requests_for '/b[234]\.der ')" = 3 ]; then
    case_ok "four intermediates: three levels followed, the fourth URL never asked for, refused"
else
    case_fail four "caIssuers requests: $(grep -c '/b[1234]\.der ' "$HTTPD_LOG")"
fi

# 3. more caIssuers URLs than a writer's share, all dead
rm -rf "$STATE"
aia=$(for i in 1 2 3 4 5 6 7 8; do printf 'caIssuers;URI:%s/dead%d.der,' "$BASE_URL" "$i"; done)
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$W/dead.key" \
    -subj "/CN=dead.test" -days 30 -addext "authorityInfoAccess=${aia%,}" -out "$W/dead.pem" \
    2>/dev/null || fail "cannot make the certificate of dead URLs"
hint "$W/dead.pem" >/dev/null
assert_exit 0 cc -v update --hints
assert_grep 'hint CN=dead.test \(serial [0-9A-F]+ of CN=dead.test\): refused: its path is only to be found through caIssuers' "$W/last.err"
n=$(requests_for '/dead[0-9]\.der ')
assert_exit 0 cc -v update --hints
if [ "$n" = 3 ] && [ "$(requests_for '/dead[0-9]\.der ')" = 3 ] &&
    [ -z "$(find "$STATE/work/hints.queue" -type f 2>/dev/null)" ]; then
    case_ok "8 dead caIssuers URLs: the writer's 3 fetches spent, the hint refused and gone"
else
    case_fail dead "$n fetches, then $(requests_for '/dead[0-9]\.der '); queue: $(find "$STATE/work/hints.queue" -type f)"
fi

# 4. the writer's share cut short by its older hint: waits, then proven
rm -rf "$STATE"
touch -d '-2 minutes' "$STATE/hints/$(hint "$PKI/lc.pem").crt"
hint "$PKI/la.pem" >/dev/null
cc -v update --hints >"$W/last.out" 2>"$W/last.err"
assert_grep 'hint CN=la.test \(serial [0-9A-F]+ of O=crlcache tests,CN=Levels a3\): waits: its path is only to be found through caIssuers' "$W/last.err"
enrolled c1 || fail "the older hint was not proven"
cc -v update --hints >"$W/last.out" 2>"$W/last.err"
if enrolled a3; then
    case_ok "a hint whose writer's share was cut short waits, and the next run proves it"
else
    cat "$W/last.err"; case_fail wait "la.test was not proven by the next run"
fi
finish
