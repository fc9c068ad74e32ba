#!/usr/bin/env bash
# The memory of a directory refresh does not grow with the number of
# reports: eight PEM reports of 24 MB each (rows of certificates the
# records do not name), read one at a time, keep the peak RSS of update
# well under their sum (192 MB); holding every body at once cannot.
. "$(dirname "$0")/lib.sh"
need_crlcache
[ -x /usr/bin/time ] || skip "no /usr/bin/time to measure the peak RSS"
YEAR=$(date -u +%Y)
N=8
MB=24

pki_root root "/CN=Memory Root/O=crlcache tests"
pki_ca int root "/CN=Memory CA/O=crlcache tests"
R=$PKI/root/cert.pem
ccadb_row "$R" type=root
ccadb_row "$PKI/int/cert.pem" parent="$R" full="http://127.0.0.1:9/int.crl"
ccadb_write "$W/ccadb" "$YEAR"
# N yearly reports of MB megabytes: 48 KB rows under fingerprints no
# record has, the last year's holding the real rows too.
python3 - "$W/ccadb" "$YEAR" "$N" "$MB" <<'PY'
import hashlib, sys
d, year, n, mb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
body = 'x' * (48 * 1024)
for y in range(year - n + 1, year + 1):
    path = '%s/pems-%d.csv' % (d, y)
    real = open(path).read() if y == year else '"SHA-256 Fingerprint","X.509 Certificate (PEM)"\r\n'
    with open(path, 'w') as f:
        f.write(real)
        for i in range(mb * 1024 * 1024 // len(body)):
            fp = hashlib.sha256(b'%d-%d' % (y, i)).hexdigest().upper()
            f.write('"%s","%s"\r\n' % (fp, body))
PY
write_conf "anchor = $R" "enroll = none" "ccadb_records = $W/ccadb/records.csv" \
    "ccadb_pems = $W/ccadb/pems-{year}.csv" "ccadb_since = $((YEAR - N + 1))"
/usr/bin/time -f '%M' -o "$W/rss" "$CRLCACHE" --state-dir "$STATE" -c "$CONF" \
    update >"$W/last.out" 2>"$W/last.err" || { cat "$W/last.err"; fail "update failed"; }
assert_grep "directory: $((N + 1)) reports \\(0 not modified\\), 2 rows, 1 entries" "$W/last.err"
rss=$(tail -n 1 "$W/rss")
note "peak RSS ${rss} KB for $N reports of $MB MB"
[ "$rss" -lt $((100 * 1024)) ] || fail "peak RSS $rss KB: the reports were held at once"
finish
