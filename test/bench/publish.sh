#!/bin/bash
# Benchmark: what a publish costs when one small CRL changed beside a big
# one (the target: one changed CRL publishes in <= 1 s and writes a
# small multiple of what changed).
#
#   test/bench/publish.sh [ENTRIES] [SMALL] [ROUNDS]   (1000000 10 3)
#
# A root signs one CRL of ENTRIES random 16-byte serials and SMALL
# intermediates one CRL of 100 entries each; all are imported, then, ROUNDS
# times, the first intermediate issues a new CRL and it alone is imported
# again.  Per round: wall time, bytes the process wrote (its file system
# output, `/usr/bin/time` %O, in 512-byte blocks: the working index's
# commit included) and bytes of the published files (index.mdb and
# scope/*) made by the run.  CRLCACHE selects the binary, so that two
# builds can be compared on the same CRLs.
N=${1:-1000000}
SMALL=${2:-10}
ROUNDS=${3:-3}
. "$(dirname "$0")/common.sh"

bench_ca_conf "$W/root"
q openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout root.key -out root.pem -subj "/CN=Bench Root" -days 30 \
    -addext "keyUsage=critical,keyCertSign,cRLSign"
bench_revocations "$N" >root/index.txt
q openssl ca -batch -config root/ca.cnf -cert root.pem -keyfile root.key -gencrl -out big.pem
q openssl crl -in big.pem -outform DER -out big.crl
: >ints.pem
for i in $(seq 1 "$SMALL"); do
	bench_ca_conf "$W/int$i"
	q openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "int$i.key" -out "int$i.csr" -subj "/CN=Bench Int $i"
	q openssl ca -batch -config root/ca.cnf -cert root.pem -keyfile root.key \
	    -extensions int -in "int$i.csr" -out "int$i.pem"
	bench_revocations 100 >>"int$i/index.txt"
	q openssl ca -batch -config "int$i/ca.cnf" -cert "int$i.pem" -keyfile "int$i.key" \
	    -gencrl -out "int$i.crl"
	cat "int$i.pem" >>ints.pem
done
: >empty.conf
imp() {
	/usr/bin/time -f '%e %O' -o t.m "$CRLCACHE" -c empty.conf --state-dir st \
	    import --anchor root.pem --untrusted ints.pem "$@" >/dev/null 2>&1 ||
	    { echo "failed: import $*" >&2; exit 1; }
}
imp big.crl int*.crl
read -r s o <t.m
echo "$N + $SMALL x 100 entries imported: $s s, $((o * 512)) bytes written, published $(published_bytes st) bytes"
for r in $(seq 1 "$ROUNDS"); do
	q openssl ca -batch -config int1/ca.cnf -cert int1.pem -keyfile int1.key -gencrl -out int1.crl
	sync
	touch mark
	sleep 1		# mtime granularity: files older than mark are not this run's
	imp int1.crl
	read -r s o <t.m
	made=$(find st/index.mdb st/scope -type f -newer mark ! -name '.*' -printf '%s\n' 2>/dev/null |
	    awk '{ s += $1 } END { printf "%d", s }')
	echo "round $r, one 100-entry CRL changed: $s s, $((o * 512)) bytes written, $made bytes of published files written"
done
