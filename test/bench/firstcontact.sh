#!/bin/bash
# Benchmark: the first handshake with a good server of a CA no program on
# the host met before, with the crlcache provider (which leaves a hint
# and waits, learn_wait, for the fast run the spool's watcher starts to
# publish the CA's CRL) vs a client without it, the CA's CRLs in 1 (a
# full CRL) and in 100 partitions, every HTTP answer held 50 ms.  The
# scenario is test/t_learn_partitioned.sh's (real PKI, directory, server,
# `update --hints` started as crlcache-hints.service starts it); it times
# CAS never-met CAs and prints the medians, which become the rows.  The
# target: what the first contact adds to the next handshake, <= 1 s.
# Then the fast run alone, to its first CRL request, with no directory and
# with one of the real CCADB's size (below); the target: what the
# directory adds, <= 100 ms.
#
#   test/bench/firstcontact.sh [CAS]     (default 5; FIRSTCONTACT_REPS=N
#                                         runs of the fast run, default 7)
CAS=${1:-5}
. "$(dirname "$0")/common.sh"
# "1r": one CRL, the directory holding the real CCADB too (REAL_DIRECTORY)
for run in 1 100 1r; do
	parts=${run%r} real='' what=''
	[ "$run" = "$parts" ] || { real=1; what=", a directory of the real CCADB's size"; }
	PARTS=$parts REAL_DIRECTORY=$real FIRSTCONTACT_CAS=$CAS bash "$ROOT/test/t_learn_partitioned.sh" >run.out 2>&1 ||
	    { cat run.out; exit 1; }
	# "... (median ms): without crlcache A, with B, the next handshake C, added D"
	sed -n 's/^.*first contact, .*(median ms): without crlcache \([0-9]*\), with \([0-9]*\), the next handshake \([0-9]*\), added \(-*[0-9]*\)$/\1 \2 \3 \4/p' \
	    run.out >fig
	[ -s fig ] || { cat run.out; echo "firstcontact: no figures" >&2; exit 1; }
	read -r without with next added <fig
	echo "CRLs in $parts partition(s)$what: the next handshake $next ms; the first adds $added ms (median of $CAS CAs)"
	printf 'ROW\tfirst handshake with a never-met CA'"'"'s good server, its CRLs in %d partition(s)%s, 50 ms a request\t%s\t%s\t%s\tms\tadded <= 1 s\n' \
	    "$parts" "$what" "$without" "$with" "$(echo "$with / $without" | bc -l | xargs printf '%.1f')" | bench_rows
done
# The fast run alone: from the start of `update --hints` to its first CRL
# request (httpd.py --log-times), a hint of a never-met CA's leaf, the
# same run with no issuer directory (the CA a configured `untrusted`
# certificate) and with a directory of the real CCADB's size: the 33 PEM
# reports of test/data/ccadb-real and a records report made from them
# (ccadb_records.py; their CRL URLs, on .example hosts, are never asked
# for), the never-met CA's row among them, Debian 12's anchors but the 11
# with CRL distribution points (an update would fetch those) and the
# bench's root; REPS runs each, the median.
REPS=${FIRSTCONTACT_REPS:-7}
mkdir -p www real
bench_ca_conf "$W/root"
q openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout root.key \
    -out root.pem -subj "/CN=Bench First Contact Root" -days 30 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
bench_ca_conf "$W/ca"
q openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key \
    -out ca.csr -subj "/CN=Bench First Contact CA"
q openssl ca -batch -config root/ca.cnf -cert root.pem -keyfile root.key -extensions int \
    -in ca.csr -out ca.pem
python3 "$ROOT/test/httpd.py" --root www --port-file port --log httpd.log --log-times 2>httpd.err &
httpd=$!
trap 'kill $httpd 2>/dev/null; rm -rf "$W"' EXIT
for _ in $(seq 1 100); do [ -s port ] && break; sleep 0.05; done
crl=http://127.0.0.1:$(cat port)/ca.crl
sed -i "s|URI:http://127.0.0.1/int.crl|URI:$crl|" ca/ca.cnf
q openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout leaf.key \
    -out leaf.csr -subj "/CN=first contact leaf"
q openssl ca -batch -config ca/ca.cnf -cert ca.pem -keyfile ca.key -extensions leaf \
    -in leaf.csr -out leaf.pem
q openssl ca -batch -config ca/ca.cnf -cert ca.pem -keyfile ca.key -gencrl -out www/ca.crl
tar -xJf "$ROOT/test/data/ccadb-real/pems.tar.xz" -C real
year=$(openssl x509 -in ca.pem -noout -startdate | sed 's/.* \([0-9]\{4\}\) GMT$/\1/')
for c in root ca; do
	printf '"%s","%s"\r\n' "$(openssl x509 -in $c.pem -outform DER | sha256sum | cut -c1-64 |
	    tr a-f A-F)" "$(cat $c.pem)" >>"real/pems-$year.csv"
done
python3 "$ROOT/test/bench/ccadb_records.py" "$ROOT/test/data/ccadb/records-v5.csv" \
    real/records.csv real/pems-*.csv
# the never-met CA's row: its CRL on the loopback server
fp=$(openssl x509 -in ca.pem -outform DER | sha256sum | cut -c1-64 | tr a-f A-F)
h=$(printf %s "$fp" | sha256sum | cut -c1-16)
sed -i "s|http://crl${h:0:1}.bench.example/$h.crl|$crl|" real/records.csv
grep -q "$crl" real/records.csv || { echo "firstcontact: no row of the CA" >&2; exit 1; }
awk '/BEGIN CERT/ { c = "" } { c = c $0 "\n" } /END CERT/ { print c > sprintf("deb%03d.pem", ++n) }' \
    "$ROOT/test/data/ccadb-real/anchors-debian12.pem"
for a in deb*.pem; do
	openssl x509 -in "$a" -noout -ext crlDistributionPoints 2>/dev/null | grep -q URI || cat "$a"
done >anchors.pem
cat root.pem >>anchors.pem
printf '%s\n' "anchor = $W/anchors.pem" "untrusted = $W/ca.pem" "allow_private_urls = yes" >none.conf
printf '%s\n' "anchor = $W/anchors.pem" "allow_private_urls = yes" "ccadb_records = $W/real/records.csv" \
    "ccadb_pems = $W/real/pems-{year}.csv" "ccadb_since = 1994" >full.conf
"$CRLCACHE" -c full.conf --state-dir full.st update 2>full.err ||
    { cat full.err >&2; exit 1; }
entries=$(sed -n 's/^entries //p' full.st/work/directory.state)
"$CRLCACHE" -c none.conf --state-dir none.st update --hints 2>/dev/null || :
# to_first MODE: ms from the start of one update --hints to its first request
to_first() {
	local t0 t1 n
	rm -rf run.st && cp -a "$1.st" run.st
	mkdir -p run.st/hints && chmod 3733 run.st/hints
	openssl x509 -in leaf.pem -outform DER -out run.st/hints/leaf.crt
	n=$(wc -l <httpd.log)
	t0=$(date +%s.%N)
	"$CRLCACHE" -c "$1.conf" --state-dir run.st update --hints 2>"$1.err" ||
	    { cat "$1.err" >&2; exit 1; }
	t1=$(tail -n +$((n + 1)) httpd.log | sed -n 's/^GET \/ca.crl .*\tt=\([0-9.]*\)$/\1/p' | head -n 1)
	[ -n "$t1" ] || { cat "$1.err" >&2; echo "firstcontact: no CRL request ($1)" >&2; exit 1; }
	echo "($t1 - $t0) * 1000" | bc -l | xargs printf '%.0f\n'
}
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for m in none full; do
	for _ in $(seq 1 "$REPS"); do to_first "$m"; done | med >"$m.ms"
done
echo "update --hints to its first CRL request: no directory $(cat none.ms) ms," \
    "a directory of $entries entries $(cat full.ms) ms (median of $REPS)"
printf 'ROW\tupdate --hints to its first CRL request, directory of %s entries (without: no directory)\t%s\t%s\t%s\tms\tadded <= 100 ms\n' \
    "$entries" "$(cat none.ms)" "$(cat full.ms)" \
    "$(echo "$(cat full.ms) / $(cat none.ms)" | bc -l | xargs printf '%.1f')" | bench_rows
