#!/usr/bin/env bash
# What the issuer directory costs a host, on the real CCADB: the 33 PEM
# reports of crt.sh's archive (github.com/crtsh/ccadb_data, a checkout of
# which CCADB_DATA names) and a records report of one row per certificate
# made from them (ccadb_records.py), served by test/httpd.py on 127.0.0.1
# gzip-coded to a client that asks (as a CDN serves CSV), with the host's
# own trust store as the anchors.  The anchors' own CRLs are sources:
# `mirror =` sends them to the same loopback server (404), never out.  Four runs of `crlcache update`, each
# measured with /usr/bin/time (wall, CPU, peak RSS) and the body bytes the
# server sent:
#   refresh   the first, which downloads and builds the directory;
#   304       --refresh-directory, every report answered 304;
#   not due   an hourly run whose refresh is not due;
#   not due, 50 enrolled   the same with 50 of the directory's CAs enrolled.
# Without CCADB_DATA the benchmark is skipped.
. "$(dirname "$0")/common.sh"
DATA=${CCADB_DATA:-}
PEMDIR=$DATA/cmd/ski_spki/data
if [ -z "$DATA" ] || ! ls "$PEMDIR"/AllCertificatePEMsCSVFormat_NotBeforeYear_* >/dev/null 2>&1; then
	echo "SKIP: set CCADB_DATA to a checkout of github.com/crtsh/ccadb_data"
	exit 0
fi
ANCHORS=${CCADB_ANCHORS:-/etc/ssl/certs/ca-certificates.crt}
mkdir -p www/ccadb
for f in "$PEMDIR"/AllCertificatePEMsCSVFormat_NotBeforeYear_*; do
	cp "$f" "www/ccadb/pems-${f##*_}.csv"
done
python3 "$ROOT/test/bench/ccadb_records.py" "$ROOT/test/data/ccadb/records-v5.csv" \
    www/ccadb/records.csv www/ccadb/pems-*.csv
for f in www/ccadb/*.csv; do gzip -6 -k "$f"; done
python3 "$ROOT/test/httpd.py" --root www --port-file port --log httpd.log 2>httpd.err &
httpd=$!
trap 'kill $httpd 2>/dev/null; rm -rf "$W"' EXIT
for _ in $(seq 1 100); do [ -s port ] && break; sleep 0.05; done
base=http://127.0.0.1:$(cat port)/ccadb
first=$(ls www/ccadb/pems-*.csv | sed -n '1s/.*pems-\([0-9]*\).csv/\1/p')
printf '%s\n' "anchor = $ANCHORS" "ccadb_records = $base/records.csv" \
    "ccadb_pems = $base/pems-{year}.csv" "ccadb_since = $first" \
    "mirror = http://127.0.0.1:$(cat port)/mirror/" >dir.conf
echo "reports: $(ls www/ccadb/*.csv | wc -l), $(cat www/ccadb/*.csv | wc -c) bytes," \
    "$(cat www/ccadb/*.csv.gz | wc -c) gzip-coded"
printf '| run | bytes downloaded | wall s | CPU s | peak RSS MB |\n|---|---|---|---|---|\n'
run() {	# run LABEL ARGS...
	local label=$1 lines
	shift
	lines=$(wc -l <httpd.log)
	/usr/bin/time -f "%e %U %S %M" -o "$label.time" \
	    "$CRLCACHE" -c dir.conf --state-dir st update "$@" 2>"$label.err" ||
	    [ $? = 1 ] || { cat "$label.err" >&2; exit 1; }
	read -r wall user sys rss < <(tail -n 1 "$label.time")
	printf '| %s | %s | %s | %.2f | %.1f |\n' "$label" \
	    "$(tail -n +$((lines + 1)) httpd.log | sed -n 's/.*\tbytes=\([0-9]*\)$/\1/p' |
	    awk '{ s += $1 } END { print s + 0 }')" "$wall" \
	    "$(echo "$user + $sys" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
}
run refresh
grep 'directory:' refresh.err | sed 's/^/    /' >&2
touch -d '-2 hours' st/work/directory.state 2>/dev/null || true
run 304 --refresh-directory
grep 'directory:' 304.err | sed 's/^/    /' >&2
run "not due"
# An hourly run of a host that has learned issuers (enroll = seen, the
# default): 50 of the directory's CAs enrolled, their CRLs sent to the
# loopback mirror (404), the refresh not due.
awk 'BEGIN { print "crlcache-enrolled 1" }
    $1 == "cert" && ++n % 80 == 0 { print "issuer", $2, systime(), systime(), $3 }' \
    st/work/directory >st/work/enrolled
chown --reference=st/work/directory st/work/enrolled
run "not due, 50 enrolled"
grep 'directory:' "not due, 50 enrolled.err" | sed 's/^/    /' >&2
