#!/usr/bin/env bash
# crlcache integration test runner (called by `make check`).
#
#   test/run.sh [-v] [-k] [-t SECONDS] [TEST...]
#
# TEST is t_foo, t_foo.sh or a path; default: every test/t_*.sh, sorted.
# Each test runs under `timeout` in its own fresh temp dir (exported as
# TMPDIR_TEST) with output captured to a log, shown when the test fails (or
# always with -v).  Exit 0 = pass, 77 = skip (the test prints "SKIP: reason"),
# anything else = fail.  -k keeps the temp dirs of passing tests too.
#
# Environment: CRLCACHE (crlcache binary, default ../fetcher/crlcache),
# CRLCACHE_MODULES (dir with crlcache.so), UNIT_PASSED / UNIT_FAILED (unit
# test counts from the Makefile, added into the summary), TEST_TIMEOUT.
# A test whose work cannot fit the timeout (a Debian build in a fresh
# root) says its own in a line "# run.sh: timeout=SECONDS"; the larger of
# the two applies.
set -u

here=$(cd "$(dirname "$0")" && pwd)
verbose=0 keep=0
tmo=${TEST_TIMEOUT:-300}
while [ $# -gt 0 ]; do
    case $1 in
        -v) verbose=1 ;;
        -k) keep=1 ;;
        -t) shift; tmo=$1 ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        --) shift; break ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
    shift
done

: "${CRLCACHE:=$here/../fetcher/crlcache}"
: "${CRLCACHE_MODULES:=$here/../provider}"
case $CRLCACHE in /*) ;; *) CRLCACHE=$(pwd)/$CRLCACHE ;; esac
case $CRLCACHE_MODULES in /*) ;; *) CRLCACHE_MODULES=$(pwd)/$CRLCACHE_MODULES ;; esac
export CRLCACHE CRLCACHE_MODULES

tests=()
if [ $# -eq 0 ]; then
    for f in "$here"/t_*.sh; do [ -e "$f" ] && tests+=("$f"); done
else
    for a in "$@"; do
        case $a in
            /*) f=$a ;;
            */*) f=$(pwd)/$a ;;
            *.sh) f=$here/$a ;;
            *) f=$here/$a.sh ;;
        esac
        tests+=("$f")
    done
fi

passed=${UNIT_PASSED:-0} failed=${UNIT_FAILED:-0} skipped=0
case $passed in ''|*[!0-9]*) passed=0 ;; esac
case $failed in ''|*[!0-9]*) failed=0 ;; esac
base=${TMPDIR:-/tmp}

for f in ${tests[@]+"${tests[@]}"}; do
    name=$(basename "$f" .sh)
    if [ ! -f "$f" ]; then
        echo "FAIL $name: no such test ($f)"; failed=$((failed + 1)); continue
    fi
    d=$(mktemp -d "$base/crlcache-$name.XXXXXX")
    log=$d/test.log
    own=$(sed -n 's/^# run\.sh: timeout=\([0-9][0-9]*\)$/\1/p' "$f" | head -n 1)
    ttmo=$tmo
    [ -n "$own" ] && [ "$own" -gt "$tmo" ] && ttmo=$own
    start=$(date +%s)
    # timeout puts the test in its own process group; afterwards anything still
    # in that group was leaked by the test and is killed.
    ( cd "$d" && TMPDIR_TEST=$d/w && mkdir -p "$TMPDIR_TEST" && export TMPDIR_TEST \
        && exec timeout -k 10 "$ttmo" bash "$f" ) </dev/null >"$log" 2>&1 &
    pid=$!
    wait "$pid"; rc=$?
    leaked=""
    # zombies (reaped by init soon) are not leaks
    if command -v pgrep >/dev/null && pgrep -g "$pid" -a 2>/dev/null | grep -vq '<defunct>$'; then
        leaked=$(pgrep -g "$pid" -a 2>/dev/null | grep -v '<defunct>$' | head -5)
        kill -TERM -- "-$pid" 2>/dev/null; sleep 0.5; kill -KILL -- "-$pid" 2>/dev/null
    fi
    secs=$(( $(date +%s) - start ))
    if [ "$rc" -eq 0 ] && [ -n "$leaked" ]; then
        echo "left background processes running:" >>"$log"; echo "$leaked" >>"$log"
        rc=99
    fi
    case $rc in
        0)
            echo "PASS $name (${secs}s)"; passed=$((passed + 1))
            [ "$verbose" = 1 ] && sed 's/^/    /' "$log"
            [ "$keep" = 1 ] || rm -rf "$d" ;;
        77)
            reason=$(sed -n 's/^SKIP: //p' "$log" | tail -n1)
            echo "SKIP $name: ${reason:-no reason given}"; skipped=$((skipped + 1))
            [ "$verbose" = 1 ] && sed 's/^/    /' "$log"
            [ "$keep" = 1 ] || rm -rf "$d" ;;
        *)
            why="exit $rc"
            [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && why="timed out after ${ttmo}s"
            [ "$rc" -eq 99 ] && why="leaked background processes"
            echo "FAIL $name ($why, ${secs}s; files kept in $d)"; failed=$((failed + 1))
            sed 's/^/    /' "$log" ;;
    esac
done

echo "$passed passed, $failed failed, $skipped skipped"
# .ci/run repeats it as its last line, after anything make prints.
echo "$passed passed, $failed failed, $skipped skipped" >"$here/.summary" 2>/dev/null || true
[ "$failed" -eq 0 ]
