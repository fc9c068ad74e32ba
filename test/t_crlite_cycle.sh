#!/usr/bin/env bash
# CRLite through Mozilla's whole cycle, replayed under faketime against a
# Remote Settings server on loopback (test/remotesettings.py, content-
# signed by cs_chain).  Mozilla's publisher (mozilla/crlite
# moz_kinto_publisher/main.py, the "default" channel's
# max_filter_age_days = 45) publishes a delta twice a day and a new full
# filter only when the current one is 45 days old: here a full filter on
# day 0 (padded to a real full filter's 6 MB), a delta at hours 0 and 12
# of every day (150 to 210 kB, as Mozilla's), a new full filter on day
# 46, one `update` an hour after each publication (the timer runs hourly).
#   - every update exits 0, the set reaching 1 + 91 filters on day 45 and
#     one filter again after day 46's full filter;
#   - leaves revoked in the deltas of days 5, 20, 35 and 40 are good
#     (CRLite) the day before and refused the day after, by `crlcache
#     check` and by `openssl verify` under the provider;
#   - the CA was enrolled on day 0 by a hint (a leaf logged after the
#     filter's coverage) and never met again: CRLite answered for it;
#   - from day 50 the server is unreachable (a closed port): update exits
#     1 naming the cause, and once the last set's data is two days old
#     (include/crlcache/crlite.h FRESHNESS) it says the set is stale,
#     `status` says stale_since and the CA's CRL (its enrolment kept past
#     seen_expiry) is fetched again: a leaf
#     the CA revoked on day 51 (in its CRL only) is refused within the
#     bound plus one run, its good leaf accepted from the CRL;
#   - day 85: a set that cannot be read expires no enrolment; read, the
#     CA is dropped 30 days (seen_expiry) after the set went stale.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
command -v faketime >/dev/null || skip "faketime not installed (test/deps.sh installs it)"
python3 -c 'import cryptography' 2>/dev/null || skip "python3-cryptography not installed"
httpd_start
CS_DAYS=90 cs_chain             # the signer's chain outlives the replay
FULL_BYTES=6000000		# Mozilla's full filter, 2026
DELTA_MIN=150000 DELTA_SPAN=60000	# its deltas: 150 to 210 kB
REVOKE_DAYS="5 20 35 40"
LAST_PUB=99			# day 49, hour 12: the last before the outage
LOG_A=$(printf 'a1%.0s' $(seq 32))
T0=$(now_epoch); H=3600; D=86400
# the filters cover LOG_A from two days before day 0 to six hours
# before each publication (CRLite's lag behind the logs)
LOW=$(( (T0 - 2 * D) * 1000 ))
high() { echo $(( (T0 + $1 * 12 * H - 6 * H) * 1000 )); }

pki_root root "/CN=Cycle Root/O=crlcache tests"
pki_gencrl root "$W/root.crl" next="$(gt $((70 * D)))"
serve "$W/root.crl" root.crl
pki_ca ca root "/CN=Cycle CA/O=crlcache tests" cdp="$BASE_URL/root.crl"
leaf() {    # leaf NAME SCT_MS
    prov_leaf "$1" ca "$1.test" cdp="$BASE_URL/ca.crl"
    "$PY" "$TESTDIR/crlite_pki.py" sctext "$LOG_A:$2" >>"$PKI/$1.ext" || fail "sctext"
    _issue ca "$PKI/$1.csr" "$PKI/$1.pem" "$PKI/$1.ext"
}
LEAVES="good r5 r20 r35 r40 r51"
for l in $LEAVES; do leaf "$l" $(( (T0 - D) * 1000 )); done
leaf young $(( T0 * 1000 ))          # after day 0's coverage: a hint
pki_gencrl ca "$W/ca.crl" next="$(gt $((70 * D)))"
serve "$W/ca.crl" ca.crl

# Every filter, built at once: F0 (day 0), D1..D91, F92 (day 46), D93..
"$PY" - "$TESTDIR" "$W/f" "$PKI" "$LOG_A" "$LOW" "$T0" "$LAST_PUB" \
    "$FULL_BYTES" "$DELTA_MIN" "$DELTA_SPAN" "$REVOKE_DAYS" "$LEAVES young" <<'EOF' || fail "filters"
import os, random, sys
sys.path.insert(0, sys.argv[1])
import clubcard_build, crlite_pki
out, pki, log, low, t0, last = sys.argv[2], sys.argv[3], bytes.fromhex(sys.argv[4]), \
    int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
full, dmin, dspan = int(sys.argv[8]), int(sys.argv[9]), int(sys.argv[10])
revoke = {2 * int(d): "r%s" % d for d in sys.argv[11].split()}
ik = crlite_pki.spki_hash(os.path.join(pki, "ca", "cert.pem"))
serials = {n: crlite_pki.serial(os.path.join(pki, n + ".pem"))
           for n in sys.argv[12].split()}
os.makedirs(out, exist_ok=True)
for p in range(last + 1):
    high = (t0 + p * 12 * 3600 - 6 * 3600) * 1000
    if p in (0, 92):       # a full filter: every revocation so far
        revoked = {n for q, n in revoke.items() if q <= p}
        name, size = "F%d" % p, full
    else:                  # a delta: what was revoked since its parent
        revoked = {revoke[p]} if p in revoke else set()
        name, size = "D%d" % p, dmin + p * 7919 % dspan
    card = clubcard_build.build(
        [(ik, s, n in revoked) for n, s in serials.items()],
        [(log, low, high)], random.Random(p))
    raw = os.path.join(out, name + ".raw")
    with open(raw, "wb") as f:
        f.write(clubcard_build.encode(card, 4))
    crlite_pki.pad(raw, os.path.join(out, name + ".filter"), size)
    os.remove(raw)
EOF
# The publisher: remotesettings.py's main() run in one Python process for
# each publication (its start-up, not crlcache, dominated a process per
# publication: 120 s against 70 s on a loaded 2-core host), the server's
# state (tombstones, monitor/changes) kept in its files as between runs.
# publish P: the collection after publication P, 12 hours after P - 1:
# the newest full filter and its deltas.
cat >"$W/publisher.py" <<'EOF'
import os, sys
sys.path.insert(0, sys.argv[1])
import remotesettings
root, base, key, chain, f = sys.argv[2:7]
t0 = int(sys.argv[7])
for line in sys.stdin:
    p = int(line)
    full = 0 if p < 92 else 92
    specs, parent = ["F%d=%s/F%d.filter" % (full, f, full)], "F%d" % full
    for k in range(full + 1, p + 1):
        specs.append("D%d=%s/D%d.filter:%s" % (k, f, k, parent))
        parent = "D%d" % k
    print(remotesettings.main(["remotesettings.py", root, base, key, chain,
                               str((t0 + p * 12 * 3600) * 1000)] + specs),
          flush=True)
EOF
coproc PUB { exec "$PY" -u "$W/publisher.py" "$TESTDIR" "$HTTPD_ROOT" "$BASE_URL" \
    "$W/cs/ee.key" "$W/cs/chain.pem" "$W/f" "$T0" 2>"$W/publisher.err"; }
bg_register "$PUB_PID"
publish() {
    local rc=""
    echo "$1" >&"${PUB[1]}" && read -r rc <&"${PUB[0]}"
    [ "$rc" = 0 ] || { cat "$W/publisher.err"; fail "remotesettings.py: publication $1"; }
}
base_conf=("anchor = $PKI/root/cert.pem" "untrusted = $PKI/ca/cert.pem"
    "allow_private_urls = yes" "url = $BASE_URL/root.crl" "crlite_root = $CS_ROOT_FP")
write_conf "${base_conf[@]}" "crlite = $BASE_URL/v1/"
# fake HOURS CMD...: CMD with the clock HOURS hours after day 0
fake() {
    local h=$1; shift
    NO_FAKE_STAT=1 DONT_FAKE_MONOTONIC=1 TZ=UTC faketime -f "+${h}h" "$@"
}
update_at() {   # update_at HOURS [ARGS]: -> $W/u.out, its exit code
    fake "$1" "$CRLCACHE" --state-dir "$STATE" -c "$CONF" update "${@:2}" >"$W/u.out" 2>&1
}
# verdict HOURS LEAF: what `check` and `openssl verify` under the
# provider say of LEAF then, as "CHECKWORD verify-ok|verify-refused"
verdict() {
    local c v=verify-ok
    fake "$1" "$CRLCACHE" --state-dir "$STATE" -c "$CONF" check \
        --chain "$PKI/ca/cert.pem" "$PKI/$2.pem" >"$W/check.out" 2>"$W/check.err"
    c=$(head -n 1 "$W/check.out" | sed -E 's/ subject=.*//; s/, filter [^)]*//')
    TZ=UTC px --set learn_wait=0 -- faketime -f "+${1}h" openssl verify \
        -CAfile "$PKI/root/cert.pem" -untrusted "$PKI/ca/cert.pem" "$PKI/$2.pem" \
        >"$W/verify.out" 2>&1 || v=verify-refused
    echo "$c $v"
}
expect() {      # expect HOURS LEAF WANT CASE
    local got; got=$(verdict "$1" "$2")
    [ "$got" = "$3" ] && case_ok "$4" ||
        { cat "$W/check.out" "$W/check.err" "$W/verify.out"; case_fail "$4" "got '$got', want '$3'"; }
}
set_filters() {
    "$PY" -c 'import struct,sys; print(struct.unpack(">I", open(sys.argv[1],"rb").read()[12:16])[0])' \
        "$STATE/crlite/set"
}

# Day 0: the full filter; a program meets the young leaf, which nothing
# answers for: a hint, and update --hints enrols the CA (its CRL for the
# two-day catch-up).
publish 0
update_at 1 || { cat "$W/u.out"; fail "day 0: update"; }
verdict 1 young >/dev/null
[ -n "$(ls -A "$STATE/hints" 2>/dev/null)" ] || fail "day 0: the young leaf left no hint"
update_at 1 --hints || { cat "$W/u.out"; fail "day 0: update --hints"; }
grep -q '^issuer ' "$STATE/work/enrolled" 2>/dev/null || fail "day 0: the CA not enrolled"
expect 2 good 'good (CRLite) verify-ok' "day 0: a leaf the full filter covers is good (CRLite)"

# The cycle: a publication every 12 hours, an update an hour after each.
failed_runs=0 max_filters=0
for ((p = 1; p <= LAST_PUB; p++)); do
    publish "$p"
    h=$((p * 12 + 1))
    if ! update_at "$h"; then
        failed_runs=$((failed_runs + 1))
        [ "$failed_runs" -gt 1 ] || { note "day $((p / 2)) hour $((p % 2 * 12)): update failed:"; tail -n 3 "$W/u.out" >&2; }
    fi
    n=$(set_filters); [ "$n" -le "$max_filters" ] || max_filters=$n
    [ "$p" != 91 ] || filters_day45=$n
    [ "$p" != 92 ] || filters_day46=$n
    d=$((p / 2))
    if [ $((p % 2)) = 0 ]; then
        case " $REVOKE_DAYS " in
            *" $((d + 1)) "*) expect "$h" "r$((d + 1))" 'good (CRLite) verify-ok' \
                "day $d: r$((d + 1)) good (CRLite) the day before its delta" ;;
            *" $((d - 1)) "*) expect "$h" "r$((d - 1))" 'revoked (CRLite) verify-refused' \
                "day $d: r$((d - 1)) refused (CRLite) the day after its delta" ;;
        esac
    fi
done
[ "$failed_runs" = 0 ] && case_ok "days 0 to 49: all $LAST_PUB updates exit 0" ||
    case_fail cycle-runs "$failed_runs of $LAST_PUB updates failed"
[ "${filters_day45:-0}" = 92 ] && [ "${filters_day46:-0}" = 1 ] &&
    case_ok "day 45: a set of 1 + 91 filters; day 46: the new full filter alone" ||
    case_fail set-sizes "day 45: ${filters_day45:-?} filters, day 46: ${filters_day46:-?} (most $max_filters)"
for r in $REVOKE_DAYS; do
    expect $((49 * 24 + 13)) "r$r" 'revoked (CRLite) verify-refused' "day 49: r$r still refused"
done
expect $((49 * 24 + 13)) r51 'good (CRLite) verify-ok' "day 49: r51 good (CRLite)"

# Day 50: the server is gone.  Day 51: the CA revokes r51 (its CRL only).
write_conf "${base_conf[@]}" "crlite = http://127.0.0.1:$(closed_port)/v1/"
update_at $((50 * 24 + 1)); rc=$?
[ "$rc" = 1 ] && grep -Eq 'crlite failed \(.*\), the set in force kept; CRLite data fresh until' "$W/u.out" &&
    case_ok "day 50: the server unreachable: update exits 1, says why and until when the set is fresh" ||
    { cat "$W/u.out"; case_fail outage "exit $rc"; }
pki_revoke ca "$PKI/r51.pem"
pki_gencrl ca "$W/ca.crl" last="$(gt $((51 * D)))" next="$(gt $((58 * D)))"
serve "$W/ca.crl" ca.crl
# the last set's data: day 49 hour 6; stale two days later, day 51 hour 6
STALE_H=$((51 * 24 + 6))
RUN_H=6                 # the replay's runs from here on, 6 hours apart
refused_at="" ca_fetched_at=""
for ((h = 51 * 24 + 1; h <= STALE_H + 2 * RUN_H; h += RUN_H)); do
    n=$(wc -l <"$HTTPD_LOG")
    update_at "$h"
    [ -n "$ca_fetched_at" ] || ! tail -n +$((n + 1)) "$HTTPD_LOG" | grep -q 'GET /ca\.crl' ||
        ca_fetched_at=$h
    v=$(verdict "$h" r51)
    if [ "$v" = "revoked verify-refused" ]; then refused_at=$h; break; fi
done
[ -n "$refused_at" ] && [ "$refused_at" -le $((STALE_H + RUN_H)) ] &&
    case_ok "r51, revoked by its CA on day 51, refused at hour $((refused_at - 51 * 24)) of day 51 (stale from hour 6, runs every $RUN_H h)" ||
    { cat "$W/u.out" "$W/check.out" "$W/verify.out"; case_fail day51 "not refused by hour $((STALE_H + 2 * RUN_H - 51 * 24)) of day 51 (last: '$v')"; }
[ -n "$ca_fetched_at" ] && [ "$ca_fetched_at" = "$refused_at" ] &&
    case_ok "the CA's CRL fetched first by the run past the bound (enrolled on day 0, never hinted since)" ||
    case_fail ca-crl "first fetched at hour ${ca_fetched_at:-none}, refused at ${refused_at:-none}"
grep -Eq 'crlite failed \(.*\), the set in force kept; CRLite data stale since' "$W/u.out" &&
    case_ok "update names the cause and says the set is stale" ||
    { cat "$W/u.out"; case_fail update-stale "no cause or no stale"; }
fake "$h" "$CRLCACHE" --state-dir "$STATE" -c "$CONF" status >"$W/status.out" 2>&1
grep -Eq '^crlite .* stale_since=[0-9T:-]+Z' "$W/status.out" &&
    case_ok "status: crlite stale_since" || { cat "$W/status.out"; case_fail status-stale "no stale_since"; }
fake "$h" "$CRLCACHE" --state-dir "$STATE" -c "$CONF" status --prometheus "$W/prom" >/dev/null 2>&1
grep -qx 'crlcache_crlite_stale 1' "$W/prom" &&
    case_ok "status --prometheus: crlcache_crlite_stale 1" || { cat "$W/prom"; case_fail prom-stale "not 1"; }
expect "$h" good 'good verify-ok' "stale: the good leaf accepted from its CA's CRL"
expect "$h" r40 'revoked (CRLite) verify-refused' "stale: the filters' revocations still count"

# Day 85, 30 days (seen_expiry) past the set's stale_at, nothing met
# since: a set that cannot be read expires no enrolment (whom it answered
# for is not known); read again, the CA is dropped.
cp "$STATE/crlite/set" "$W/set.good"; printf 'x' >>"$STATE/crlite/set"
update_at $((85 * 24))
grep -q '^issuer ' "$STATE/work/enrolled" &&
    case_ok "day 85, the set unreadable: the CA still enrolled" ||
    { cat "$W/u.out"; case_fail unread-held "the CA dropped"; }
cp "$W/set.good" "$STATE/crlite/set"
update_at $((85 * 24))
! grep -q '^issuer ' "$STATE/work/enrolled" && grep -q 'not met since before the seen_expiry' "$W/u.out" &&
    case_ok "day 85, the set read: the CA dropped, 30 days after the set went stale" ||
    { cat "$W/u.out"; case_fail stale-expiry "the CA kept"; }
note "$LAST_PUB publications and $((LAST_PUB + 7)) updates replayed in ${SECONDS}s"
finish
