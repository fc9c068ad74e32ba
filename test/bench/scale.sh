#!/bin/bash
# Benchmark: the index at Web PKI scale, 8,000,000 revocations in 2,000
# CRLs (test/bench/scale_data.sh), all fetched by the real fetcher from
# test/httpd.py on a loopback address.  Measures, through the commands
# and the files they leave (so that it measures any index format):
#   - `crlcache update` into an empty state directory: wall time, peak RSS
#   - `crlcache update` again with nothing changed (conditional GETs)
#   - `crlcache update` after one 10,000-entry CRL changed (10 entries
#     more): wall time, bytes the fetcher wrote (/proc/PID/io write_bytes
#     of it and its children) and bytes of the published files it wrote
#     (new inodes outside work/), each against the changed CRL's size
#   - the published index: bytes of the state directory but its private
#     working environment work/ (du)
#   - index open and lookup latency, p50 and p99 (test/bench/scale_lookup.c
#     over the readers' API, every verdict checked)
#   - the whole `openssl verify` process with that index (bench_process)
#
#   test/bench/scale.sh
#   SCALE_HTTPD=nginx test/bench/scale.sh
#
# The server is test/httpd.py (Python, one thread per connection), or
# with SCALE_HTTPD=nginx the same files served by nginx (conditional
# GETs answered natively): the difference between the two is the
# server's, what is left the fetcher's.
#
# The data set takes about a minute to make and 300 MB: it is kept in
# $CRLCACHE_BENCH_CACHE (default test/bench/.cache) under a name that
# changes with its recipe, and made anew when its CRLs near their
# nextUpdate.  SCALE_HOST and SCALE_PORT (default 127.20.14.5:18014, a
# loopback address no test uses) are where it is served: the IDPs of the
# partitions name it, so they are part of the data set's name.
. "$(dirname "$0")/common.sh"
SCALE_HOST=${SCALE_HOST:-127.20.14.5}
SCALE_PORT=${SCALE_PORT:-18014}
SCALE_HTTPD=${SCALE_HTTPD:-httpd.py}
. "$ROOT/test/bench/scale_data.sh"
# A cached data set is made anew after half its CRLs' validity.
bench_data scale $((SCALE_CRL_DAYS * 86400 / 2)) "$SCALE_HOST:$SCALE_PORT" scale_data \
    "$ROOT/test/bench/scale_data.sh" "$ROOT/test/bench/scale_gen.c"
echo "$(wc -l <"$D/urls") CRLs, $(du -sb "$D/www" | cut -f1) bytes"

cc -std=c11 -D_GNU_SOURCE -O2 -I"$ROOT/include" -o scale_lookup "$ROOT/test/bench/scale_lookup.c" \
    "$ROOT/lib/libcrlcache.a" $(pkg-config --cflags --libs libcrypto lmdb) -lpthread

# What is served: links to the cached CRLs (copies across file systems),
# so that M1's is replaced here only.
cp -al "$D/www" www 2>/dev/null || { rm -rf www; cp -a "$D/www" www; }
# The fetch of URL path $1 that scale.sh expects, in the server's log.
fetched() {
	if [ "$SCALE_HTTPD" = nginx ]; then
		grep -q "\"GET $1 HTTP/1.1\" 200 " httpd.log
	else
		grep -q " $1 200" httpd.log
	fi
}
case $SCALE_HTTPD in
httpd.py)
	python3 "$ROOT/test/httpd.py" --root www --bind "$SCALE_HOST" --port "$SCALE_PORT" \
	    --port-file port --log httpd.log 2>httpd.err &
	httpd=$!
	trap 'kill $httpd 2>/dev/null; rm -rf "$W"' EXIT
	for _ in $(seq 1 100); do [ -s port ] && break; sleep 0.05; done
	;;
nginx)
	command -v nginx >/dev/null || { echo "scale.sh: nginx is not installed (test/deps.sh)" >&2; exit 1; }
	# Its workers may run as another account: they must reach www/.
	chmod 711 "$W"
	mkdir -p nginx.tmp
	cat >nginx.conf <<NGINX
worker_processes 2;
daemon off;
pid $W/nginx.pid;
error_log $W/httpd.err;
events { worker_connections 256; }
http {
	access_log $W/httpd.log;
	client_body_temp_path $W/nginx.tmp;
	proxy_temp_path $W/nginx.tmp;
	fastcgi_temp_path $W/nginx.tmp;
	uwsgi_temp_path $W/nginx.tmp;
	scgi_temp_path $W/nginx.tmp;
	# One connection per parallel transfer for the whole run.
	keepalive_requests 100000;
	server {
		listen $SCALE_HOST:$SCALE_PORT;
		root $W/www;
	}
}
NGINX
	nginx -e "$W/httpd.err" -c "$W/nginx.conf" 2>>httpd.err &
	httpd=$!
	trap 'kill $httpd 2>/dev/null; wait $httpd 2>/dev/null; rm -rf "$W"' EXIT
	for _ in $(seq 1 100); do [ -s nginx.pid ] && echo "$SCALE_PORT" >port && break; sleep 0.05; done
	;;
*) echo "scale.sh: SCALE_HTTPD is httpd.py or nginx" >&2; exit 1 ;;
esac
[ -s port ] || { echo "scale.sh: $SCALE_HTTPD did not start: $(cat httpd.err)" >&2; exit 1; }
{
	sed 's/^/url = /' "$D/urls"
	echo "anchor = $D/anchors.pem"
	echo "untrusted = $D/untrusted.pem"
	echo "enroll = none"
} >scale.conf

upd=("$CRLCACHE" -c scale.conf --state-dir st update)

bench_measure full "${upd[@]}"
bench_measure same "${upd[@]}"
rm www/other/M1.crl
cp "$D/changed/M1.crl" www/other/M1.crl
published_files st >published.before
bench_measure changed "${upd[@]}"
published_files st >published.after
fetched /other/M1.crl || { echo "scale.sh: M1 was not fetched again" >&2; exit 1; }
# The publish step alone, without the 2,000 conditional GETs: every scope
# file kept (content ids of all 2,000 CRLs, the top file written).
bench_measure publish "$CRLCACHE" -c scale.conf --state-dir st publish

read -r full_s full_kb full_wb <full.m
read -r same_s same_kb same_wb <same.m
read -r changed_s changed_kb changed_wb <changed.m
read -r publish_s publish_kb publish_wb <publish.m
crl_b=$(stat -c %s "$D/changed/M1.crl")
pub_wb=$(written_bytes published.before published.after)
index_b=$(du -sb --exclude=work st | cut -f1)
work_b=$(du -sb st/work | cut -f1)
www_b=$(du -sb "$D/www" | cut -f1)
"$CRLCACHE" -c scale.conf --state-dir st status >status.out
sed -n '1,8p' status.out
grep -qx 'crls 2000' status.out || { echo "scale.sh: the index does not hold the 2,000 CRLs" >&2; exit 1; }
printf 'full update:      %7.2f s %6.0f MiB peak RSS %7.1f MB written\n' "$full_s" \
    "$(echo "$full_kb / 1024" | bc -l)" "$(echo "$full_wb / 1000000" | bc -l)"
printf 'nothing changed:  %7.2f s %6.0f MiB peak RSS %7.1f MB written\n' "$same_s" \
    "$(echo "$same_kb / 1024" | bc -l)" "$(echo "$same_wb / 1000000" | bc -l)"
printf 'one CRL changed:  %7.2f s %6.0f MiB peak RSS %7.1f MB written (the CRL: %d bytes)\n' \
    "$changed_s" "$(echo "$changed_kb / 1024" | bc -l)" "$(echo "$changed_wb / 1000000" | bc -l)" "$crl_b"
echo "published index: $index_b bytes (index.mdb $(stat -c %s st/index.mdb)); working environment work/: $work_b bytes; CRLs served: $www_b bytes"
echo "published files the changed update wrote: $pub_wb bytes"
printf 'publish alone:    %7.2f s %6.0f MiB peak RSS %7.1f MB written\n' "$publish_s" \
    "$(echo "$publish_kb / 1024" | bc -l)" "$(echo "$publish_wb / 1000000" | bc -l)"

P=$D
./scale_lookup st/index.mdb "$P/leaf-R10.pem" "$P/R10.pem" "$P/www/le/R10/17.crl" \
    "$P/leaf-E5.pem" "$P/E5.pem" "$P/www/le/E5/77.crl" \
    "$P/leaf-B1.pem" "$P/B1.pem" "$P/www/big/B1.crl" \
    "$P/leaf-M1.pem" "$P/M1.pem" "$P/changed/M1.crl" >lookup.out ||
    { cat lookup.out; echo "scale.sh: lookups failed" >&2; exit 1; }
cat lookup.out
lk() { awk -v k="$1" '$1 == k { print $2 }' lookup.out; }

S="8,000,000 revocations in 2,000 CRLs"
[ "$SCALE_HTTPD" = nginx ] && S="$S, served by nginx"
mib() { printf '%.0f' "$(echo "$1 / 1024" | bc -l)"; }
mb() { printf '%.1f' "$(echo "$1 / 1000000" | bc -l)"; }
{
	printf 'ROW\t`crlcache update` from an empty state, %s (time)\t-\t%.2f\t-\ts\n' "$S" "$full_s"
	printf 'ROW\tthe same update, peak RSS\t-\t%s\t-\tMiB\n' "$(mib "$full_kb")"
	printf 'ROW\t`crlcache update` again, nothing changed (time)\t-\t%.2f\t-\ts\n' "$same_s"
	printf 'ROW\t`crlcache update`, one 10,000-entry CRL changed, %s (time)\t-\t%.2f\t-\ts\n' "$S" "$changed_s"
	printf 'ROW\tthe same update, bytes written against the changed CRL (%s MB)\t%s\t%s\t%.1f\tMB\n' \
	    "$(mb "$crl_b")" "$(mb "$crl_b")" "$(mb "$changed_wb")" "$(echo "$changed_wb / $crl_b" | bc -l)"
	printf 'ROW\tthe same update, bytes written to the published index (its new files) against the changed CRL\t%s\t%s\t%.1f\tMB\n' \
	    "$(mb "$crl_b")" "$(mb "$pub_wb")" "$(echo "$pub_wb / $crl_b" | bc -l)"
	printf 'ROW\t`crlcache publish` alone, %s (every scope file kept; time)\t-\t%.2f\t-\ts\n' "$S" "$publish_s"
	printf 'ROW\tpublished index (state directory but work/), against the CRLs it holds\t%s\t%s\t%.2f\tMB\n' \
	    "$(mb "$www_b")" "$(mb "$index_b")" "$(echo "$index_b / $www_b" | bc -l)"
	printf 'ROW\tindex open (crlc_index_open), %s\t-\t%s\t-\tus\n' "$S" "$(lk open_us)"
	printf 'ROW\tlookup p50, revoked and good serials, 4 CRLs of the index\t-\t%s\t-\tns\n' "$(lk p50_ns)"
	printf 'ROW\tlookup p99, the same\t-\t%s\t-\tns\n' "$(lk p99_ns)"
} | bench_rows

# The whole openssl verify process with this index: R10's leaf (RSA chain).
"$CRLCACHE" -c scale.conf --state-dir st exec --set log=stderr -- sh -c 'cat "$OPENSSL_CONF"' |
    sed '/^\.include .*\/openssl\.cnf$/d' >crlcache.cnf
sed '/^crlcache = crlcache_sect$/d' crlcache.cnf >plain.cnf
bench_process "RSA chain, $S" "$W/plain.cnf" "$W/crlcache.cnf" "$D/X1.pem" "$D/R10.pem" \
    "$D/leaf-R10.pem"
