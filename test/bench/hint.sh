#!/bin/bash
# Benchmark: the cost of a hint, i.e. of the first verify in a process of
# a certificate no CRL covers (the provider writes the certificate into
# the spool then), against a covered certificate's verify, side by side
# in one process (test/bench/hint_bench.c).  Run three times: with an
# empty spool (each hint is written), with the same hints in it already
# (EEXIST), and without a spool (a program that cannot write there: one
# failed open per issuer).
#
#   test/bench/hint.sh [UNCOVERED_ISSUERS]     (default 40)
N=${1:-40}
. "$(dirname "$0")/common.sh"
cc -O2 -o hint_bench "$ROOT/test/bench/hint_bench.c" $(pkg-config --cflags --libs libcrypto)
# root (RSA-2048) -> cov (P-256, its CRL imported) -> leaf (P-256)
#                 -> unc1..N (P-256, no CRL)       -> leaf (P-256)
bench_ca_conf "$W/root"
q openssl req -x509 -newkey rsa:2048 -nodes -keyout root.key -out root.pem \
    -subj "/CN=Bench Root" -days 30 -addext "keyUsage=critical,keyCertSign,cRLSign"
: >ints.pem
for i in cov $(seq 1 "$N"); do
	bench_ca_conf "$W/$i"
	q openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$i.key" -out "$i.csr" -subj "/CN=Bench Int $i"
	q openssl ca -batch -config root/ca.cnf -cert root.pem -keyfile root.key \
	    -extensions int -in "$i.csr" -out "$i.pem"
	q openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "leaf-$i.key" -out "leaf-$i.csr" -subj "/CN=leaf $i"
	q openssl ca -batch -config "$i/ca.cnf" -cert "$i.pem" -keyfile "$i.key" \
	    -extensions leaf -in "leaf-$i.csr" -out "leaf-$i.pem"
	cat "$i.pem" >>ints.pem
done
q openssl ca -batch -config root/ca.cnf -cert root.pem -keyfile root.key -gencrl -out root.crl
q openssl ca -batch -config cov/ca.cnf -cert cov.pem -keyfile cov.key -gencrl -out cov.crl
"$CRLCACHE" -c none.conf --state-dir st import --anchor root.pem --untrusted ints.pem root.crl cov.crl
for h in on off; do
	"$CRLCACHE" -c none.conf --state-dir st exec --set log=stderr --set hints=$h -- \
	    sh -c 'cat "$OPENSSL_CONF"' >"$h.cnf"
done
unc=$(for i in $(seq 1 "$N"); do echo "leaf-$i.pem"; done)
mkdir -m 3733 st/hints
# run CASE: hint_bench's row, named by CASE.
run() {
	# shellcheck disable=SC2086
	./hint_bench on.cnf off.cnf root.pem ints.pem leaf-cov.pem $unc |
	    sed "s/^\(ROW\t[^\t]*\)/\1, $1/" | bench_rows
}
echo "spool present (hints written):"
run "spool present (hint written)"
echo "  hints written: $(ls st/hints | wc -l)"
echo "spool holding these hints already (EEXIST: another process left them):"
run "hint already spooled"
rm -rf st/hints
echo "spool missing (a program that cannot write there):"
run "spool missing"
