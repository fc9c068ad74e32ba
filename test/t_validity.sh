#!/usr/bin/env bash
# CA/B Forum lifetime rules (ballot SC-081) in `crlcache check`: certificates
# made with `openssl ca -startdate/-enddate` at the schedule's boundaries
# (issuance date one second before / at 2026-03-15, 2027-03-15, 2029-03-15;
# limit - 1 s vs limit), the scope (no CA/B policy OID, CA certificates) and
# the short-lived exemption (7 vs 8 days, 10 vs 11 before 2026-03-15): a
# short-lived certificate no CRL covers is "good", exit 0.  Exceeding the
# limit is reported and does not change the exit code.
. "$(dirname "$0")/lib.sh"
need_crlcache

BASE_URL=http://127.0.0.1:9   # only written into CDPs, never fetched here

pki_root root "/CN=Validity Root/O=crlcache tests"
pki_ca int  root "/CN=Validity Int/O=crlcache tests"  cdp="$BASE_URL/root.crl"
pki_ca int2 root "/CN=Validity Int 2/O=crlcache tests" cdp="$BASE_URL/root.crl"

# epoch Y-M-DTh:m:sZ -> seconds
epoch() { date -u -d "$1" +%s; }
DAY=86400
T26m=$(epoch 2026-03-14T23:59:59Z); T26=$(epoch 2026-03-15T00:00:00Z)
T27m=$(epoch 2027-03-14T23:59:59Z); T27=$(epoch 2027-03-15T00:00:00Z)
T29m=$(epoch 2029-03-14T23:59:59Z); T29=$(epoch 2029-03-15T00:00:00Z)
[ "$T26" = 1773532800 ] || fail "date arithmetic: 2026-03-15 is $T26"


# Covered by int's (empty) CRL: state good, verdict reported.
dated b398   int "$T26m" $((398 * DAY - 1))   # 398d, limit 398 (before 2026-03-15)
dated b398x  int "$T26m" $((398 * DAY))       # 399d: exceeds
dated b201   int "$T26m" $((200 * DAY))       # 201d: within 398 one second before
dated a200   int "$T26"  $((200 * DAY - 1))   # exactly 200d: allowed
dated a200x  int "$T26"  $((200 * DAY))       # 200d + 1 s = 201d: too long
dated c200   int "$T27m" $((200 * DAY - 1))   # last second of the 200-day rule
dated c100   int "$T27"  $((100 * DAY - 1))   # 100d at 2027-03-15: allowed
dated c100x  int "$T27"  $((100 * DAY))       # 101d: too long
dated c200x  int "$T27"  $((200 * DAY - 1))   # 200d at 2027-03-15: too long
dated d100   int "$T29m" $((100 * DAY - 1))   # last second of the 100-day rule
dated d47    int "$T29"  $((47 * DAY - 1))    # 47d at 2029-03-15: allowed
dated d47x   int "$T29"  $((47 * DAY))        # 48d: too long
dated nopol  int "$T26"  $((500 * DAY)) policy=none       # rules do not apply
dated ev     int "$T26"  $((201 * DAY)) policy=2.23.140.1.1   # EV OID, 202d
dated ov2    int "$T26"  $((90 * DAY))  policy="1.3.6.1.4.1.99999.1, 2.23.140.1.2.2"
dated subca  root "$T26" $((3650 * DAY)) ca=1                 # CA: rules do not apply
dated s7cov  int "$T26"  $((7 * DAY - 1))     # short-lived but covered: plain good
dated s7rev  int "$T26"  $((7 * DAY - 1))     # short-lived and revoked: revoked
# Not covered by any CRL (int2 has none): unknown unless short-lived.
dated s7     int2 "$T26"  $((7 * DAY - 1))    # 7d: short-lived -> good
dated s7x    int2 "$T26"  $((7 * DAY))        # 7d + 1 s = 8d: unknown
dated s8     int2 "$T26"  $((8 * DAY - 1))    # 8d: unknown
dated s10    int2 "$T26m" $((10 * DAY - 1))   # 10d before 2026-03-15: short-lived
dated s11    int2 "$T26m" $((11 * DAY - 1))   # 11d: unknown
dated s10a   int2 "$T26"  $((10 * DAY - 1))   # 10d from 2026-03-15: unknown
dated s7np   int2 "$T26"  $((7 * DAY - 1)) policy=none   # no CA/B OID: unknown
dated s7ca   root "$T26"  $((7 * DAY - 1)) ca=1  # CA: never short-lived; root CRL covers

pki_revoke int "$PKI/s7rev.pem" reason=keyCompromise
pki_gencrl int "$W/int.crl"
pki_gencrl root "$W/root.crl"
write_conf "# empty"
cat "$PKI/int/cert.pem" "$PKI/int2/cert.pem" >"$W/untrusted.pem"
assert_exit 0 cc import --anchor "$PKI/root/cert.pem" --untrusted "$W/untrusted.pem" \
    "$W/int.crl" "$W/root.crl"

# the counting as openssl prints the dates
openssl x509 -in "$PKI/a200.pem" -noout -startdate -enddate >"$W/dates"
assert_grep 'notBefore=Mar 15 00:00:00 2026 GMT' "$W/dates"
assert_grep 'notAfter=Sep 30 23:59:59 2026 GMT' "$W/dates"

# expect NAME STATE EXIT REGEX: one check, state word, exit code, the line
expect() {
    local name=$1 word=$2 code=$3 re=$4
    if ! check_is_soft "$word" "$code" "$PKI/$name.pem"; then
        case_fail "$name" "state/exit"; return
    fi
    if [ -n "$re" ] && ! grep -Eq -- "$re" "$W/check.out"; then
        { echo "--- $name: /$re/ not in:"; cat "$W/check.out"; } >&2
        case_fail "$name" "line"; return
    fi
    case_ok "$name"
}
# expect_no_limit NAME STATE EXIT WHY: as expect, and no validity= on the
# line (WHY: outside the rules' scope).
expect_no_limit() {
    expect "$1" "$2" "$3" ''
    grep -q 'validity=' "$W/check.out" && case_fail "$1" "validity reported $4"
}
X='exceeds CA/B BR limit'
OK='within CA/B BR limit'
expect b398  good 0 "^good .* validity=398d max=398d \\($OK for notBefore < 2026-03-15\\)$"
expect b398x good 0 "^good .* validity=399d max=398d \\($X for notBefore < 2026-03-15\\)$"
expect b201  good 0 "validity=201d max=398d \\($OK for notBefore < 2026-03-15\\)"
expect a200  good 0 "^good .*nextUpdate=.* validity=200d max=200d \\($OK for notBefore >= 2026-03-15\\)$"
expect a200x good 0 "validity=201d max=200d \\($X for notBefore >= 2026-03-15\\)$"
expect c200  good 0 "validity=200d max=200d \\($OK for notBefore >= 2026-03-15\\)"
expect c100  good 0 "validity=100d max=100d \\($OK for notBefore >= 2027-03-15\\)"
expect c100x good 0 "validity=101d max=100d \\($X for notBefore >= 2027-03-15\\)"
expect c200x good 0 "validity=200d max=100d \\($X for notBefore >= 2027-03-15\\)"
expect d100  good 0 "validity=100d max=100d \\($OK for notBefore >= 2027-03-15\\)"
expect d47   good 0 "validity=47d max=47d \\($OK for notBefore >= 2029-03-15\\)"
expect d47x  good 0 "validity=48d max=47d \\($X for notBefore >= 2029-03-15\\)"
expect ev    good 0 "validity=202d max=200d \\($X for notBefore >= 2026-03-15\\)"
expect ov2   good 0 "validity=91d max=200d \\($OK"
expect_no_limit nopol good 0 "without a CA/B policy OID"
expect_no_limit subca good 0 "for a CA certificate"
expect s7cov good 0 "nextUpdate=.* validity=7d max=200d \\(short-lived: <= 7d for notBefore >= 2026-03-15\\)$"
expect s7rev revoked 1 "reason=keyCompromise validity=7d max=200d \\(short-lived"
# short-lived, no CRL: good, exit 0
expect s7    good 0 "^good .*short-lived, no revocation expected.* validity=7d max=200d"
expect s7x   unknown 2 "^unknown .*no CRL.* validity=8d max=200d \\($OK"
grep -q 'no revocation expected' "$W/check.out" && case_fail s7x "8-day certificate called short-lived"
expect s8    unknown 2 "validity=8d max=200d"
expect s10   good 0 "short-lived, no revocation expected.* validity=10d max=398d \\(short-lived: <= 10d for notBefore < 2026-03-15\\)$"
expect s11   unknown 2 "validity=11d max=398d"
expect s10a  unknown 2 "validity=10d max=200d"
expect_no_limit s7np unknown 2 "without a CA/B policy OID"
expect_no_limit s7ca good 0 "for a CA certificate"

# Chains: the worst state decides; an exempt short-lived leaf counts as good.
if check_is_soft good 0 --chain "$PKI/int2/cert.pem" "$PKI/s7.pem" \
    && [ "$(grep -c '^good' "$W/check.out")" = 2 ]; then case_ok chain-s7; else case_fail chain-s7 "want two good lines, exit 0"; fi
if check_is_soft unknown 2 --chain "$PKI/int2/cert.pem" "$PKI/s8.pem"; then case_ok chain-s8; else case_fail chain-s8 "want exit 2"; fi
if check_is_soft revoked 1 --chain "$PKI/s7.pem" "$PKI/s7rev.pem"; then case_ok chain-rev; else case_fail chain-rev "want exit 1"; fi
# An over-long certificate is a report: good stays 0 in a chain.
if check_is_soft good 0 --chain "$PKI/int/cert.pem" "$PKI/a200x.pem" \
    && grep -q "validity=201d max=200d ($X" "$W/check.out"; then case_ok chain-long; else case_fail chain-long "want exit 0 with the report"; fi

finish
