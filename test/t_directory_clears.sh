#!/usr/bin/env bash
# The administrator's first hour on a host with no route to the CCADB and
# the shipped crlcache.conf: the first update fails to build the issuer
# directory (exit 3); a second one within the retry interval still exits
# 3, as status does (one verdict); then each way out clears "directory
# failing": the ccadb_* lines commented out as README says (update exit 0,
# status exit 0, crlcache_directory_failing 0), and reset --all.  The
# CCADB is a closed port of loopback: nothing leaves 127.0.0.1.
. "$(dirname "$0")/lib.sh"
noroute_setup
# verdict LABEL UPDATE_RC STATUS_RC DIR_FAILING: what update, status and
# the Prometheus file say
verdict() {
    local urc src
    cc update >"$W/u.out" 2>"$W/u.err"; urc=$?
    cc status --prometheus "$W/prom" >/dev/null 2>"$W/s.err"; src=$?
    if [ "$urc" = "$2" ] && [ "$src" = "$3" ] && grep -qx "crlcache_directory_failing $4" "$W/prom"; then
        case_ok "$1"
    else
        sed 's/^/    | /' "$W/u.err" "$W/s.err"; grep directory_failing "$W/prom"
        case_fail "$1" "update exit $urc (want $2), status exit $src (want $3)"
    fi
}

noroute_conf
verdict "no route: update and status exit 3" 3 3 1
verdict "again within the retry interval: still 3, both" 3 3 1
grep -Eq 'directory: the refresh of [0-9]+s ago failed' "$W/u.err" && case_ok "update says the failure stands" ||
    case_fail "failure stands" "update does not say the last refresh failed"

# README: comment out the three ccadb_* lines
sed -i 's|^ccadb_|#ccadb_|' "$CONF"
verdict "ccadb_* commented out: the failure is gone" 0 0 0
cc status >"$W/s.txt"
assert_not_grep '^directory ' "$W/s.txt"
head -n 1 "$W/s.txt" | grep -q 'directory ok$' || { cat "$W/s.txt" >&2; fail "summary: not directory ok"; }

# back on, failing again; reset --all starts afresh, the directory with it
noroute_conf
verdict "ccadb on again: failing" 3 3 1
assert_exit 0 cc reset --all
cc status --prometheus "$W/prom" >/dev/null 2>&1
grep -qx 'crlcache_directory_failing 0' "$W/prom" && case_ok "reset --all: no directory failure left" ||
    case_fail "reset --all" "$(grep directory_failing "$W/prom")"
# --refresh-directory tries at once, and fails again where there is no route
cc update --refresh-directory >/dev/null 2>&1; rc=$?
[ "$rc" = 3 ] && case_ok "--refresh-directory without a route: 3" || case_fail refresh "exit $rc"
finish
