#!/usr/bin/env bash
# Bytes a day of polling Mozilla's Remote Settings (CRLite and OneCRL):
# test/t_rs_polling.sh over RS_DAYS (7) days of hourly `update` runs
# under faketime, against a loopback server that never answers 304 and
# one that does (Firefox's OneCRL dump, a 175 kB CRLite delta every 12
# hours, a OneCRL record deleted on day 2), every byte counted from what
# the server sent, from day 2 on.  CRLCACHE names the binary (an older
# build gives the figures before).  Rows: bytes a day for each server.
#
#   test/bench/rs_polling.sh            (about a minute; not in make check)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export CRLCACHE=${CRLCACHE:-$ROOT/fetcher/crlcache}
export CRLCACHE_MODULES=${CRLCACHE_MODULES:-$(dirname "$CRLCACHE")/../provider}
export RS_DAYS=${RS_DAYS:-7}
bash "$ROOT/test/run.sh" -v t_rs_polling 2>&1 |
    sed -n 's/.*server answering \([-0-9a-z]*\): \([0-9]*\) bytes a day.*/ROW\tbytes a day, server answering \1\t\2/p'
