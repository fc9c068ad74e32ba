#!/bin/bash
# Benchmark: a fleet's cache host fetching every CRL of the Web PKI at
# Internet latency.  16,000 signed CRLs on 8 hosts (test/bench/
# webpki_data.sh: small and empty partitions, three complete CRLs of
# 1,000,000 entries), their URLs from a CCADB export (`ccadb =`), served
# by test/httpd.py with every answer held WEBPKI_DELAY seconds (default
# 0.05: a round trip to a CDN).  Measures `crlcache update`
#   - into an empty state directory,
#   - again with nothing changed (16,000 conditional GETs answered 304),
#   - after 1% of the CRLs changed (160 partitions),
# each: wall time, CPU time, peak RSS, bytes the fetcher wrote
# (/proc/PID/io write_bytes), bytes of the published files it wrote (new
# inodes outside work/; of them the top file, the page files and the
# scope files), requests and connections the servers saw.
#
#   test/bench/webpki.sh
#   WEBPKI_DELAY=0 test/bench/webpki.sh
#
# httpd.py speaks HTTP/1.1 (keep-alive, a thread per connection), as CDNs
# answer the http:// URLs CRLs have: HTTP/2 (multiplexing, which needs
# TLS in practice) is not exercised here.  The data set takes a few
# minutes to make and 200 MB; it is kept like scale.sh's.  WEBPKI_HOSTS
# (default 127.20.22.1 to .8, loopback addresses no test uses) and
# WEBPKI_PORT (18022) are in its URLs, so part of its name.
. "$(dirname "$0")/common.sh"
WEBPKI_PORT=${WEBPKI_PORT:-18022}
WEBPKI_DELAY=${WEBPKI_DELAY:-0.05}
WEBPKI_ADDRS=${WEBPKI_ADDRS:-127.20.22.1 127.20.22.2 127.20.22.3 127.20.22.4 127.20.22.5 127.20.22.6 127.20.22.7 127.20.22.8}
WEBPKI_HOSTS=$(for a in $WEBPKI_ADDRS; do printf '%s:%s ' "$a" "$WEBPKI_PORT"; done)
. "$ROOT/test/bench/scale_data.sh"
. "$ROOT/test/bench/webpki_data.sh"
bench_data webpki $((WEBPKI_CRL_DAYS * 86400 / 2)) "$WEBPKI_HOSTS" webpki_data \
    "$ROOT/test/bench/scale_data.sh" "$ROOT/test/bench/webpki_data.sh" \
    "$ROOT/test/bench/scale_gen.c"
echo "$(wc -l <"$D/urls") CRLs, $(du -sb "$D/www" | cut -f1) bytes"

# What is served: links to the cached CRLs, so that the changed ones are
# replaced here only.
cp -al "$D/www" www 2>/dev/null || { rm -rf www; cp -a "$D/www" www; }
pids=
trap 'kill $pids 2>/dev/null; rm -rf "$W"' EXIT
for h in $WEBPKI_HOSTS; do
	python3 "$ROOT/test/httpd.py" --root "www/$h" --bind "${h%:*}" --port "${h#*:}" \
	    --delay "$WEBPKI_DELAY" --port-file "port-$h" --log "httpd-$h.log" \
	    --connections connections.log 2>>httpd.err &
	pids="$pids $!"
done
for h in $WEBPKI_HOSTS; do
	for _ in $(seq 1 100); do [ -s "port-$h" ] && break; sleep 0.05; done
	[ -s "port-$h" ] || { echo "webpki.sh: httpd.py did not start: $(cat httpd.err)" >&2; exit 1; }
done
{
	echo "ccadb = $D/ccadb.csv"
	echo "anchor = $D/anchors.pem"
	echo "untrusted = $D/untrusted.pem"
} >webpki.conf
upd=("$CRLCACHE" -c webpki.conf --state-dir st update)

# webpki_run NAME: the update measured, then NAME.req: requests answered
# 200, 304, otherwise, and connections accepted.
webpki_run() {
	rm -f httpd-*.log connections.log
	published_files st >"$1.before" 2>/dev/null || : >"$1.before"
	bench_measure "$1" "${upd[@]}"
	published_files st >"$1.after"
	written_bytes "$1.before" "$1.after" >"$1.pub"
	# of which the top file, page files and scope files (by their magic)
	comm -13 "$1.before" "$1.after" | python3 -c '
import os, sys
new = {int(l.split()[0]) for l in sys.stdin}
kinds = {b"CRLCTOP": 0, b"CRLCPAG": 1, b"CRLCSCP": 2}
size = [0, 0, 0]
for top, dirs, files in os.walk(sys.argv[1]):
    dirs[:] = [d for d in dirs if d != "work"]
    for f in files:
        p = os.path.join(top, f)
        st = os.lstat(p)
        if st.st_ino in new:
            k = kinds.get(open(p, "rb").read(7))
            if k is not None:
                size[k] += st.st_size
print(*size)' st >"$1.kinds"
	cat httpd-*.log | awk '{ if ($3 == 200) a++; else if ($3 == 304) b++; else c++ }
	    END { printf "%d %d %d ", a, b, c }' >"$1.req"
	wc -l <connections.log >>"$1.req"
}
mkdir st
webpki_run full
webpki_run same
changed=$(cd "$D/changed/www" && find . -type f | sed 's,^\./,,')
for p in $changed; do rm "www/$p"; cp "$D/changed/www/$p" "www/$p"; done
changed_b=$(cd "$D/changed/www" && du -cb $changed | tail -n 1 | cut -f1)
webpki_run changed

"$CRLCACHE" -c webpki.conf --state-dir st status >status.out
grep -qx "crls $WEBPKI_CRLS" status.out ||
    { sed -n '1,8p' status.out; echo "webpki.sh: the index does not hold the $WEBPKI_CRLS CRLs" >&2; exit 1; }

S="16,000 CRLs on 8 hosts, ${WEBPKI_DELAY} s per request"
mb() { printf '%.1f' "$(echo "$1 / 1000000" | bc -l)"; }
for r in full same changed; do
	read -r s kb wb <"$r.m"
	read -r ok nm other conns <"$r.req"
	case $r in
	full) what="\`crlcache update\` from an empty state, $S" ;;
	same) what="\`crlcache update\` again, nothing changed, $S" ;;
	changed) what="\`crlcache update\`, 1% of the CRLs changed ($(mb "$changed_b") MB), $S" ;;
	esac
	read -r top pages scopes <"$r.kinds"
	printf '%-9s %7.2f s  %6.2f s CPU  %5.0f MiB peak RSS  %8.1f MB written  %8.1f MB published (top file %.3f MB, page files %.3f MB, scope files %.1f MB)  %5d requests (%d 200, %d 304, %d other)  %d connections\n' \
	    "$r" "$s" "$(cat "$r.cpu")" "$(echo "$kb / 1024" | bc -l)" "$(echo "$wb / 1000000" | bc -l)" \
	    "$(echo "$(cat "$r.pub") / 1000000" | bc -l)" "$(echo "$top / 1000000" | bc -l)" \
	    "$(echo "$pages / 1000000" | bc -l)" "$(echo "$scopes / 1000000" | bc -l)" \
	    $((ok + nm + other)) "$ok" "$nm" "$other" "$conns"
	{
		printf 'ROW\t%s (time)\t-\t%.2f\t-\ts\t%s\n' "$what" "$s" \
		    "$(case $r in full) echo "<= 120 s" ;; same) echo "<= 30 s" ;; changed) echo "<= 40 s" ;; esac)"
		printf 'ROW\tthe same update, CPU time\t-\t%s\t-\ts\t-\n' "$(cat "$r.cpu")"
		printf 'ROW\tthe same update, peak RSS\t-\t%.0f\t-\tMiB\t%s\n' "$(echo "$kb / 1024" | bc -l)" \
		    "$([ "$r" = full ] && echo - || echo "<= 150 MiB")"
		printf 'ROW\tthe same update, requests (connections: %d)\t-\t%d\t-\trequests\t-\n' "$conns" $((ok + nm + other))
		if [ "$r" = changed ]; then
			printf 'ROW\tthe same update, bytes written against the changed CRLs\t%s\t%s\t%.1f\tMB\t%s\n' \
			    "$(mb "$changed_b")" "$(mb "$wb")" "$(echo "$wb / $changed_b" | bc -l)" \
			    "a small multiple of the change"
			printf 'ROW\tthe same update, bytes written to the published index against the changed CRLs\t%s\t%s\t%.1f\tMB\t%s\n' \
			    "$(mb "$changed_b")" "$(mb "$(cat "$r.pub")")" "$(echo "$(cat "$r.pub") / $changed_b" | bc -l)" \
			    "a small multiple of the change"
			printf 'ROW\tof which the scope files of the changed CRLs\t%s\t%s\t%.1f\tMB\t-\n' \
			    "$(mb "$changed_b")" "$(mb "$scopes")" "$(echo "$scopes / $changed_b" | bc -l)"
			printf 'ROW\tthe page files that list them (about 16 CRLs a page)\t-\t%.3f\t-\tMB\t-\n' \
			    "$(echo "$pages / 1000000" | bc -l)"
			printf 'ROW\tand the top file (issuers, keys, pages: no record per CRL)\t-\t%.3f\t-\tMB\t-\n' \
			    "$(echo "$top / 1000000" | bc -l)"
		else
			printf 'ROW\tthe same update, bytes written\t-\t%s\t-\tMB\t-\n' "$(mb "$wb")"
		fi
	} | bench_rows
done

# What every program that verifies a certificate pays for the index of
# 16,000 CRLs: a whole `openssl verify` process (bench_process) of a
# certificate under R1, whose CRL distribution point is one of R1's
# 1,000 partitions, with the configuration that enables the provider on
# this index vs the same without it.
q openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout leaf.key -out leaf.csr -subj "/CN=webpki leaf"
printf 'basicConstraints = CA:FALSE\ncrlDistributionPoints = URI:http://%s/R1/500.crl\nauthorityKeyIdentifier = keyid\n' \
    "${WEBPKI_HOSTS%% *}" >leaf.ext
q openssl x509 -req -in leaf.csr -CA "$D/R1.pem" -CAkey "$D/R1.key" -set_serial 0x5eed \
    -days 30 -extfile leaf.ext -out leaf.pem
"$CRLCACHE" -c none.conf --state-dir st exec --set log=stderr -- \
    sh -c 'cat "$OPENSSL_CONF"' | sed '/^\.include .*\/openssl\.cnf$/d' >crlcache.cnf
sed '/^crlcache = crlcache_sect$/d' crlcache.cnf >plain.cnf
OPENSSL_CONF=crlcache.cnf openssl verify -CAfile "$D/anchors.pem" -untrusted "$D/untrusted.pem" \
    leaf.pem >/dev/null || { echo "webpki.sh: the leaf does not verify with crlcache" >&2; exit 1; }
bench_process "a certificate under a partitioned intermediate, index of 16,000 CRLs" \
    "$W/plain.cnf" "$W/crlcache.cnf" "$D/anchors.pem" "$D/untrusted.pem" leaf.pem
