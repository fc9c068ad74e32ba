#!/bin/bash
# Benchmark: the whole `openssl verify` process with the crlcache provider
# vs the same configuration without it (bench_process, common.sh).
#
#   test/bench/process.sh [REVOKED_ENTRIES]     (default 500000 per
#   intermediate: an index of 1,000,000 entries)
N=${1:-500000}
. "$(dirname "$0")/common.sh"
bench_pki "$N"
echo "index: $(published_bytes st) bytes, $((2 * N)) revoked entries"
bench_process "RSA chain, $((2 * N))-entry index" "$W/plain.cnf" "$W/crlcache.cnf" \
    root.pem int.pem rsa-leaf.pem
