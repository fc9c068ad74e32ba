#!/usr/bin/env bash
# Polling Remote Settings as Firefox does (fetcher/rsclient.c): hourly
# runs of `update` under faketime against a server that never answers
# 304 (httpd.py --no-304), then one that does, each for RS_DAYS days
# (2; test/bench/rs_polling.sh runs a week).  The server holds Firefox's
# OneCRL dump (1,959 records, 1.1 MB: test/data/onecrl) and a CRLite
# collection that gains a 175 kB delta every 12 hours (Mozilla's rhythm,
# DESIGN 4a); on day 2 a OneCRL record is deleted (a tombstone reaches
# the client, merged away: one entry less).  Bytes a day are counted
# from what the server sent (httpd.py's log), from day 2 on (the first
# run's full download is the first day's), and must be at most 0.5 MB.
# The old polling (each collection asked whole every hour unless a 304)
# costs several MB a day against such a server.
. "$(dirname "$0")/lib.sh"
need_crlcache
command -v faketime >/dev/null || skip "faketime not installed (test/deps.sh)"
python3 -c 'import cryptography' 2>/dev/null || skip "python3-cryptography not installed"
DAYS=${RS_DAYS:-2}
LIMIT=500000
DELTA_BYTES=175000
cs_chain
python3 "$TESTDIR/clubcard_build.py" suite "$W/cc" >/dev/null || fail "clubcard_build.py"
python3 - "$TESTDIR/data/onecrl/onecrl.json" "$W/onecrl1.json" "$W/onecrl2.json" <<'PY' || fail "onecrl lists"
import json, sys
doc = json.load(open(sys.argv[1]))
recs = doc["data"] if isinstance(doc, dict) else doc
json.dump(recs, open(sys.argv[2], "w"))
json.dump(recs[1:], open(sys.argv[3], "w"))
PY
for ((h = 12; h <= 24 * DAYS; h += 12)); do
    python3 "$TESTDIR/crlite_pki.py" pad "$W/cc/main.v4" "$W/d$h.filter" $((DELTA_BYTES + h)) ||
        fail "pad"
done
T0=1760000000000
# publish H: the collections as they stand at hour H
publish() {
    local specs=(F="$W/cc/full.v3") parent=F d onecrl=$W/onecrl1.json
    for ((d = 12; d <= $1; d += 12)); do specs+=("D$d=$W/d$d.filter:$parent"); parent=D$d; done
    [ "$1" -lt 30 ] || onecrl=$W/onecrl2.json
    python3 "$TESTDIR/remotesettings.py" "$HTTPD_ROOT" "$BASE_URL" "$W/cs/ee.key" \
        "$W/cs/chain.pem" $((T0 + $1 * 3600000)) "${specs[@]}" --onecrl "$onecrl" ||
        fail "remotesettings.py"
}
entries() { cc status 2>/dev/null | sed -n 's/^onecrl entries=\([0-9]*\) .*/\1/p'; }

# per_day NAME: RS_DAYS days of hourly runs from an empty state; the
# bytes a day from day 2 on to $W/NAME.bytes
per_day() {
    local h n0 bytes e1
    rm -rf "$STATE" "$W/www"; mkdir -p "$STATE"
    httpd_start
    write_conf "crlite = $BASE_URL/v1/" "crlite_root = $CS_ROOT_FP" \
        "allow_private_urls = yes" "enroll = none"
    for ((h = 0; h < 24 * DAYS; h++)); do
        [ $((h % 12)) != 0 ] && [ "$h" != 30 ] || publish "$h"
        [ "$h" != 24 ] || { n0=$(wc -l <"$HTTPD_LOG"); e1=$(entries); }
        NO_FAKE_STAT=1 DONT_FAKE_MONOTONIC=1 faketime -f "+${h}h" \
            "$CRLCACHE" --state-dir "$STATE" -c "$CONF" update >>"$W/$1.out" 2>&1 ||
            { tail -n 20 "$W/$1.out"; fail "$1: update at hour $h"; }
    done
    bytes=$(tail -n +$((n0 + 1)) "$HTTPD_LOG" |
        awk '{ b = $NF; sub(/^bytes=/, "", b); if (b != "-") s += b } END { print s + 0 }')
    [ "$(entries)" = $((e1 - 1)) ] || fail "$1: the deleted OneCRL record is still in force"
    grep -q "filters=$((1 + 2 * DAYS - 1)) " <(cc status 2>/dev/null) ||
        { cc status; fail "$1: the last delta is not installed"; }
    httpd_stop
    echo $((bytes / (DAYS - 1))) >"$W/$1.bytes"
}
for mode in no-304 304; do
    if [ "$mode" = no-304 ]; then HTTPD_NO_304=1; else unset HTTPD_NO_304; fi
    per_day "$mode"
    b=$(cat "$W/$mode.bytes")
    note "server answering $mode: $b bytes a day (at most $LIMIT)"
    [ "$b" -le "$LIMIT" ] && case_ok "$mode: $b bytes a day" ||
        case_fail "$mode" "$b bytes a day, more than $LIMIT"
done
finish
