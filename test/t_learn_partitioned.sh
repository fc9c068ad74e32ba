#!/usr/bin/env bash
# The first contact with a CA partitioned into PARTS CRLs (default 100),
# each certificate's distribution point its partition, all of them listed
# in the issuer directory (the CCADB's "JSON Array of Partitioned CRLs"),
# every HTTP answer held 50 ms (httpd.py --delay): the fast run the
# spool's watcher starts (`update --hints`, run as crlcache-hints.service
# runs it) publishes first the partition of the hinted certificate, then
# the rest of the issuer's CRLs.  A revoked server of a never-met CA is
# refused at the first handshake (s_client -verify_return_error, curl),
# answered while the fast run still fetches the other partitions (the
# server's request log has fewer than PARTS of them when the client is
# done); a good one is accepted, and what its first handshake took more
# than the next one is printed (and for the benchmark, firstcontact.sh,
# what a client without crlcache takes).  Asserted is only that it was
# answered within learn_wait, not how fast (tests do not time).
#   PARTS=N             partitions per CA (1: one full CRL)
#   FIRSTCONTACT_CAS=N  never-met good CAs timed (default 1)
#   REAL_DIRECTORY=1    the directory holds the real CCADB too (the 33 PEM
#                       reports of test/data/ccadb-real, a records report
#                       made from them by test/bench/ccadb_records.py, whose
#                       CRL URLs are never asked for; Debian 12's anchors
#                       but the 11 with CRL distribution points): some
#                       3,900 entries, as on a real host (firstcontact.sh)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
PARTS=${PARTS:-100}
CAS=${FIRSTCONTACT_CAS:-1}
# The provider's default learn_wait (crlcache-provider(7)).
LEARN_WAIT=2000
HTTPD_DELAY=0.05 httpd_start
# The watcher looks at the spool as often as inotify would (near enough).
HINTS_POLL=0.02
YEAR=$(date -u +%Y)

pki_root root "/CN=Partitioned Root/O=crlcache tests"
pki_gencrl root "$W/root.crl"
serve "$W/root.crl" root.crl
ROOT=$PKI/root/cert.pem
ccadb_row "$ROOT" type=root full="$BASE_URL/root.crl"
# part_ca NAME: a CA whose CRLs are the PARTS partitions /NAME/pI.crl (IDP
# fullName the URL), listed in the directory, with a revoked leaf
# NAME-rev in partition REV_PART and a good leaf NAME-good in the last.
REV_PART=$(( PARTS * 37 / 100 + 1 ))
part_ca() {
    local ca=$1 i urls=() db
    pki_ca "$ca" root "/CN=Partitioned $ca CA/O=crlcache tests" cdp="$BASE_URL/root.crl"
    prov_leaf "$ca-rev" "$ca" "$ca-rev.test" cdp="$BASE_URL/$ca/p$REV_PART.crl"
    prov_leaf "$ca-good" "$ca" "$ca-good.test" cdp="$BASE_URL/$ca/p$PARTS.crl"
    pki_revoke "$ca" "$PKI/$ca-rev.pem"
    mkdir -p "$HTTPD_ROOT/$ca"
    : >"$W/$ca.empty.txt"
    for i in $(seq 1 "$PARTS"); do
        # The CA's own database (the revoked leaf) in its partition only.
        db=$PKI/$ca/index.txt; [ "$i" = "$REV_PART" ] || db=$W/$ca.empty.txt
        pki_gencrl "$ca" "$HTTPD_ROOT/$ca/p$i.crl" db="$db" idp="$BASE_URL/$ca/p$i.crl" number=10
        urls+=("$BASE_URL/$ca/p$i.crl")
    done
    ccadb_row "$PKI/$ca/cert.pem" parent="$ROOT" parts="$(IFS=,; echo "${urls[*]}")"
}
GOOD=()
for k in $(seq 1 "$CAS"); do GOOD+=("good$k"); done
for ca in sclient curl "${GOOD[@]}"; do part_ca "$ca"; done
SINCE=$YEAR ANCHORS=$ROOT REAL=()
if [ -n "${REAL_DIRECTORY:-}" ]; then
    python3 -c 'import cryptography' 2>/dev/null || skip "python3-cryptography missing"
    mkdir -p "$W/real"
    tar -xJf "$TESTDIR/data/ccadb-real/pems.tar.xz" -C "$W/real" || fail "cannot unpack the real CCADB"
    python3 "$TESTDIR/bench/ccadb_records.py" "$TESTDIR/data/ccadb/records-v5.csv" \
        "$W/real/records.csv" "$W"/real/pems-*.csv || fail "cannot make the real records report"
    awk -v d="$W/real" '/BEGIN CERT/ { c = "" } { c = c $0 "\n" } /END CERT/ { print c > sprintf("%s/deb%03d.pem", d, ++n) }' \
        "$TESTDIR/data/ccadb-real/anchors-debian12.pem"
    ANCHORS=$W/real/anchors.pem
    for a in "$W"/real/deb*.pem; do
        openssl x509 -in "$a" -noout -ext crlDistributionPoints 2>/dev/null | grep -q URI || cat "$a"
    done >"$ANCHORS"
    cat "$ROOT" >>"$ANCHORS"
    SINCE=1994
    REAL=("ccadb_records = $W/real/records.csv" "ccadb_pems = $W/real/pems-{year}.csv")
fi
ccadb_write "$W/ccadb" "$SINCE"
for f in "$W"/ccadb/*.csv; do serve "$f" "ccadb/$(basename "$f")"; done
write_conf "anchor = $ANCHORS" "allow_private_urls = yes" "url = $BASE_URL/root.crl" ${REAL[@]+"${REAL[@]}"} \
    "ccadb_records = $BASE_URL/ccadb/records.csv" "ccadb_pems = $BASE_URL/ccadb/pems-{year}.csv" \
    "ccadb_since = $SINCE"
# The directory is built; no CA is met yet (enroll = seen): no partition.
assert_exit 0 cc update
[ "$(requests_for '/p[0-9]*\.crl ')" = 0 ] || fail "the full update fetched partitions of CAs nobody met"
rm -rf "${STATE:?}/hints"/*
# The watch's first run writes the learning marker (the path unit's Wants=).
assert_exit 0 cc update --hints

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
waited() { grep -c 'waited [0-9]* ms for crlcache to learn' "$1" || :; }
hints_watch_start
# first_contact CLIENT CA LEAF: one first handshake, timed (TOOK, ms)
first_contact() {
    srv_start "$2" "$3"
    # The service holds the watch after each run: start from an idle one.
    sleep "$HINTS_PAUSE"; sleep 0.5
    local t0; t0=$(date +%s%N)
    "$1" "$(srv_port "$2")" 1.3
    TOOK=$(ms "$t0")
}
# fast_run_done N: wait (30 s at most) for the Nth fast run to end.
fast_run_done() {
    local i n
    for i in $(seq 1 300); do
        n=$(grep -c '^fast run: exit' "$W/fast.log" 2>/dev/null)
        [ "${n:-0}" -ge "$1" ] && return 0
        sleep 0.1
    done
    cat "$W/client.out" "$W/fast.log" 2>/dev/null
    fail "fast run $1 did not end"
}

# 1. Revoked: refused at the first handshake, by the first publish.
runs=0
for client in sclient curl; do
    first_contact "cl_$client" "$client" "$client-rev"
    at_answer=$(requests_for "/$client/p[0-9]*\.crl ")
    runs=$((runs + 1)); fast_run_done "$runs"
    fetched=$(requests_for "/$client/p[0-9]*\.crl ")
    [ "$CLIENT_RC" != 0 ] && grep -qi 'revoked' "$W/client.out" && [ "$(waited "$W/client.out")" = 1 ] \
        && case_ok "$client: the first handshake with a new CA's revoked server is refused ($TOOK ms)" \
        || { cat "$W/client.out" "$W/fast.log"; case_fail "first-$client" "exit $CLIENT_RC"; }
    # Then every partition, in the second publish.
    if [ "$fetched" != "$PARTS" ]; then
        case_fail "rest-$client" "the fast run fetched $fetched of $PARTS partitions"
    elif [ "$PARTS" -gt 1 ] && ! { [ "$at_answer" -lt "$PARTS" ] &&
        grep -q 'update: the 1 CRLs of the hinted certificates published first' "$W/fast.log"; }; then
        case_fail "published-first-$client" "answered after $at_answer of $PARTS partitions were fetched"
    else
        case_ok "$client: answered after $at_answer of the $PARTS partitions were fetched, the rest published next"
    fi
done

# 2. Good: accepted at the first handshake, within learn_wait (answered,
#    not timed out); what it took more than the next one is printed.
#    Without crlcache: the same handshake with no provider.
added=() firsts=() nexts=() bases=()
for ca in "${GOOD[@]}"; do
    first_contact cl_sclient "$ca" "$ca-good"
    cp "$W/client.out" "$W/good.out"
    first=$TOOK rc=$CLIENT_RC
    runs=$((runs + 1)); fast_run_done "$runs"
    t0=$(date +%s%N); cl_sclient "$(srv_port "$ca")" 1.3; next=$(ms "$t0")
    t0=$(date +%s%N)
    openssl s_client -connect "127.0.0.1:$(srv_port "$ca")" -verify_return_error -CAfile "$ROOT" \
        -tls1_3 -servername localhost </dev/null >"$W/plain.out" 2>&1 || fail "a client without crlcache was refused"
    base=$(ms "$t0")
    if [ "$rc" = 0 ] && [ "$CLIENT_RC" = 0 ] && [ "$(waited "$W/good.out")" = 1 ] &&
        ! grep -q 'not covered in time' "$W/good.out" && [ "$first" -lt "$LEARN_WAIT" ]; then
        case_ok "$ca: the first handshake with a new CA's good server succeeds ($first ms; the next one $next ms, added $((first - next)) ms)"
    else
        cat "$W/good.out" "$W/fast.log"; case_fail "first-$ca" "exit $rc, $first ms"
    fi
    note "$(grep -h 'waited' "$W/good.out" | sed 's/.*waited/waited/')"
    added+=($((first - next))) firsts+=("$first") nexts+=("$next") bases+=("$base")
    pid_of=SRV_PID_$ca; kill "${!pid_of}" 2>/dev/null || :
done
hints_watch_stop
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# One line for test/bench/firstcontact.sh: medians over the good CAs.
note "first contact, $PARTS partitions, $CAS CAs (median ms): without crlcache $(median "${bases[@]}"), with $(median "${firsts[@]}"), the next handshake $(median "${nexts[@]}"), added $(median "${added[@]}")"
finish
