#!/usr/bin/env bash
# A working index of another format (format.h VERSIONS: format 4 is the
# first released one, and nothing converts another).  With its "meta"
# "format" set to 3, every writer refuses it with a message that says to
# run `crlcache reset --all`, and changes nothing; the published index
# still answers.  `reset --all` removes it whatever its format and
# publishes the empty index; the next import fills it again.
. "$(dirname "$0")/lib.sh"
command -v mdb_load >/dev/null || skip "lmdb-utils (mdb_load) not installed"
offline_int_index
check_is revoked 1 "$PKI/rev1.pem"

# the working index stamped with format 3, as a development version left it
printf '%s\n' VERSION=3 format=print database=meta type=btree HEADER=END \
    ' format' ' \00\00\00\03' DATA=END | mdb_load "$STATE/work" || fail "mdb_load"
for cmd in "update" "publish" "import --anchor $PKI/root/cert.pem $W/int.crl"; do
    # shellcheck disable=SC2086
    cc $cmd >"$W/o" 2>"$W/e"; rc=$?
    [ "$rc" -eq 4 ] && grep -q 'is of format 3, not 4' "$W/e" &&
        grep -q 'run `crlcache reset --all`' "$W/e" && case_ok "refused: ${cmd%% *}" ||
        { cat "$W/e" >&2; case_fail "refused: ${cmd%% *}" "exit $rc, or no word of reset --all"; }
done
check_is_soft revoked 1 "$PKI/rev1.pem" && case_ok "published index kept" ||
    case_fail "published index kept" "rev1 not revoked any more"

# the way out
cc reset --all >"$W/o" 2>"$W/e"; rc=$?
[ "$rc" -eq 0 ] && grep -q 'removed every CRL and source record' "$W/e" && case_ok "reset --all" ||
    { cat "$W/e" >&2; case_fail "reset --all" "exit $rc"; }
check_is_soft unknown 2 "$PKI/rev1.pem" && case_ok "empty index published" ||
    case_fail "empty index published" "rev1 still known"
assert_exit 0 cc import --anchor "$PKI/root/cert.pem" --untrusted "$PKI/int/cert.pem" "$W/int.crl"
check_is_soft revoked 1 "$PKI/rev1.pem" && case_ok "filled again" ||
    case_fail "filled again" "rev1 not revoked after the import"
# reset --all takes no other option
assert_exit 4 cc reset --all --issuer "$PKI/int/cert.pem"
finish
