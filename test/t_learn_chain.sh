#!/usr/bin/env bash
# Real certification paths with two intermediates (leaf -> issuing CA ->
# a root cross-signed by an older root -> Debian 12's anchor), learned
# from hints with no issuer directory (a private or offline host): the
# revoked test sites' chains of the nine CCADB CAs whose paths are that
# deep (test/data/revoke-test: D-TRUST x2, Telia, TUBITAK, SECOM x2,
# T-TeleSec, Let's Encrypt's short-lived chains under ISRG X1 and X2).
#   1. each leaf, hinted alone: caIssuers is followed two levels up, its
#      issuer enrolled and its CRL asked for;
#   2. an issuer enrolled by an earlier run is an intermediate of a later
#      proof: the leaf under YR1 is proven with Root YR's caIssuers URL
#      answering 404, Root YR having been enrolled from a hint of YR1;
#   3. a refused hint with an empty subject (Let's Encrypt's short-lived
#      leaves) is named by its serial and issuer.
# The certificates carry their CAs' real URLs: the test runs in a network
# namespace of its own (loopback only, nothing else to reach), where
# /etc/hosts maps those host names to 127.0.0.1 and test/httpd.py serves,
# at each caIssuers URL of a chain, the next certificate of that chain
# (--vhosts), and at each CRL URL nothing (404).  The leaves expired in
# 2026: the fetcher runs at 2026-07-10 12:00 UTC (faketime), when every
# certificate of the nine paths is valid.  Root only (unshare -n -m).
. "$(dirname "$0")/lib.sh"
need_crlcache
[ "$(id -u)" = 0 ] || skip "root only: a network namespace of its own"
command -v faketime >/dev/null || skip "faketime missing (test/deps.sh)"
{ command -v nsenter && command -v ip; } >/dev/null || skip "nsenter or ip (iproute2) missing"
D=$TESTDIR/data/revoke-test
ANCHORS=$TESTDIR/data/ccadb-real/anchors-debian12.pem
AT="2026-07-10 12:00:00"
WWW=$W/www
HTTPD_LOG=$W/httpd.log
mkdir -p "$WWW" "$W/c"

# uris CERT.pem WHAT: the http URIs of CERT's extension WHAT
uris() {
    openssl x509 -in "$1" -noout -ext "$2" 2>/dev/null |
        sed -n 's/^ *\(CA Issuers - \)\{0,1\}URI:\(http:\/\/.*\)$/\2/p'
}
# at_url URL: the file test/httpd.py --vhosts serves for URL
at_url() {
    local rest=${1#http://} host path
    host=${rest%%/*}; path=${rest#"$host"}; path=${path#/}
    echo "$host" >>"$W/hosts.list"
    case $path in ''|*/) path=${path}index ;; esac
    mkdir -p "$(dirname "$WWW/$host/$path")"
    echo "$WWW/$host/$path"
}
# Every chain: NAME.K.pem its Kth certificate (1: the leaf); each one's
# caIssuers URLs serve the next, its CRL URLs are mapped (and 404).
for f in "$D"/*.pem; do
    n=$(basename "$f" .pem)
    awk -v p="$W/c/$n" '/BEGIN CERT/ { k++ } { print > (p "." k ".pem") }' "$f"
    k=$(grep -c 'BEGIN CERT' "$f")
    for i in $(seq 1 "$k"); do
        for u in $(uris "$W/c/$n.$i.pem" crlDistributionPoints); do at_url "$u" >/dev/null; done
        [ "$i" -lt "$k" ] || continue
        for u in $(uris "$W/c/$n.$i.pem" authorityInfoAccess); do
            openssl x509 -in "$W/c/$n.$((i + 1)).pem" -outform DER -out "$(at_url "$u")" ||
                fail "cannot serve $n.$((i + 1))"
        done
    done
done
sort -u "$W/hosts.list" | sed 's/^/127.0.0.1 /' >"$W/hosts"
printf '127.0.0.1 localhost\n' >>"$W/hosts"

# The namespace: only loopback, and the host names on it.
unshare -n -m --propagation private sh -c \
    'ip link set lo up && mount --bind "$0" /etc/hosts && : >"$1" && exec sleep 3600' \
    "$W/hosts" "$W/ns.ready" 2>"$W/ns.err" &
NS_PID=$!
bg_register "$NS_PID"
for _ in $(seq 1 100); do [ -e "$W/ns.ready" ] && break; kill -0 "$NS_PID" 2>/dev/null || break; sleep 0.05; done
[ -e "$W/ns.ready" ] || skip "no network namespace of its own: $(head -n 1 "$W/ns.err")"
in_ns() { nsenter -t "$NS_PID" -n -m -r -w "$@"; }
# (not through in_ns: $! must be the server itself, for the cleanup)
nsenter -t "$NS_PID" -n -m -r -w python3 "$TESTDIR/httpd.py" --root "$WWW" --port 80 --vhosts \
    --port-file "$W/port" --log "$HTTPD_LOG" 2>"$W/httpd.err" &
bg_register "$!"
for _ in $(seq 1 100); do [ -s "$W/port" ] && break; sleep 0.05; done
[ -s "$W/port" ] || fail "the namespace's HTTP server did not start: $(cat "$W/httpd.err")"
in_ns getent hosts yr1.i.lencr.org | grep -q '^127\.0\.0\.1 ' || fail "the namespace does not map the CAs' host names"

write_conf "anchor = $ANCHORS" "allow_private_urls = yes"
# learn CERT.pem: a fresh hint of CERT, one update --hints at $AT (exit
# status in RC, its log in $W/last.err)
learn() {
    hint "$1" >/dev/null
    in_ns faketime "$AT" "$CRLCACHE" --state-dir "$STATE" -c "$CONF" -v update --hints \
        >"$W/last.out" 2>"$W/last.err"
    RC=$?
}
enrolled() {	# enrolled CA.pem: is CA's certificate in work/enrolled?
    local fp
    fp=$(openssl x509 -in "$1" -outform DER | sha256sum | cut -c1-64)
    grep -q "^issuer $fp " "$STATE/work/enrolled" 2>/dev/null
}

# 1. Each leaf alone, on a host that has learned nothing.
for f in "$D"/*.pem; do
    n=$(basename "$f" .pem)
    rm -rf "$STATE"
    crl=$(uris "$W/c/$n.1.pem" crlDistributionPoints | head -n 1)
    before=$(requests_for "GET $crl ")
    learn "$W/c/$n.1.pem"
    if grep -q 'hints: 1 arrived, 1 read, 1 enrolled' "$W/last.err" && enrolled "$W/c/$n.2.pem" &&
        [ "$(requests_for "GET $crl ")" -gt "$before" ]; then
        case_ok "$n: a leaf two intermediates below the anchor is proven through caIssuers, its issuer enrolled, its CRL asked for"
    else
        sed 's/^/    /' "$W/last.err" >&2
        case_fail "$n" "not proven (exit $RC)"
    fi
done

# 2. An enrolled issuer is an intermediate: YR1 hinted first (its issuer
#    Root YR, from YR1's caIssuers, chains to ISRG Root X1 and is
#    enrolled), then Root YR's caIssuers URL answers 404 and the leaf
#    under YR1 is hinted.
rm -rf "$STATE"
X1=$W/c/isrg-root-x1
learn "$X1.2.pem"
enrolled "$X1.3.pem" || { cat "$W/last.err" >&2; fail "Root YR was not enrolled from a hint of YR1"; }
for u in $(uris "$X1.2.pem" authorityInfoAccess); do echo 404 >"$(at_url "$u").status"; done
before=$(requests_for 'GET http://yr.i.lencr.org/ ')
learn "$X1.1.pem"
if enrolled "$X1.2.pem" && [ "$(requests_for 'GET http://yr.i.lencr.org/ ')" = "$before" ]; then
    case_ok "an issuer enrolled by an earlier run is an intermediate of the next proof (Root YR under ISRG Root X1)"
else
    sed 's/^/    /' "$W/last.err" >&2
    case_fail "enrolled-intermediate" "the leaf under YR1 was not proven (exit $RC)"
fi

# 3. A refused hint of a leaf with an empty subject: named by serial and
#    issuer (its caIssuers URL answers 404: no issuer to be found).
rm -rf "$STATE"
X2=$W/c/isrg-root-x2
for u in $(uris "$X2.1.pem" authorityInfoAccess); do echo 404 >"$(at_url "$u").status"; done
serial=$(openssl x509 -in "$X2.1.pem" -noout -serial | sed 's/^serial=//')
learn "$X2.1.pem"
assert_grep "hint serial $serial of CN=YE2,O=Let's Encrypt,C=US: refused: " "$W/last.err"
case_ok "a refused hint with an empty subject names its serial and issuer"
finish
