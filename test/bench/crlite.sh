#!/bin/bash
# Benchmark: what a CRLite set costs a process, through a cycle of
# Mozilla's filters.  The whole `openssl verify` process of a leaf with
# embedded SCTs (bench_process, common.sh) with a CRLite set of day 0, 30
# and 44 of a cycle installed vs the same crlcache with no set: time and
# peak RSS (/usr/bin/time, median of runs).  The filters have real
# structure and sizes: each delta is Mozilla's real delta (test/data/crlite,
# 177 KB, 969 issuers) merged with a filter enrolling the bench
# intermediates (test/crlite_pki.py merge), two a day; the full filter is
# one of them padded to 6 MB (test/crlite_pki.py pad).  Each day twice:
# the set read from its lookup file (pread), and the set mapped from
# `crlcache share`'s sealed copy (crlite_share = its socket).  Then one
# lookup across a set of CRLITE_LOOKUP_FILTERS (default 91: a full filter
# and 90 deltas) of Mozilla's delta (test/bench/crlite_lookup.c), read and
# mapped.
#
#   test/bench/crlite.sh
. "$(dirname "$0")/common.sh"
DELTA=$ROOT/test/data/crlite/20260624-1-default.filter.delta
PEAK_RUNS=11
bench_pki 1000
bench_crlite
python3 "$ROOT/test/crlite_pki.py" merge "$DELTA" bench.filter d 89
python3 "$ROOT/test/crlite_pki.py" pad d.1 full.filter 6000000
# the same state without a set
cp -a st st0
rm -rf st0/crlite
sed "s#$W/st/#$W/st0/#g" crlcache.cnf >noset.cnf
cmp -s noset.cnf crlcache.cnf && { echo "noset.cnf names the same state" >&2; exit 1; }
# the same with the sharer's socket: the provider's section gets crlite_share
sed "/^\[ *crlcache_sect *\]/a crlite_share = $W/share.sock" crlcache.cnf >shared.cnf
cmp -s shared.cnf crlcache.cnf && { echo "shared.cnf names no sharer" >&2; exit 1; }

# peak CONF: the median peak RSS (kB) of the verifying process
peak() {
	local i
	for ((i = 0; i < PEAK_RUNS; i++)); do
		OPENSSL_CONF=$1 /usr/bin/time -f '%M' openssl verify -CAfile root.pem \
		    -untrusted int.pem rsa-sct-leaf.pem 2>&1 >/dev/null | tail -n 1
	done | bench_median
}

for day in 0 30 44; do
	files=(full.filter)
	for ((i = 2; i < 2 + 2 * day; i++)); do files+=("d.$i"); done
	rm -rf st/crlite
	python3 "$ROOT/test/crlite_set.py" st "${files[@]}"
	mb=$(cat "${files[@]}" | wc -c | awk '{ printf "%.1f", $1 / 1e6 }')
	label="leaf with SCTs, CRLite day $day (${#files[@]} filters, $mb MB) vs no set"
	"$CRLCACHE" --state-dir st -c none.conf share --socket "$W/share.sock" &
	share=$!
	for i in $(seq 100); do [ -S "$W/share.sock" ] && break; sleep 0.05; done
	for how in read shared; do
		cnf=crlcache.cnf; [ $how = shared ] && cnf=shared.cnf
		bench_process "$label, $how" noset.cnf $cnf root.pem int.pem rsa-sct-leaf.pem
		a=$(peak noset.cnf); b=$(peak $cnf)
		printf 'ROW\topenssl verify peak RSS, %s, %s\t%s\t%s\t%.3f\tkB\t<= +512 kB\n' "$label" \
		    "$how" "$a" "$b" "$(echo "$b / $a" | bc -l)" | bench_rows
	done
	kill "$share"; wait "$share" 2>/dev/null || :
done

cc -std=c11 -D_GNU_SOURCE -O2 -I"$ROOT/include" -o crlite_lookup \
    "$ROOT/test/bench/crlite_lookup.c" "$ROOT/lib/libcrlcache.a" $(pkg-config --cflags --libs libcrypto) \
    -lpthread
mkdir -p lk
./crlite_lookup "$DELTA" lk "${CRLITE_LOOKUP_FILTERS:-91}" | bench_rows
