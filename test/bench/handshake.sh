#!/bin/bash
# Benchmark: full TLS 1.3 and 1.2 handshakes (RSA-2048 and P-256 servers),
# the client in a library context with the crlcache provider vs one
# without, side by side in one process (test/bench/handshake_bench.c).
# The client verifies a 2-certificate chain whose issuers the index holds
# CRLs for, so every handshake looks up the leaf and the intermediate.
# Each row is also counted in instructions (callgrind), which the load of
# a shared machine does not move.  The "CRLite" servers present the same
# leaves with embedded SCTs, which a CRLite set covers (bench_crlite).
#
#   test/bench/handshake.sh [REVOKED_ENTRIES]     (default 10000)
N=${1:-10000}
. "$(dirname "$0")/common.sh"
cc -O2 -o handshake_bench "$ROOT/test/bench/handshake_bench.c" \
    $(pkg-config --cflags --libs libssl libcrypto)
bench_pki "$N"
bench_crlite
echo "index: $N revoked entries per intermediate; root(RSA-2048) -> int -> leaf"
bench_run ./handshake_bench crlcache.cnf root.pem RSA-2048 rsa-chain.pem rsa.key \
    P-256 p256-chain.pem p256.key "RSA-2048 CRLite" rsa-sct-chain.pem rsa.key \
    "P-256 CRLite" p256-sct-chain.pem p256.key
