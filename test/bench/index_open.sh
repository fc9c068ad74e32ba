#!/bin/bash
# Benchmark: what opening a format 4 index costs a program (the top file
# read, its checksum trailer and every record checked: crlc_index_open),
# and a lookup's cost the first time (a page file read and checked, a
# scope file mapped and checked) and after, for ISSUERS issuers with a
# complete CRL and a partition each
# (2 * ISSUERS scope records; the Web PKI has about 2,000 CRLs), written
# with the encoder (test/bench/index_open_bench.c).  With valgrind
# installed, the instructions of one open too: callgrind's
# count of COUNT_OPS opens, in crlc_index_open only.
#
#   test/bench/index_open.sh [ISSUERS [ENTRIES_PER_SCOPE]]   (default 1000 100)
. "$(dirname "$0")/common.sh"
cc -O2 -std=c11 -D_GNU_SOURCE -I"$ROOT/include" -o index_open_bench \
    "$ROOT/test/bench/index_open_bench.c" "$ROOT/lib/libcrlcache.a" \
    $(pkg-config --cflags --libs libcrypto)
mkdir idx
./index_open_bench idx "${1:-1000}" "${2:-100}"
command -v valgrind >/dev/null || exit 0
rm -rf idx && mkdir idx
BENCH_COUNT=$COUNT_OPS valgrind --tool=callgrind --toggle-collect=crlc_index_open \
    --callgrind-out-file=/dev/null ./index_open_bench idx "${1:-1000}" "${2:-100}" 2>&1 |
    sed -n 's/.*Collected : //p' | awk -v n="$COUNT_OPS" \
    '{ printf "crlc_index_open: %.0f instructions per open (callgrind, %d opens)\n", $1 / n, n }'
