#!/usr/bin/env bash
# Who pays for a hint: its writer (the file's owner), never another user.
#   1. one user's self-made certificate with 8 caIssuers URLs, in 63
#      copies, does not spend the run's caIssuers fetches of another
#      user, whose hint (issuer only found through caIssuers) is enrolled;
#   2. hints of 70 distinct uids (uids are not scarce) are all kept and
#      taken: the CRL URL of every one is enrolled, none removed unread;
#   3. 40 distinct hints of one uid (more than a run takes of a writer)
#      wait for the next runs in its queue and are all taken by them.
# Other users are played with setpriv as uids without accounts.
. "$(dirname "$0")/lib.sh"
need_crlcache
command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
[ "$(id -u)" = 0 ] || skip "playing other users needs root"
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --clear-groups "$@"; }
httpd_start
pki_root root "/CN=Fair Root/O=crlcache tests"
pki_ca intP root "/CN=Fair Private CA/O=crlcache tests"
pki_ca intQ root "/CN=Fair CA Q/O=crlcache tests"
pki_leaf v1 intP "/CN=v1.test" cdp="$BASE_URL/intP.crl" aia="$BASE_URL/intP.der"
openssl x509 -in "$PKI/intP/cert.pem" -outform DER -out "$W/intP.der"
serve "$W/intP.der" intP.der
for d in "$W" "$(dirname "$W")"; do
    case $d in */crlcache-*) chmod o+x "$d" ;; esac
done
chmod o+x "$W" "$PKI"
write_conf "anchor = $PKI/root/cert.pem" "untrusted = $PKI/intQ/cert.pem" \
    "allow_private_urls = yes"
assert_exit 0 cc update                     # makes the spool as it ships
chmod o+x "$STATE"
as 40001 test -w "$STATE/hints" || skip "uid 40001 cannot reach the spool"
# put UID FILE: FILE's DER into the spool as UID, under a random name
# run: update, whose CRL fetches fail (only the enrolment is looked at)
run() { cc -v update >"$W/last.out" 2>"$W/last.err" || true; }
put() {
    openssl x509 -in "$2" -outform DER -out "$W/put.der"; chmod 644 "$W/put.der"
    as "$1" cp "$W/put.der" "$STATE/hints/$(openssl rand -hex 16).crt"
}

# 1. The self-made certificate: 8 caIssuers URLs that give nothing.
aia=$(for i in 1 2 3 4 5 6 7 8; do printf 'caIssuers;URI:%s/none%d.der,' "$BASE_URL" "$i"; done)
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$W/self.key" -subj "/CN=self.test" -days 30 \
    -addext "authorityInfoAccess=${aia%,}" -out "$W/self.pem" 2>/dev/null ||
    fail "cannot make the self-made certificate"
openssl x509 -in "$W/self.pem" -outform DER -out "$W/self.der"; chmod 644 "$W/self.der"
as 40001 sh -c 'for i in $(seq 63); do cp "$1" "$2/$(openssl rand -hex 16).crt"; done' \
    sh "$W/self.der" "$STATE/hints"
put 40002 "$PKI/v1.pem"
run
if [ "$(requests_for /intP.der)" -ge 1 ] && grep -q "intP.crl" "$STATE/work/enrolled"; then
    case_ok "63 copies of one user's 8 caIssuers URLs: another user's hint is still proven"
else
    case_fail aia-budget "the victim's hint was not proven: $(grep -E 'hint|caIssuers' "$W/last.err" | tail -3)"
fi
[ "$(grep -c /none "$HTTPD_LOG")" -le 3 ] && case_ok "the self-made certificate spent at most its writer's 3 fetches (AIA_WRITER_MAX)" ||
    case_fail aia-writer "$(grep -c /none "$HTTPD_LOG") caIssuers requests for one writer"

# 2. and 3. Leaves of CA Q, each with a CRL URL of its own.
for i in $(seq 70); do pki_leaf "q$i" intQ "/CN=q$i.test" cdp="$BASE_URL/q$i.crl"; done
for i in $(seq 70); do put $((41000 + i)) "$PKI/q$i.pem"; done
run
n=$(grep -c '^url .*/q[0-9]*\.crl$' "$STATE/work/enrolled")
[ "$n" = 70 ] && case_ok "hints of 70 uids: all 70 taken in one run" ||
    case_fail writers "only $n of 70 uids' hints were taken"
for i in $(seq 40); do pki_leaf "r$i" intQ "/CN=r$i.test" cdp="$BASE_URL/r$i.crl"; done
for i in $(seq 40); do put 42000 "$PKI/r$i.pem"; done
run
n1=$(grep -c '^url .*/r[0-9]*\.crl$' "$STATE/work/enrolled")
waiting=$(find "$STATE/work/hints.queue" -type f | wc -l)
run
n2=$(grep -c '^url .*/r[0-9]*\.crl$' "$STATE/work/enrolled")
[ "$n1" = 32 ] && [ "$waiting" -ge 8 ] && [ "$n2" = 40 ] &&
    case_ok "40 hints of one uid: 32 taken, the rest wait and are taken by the next run" ||
    case_fail waits "one writer's 40 hints: $n1 taken, $waiting waiting, then $n2"
finish
