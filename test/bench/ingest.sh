#!/bin/bash
# Benchmark: ingest and publish one large CRL, and publish after a small
# CRL changed beside it.
#
#   test/bench/ingest.sh [ENTRIES]      (default 1000000)
#
# A P-256 root CA signs a CRL of ENTRIES random 16-byte serials (as Let's
# Encrypt's; made by test/bench/scale_gen.c), then, in the same run, each
# under /usr/bin/time (wall time, peak RSS) and /proc/PID/io:
#   - `openssl crl -noout`            (OpenSSL parsing the CRL, the floor)
#   - `crlcache import`               (parse + verify + ingest + publish)
#   - `crlcache import` again         (same CRL: recognised as unchanged)
#   - `crlcache update` of the same CRL from test/httpd.py on 127.0.0.1
#   - `crlcache import` of another CA's 1,000-entry CRL into that index,
#     and of its next CRL (10 entries more): the publish after one small
#     CRL changed (time, bytes written against that CRL's size)
# Rows for `make bench`: time against `openssl crl -noout`, peak RSS
# against the CRL's size.
N=${1:-1000000}
. "$(dirname "$0")/common.sh"
. "$ROOT/test/bench/scale_data.sh"
# Entries of the small CRL that changes.
SMALL=1000

scale_ca_cnf
scale_ca root - p256
scale_ca small - p256
cc -O2 -o scale_gen "$ROOT/test/bench/scale_gen.c" $(pkg-config --cflags --libs libcrypto)
this=$(($(date +%s) - 3600))
next=$((this + 7 * 86400))
cat >plan <<PLAN
big.crl root.pem root.key $N 1 1 $this $next -
small1.crl small.pem small.key $SMALL 2 1 $this $next -
small2.crl small.pem small.key $((SMALL + 10)) 2 2 $((this + 60)) $next -
PLAN
./scale_gen plan
der=$(stat -c %s big.crl)
small_der=$(stat -c %s small2.crl)
echo "generated CRL: $N entries, $der bytes DER"

imp=("$CRLCACHE" -c none.conf --state-dir st import --anchor)
bench_measure parse openssl crl -inform DER -in big.crl -noout
bench_measure import "${imp[@]}" root.pem big.crl
bench_measure again "${imp[@]}" root.pem big.crl
"${imp[@]}" small.pem small1.crl
bench_measure small "${imp[@]}" small.pem small2.crl

# The same CRL over loopback HTTP into an empty state directory.
mkdir www
cp big.crl www/big.crl
python3 "$ROOT/test/httpd.py" --root www --port-file port --log httpd.log 2>httpd.err &
httpd=$!
trap 'kill $httpd 2>/dev/null; rm -rf "$W"' EXIT
for _ in $(seq 1 100); do [ -s port ] && break; sleep 0.05; done
printf '%s\n' "url = http://127.0.0.1:$(cat port)/big.crl" "anchor = $W/root.pem" \
    "enroll = none" >upd.conf
bench_measure update "$CRLCACHE" --state-dir st-upd -c upd.conf update

read -r parse_s parse_kb _ <parse.m
read -r import_s import_kb _ <import.m
read -r again_s again_kb _ <again.m
read -r small_s _ small_wb <small.m
read -r update_s update_kb _ <update.m
ratio() { echo "$1 / $2" | bc -l; }
mib() { printf '%.1f' "$(echo "$1 / 1024" | bc -l)"; }
crl_kb=$(echo "$der / 1024" | bc -l)
echo "published index (index.mdb, scope/): $(published_bytes st) bytes, work/: $(du -sb st/work | cut -f1) bytes"
label="$N-entry CRL ($(printf %.1f "$(echo "$der / 1000000" | bc -l)") MB DER)"
row() {	# row WHAT SECONDS KB
	printf 'ROW\t%s, against `openssl crl -noout` of the same file (time)\t%.2f\t%.2f\t%.2f\ts\n' \
	    "$1" "$parse_s" "$2" "$(ratio "$2" "$parse_s")"
	printf 'ROW\t%s, peak RSS against the CRL size\t%s\t%s\t%.2f\tMiB\n' \
	    "$1" "$(mib "$crl_kb")" "$(mib "$3")" "$(ratio "$3" "$crl_kb")"
}
{
	row "\`crlcache import\` of a $label" "$import_s" "$import_kb"
	row "\`crlcache update\` of the same CRL over loopback HTTP" "$update_s" "$update_kb"
	printf 'ROW\t`crlcache import` of the same CRL again, unchanged (time)\t%.2f\t%.2f\t%.2f\ts\n' \
	    "$parse_s" "$again_s" "$(ratio "$again_s" "$parse_s")"
	printf 'ROW\tpublish after one small CRL changed (%d entries), %d-entry index (time)\t-\t%.2f\t-\ts\n' \
	    "$SMALL" "$N" "$small_s"
	printf 'ROW\tthe same publish, bytes written against the changed CRL\t%.3f\t%.3f\t%.1f\tMB\n' \
	    "$(echo "$small_der / 1000000" | bc -l)" "$(echo "$small_wb / 1000000" | bc -l)" \
	    "$(ratio "$small_wb" "$small_der")"
} | bench_rows
