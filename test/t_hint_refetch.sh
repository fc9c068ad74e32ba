#!/usr/bin/env bash
# update --hints asks a server again only when what it gave is due,
# whatever the hints say: any user can leave hints of one issuer at will
# (one public certificate in many files, a run every few seconds), and
# every run would otherwise fetch every URL of every issuer it met again.
#   1. a held, current CRL is not fetched again by a hint run, however
#      many hints of its issuer come, in one run or in many;
#   2. a URL that failed is not asked again before hint_refetch has
#      passed since its last attempt, and is after;
#   3. a CRL past its nextUpdate is fetched again, once hint_refetch has
#      passed;
#   4. the timer's full run is not limited: it asks every source;
#   5. a URL whose server said its answer is fresh (Cache-Control
#      max-age, RFC 9111 4.2) is not asked again while it is, even past
#      its CRL's nextUpdate and hint_refetch; one whose answer's Age
#      used up its max-age, or that said no-cache, is.
# The server's request log (test/httpd.py) counts every request.
. "$(dirname "$0")/lib.sh"
need_crlcache
httpd_start
INTERVAL=4
pki_root root "/CN=Refetch Root/O=crlcache tests"
pki_ca intA root "/CN=Refetch CA A/O=crlcache tests"
pki_ca intB root "/CN=Refetch CA B/O=crlcache tests"
pki_ca intC root "/CN=Refetch CA C/O=crlcache tests"
pki_ca intD root "/CN=Refetch CA D/O=crlcache tests"
pki_ca intE root "/CN=Refetch CA E/O=crlcache tests"
pki_ca intF root "/CN=Refetch CA F/O=crlcache tests"
for i in 1 2 3 4 5 6; do pki_leaf "a$i" intA "/CN=a$i.test" cdp="$BASE_URL/intA.crl"; done
for i in 1 2 3; do pki_leaf "b$i" intB "/CN=b$i.test" cdp="$BASE_URL/gone.crl"; done
for i in 1 2; do pki_leaf "c$i" intC "/CN=c$i.test" cdp="$BASE_URL/intC.crl"; done
for x in D E F; do
    for i in 1 2; do pki_leaf "$x$i" "int$x" "/CN=$x$i.test" cdp="$BASE_URL/int$x.crl"; done
    # Past its nextUpdate when asked again: only freshness holds it back.
    pki_gencrl "int$x" "$W/int$x.crl" next="$(gt 3)"
    serve "$W/int$x.crl" "int$x.crl"
done
printf 'Cache-Control: public, max-age=3600\n' >"$HTTPD_ROOT/intD.crl.headers"
printf 'Cache-Control: max-age=3600\nAge: 3599\n' >"$HTTPD_ROOT/intE.crl.headers"
printf 'Cache-Control: max-age=3600, no-cache\n' >"$HTTPD_ROOT/intF.crl.headers"
pki_gencrl intA "$W/intA.crl"
serve "$W/intA.crl" intA.crl
# Current for a few seconds only.
pki_gencrl intC "$W/intC.crl" next="$(gt 3)"
serve "$W/intC.crl" intC.crl
write_conf "anchor = $PKI/root/cert.pem" "allow_private_urls = yes" \
    "untrusted = $PKI/intA/cert.pem" "untrusted = $PKI/intB/cert.pem" \
    "untrusted = $PKI/intC/cert.pem" "untrusted = $PKI/intD/cert.pem" \
    "untrusted = $PKI/intE/cert.pem" "untrusted = $PKI/intF/cert.pem" \
    "hint_refetch = $INTERVAL"
counts() {
    echo "$(requests_for /intA.crl) $(requests_for /gone.crl) $(requests_for /intC.crl)" \
        "$(requests_for /intD.crl) $(requests_for /intE.crl) $(requests_for /intF.crl)"
}
expect() {	# expect "A B C D E F" WHAT
    [ "$(counts)" = "$1" ] ||
        fail "$2: requests for intA, gone, intC, intD, intE, intF: $(counts), expected $1"
}

# The first hints of each issuer: each URL asked once.
hint "$PKI/a1.pem" >/dev/null; hint "$PKI/b1.pem" >/dev/null; hint "$PKI/c1.pem" >/dev/null
for x in D E F; do hint "$PKI/${x}1.pem" >/dev/null; done
t1=$(now_epoch)
# gone.crl's 404 is that URL's failure, not the run's (t_hint_dead_urls).
assert_exit 0 cc -v update --hints
assert_grep '/gone.crl: HTTP status 404 \(a proposed URL: its failure 1 in a row' "$W/last.err"
expect "1 1 1 1 1 1" "first hint run"
check_is good 0 "$PKI/a1.pem"

# 1, 2. Hinted again, in one run and then in three: nothing asked again.
hint "$PKI/a2.pem" >/dev/null; hint "$PKI/a3.pem" >/dev/null; hint "$PKI/b2.pem" >/dev/null
assert_exit 0 cc -v update --hints
assert_grep 'not fetched again' "$W/last.err"
for i in 4 5 6; do
    hint "$PKI/a$i.pem" >/dev/null
    assert_exit 0 cc update --hints
done
expect "1 1 1 1 1 1" "issuers hinted again within hint_refetch"
[ $(( $(now_epoch) - t1 )) -lt "$INTERVAL" ] ||
    note "(the machine was slow: hint_refetch passed during the runs; the counts still hold)"
note "6 hint runs for 6 issuers, 12 hints: each URL asked once"

# 2, 3. After hint_refetch (and intC's nextUpdate): the failed URL and the
#    due CRL are asked again; the current CRL still is not.
sleep $(( t1 + INTERVAL + 1 - $(now_epoch) > 0 ? t1 + INTERVAL + 1 - $(now_epoch) : 0 ))
hint "$PKI/a1.pem" >/dev/null; hint "$PKI/b3.pem" >/dev/null; hint "$PKI/c2.pem" >/dev/null
for x in D E F; do hint "$PKI/${x}2.pem" >/dev/null; done
cc -v update --hints 2>"$W/last.err"
expect "1 2 2 1 2 2" "hint run after hint_refetch"
note "after hint_refetch: the failed URL and the due CRL asked again, the current one not"
note "5. the due CRL whose server said max-age=3600 not asked again; with Age 3599 or no-cache, asked"

# 4. The timer's run asks every source, current or not.
cc update 2>"$W/last.err"
expect "2 3 3 2 3 3" "full update"
note "the full update asks every source"
