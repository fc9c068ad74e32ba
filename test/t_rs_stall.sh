#!/usr/bin/env bash
# Remote Settings off the state lock, and bounded (fetcher/mozilla.c,
# fetcher/budget.h: each source 4 x timeout at most, 300 s at most, plus
# the retries' backoff).  timeout = 2: a source gets 8 s.  A collection
# is installed; then a new version is published and
#   1. its x5u chain's server accepts and never answers: an
#      `update --hints` started while the full run waits on it finishes
#      in seconds (the full run does not hold the lock while it waits),
#      and the full run ends within 3 x (8 + 3) s, exit 1, the set kept;
#   2. six new deltas trickle a byte every half second: the full run
#      ends within the same bound (every filter one `timeout` after the
#      other would take 6 x 3 attempts x 2 s and the backoff), exit 1;
#   3. the changeset's unsigned metadata lists 8 signatures, each with
#      its own x5u URL, none good: 2 of the URLs are asked, not 8.
. "$(dirname "$0")/lib.sh"
need_crlcache
python3 -c 'import cryptography' 2>/dev/null || skip "python3-cryptography not installed"
httpd_start
cs_chain
python3 "$TESTDIR/clubcard_build.py" suite "$W/cc" >/dev/null || fail "clubcard_build.py"
TS=1760000000000
publish() {
    TS=$((TS + 1000))
    python3 "$TESTDIR/remotesettings.py" "$HTTPD_ROOT" "$BASE_URL" "$W/cs/ee.key" \
        "$W/cs/chain.pem" "$TS" "$@" || fail "remotesettings.py"
}
V1=(F1="$W/cc/full.v3" D1="$W/cc/delta.v3:F1")
write_conf "crlite = $BASE_URL/v1/" "crlite_root = $CS_ROOT_FP" \
    "allow_private_urls = yes" "enroll = none" "timeout = 2"
BOUND=33
publish "${V1[@]}"
assert_exit 0 cc update
cp "$STATE/crlite/set" "$W/set.before"
ms() { date +%s%3N; }

# stalled RUN_NAME: a full run in the background while the server
# stalls; an update --hints meanwhile; both timed
stalled() {
    local t0 t1 rc hint_ms full_ms
    t0=$(ms)
    cc update >"$W/full.out" 2>"$W/full.err" &
    local pid=$!
    sleep 1.5
    t1=$(ms)
    cc update --hints >"$W/hints.out" 2>"$W/hints.err"; rc=$?
    hint_ms=$(( $(ms) - t1 ))
    wait "$pid"; local full_rc=$?
    full_ms=$(( $(ms) - t0 ))
    note "$1: update --hints took ${hint_ms} ms (exit $rc), the full run ${full_ms} ms (exit $full_rc)"
    [ "$rc" = 0 ] && [ "$hint_ms" -le 5000 ] ||
        { cat "$W/hints.err" >&2; case_fail "$1" "update --hints waited ${hint_ms} ms"; return; }
    [ "$full_ms" -le $((BOUND * 1000)) ] ||
        { cat "$W/full.err" >&2; case_fail "$1" "the full run took ${full_ms} ms"; return; }
    [ "$full_rc" = 1 ] && cmp -s "$STATE/crlite/set" "$W/set.before" ||
        { cat "$W/full.err" >&2; case_fail "$1" "exit $full_rc or the set changed"; return; }
    case_ok "$1"
}

publish "${V1[@]}" D2="$W/cc/main.v3:D1"
echo stall >"$HTTPD_ROOT/chains/onecrl.pem.status"
stalled "a stalled x5u server: update --hints in seconds, the full run bounded"
assert_grep 'onecrl.pem: ' "$W/full.err"
rm "$HTTPD_ROOT/chains/onecrl.pem.status"

specs=("${V1[@]}")
prev=D1
for i in 1 2 3 4 5 6; do
    { cat "$W/cc/main.v3"; printf '%d' "$i"; } >"$W/slow$i.filter"
    specs+=(S$i="$W/slow$i.filter:$prev"); prev=S$i
done
publish "${specs[@]}"
for i in 1 2 3 4 5 6; do echo slow >"$HTTPD_ROOT/attachments/crlite/slow$i.filter.status"; done
stalled "six trickling attachments: the full run bounded"

publish "${V1[@]}" D2="$W/cc/main.v3:D1" --x5u-spread 8
n0=$(wc -l <"$HTTPD_LOG")
assert_exit 1 cc update
asked=$(tail -n +$((n0 + 1)) "$HTTPD_LOG" | grep -o 'GET /chains/onecrl-[0-9]*\.pem' | sort -u | wc -l)
[ "$asked" = 2 ] && case_ok "8 x5u URLs listed: 2 asked" ||
    case_fail "x5u URLs" "$asked of 8 asked"
finish
