#!/usr/bin/env bash
# OneCRL on real data: Firefox's dump of the collection (test/data/onecrl,
# 1,959 records) served as a signed onecrl changeset by the loopback
# Remote Settings server (the test chain signs it) and installed by
# `crlcache update` itself.  Judged against an independent reference
# (test/onecrl_ref.py real: a TLV walk of each certificate, standard
# library only) over the real CA certificates of crt.sh's CCADB archive
# (test/data/ccadb-real; skipped where the archive is absent): `crlcache
# check` must say revoked (OneCRL) for exactly the certificates an
# enforced record names -- every record, "enabled" true or false, as
# Firefox enforces them -- and for none of a sample of the others.
. "$(dirname "$0")/lib.sh"
need_crlcache
python3 -c 'import cryptography' 2>/dev/null || skip "python3-cryptography not installed"
D=$TESTDIR/data/ccadb-real
[ -f "$D/pems.tar.xz" ] || skip "no $D/pems.tar.xz (a release tarball: see its SOURCES)"
DUMP=$TESTDIR/data/onecrl/onecrl.json
httpd_start
cs_chain
mkdir -p "$W/r" "$W/ref"
tar -xJf "$D/pems.tar.xz" -C "$W/r" || fail "cannot unpack $D/pems.tar.xz"
read -r _ LISTED _ OTHER _ RECORDS _ UNJ < <(python3 "$TESTDIR/onecrl_ref.py" real "$DUMP" "$W/ref" "$W"/r/pems-*.csv) ||
    fail "onecrl_ref.py real"
note "reference: $LISTED CCADB certificates named by $RECORDS records; $OTHER others sampled; $UNJ with a date not of RFC 5280's form unjudged"
[ "${UNJ:-99}" -le 20 ] || fail "the reference leaves $UNJ certificates unjudged"
# Far fewer means the data no longer exercises the match: take both anew.
[ "${LISTED:-0}" -ge 500 ] && [ "${OTHER:-0}" -ge 100 ] || fail "the reference found $LISTED listed, $OTHER others"

python3 "$TESTDIR/clubcard_build.py" suite "$W/cc" >/dev/null || fail "clubcard_build.py"
python3 "$TESTDIR/remotesettings.py" "$HTTPD_ROOT" "$BASE_URL" "$W/cs/ee.key" "$W/cs/chain.pem" \
    1794348206673 F1="$W/cc/full.v3" --onecrl "$DUMP" || fail "remotesettings.py"
write_conf "crlite = $BASE_URL/v1/" "crlite_root = $CS_ROOT_FP" \
    "allow_private_urls = yes" "enroll = none"
assert_exit 0 cc update
assert_grep "onecrl: $RECORDS entries installed" "$W/last.err"
assert_not_grep 'left out' "$W/last.err"
case_ok "update installs the $RECORDS distinct records of Firefox's dump"

# every listed certificate: one line each, in the file's order
cc check "$W/ref/listed.pem" >"$W/listed.out" 2>"$W/listed.err"
n=$(grep -c '^revoked (OneCRL, listed by ' "$W/listed.out")
all=$(grep -c . "$W/listed.out")
[ "$n" = "$LISTED" ] && [ "$all" = "$LISTED" ] &&
    case_ok "check: revoked (OneCRL) for all $LISTED certificates the reference finds" ||
    { grep -v '^revoked (OneCRL' "$W/listed.out" | head; head "$W/listed.err"
      case_fail listed "$n of $LISTED ($all lines)"; }
cc check "$W/ref/other.pem" >"$W/other.out" 2>"$W/other.err"
all=$(grep -c . "$W/other.out")
[ "$all" = "$OTHER" ] && ! grep -q OneCRL "$W/other.out" &&
    case_ok "check: none of $OTHER other CCADB certificates is said to be in OneCRL" ||
    { grep OneCRL "$W/other.out" | head; head "$W/other.err"; case_fail other "$all lines"; }
finish
