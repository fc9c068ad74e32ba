#!/usr/bin/env bash
# Bandwidth follows CRLite: two CAs, each partitioned into PARTS CRLs
# that the issuer directory lists in full (the CCADB's "JSON Array of
# Partitioned CRLs"); a CRLite filter enrols the first (crlite) and not
# the second (plain).  A program under the provider meets a leaf of
# each that nothing answers for (crlite's is younger than the filter's
# coverage, plain's has no SCT) and leaves a hint; the fast run then
#   - fetches plain's every partition, as without CRLite;
#   - fetches only the partition of crlite's hinted leaf (its own
#     distribution point), none of the others, and no CRL at all for a
#     leaf the filter answers (no hint is left);
# and `crlcache check` answers for the young leaf from that partition.
# crl_fresh = FILE (crlite's certificate) and crl_fresh = all put crlite
# back on all its partitions; two days past the hint (faketime), a full
# update fetches every CRL of crlite's CA while the filter is stale and
# none of them once a fresh set is installed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
PARTS=6
httpd_start
LOG_A=$(printf 'a1%.0s' $(seq 32))
NOW_MS=$(( $(now_epoch) * 1000 )); DAY_MS=86400000
LOW=$(( NOW_MS - DAY_MS )); HIGH=$(( NOW_MS - DAY_MS / 2 ))
YEAR=$(date -u +%Y)

pki_root root "/CN=Bandwidth Root/O=crlcache tests"
pki_gencrl root "$W/root.crl"
serve "$W/root.crl" root.crl
ROOT=$PKI/root/cert.pem
ccadb_row "$ROOT" type=root full="$BASE_URL/root.crl"
# part_ca NAME: PARTS partitions /NAME/pI.crl, all in the directory;
# the CA's revocations in partition 3.
part_ca() {
    local ca=$1 i urls=() db
    pki_ca "$ca" root "/CN=Bandwidth $ca CA/O=crlcache tests" cdp="$BASE_URL/root.crl" keytype=rsa
    mkdir -p "$HTTPD_ROOT/$ca"
    : >"$W/$ca.empty.txt"
    for i in $(seq 1 "$PARTS"); do urls+=("$BASE_URL/$ca/p$i.crl"); done
    ccadb_row "$PKI/$ca/cert.pem" parent="$ROOT" parts="$(IFS=,; echo "${urls[*]}")"
}
gen_parts() {
    local ca=$1 i db
    for i in $(seq 1 "$PARTS"); do
        db=$PKI/$ca/index.txt; [ "$i" = 3 ] || db=$W/$ca.empty.txt
        pki_gencrl "$ca" "$HTTPD_ROOT/$ca/p$i.crl" db="$db" idp="$BASE_URL/$ca/p$i.crl" number=10
    done
}
sct_leaf() {   # sct_leaf NAME CA PART [SCTS]
    prov_leaf "$1" "$2" "$1.test" cdp="$BASE_URL/$2/p$3.crl"
    if [ -n "${4:-}" ]; then
        "$PY" "$TESTDIR/crlite_pki.py" sctext "$4" >>"$PKI/$1.ext" || fail "sctext"
        _issue "$2" "$PKI/$1.csr" "$PKI/$1.pem" "$PKI/$1.ext"
    fi
}
part_ca crlite
part_ca plain
sct_leaf young crlite 3 "$LOG_A:$NOW_MS"          # past the coverage
sct_leaf old crlite 5 "$LOG_A:$(( LOW + 1000 ))"   # answered: good
sct_leaf nosct plain 2
pki_revoke crlite "$PKI/young.pem" reason=keyCompromise
gen_parts crlite
gen_parts plain
"$PY" "$TESTDIR/crlite_pki.py" filter "$W/test.filter" 4 "$LOG_A:$LOW:$HIGH" \
    "$PKI/crlite/cert.pem" "$PKI/old.pem=good" || fail "filter build"
ccadb_write "$W/ccadb" "$YEAR"
for f in "$W"/ccadb/*.csv; do serve "$f" "ccadb/$(basename "$f")"; done
base_conf=("anchor = $ROOT" "allow_private_urls = yes" "url = $BASE_URL/root.crl"
    "ccadb_records = $BASE_URL/ccadb/records.csv" "ccadb_pems = $BASE_URL/ccadb/pems-{year}.csv"
    "ccadb_since = $YEAR")
write_conf "${base_conf[@]}"
assert_exit 0 cc update
"$PY" "$TESTDIR/crlite_set.py" "$STATE" "$W/test.filter" || fail "crlite_set.py"
parts_fetched() {   # parts_fetched CA: distinct partitions of CA asked for
    grep -o "GET /$1/p[0-9]*\.crl" "$HTTPD_LOG" | sort -u | wc -l
}
[ "$(parts_fetched crlite)" = 0 ] && [ "$(parts_fetched plain)" = 0 ] \
    || fail "the first update fetched partitions of CAs nobody met"

# A program meets the three leaves (no wait: learn_wait = 0).
meet() {
    px --set learn_wait=0 -- openssl verify -CAfile "$ROOT" -untrusted "$PKI/$2/cert.pem" \
        "$PKI/$1.pem" >"$W/verify.out" 2>&1 || { cat "$W/verify.out"; fail "verify $1"; }
}
meet old crlite
[ -z "$(ls -A "$STATE/hints" 2>/dev/null)" ] \
    && case_ok "a leaf the filter answers leaves no hint" \
    || case_fail old-hint "$(ls "$STATE/hints")"
meet young crlite
meet nosct plain
: >"$HTTPD_LOG"
assert_exit 0 cc update --hints
young=$(grep -c "GET /crlite/p3\.crl" "$HTTPD_LOG" || :)
[ "$(parts_fetched crlite)" = 1 ] && [ "$young" -ge 1 ] \
    && case_ok "CRLite's CA: only the young leaf's partition fetched (1 of $PARTS)" \
    || { grep GET "$HTTPD_LOG"; case_fail crlite-parts "$(parts_fetched crlite) of $PARTS"; }
[ "$(parts_fetched plain)" = "$PARTS" ] \
    && case_ok "a CA CRLite does not enrol: all $PARTS partitions fetched, as before" \
    || case_fail plain-parts "$(parts_fetched plain) of $PARTS"
check_is 'revoked' 1 --chain "$PKI/crlite/cert.pem" "$PKI/young.pem"
case_ok "the young leaf answered from its partition's CRL"

# A full update: the same (hinted partition only, plain all of them).
: >"$HTTPD_LOG"
assert_exit 0 cc update
[ "$(parts_fetched crlite)" = 1 ] && [ "$(parts_fetched plain)" = "$PARTS" ] \
    && case_ok "a full update keeps to the hinted partition" \
    || case_fail full-update "crlite $(parts_fetched crlite), plain $(parts_fetched plain)"

# The administrator's choice: every CRL of the CA named, or of all.
for fresh in "$PKI/crlite/cert.pem" all; do
    write_conf "${base_conf[@]}" "crl_fresh = $fresh"
    : >"$HTTPD_LOG"
    assert_exit 0 cc update
    [ "$(parts_fetched crlite)" = "$PARTS" ] \
        && case_ok "crl_fresh = $(basename "$fresh"): all $PARTS partitions of CRLite's CA" \
        || case_fail "fresh-$(basename "$fresh")" "$(parts_fetched crlite) of $PARTS"
done
write_conf "${base_conf[@]}" "crl_fresh = $W/missing.pem"
assert_exit 1 cc update
grep -q "crl_fresh" "$W/last.err" && case_ok "an unreadable crl_fresh file: said, the run fails, every CRL fetched" \
    || { cat "$W/last.err"; case_fail fresh-missing "no word of crl_fresh"; }

# Two days on, nothing hinted since.  The filter's data (to 12 hours
# ago) is stale by then (include/crlcache/crlite.h FRESHNESS): every
# partition of CRLite's CA, as without CRLite.  With a set as fresh as
# Mozilla's would be: no CRL of CRLite's CA.
write_conf "${base_conf[@]}"
if command -v faketime >/dev/null; then
    late() {
        : >"$HTTPD_LOG"
        NO_FAKE_STAT=1 DONT_FAKE_MONOTONIC=1 faketime -f +50h \
            "$CRLCACHE" -c "$CONF" --state-dir "$STATE" update >"$W/late.out" 2>&1 \
            || { cat "$W/late.out"; fail "update two days on"; }
    }
    late
    [ "$(parts_fetched crlite)" = "$PARTS" ] && [ "$(parts_fetched plain)" = "$PARTS" ] &&
        grep -q 'CRLite data .* stale since' "$W/late.out" \
        && case_ok "two days on, the set stale: all $PARTS partitions of CRLite's CA fetched again" \
        || { cat "$W/late.out"; case_fail stale "crlite $(parts_fetched crlite), plain $(parts_fetched plain)"; }
    "$PY" "$TESTDIR/crlite_pki.py" filter "$W/late.filter" 4 "$LOG_A:$LOW:$((NOW_MS + 44 * 3600000))" \
        "$PKI/crlite/cert.pem" "$PKI/old.pem=good" || fail "filter build"
    NO_FAKE_STAT=1 DONT_FAKE_MONOTONIC=1 faketime -f +50h \
        "$PY" "$TESTDIR/crlite_set.py" "$STATE" "$W/late.filter" || fail "crlite_set.py"
    late
    [ "$(parts_fetched crlite)" = 0 ] && [ "$(parts_fetched plain)" = "$PARTS" ] \
        && case_ok "two days after the last hint, a fresh set: none of CRLite's CA's CRLs fetched" \
        || case_fail late "crlite $(parts_fetched crlite), plain $(parts_fetched plain)"
else
    note "faketime not installed: the two-day case not tested"
fi
finish
