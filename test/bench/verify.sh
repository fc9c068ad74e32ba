#!/bin/bash
# Benchmark: X509_verify_cert of a 3-certificate chain (RSA-2048 root and
# intermediate; RSA-2048 and P-256 leaves) with the crlcache provider vs
# without, and vs OpenSSL's own -crl_check with the same CRL, measured side
# by side in one process (test/bench/verify_bench.c).
#
#   test/bench/verify.sh [REVOKED_ENTRIES]     (default 10000)
set -eu
export CRLCACHE_ALLOW_ROOT=1	# benchmarks write only their own temporary state
N=${1:-10000}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CRLCACHE=${CRLCACHE:-$ROOT/fetcher/crlcache}
W=$(mktemp -d /tmp/crlcache-vbench.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"
cc -O2 -o verify_bench "$ROOT/test/bench/verify_bench.c" $(pkg-config --cflags --libs libcrypto)

cat > ca.cnf <<CNF
[ca]
default_ca = d
[d]
database = $W/index.txt
new_certs_dir = $W
serial = $W/serial
crlnumber = $W/crlnumber
default_md = sha256
default_days = 30
default_crl_days = 7
policy = p
copy_extensions = none
[p]
commonName = supplied
[int]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
[leaf]
basicConstraints = critical,CA:FALSE
crlDistributionPoints = URI:http://127.0.0.1/int.crl
CNF
q() { "$@" >/dev/null 2>&1; }
q openssl req -x509 -newkey rsa:2048 -nodes -keyout root.key -out root.pem \
    -subj "/CN=Bench Root" -days 30 -addext "keyUsage=critical,keyCertSign,cRLSign"
touch index.txt; echo 1000 > serial; echo 01 > crlnumber
q openssl req -new -newkey rsa:2048 -nodes -keyout int.key -out int.csr -subj "/CN=Bench Int"
q openssl ca -batch -config ca.cnf -cert root.pem -keyfile root.key -extensions int -in int.csr -out int.pem
mkdir int; touch int/index.txt; echo 2000 > int/serial; echo 01 > int/crlnumber
sed "s#$W/index.txt#$W/int/index.txt#; s#$W/serial#$W/int/serial#; s#$W/crlnumber#$W/int/crlnumber#" ca.cnf > int.cnf
q openssl req -new -newkey rsa:2048 -nodes -keyout rsa.key -out rsa.csr -subj "/CN=rsa leaf"
q openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ec.key -out ec.csr -subj "/CN=p256 leaf"
q openssl ca -batch -config int.cnf -cert int.pem -keyfile int.key -extensions leaf -in rsa.csr -out rsa-leaf.pem
q openssl ca -batch -config int.cnf -cert int.pem -keyfile int.key -extensions leaf -in ec.csr -out p256-leaf.pem
rd=$(date -u +%y%m%d%H%M%SZ)
openssl rand -hex $((16 * N)) | fold -w 32 | awk -v rd="$rd" \
    '{ printf "R\t351231235959Z\t%s,keyCompromise\t%s\tunknown\t/CN=b%d\n", rd, toupper($0), NR }' >> int/index.txt
q openssl ca -batch -config int.cnf -cert int.pem -keyfile int.key -gencrl -out int.crl
"$CRLCACHE" --state-dir st import --anchor root.pem --untrusted int.pem int.crl
echo "index: $N revoked entries; chain root(RSA-2048) -> int(RSA-2048) -> leaf"
for leaf in rsa-leaf.pem p256-leaf.pem; do
	"$CRLCACHE" --state-dir st exec --set log=stderr -- \
	    ./verify_bench root.pem int.pem "$leaf" int.crl
done
