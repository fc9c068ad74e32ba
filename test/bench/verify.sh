#!/bin/bash
# Benchmark: X509_verify_cert of a 3-certificate chain (RSA-2048 root; an
# RSA-2048 leaf under an RSA-2048 intermediate, a P-256 leaf under a P-256
# one) with the crlcache provider vs without, with the leaf object reused
# and with the leaf decoded afresh each time, and vs OpenSSL's own
# -crl_check with the same CRL, measured side by side in one process
# (test/bench/verify_bench.c); each row also in instructions (callgrind).
# Then the CRLite case (bench_crlite, common.sh): the same leaves with
# embedded SCTs, which a CRLite set of a full filter's size covers.
#
#   test/bench/verify.sh [REVOKED_ENTRIES]     (default 10000)
N=${1:-10000}
. "$(dirname "$0")/common.sh"
cc -O2 -o verify_bench "$ROOT/test/bench/verify_bench.c" $(pkg-config --cflags --libs libcrypto)
bench_pki "$N"
echo "index: $N revoked entries per intermediate; chain root(RSA-2048) -> int -> leaf"
export OPENSSL_CONF=$W/crlcache.cnf
bench_run ./verify_bench root.pem int.pem rsa-leaf.pem int.crl
bench_run ./verify_bench root.pem int-ec.pem p256-leaf.pem int-ec.crl
bench_crlite
echo "CRLite: a set of a 6 MB filter and a delta enrolling both intermediates; leaves with 2 SCTs"
bench_run ./verify_bench root.pem int.pem rsa-sct-leaf.pem int.crl
bench_run ./verify_bench root.pem int-ec.pem p256-sct-leaf.pem int-ec.crl
