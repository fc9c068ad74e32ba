#!/bin/bash
# Benchmark: ingest and publish one large CRL, and the index size per entry.
#
#   test/bench/ingest.sh [ENTRIES]      (default 1000000)
#
# Builds a root CA with the openssl CLI, writes ENTRIES revoked serials
# (random 16-byte serials, like Let's Encrypt's) into its database, has
# `openssl ca -gencrl` sign the CRL, then measures in the same run, each
# with /usr/bin/time (wall time, peak RSS):
#   - `openssl crl -noout`            (OpenSSL parsing the CRL, the floor)
#   - `crlcache import`               (parse + verify + ingest + publish)
#   - `crlcache import` again         (same CRL: recognised as unchanged)
#   - `crlcache update` of the same CRL from test/httpd.py on 127.0.0.1
# and reports the ratios (time to `openssl crl -noout`, peak RSS to the
# CRL's size) as markdown table rows and as JSON lines.
N=${1:-1000000}
. "$(dirname "$0")/common.sh"

# measure OUT CMD...: run CMD under /usr/bin/time; OUT gets "seconds kilobytes"
measure() {
	local out=$1; shift
	/usr/bin/time -f '%e %M' -o "$out" "$@" || { echo "failed: $*" >&2; exit 1; }
	tail -n 1 "$out" >"$out.last" && mv "$out.last" "$out"
}

bench_ca_conf "$W/ca"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout root.key -out root.pem -subj "/CN=Bench Root" -days 30 \
    -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
bench_revocations "$N" >ca/index.txt
openssl ca -batch -config ca/ca.cnf -cert root.pem -keyfile root.key -gencrl -out big.pem 2>/dev/null
openssl crl -in big.pem -outform DER -out big.crl
der=$(stat -c %s big.crl)
echo "generated CRL: $N entries, $der bytes DER"

# An empty configuration: the host's own (/etc/crlcache) plays no part.
: >empty.conf
measure parse.m openssl crl -inform DER -in big.crl -noout
measure import.m "$CRLCACHE" -c empty.conf --state-dir st import --anchor root.pem big.crl
measure again.m "$CRLCACHE" -c empty.conf --state-dir st import --anchor root.pem big.crl

# The same CRL over loopback HTTP into an empty state directory.
mkdir www
cp big.crl www/big.crl
python3 "$ROOT/test/httpd.py" --root www --port-file port --log httpd.log 2>httpd.err &
httpd=$!
trap 'kill $httpd 2>/dev/null; rm -rf "$W"' EXIT
for _ in $(seq 1 100); do [ -s port ] && break; sleep 0.05; done
printf '%s\n' "url = http://127.0.0.1:$(cat port)/big.crl" "anchor = $W/root.pem" \
    "enroll = none" >upd.conf
measure update.m "$CRLCACHE" --state-dir st-upd -c upd.conf update

read -r parse_s parse_kb <parse.m
read -r import_s import_kb <import.m
read -r again_s again_kb <again.m
read -r update_s update_kb <update.m
size=$(published_bytes st)
ratio() { echo "$1 / $2" | bc -l; }
mb() { echo "$1 / 1024" | bc -l; }
crl_kb=$(echo "$der / 1024" | bc -l)
printf 'openssl crl -noout (parse):        %7.2f s %7.0f MiB\n' "$parse_s" "$(mb "$parse_kb")"
printf 'crlcache import (ingest+publish):  %7.2f s %7.0f MiB\n' "$import_s" "$(mb "$import_kb")"
printf 'crlcache import again (unchanged): %7.2f s %7.0f MiB\n' "$again_s" "$(mb "$again_kb")"
printf 'crlcache update (loopback HTTP):   %7.2f s %7.0f MiB\n' "$update_s" "$(mb "$update_kb")"
printf 'published index (index.mdb, scope/): %d bytes, of which signed CRL %d; %.1f bytes per entry without the CRL, %.1f with it\n' \
    "$size" "$der" "$(echo "($size - $der) / $N" | bc -l)" "$(echo "$size / $N" | bc -l)"
echo
echo '| what | time | time / `openssl crl -noout` | peak RSS | peak RSS / CRL size |'
echo '|---|---|---|---|---|'
row() {	# row LABEL SECONDS KB
	printf '| %s | %.2f s | %.2f× | %.0f MiB | %.2f× |\n' "$1" "$2" "$(ratio "$2" "$parse_s")" \
	    "$(mb "$3")" "$(ratio "$3" "$crl_kb")"
}
label="$N-entry CRL ($(printf %.1f "$(echo "$der / 1000000" | bc -l)") MB)"
row "\`openssl crl -noout\` of a $label" "$parse_s" "$parse_kb"
row "\`crlcache import\` of a $label" "$import_s" "$import_kb"
row "\`crlcache import\` of the same CRL again (unchanged)" "$again_s" "$again_kb"
row "\`crlcache update\` of the same CRL over loopback HTTP" "$update_s" "$update_kb"
echo
json() {	# json NAME SECONDS KB
	printf '{"bench":"ingest","what":"%s","entries":%d,"crl_bytes":%d,"seconds":%.3f,"time_ratio":%.3f,"peak_rss_kb":%d,"rss_ratio":%.3f}\n' \
	    "$1" "$N" "$der" "$2" "$(ratio "$2" "$parse_s")" "$3" "$(ratio "$3" "$crl_kb")"
}
json openssl_crl_noout "$parse_s" "$parse_kb"
json import "$import_s" "$import_kb"
json import_unchanged "$again_s" "$again_kb"
json update_http "$update_s" "$update_kb"
