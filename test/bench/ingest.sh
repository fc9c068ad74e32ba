#!/bin/bash
# Benchmark: ingest and publish one large CRL, and the index size per entry.
#
#   test/bench/ingest.sh [ENTRIES]      (default 1000000)
#
# Builds a root CA with the openssl CLI, writes ENTRIES revoked serials
# (random 16-byte serials, like Let's Encrypt's) into its database, has
# `openssl ca -gencrl` sign the CRL, then times in the same run:
#   - `openssl crl -noout`            (OpenSSL parsing the CRL, the floor)
#   - `crlcache import`               (parse + verify + ingest + publish)
#   - `crlcache import` again         (same CRL: recognised as unchanged)
# and reports the ratio import / parse and the published bytes per entry.
N=${1:-1000000}
. "$(dirname "$0")/common.sh"

secs() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc -l; }

bench_ca_conf "$W/ca"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout root.key -out root.pem -subj "/CN=Bench Root" -days 30 \
    -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
bench_revocations "$N" >ca/index.txt
t0=$(secs)
openssl ca -batch -config ca/ca.cnf -cert root.pem -keyfile root.key -gencrl -out big.pem 2>/dev/null
openssl crl -in big.pem -outform DER -out big.crl
t1=$(secs)
echo "generated CRL: $N entries, $(stat -c %s big.crl) bytes DER (openssl ca -gencrl: $(elapsed "$t0" "$t1") s)"

t0=$(secs); openssl crl -inform DER -in big.crl -noout; t1=$(secs)
parse=$(elapsed "$t0" "$t1")
t0=$(secs); "$CRLCACHE" --state-dir st import --anchor root.pem big.crl; t1=$(secs)
import=$(elapsed "$t0" "$t1")
t0=$(secs); "$CRLCACHE" --state-dir st import --anchor root.pem big.crl; t1=$(secs)
again=$(elapsed "$t0" "$t1")
size=$(stat -c %s st/index.mdb)
der=$(stat -c %s big.crl)
printf 'openssl crl -noout (parse):        %8.2f s\n' "$parse"
printf 'crlcache import (ingest+publish):  %8.2f s   ratio to parse %.1f\n' "$import" "$(echo "$import / $parse" | bc -l)"
printf 'crlcache import again (unchanged): %8.2f s\n' "$again"
printf 'index.mdb: %d bytes, of which signed CRL %d; %.1f bytes per entry without the CRL, %.1f with it\n' \
    "$size" "$der" "$(echo "($size - $der) / $N" | bc -l)" "$(echo "$size / $N" | bc -l)"
"$CRLCACHE" --state-dir st status | sed -n '2,8p'
