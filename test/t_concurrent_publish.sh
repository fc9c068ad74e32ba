#!/usr/bin/env bash
# Readers never see a torn or missing index: `check` of a revoked leaf runs in
# two loops while `update` publishes 20 new generations; every check must exit 1.
. "$(dirname "$0")/lib.sh"
served_int_crl
assert_exit 0 cc update
check_is revoked 1 "$PKI/rev1.pem"
g0=$(generation)

reader() {   # reader ID: loop until $W/stop exists; one line per check
    local rc out
    while [ ! -e "$W/stop" ]; do
        out=$(cc check "$PKI/rev1.pem" 2>&1); rc=$?
        echo "$rc ${out%%$'\n'*}"
    done >"$W/reader.$1"
}
reader 1 & r1=$!; bg_register $r1
reader 2 & r2=$!; bg_register $r2
sleep 0.3

N=20
for i in $(seq 1 $N); do
    pki_gencrl int "$W/int.crl"          # new CRL number each time
    serve "$W/int.crl" int.crl
    cc update >"$W/upd.out" 2>"$W/upd.err" || { cat "$W/upd.err" >&2; touch "$W/stop"; fail "update $i failed"; }
    grep -q '1 updated' "$W/upd.err" || { cat "$W/upd.err" >&2; touch "$W/stop"; fail "update $i did not update"; }
done
sleep 0.3
touch "$W/stop"
wait "$r1" "$r2"
g1=$(generation)
total=$(cat "$W"/reader.* | wc -l)
bad=$(cat "$W"/reader.* | grep -vc '^1 revoked')
note "$total checks during $N publishes (generation $g0 -> $g1), $bad bad"
[ "$total" -ge 20 ] || fail "only $total checks ran"
if [ "$bad" -ne 0 ]; then
    cat "$W"/reader.* | grep -v '^1 revoked' | sort | uniq -c | head -20 >&2
    fail "$bad of $total checks did not say revoked/exit 1"
fi
[ "$g1" -ge $((g0 + N)) ] || fail "generation went from $g0 to $g1, expected +$N"
finish
