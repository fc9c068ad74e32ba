#!/bin/bash
# Benchmark: X509_verify_cert of a 3-certificate chain (RSA-2048 root and
# intermediate; RSA-2048 and P-256 leaves) with the crlcache provider vs
# without, and vs OpenSSL's own -crl_check with the same CRL, measured side
# by side in one process (test/bench/verify_bench.c).
#
#   test/bench/verify.sh [REVOKED_ENTRIES]     (default 10000)
N=${1:-10000}
. "$(dirname "$0")/common.sh"
cc -O2 -o verify_bench "$ROOT/test/bench/verify_bench.c" $(pkg-config --cflags --libs libcrypto)
bench_ca_conf "$W/root"
bench_ca_conf "$W/int"
q openssl req -x509 -newkey rsa:2048 -nodes -keyout root.key -out root.pem \
    -subj "/CN=Bench Root" -days 30 -addext "keyUsage=critical,keyCertSign,cRLSign"
q openssl req -new -newkey rsa:2048 -nodes -keyout int.key -out int.csr -subj "/CN=Bench Int"
q openssl ca -batch -config root/ca.cnf -cert root.pem -keyfile root.key -extensions int -in int.csr -out int.pem
q openssl req -new -newkey rsa:2048 -nodes -keyout rsa.key -out rsa.csr -subj "/CN=rsa leaf"
q openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ec.key -out ec.csr -subj "/CN=p256 leaf"
q openssl ca -batch -config int/ca.cnf -cert int.pem -keyfile int.key -extensions leaf -in rsa.csr -out rsa-leaf.pem
q openssl ca -batch -config int/ca.cnf -cert int.pem -keyfile int.key -extensions leaf -in ec.csr -out p256-leaf.pem
bench_revocations "$N" >>int/index.txt
q openssl ca -batch -config int/ca.cnf -cert int.pem -keyfile int.key -gencrl -out int.crl
"$CRLCACHE" --state-dir st import --anchor root.pem --untrusted int.pem int.crl
echo "index: $N revoked entries; chain root(RSA-2048) -> int(RSA-2048) -> leaf"
for leaf in rsa-leaf.pem p256-leaf.pem; do
	"$CRLCACHE" --state-dir st exec --set log=stderr -- \
	    ./verify_bench root.pem int.pem "$leaf" int.crl
done
