#!/bin/bash
# Benchmark: the whole `openssl verify` process with the crlcache provider
# vs the same configuration without it (bench_process, common.sh); then
# the same for a leaf with SCTs, which makes the process read a CRLite
# set of a full filter's size (bench_crlite).
#
#   test/bench/process.sh [REVOKED_ENTRIES]     (default 500000 per
#   intermediate: an index of 1,000,000 entries)
N=${1:-500000}
. "$(dirname "$0")/common.sh"
bench_pki "$N"
echo "index: $(published_bytes st) bytes, $((2 * N)) revoked entries"
bench_process "RSA chain, $((2 * N))-entry index" "$W/plain.cnf" "$W/crlcache.cnf" \
    root.pem int.pem rsa-leaf.pem
bench_crlite
bench_process "RSA chain, leaf with SCTs, 6 MB CRLite set read" "$W/plain.cnf" "$W/crlcache.cnf" \
    root.pem int.pem rsa-sct-leaf.pem
