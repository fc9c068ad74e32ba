#!/bin/bash
# Benchmark: the whole `openssl verify` process (start, configuration,
# module load, index open, one chain verified, exit) with the crlcache
# provider vs the same configuration without it, in alternating batches;
# the ratio is the median of the batches' ratios.  With valgrind installed,
# also the instruction counts of one run each (stable on a busy machine).
#
#   test/bench/process.sh [REVOKED_ENTRIES]     (default 500000 per
#   intermediate: an index of 1,000,000 entries)
N=${1:-500000}
. "$(dirname "$0")/common.sh"
# Batches per side and processes per batch.
ROUNDS=11
PER_ROUND=20
bench_pki "$N"
echo "index: $(published_bytes st) bytes, $((2 * N)) revoked entries"
verify() {
	OPENSSL_CONF=$W/$1.cnf openssl verify -CAfile root.pem -untrusted int.pem \
	    rsa-leaf.pem >/dev/null
}
batch() {
	local t0 i
	t0=$(date +%s%N)
	for ((i = 0; i < PER_ROUND; i++)); do verify "$1"; done
	echo $(( ($(date +%s%N) - t0) / PER_ROUND / 1000 ))
}
verify crlcache && verify plain	# warm the page cache; both must pass
: >times
for ((r = 0; r < ROUNDS; r++)); do
	if ((r % 2 == 0)); then p=$(batch plain); c=$(batch crlcache)
	else c=$(batch crlcache); p=$(batch plain); fi
	echo "$p $c" >>times
done
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf 'ROW\topenssl verify process, RSA chain, %s-entry index\t%s\t%s\t%.3f\n' \
    "$((2 * N))" "$(awk '{ print $1 }' times | med)" "$(awk '{ print $2 }' times | med)" \
    "$(awk '{ print $2 / $1 }' times | med)" | bench_rows
if command -v valgrind >/dev/null; then
	for c in plain crlcache; do
		OPENSSL_CONF=$W/$c.cnf valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		    openssl verify -CAfile root.pem -untrusted int.pem rsa-leaf.pem 2>&1 |
		    sed -n 's/.*Collected : //p' >"ir.$c"
	done
	printf 'ROW\topenssl verify process, instructions (callgrind)\t%.2f\t%.2f\t%.3f\tM instr\n' \
	    "$(echo "$(cat ir.plain) / 1000000" | bc -l)" "$(echo "$(cat ir.crlcache) / 1000000" | bc -l)" \
	    "$(echo "$(cat ir.crlcache) / $(cat ir.plain)" | bc -l)" | bench_rows
fi
