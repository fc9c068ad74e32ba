#!/usr/bin/env bash
# SIGKILL at random points: `update` is killed ROUNDS
# times: at a random moment of its run, at a random moment after its
# fetch (ingest), or as its publish begins, in turn.  After every kill the published
# index opens and is the old or a newer generation (never older, never
# unreadable, the revoked certificate still revoked); a CRL ingested by a
# killed run is published by the next one; and after the last kill one
# plain `update` succeeds, publishes the last CRL served and leaves no
# temporary file (top, page or scope file) and no page or scope file but
# those of the last two generations: the working state recovered without
# manual repair.
. "$(dirname "$0")/lib.sh"
need_crlcache
ROUNDS=100
BULK=10000          # entries of the CRL: ingest and publish take a while
httpd_start
std_pki
pki_revoke int "$PKI/rev1.pem"
pki_bulk_revoked "$PKI/int/index.txt" "$BULK"
extra=0             # one more entry in every new CRL
new_crl() {
    extra=$((extra + 1))
    pki_bulk_revoked "$PKI/int/index.txt" 1 $((900000 + extra))
    pki_gencrl int "$W/int.crl"
    serve "$W/int.crl" int.crl
}
new_crl
write_conf "url = $BASE_URL/int.crl" "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem"
start=$(date +%s%N)
assert_exit 0 cc update
run_ms=$(( ($(date +%s%N) - start) / 1000000 ))
note "one update of a $BULK-entry CRL: ${run_ms} ms"
gen=$(generation)
[ "$gen" -ge 1 ] || fail "no first generation"

revoked_count() { cc status 2>/dev/null | sed -n 's/^revoked //p'; }
rand_ms() { echo $(( RANDOM % ($1 + 1) )); }
sleep_ms() { sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"; }
# Three kinds of rounds: a random moment of the whole run; a random moment
# after the CRL was fetched (ingest); the moment a publish began (its
# first temporary file: a scope file's, or the top's when no scope changed).
publishing() { compgen -G "$STATE/.index.mdb.*" >/dev/null || compgen -G "$STATE/scope/.tmp.*" >/dev/null; }
in_publish=0 completed=0 kinds=(anywhere ingest publish)
for round in $(seq 1 "$ROUNDS"); do
    kind=${kinds[round % 3]}
    requests=$(requests_for /int.crl)
    "$CRLCACHE" --state-dir "$STATE" -c "$CONF" -q update >/dev/null 2>&1 &
    pid=$!
    case $kind in
    anywhere) sleep_ms "$(rand_ms $((run_ms * 13 / 10)))" ;;
    ingest)
        while kill -0 "$pid" 2>/dev/null && [ "$(requests_for /int.crl)" = "$requests" ]; do
            sleep 0.005
        done
        sleep_ms "$(rand_ms $((run_ms / 2)))" ;;
    publish)
        while kill -0 "$pid" 2>/dev/null && ! publishing; do
            :
        done ;;
    esac
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    rc=$?
    publishing && in_publish=$((in_publish + 1))
    cc status >"$W/status.out" 2>&1
    src=$?
    [ "$src" -le 1 ] || { cat "$W/status.out"; fail "round $round ($kind): the published index does not open"; }
    g=$(sed -n 's/^generation //p' "$W/status.out")
    [ "$g" -ge "$gen" ] || fail "round $round ($kind): generation went back from $gen to $g"
    gen=$g
    check_is revoked 1 "$PKI/rev1.pem"
    if [ "$rc" -eq 0 ]; then
        completed=$((completed + 1))
        # a finished run published what it or a killed run before it ingested
        [ "$(revoked_count)" -eq $((BULK + 1 + extra)) ] \
            || fail "round $round: a finished run left the CRL served unpublished ($(revoked_count) entries)"
        new_crl            # the next run has something new to publish
    fi
done
note "$ROUNDS kills: $completed runs finished first, $in_publish killed while publishing"

assert_exit 0 cc update
[ "$(revoked_count)" -eq $((BULK + 1 + extra)) ] \
    || fail "the last CRL served ($((BULK + 1 + extra)) entries) is not published: $(revoked_count)"
leftover=$(ls -A "$STATE" | grep -c '^\.index\.mdb\.' || true)
[ "$leftover" -eq 0 ] || fail "$leftover temporary index files left behind"
leftover=$(ls -A "$STATE/scope" | grep -c '^\.tmp\.' || true)
[ "$leftover" -eq 0 ] || fail "$leftover temporary scope files left behind"
# one CRL: its scope file and its key's page in this generation and at
# most one of each of the generation before
files=$(ls "$STATE/scope" | grep -c '^[0-9a-f]\{32\}$' || true)
[ "$files" -ge 2 ] && [ "$files" -le 4 ] || fail "$files page and scope files for one CRL (garbage not collected)"
note "recovered: generation $(generation), $(revoked_count) entries"
