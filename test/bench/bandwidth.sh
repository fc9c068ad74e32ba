#!/usr/bin/env bash
# Bytes a host downloads in a day, CRLite off and on: one simulated day
# of `crlcache update` (hourly, as the timer runs it) on loopback, every
# byte counted from what test/httpd.py sent (response bodies, its log),
# not estimated.  The host meets certificates of 20 issuing CAs under
# three roots (below), some of them too new for the CRLite filters.
#
#   CAs (named constants below; sizes per signed CRL):
#     R10 R11 (RSA, root X1), E5 E6 (P-256, root X2): Let's Encrypt-like,
#       LE_PARTS partitions each (the CCADB's "JSON Array of Partitioned
#       CRLs", an IDP each), LE_SHARD_ENTRIES revoked entries a partition;
#     D1 (RSA, root G): one complete CRL of BIG_CRL_BYTES;
#     C1..C15 (root G and X2 alternately): one complete CRL each, of the
#       sizes of the 15 real CRLs of test/data/realcrl in REALCRL_FILES.
#   Every CRL is re-signed every RESIGN_HOURS hours (new cRLNumber and
#   thisUpdate, new bytes; test/bench/scale_gen.c signs them), 304 in
#   between.  The issuer directory is the real CCADB's size: the 33 PEM
#   reports of test/data/ccadb-real as the default configuration asks
#   for them (one a decade of notBefore from ccadb_since), a records
#   report of one row per certificate of a real row's size
#   (ccadb_records.py --audits), the CAs above among them, served
#   gzip-coded to a client that asks; at the day's refresh (ccadb_refresh, a day) the records report and this decade's
#   PEM report have changed (the CCADB adds certificates daily; over a
#   month with CRLite on, see MONTH_DAYS), the
#   older decades answer 304.  CRLite: a Remote Settings server
#   (test/remotesettings.py, content-signed, test/lib.sh cs_chain) with a
#   full filter of FULL_FILTER_BYTES, then DELTA_BYTES deltas at the
#   hours of DELTA_HOURS; the filters (test/crlite_pki.py, padded to
#   those sizes) enrol the 20 CAs and answer for each CA's first leaf
#   (an SCT inside their coverage); the leaves of YOUNG have SCTs later
#   than the coverage: CRLite cannot answer for them.
#
# Both configurations (the defaults, crlite = the server or no crlite)
# start from an empty state: an update (directory, filters), then a
# program under the provider meets the leaves (hints) and `update --hints`
# runs; that start is reported on its own.  The day: HOURS runs of
# `update`, run h under faketime h hours on, the server changed first as
# the schedule says.  Rows: bytes per day of each configuration, all
# sources, and their split (CRLs, directory, CRLite); target <= 1 MB a
# day with CRLite on.
#
# The run fails if CRLite on downloads a CRL other than the young
# leaves' and the roots'.
#
#   test/bench/bandwidth.sh            (about 2 minutes; not in make check)
. "$(dirname "$0")/common.sh"
TMPDIR_TEST=$W
. "$ROOT/test/lib.sh"
. "$ROOT/test/lib_provider.sh"
trap '_lib_cleanup; rm -rf "$W"' EXIT
# The tests' helpers (test/lib.sh) run without -e; a failure ends the
# run through fail.
set +e
for t in faketime xz; do
	command -v "$t" >/dev/null || { echo "SKIP: $t not installed (test/deps.sh)"; exit 0; }
done
python3 -c 'import cryptography' 2>/dev/null ||
    { echo "SKIP: python3-cryptography not installed"; exit 0; }
[ -f "$ROOT/test/data/ccadb-real/pems.tar.xz" ] ||
    { echo "SKIP: test/data/ccadb-real/pems.tar.xz is not in this tree"; exit 0; }

# One simulated day of the timer's hourly runs.
HOURS=24
# Days the directory's cost is averaged over (its refresh period with
# CRLite on, dirrefresh.c).
MONTH_DAYS=30
# CAs re-sign their CRLs every 6 hours (Let's Encrypt's rhythm, DESIGN.md
# 4a); the runs between get 304.
RESIGN_HOURS=6
# Partitions of a Let's Encrypt intermediate: 128 (DESIGN.md 5).
LE_PARTS=128
# Entries of one partition: an assumption (about 39 kB signed); Mozilla
# counted some 8 million unexpired revocations in the Web PKI in 2024
# (DESIGN.md 5), which would be 16,000 a partition were they all Let's
# Encrypt's four active intermediates'.  CRLite on fetches only the
# partitions of YOUNG, so this moves mostly the CRLite-off figure.
LE_SHARD_ENTRIES=${BW_SHARD_ENTRIES:-1000}
# One DigiCert intermediate's complete CRL: 36 MB (fetcher/crlite_cover.c).
BIG_CRL_BYTES=36000000
# Bytes a scale_gen.c entry takes on average (16-byte serial, time, every
# fourth a reason code): 100,000 entries make 3,850,402 bytes.
ENTRY_BYTES=38
# What a scale_gen.c CRL holds besides its entries (names, extensions,
# an RSA-2048 signature): about 330 bytes.
CRL_FRAME_BYTES=330
# The 15 other CAs' CRLs have the sizes of these real CRLs (their
# issuers' own data: test/data/realcrl/SOURCES.md).
REALCRL_FILES="belgium-citizen-ca-201631.crl reniec-class2.crl sk-eid-sk-2011.crl
ti-trust-ca1.crl ua-justice-ca.crl belgium-root-ca2-2019.crl pt-ecraizestado-arl.crl
google-giag2.crl.pem luxtrust-global-root.crl luxtrust-root-ca.crl.pem ee-govca2018.crl
d-trust-root-ca-1-2017.crl.pem penneo-root.crl fr-realts2019.crl le-r3-105.crl.pem"
# A root's own CRL (its revoked intermediates).
ROOT_CRL_ENTRIES=2
# CRLite as Mozilla publishes it: a full filter of about 6 MB, two
# deltas of about 175 kB a day (DESIGN.md 4a; test/data/crlite's real
# delta is 176,981 bytes).
FULL_FILTER_BYTES=6000000
DELTA_BYTES=175000
DELTA_HOURS="6 18"
# The month's runs (below) each find the day's delta, its coverage a day
# on: the set stays fresh (include/crlcache/crlite.h FRESHNESS: a stale
# one would put the directory back on daily refreshes), as Mozilla's does.
MONTH_DELTA_HOURS=$(seq -s ' ' 48 24 $((MONTH_DAYS * 24)))
# Leaves too new for the filters: CA:partition (- for a complete CRL).
YOUNG="R10:17 E5:77 C4:-"

t0=$(date +%s)
T0=$t0
LOG_A=$(printf 'c7%.0s' $(seq 32))
NOW_MS=$((T0 * 1000)); DAY_MS=86400000
LOW=$((NOW_MS - DAY_MS)); HIGH=$((NOW_MS - DAY_MS / 2))
httpd_start
# shellcheck disable=SC2046 # pkg-config's flags are words
command cc -O2 -o scale_gen "$ROOT/test/bench/scale_gen.c" $(pkg-config --cflags --libs libcrypto) ||
    fail "scale_gen"

# ---------------------------------------------------------------- the PKI
# cas: NAME ROOT KEYTYPE PARTS ENTRIES (PARTS 0: one complete CRL)
pki_root X1 "/O=Bench/CN=Bench Root X1"
pki_root X2 "/O=Bench/CN=Bench Root X2" keytype=ec
pki_root G "/O=Bench/CN=Bench Root G"
: >cas
for ca in R10 R11; do echo "$ca X1 rsa $LE_PARTS $LE_SHARD_ENTRIES" >>cas; done
for ca in E5 E6; do echo "$ca X2 ec $LE_PARTS $LE_SHARD_ENTRIES" >>cas; done
echo "D1 G rsa 0 $((BIG_CRL_BYTES / ENTRY_BYTES))" >>cas
i=0
for f in $REALCRL_FILES; do
	i=$((i + 1))
	form=DER; case $f in *.pem) form=PEM ;; esac
	size=$(openssl crl -in "$ROOT/test/data/realcrl/crl/$f" -inform "$form" -outform DER | wc -c)
	n=$(( size > CRL_FRAME_BYTES ? (size - CRL_FRAME_BYTES) / ENTRY_BYTES : 0 ))
	# under root G (RSA) and X2 (P-256) in turn
	if [ $((i % 2)) = 1 ]; then echo "C$i G rsa 0 $n"; else echo "C$i X2 ec 0 $n"; fi >>cas
done
[ "$(wc -l <cas)" = 20 ] || fail "20 CAs expected"
for r in X1 X2 G; do
	ccadb_row "$PKI/$r/cert.pem" type=root full="$BASE_URL/crl/$r.crl"
done
cat "$PKI"/{X1,X2,G}/cert.pem >anchors.pem
# crl_url CA PART: the URL of CA's complete CRL (PART -) or of its partition PART
crl_url() {
	if [ "$2" = - ]; then echo "$BASE_URL/crl/$1.crl"; else echo "$BASE_URL/crl/$1/$2.crl"; fi
}
# sct_leaf NAME CA PART SCT_MS: a leaf of CA in PART with one SCT of LOG_A
sct_leaf() {
	prov_leaf "$1" "$2" "$1.test" cdp="$(crl_url "$2" "$3")"
	python3 "$ROOT/test/crlite_pki.py" sctext "$LOG_A:$4" >>"$PKI/$1.ext" || fail "sctext"
	_issue "$2" "$PKI/$1.csr" "$PKI/$1.pem" "$PKI/$1.ext"
}
filter_args=()
while read -r ca root kt parts n; do
	pki_ca "$ca" "$root" "/O=Bench/CN=Bench $ca" cdp="$BASE_URL/crl/$root.crl" keytype="$kt"
	if [ "$parts" = 0 ]; then
		ccadb_row "$PKI/$ca/cert.pem" parent="$PKI/$root/cert.pem" full="$(crl_url "$ca" -)"
		part=-
	else
		ccadb_row "$PKI/$ca/cert.pem" parent="$PKI/$root/cert.pem" \
		    parts="$(for ((k = 0; k < parts; k++)); do crl_url "$ca" "$k"; done | paste -sd,)"
		part=$((n % parts))
	fi
	# the leaf CRLite answers for: its SCT inside the filters' coverage
	sct_leaf "old-$ca" "$ca" "$part" $((LOW + 1000))
	filter_args+=("$PKI/$ca/cert.pem" "$PKI/old-$ca.pem=good")
done <cas
for y in $YOUNG; do
	sct_leaf "young-${y%:*}" "${y%:*}" "${y#*:}" "$NOW_MS"
done

# resign HOUR: every CA's CRLs signed anew, thisUpdate HOUR hours after
# T0 (the runs of that hour see them current), cRLNumber HOUR + 1
resign() {
	local h=$1 this=$((T0 + $1 * 3600 - 60)) ca root kt parts n k seed=1
	rm -rf next && mkdir -p next
	{ for ca in X1 X2 G; do echo "$ca - - 0 $ROOT_CRL_ENTRIES"; done; cat cas; } |
	while read -r ca root kt parts n; do
		if [ "$parts" = 0 ]; then
			echo "next/$ca.crl $PKI/$ca/cert.pem $PKI/$ca/key.pem $n $seed $((h + 1)) $this $((this + 7 * 86400)) -"
			seed=$((seed + 1))
		else
			mkdir -p "next/$ca"
			for ((k = 0; k < parts; k++)); do
				echo "next/$ca/$k.crl $PKI/$ca/cert.pem $PKI/$ca/key.pem $n $seed $((h + 1)) $this $((this + 7 * 86400)) $(crl_url "$ca" "$k")"
				seed=$((seed + 1))
			done
		fi
	done >plan
	./scale_gen plan || fail "scale_gen"
	cp -r next/. "$HTTPD_ROOT/crl/"
}
resign 0
crl_bytes() { cat "$@" | wc -c; }
echo "CRLs a signing: R10 R11 E5 E6 $(crl_bytes next/{R10,R11,E5,E6}/*.crl) bytes" \
    "($((4 * LE_PARTS)) partitions), D1 $(crl_bytes next/D1.crl), C1..C15" \
    "$(crl_bytes next/C*.crl), roots $(crl_bytes next/{X1,X2,G}.crl)"

# ---------------------------------------------------------------- the directory
mkdir -p real mine "$HTTPD_ROOT/ccadb"
tar -xJf "$ROOT/test/data/ccadb-real/pems.tar.xz" -C real || fail "pems.tar.xz"
python3 "$ROOT/test/bench/ccadb_records.py" --audits "$ROOT/test/data/ccadb/records-v5.csv" \
    "$HTTPD_ROOT/ccadb/records.csv" real/pems-*.csv || fail "ccadb_records.py"
ccadb_write mine
tail -n +2 mine/records-v5.csv >>"$HTTPD_ROOT/ccadb/records.csv"
for y in real/pems-*.csv; do
	y=${y##*pems-}; y=${y%.csv}
	d=$HTTPD_ROOT/ccadb/pems-$((y - y % 10)).csv
	[ -f "$d" ] || head -n 1 "real/pems-$y.csv" >"$d"
	tail -n +2 "real/pems-$y.csv" >>"$d"
done
year=$(date -u +%Y)
d=$HTTPD_ROOT/ccadb/pems-$((year - year % 10)).csv
[ -f "$d" ] || head -n 1 "mine/pems-$year.csv" >"$d"
tail -n +2 "mine/pems-$year.csv" >>"$d"
for f in "$HTTPD_ROOT"/ccadb/*.csv; do gzip -6 -k -f "$f"; done
ls -l "$HTTPD_ROOT"/ccadb | awk 'NR > 1 { print "  " $5, $9 }'
echo "directory reports: $(cat "$HTTPD_ROOT"/ccadb/*.csv | wc -c) bytes," \
    "$(cat "$HTTPD_ROOT"/ccadb/*.csv.gz | wc -c) gzip-coded (1990s decade included, not asked for)"

# ---------------------------------------------------------------- CRLite
python3 "$ROOT/test/crlite_pki.py" filter filters.v4 4 "$LOG_A:$LOW:$HIGH" "${filter_args[@]}" ||
    fail "filter"
python3 "$ROOT/test/crlite_pki.py" pad filters.v4 full.filter "$FULL_FILTER_BYTES" || fail "pad"
for d in $DELTA_HOURS $MONTH_DELTA_HOURS; do
	cov=$((HIGH + d * 60000)); [ "$d" -lt 48 ] || cov=$((HIGH + d * 3600000))
	python3 "$ROOT/test/crlite_pki.py" filter "d$d.v4" 4 "$LOG_A:$LOW:$cov" \
	    "${filter_args[@]}" || fail "delta filter"
	python3 "$ROOT/test/crlite_pki.py" pad "d$d.v4" "delta$d.filter" "$DELTA_BYTES" || fail "pad"
done
CS_DAYS=90 cs_chain     # the month below outlives the default 20 days
CS_FP=$(openssl x509 -in "$W/cs/root.pem" -noout -fingerprint -sha256 | cut -d= -f2)
# publish_crlite HOUR: the collection as it stands at HOUR
publish_crlite() {
	local specs=(F=full.filter) parent=F d
	for d in $DELTA_HOURS $MONTH_DELTA_HOURS; do
		[ "$d" -le "$1" ] || break
		specs+=("D$d=delta$d.filter:$parent"); parent=D$d
	done
	python3 "$ROOT/test/remotesettings.py" "$HTTPD_ROOT" "$BASE_URL" "$W/cs/ee.key" \
	    "$W/cs/chain.pem" $((NOW_MS + $1 * 3600000)) "${specs[@]}" >/dev/null ||
	    fail "remotesettings.py"
}
publish_crlite 0

# ---------------------------------------------------------------- the host
base_conf=("anchor = $W/anchors.pem" "allow_private_urls = yes"
    "ccadb_records = $BASE_URL/ccadb/records.csv" "ccadb_pems = $BASE_URL/ccadb/pems-{decade}.csv")
printf '%s\n' "${base_conf[@]}" >off.conf
printf '%s\n' "${base_conf[@]}" "crlite = $BASE_URL/v1/" "crlite_root = $CS_FP" >on.conf
# counted CFG WHAT CMD...: CMD, its requests' body bytes added to
# CFG.WHAT.{crl,dir,crlite} and its requests to CFG.WHAT.req
counted() {
	local cfg=$1 what=$2 n
	shift 2
	n=$(wc -l <"$HTTPD_LOG")
	"$@" >>"$cfg.out" 2>&1 || { tail -n 20 "$cfg.out"; fail "$cfg: $*"; }
	tail -n +$((n + 1)) "$HTTPD_LOG" | awk '$2 ~ /^\/crl\// && $3 == 200 { print $2 }' >>"$cfg.$what.crls"
	tail -n +$((n + 1)) "$HTTPD_LOG" | awk '
	    { b = $NF; sub(/^bytes=/, "", b); if (b == "-") b = 0
	      k = ($2 ~ /^\/crl\//) ? "crl" : ($2 ~ /^\/ccadb\//) ? "dir" : "crlite"
	      s[k] += b; r++ }
	    END { for (k in s) print k, s[k] + 0; print "req", r + 0 }' >>"$cfg.$what.acc"
}
# update_at CFG HOUR [ARGS]: `crlcache update` HOUR hours on
update_at() {
	local cfg=$1 h=$2
	shift 2
	NO_FAKE_STAT=1 DONT_FAKE_MONOTONIC=1 faketime -f "+${h}h" \
	    "$CRLCACHE" -c "$cfg.conf" --state-dir "$W/st-$cfg" update "$@"
}
# meet CFG: a program under the provider meets every leaf once
meet() {
	local leaf ca
	for leaf in "$PKI"/old-*.pem "$PKI"/young-*.pem; do
		case $leaf in *.ca.pem) continue ;; esac
		ca=$(basename "$leaf" .pem); ca=${ca#*-}
		root=$(awk -v c="$ca" '$1 == c { print $2 }' cas)
		STATE=$W/st-$1 px --set learn_wait=0 -- openssl verify -CAfile "$PKI/$root/cert.pem" \
		    -untrusted "$PKI/$ca/cert.pem" "$leaf" >>"$1.out" 2>&1 ||
		    { tail -n 20 "$1.out"; fail "$1: verify $(basename "$leaf")"; }
	done
}
for cfg in off on; do
	counted "$cfg" start update_at "$cfg" 0
	meet "$cfg"
	echo "$cfg: $(ls "$W/st-$cfg/hints" 2>/dev/null | wc -l) hints left"
	counted "$cfg" start update_at "$cfg" 0 --hints
done
for ((h = 1; h <= HOURS; h++)); do
	[ $((h % RESIGN_HOURS)) != 0 ] || resign "$h"
	case " $DELTA_HOURS " in *" $h "*) publish_crlite "$h" ;; esac
	# the day's refresh finds this decade's report and the records changed
	[ "$h" != "$HOURS" ] || touch "$HTTPD_ROOT/ccadb/records.csv"{,.gz} \
	    "$HTTPD_ROOT/ccadb/pems-$((year - year % 10)).csv"{,.gz}
	for cfg in off on; do counted "$cfg" day update_at "$cfg" "$h"; done
done
# The directory over a month: with CRLite on it is refreshed every 30
# days (fetcher/dirrefresh.c), so one day shows none or all of it.  One
# run a day for days 2 to 30, the reports changed every day, counting
# only what the directory costs; CRLite off refreshes daily (the day).
for ((d = 2; d <= MONTH_DAYS; d++)); do
	touch "$HTTPD_ROOT/ccadb/records.csv"{,.gz} "$HTTPD_ROOT/ccadb/pems-$((year - year % 10)).csv"{,.gz}
	publish_crlite $((d * 24))
	counted on month update_at on $((d * 24))
done

# ---------------------------------------------------------------- figures
# fig CFG WHAT KIND: bytes (or requests) summed
fig() { awk -v k="$3" '$1 == k { s += $2 } END { print s + 0 }' "$1.$2.acc"; }
mb() { awk -v b="$1" 'BEGIN { printf "%.3f", b / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0) printf "%.4f", b / a; else print "-" }'; }
declare -A total
for what in start day; do
	for cfg in off on; do
		t=0
		for k in crl dir crlite; do t=$((t + $(fig "$cfg" "$what" "$k"))); done
		echo "$cfg $what: total $t bytes (CRLs $(fig "$cfg" "$what" crl), directory" \
		    "$(fig "$cfg" "$what" dir), CRLite $(fig "$cfg" "$what" crlite)), $(fig "$cfg" "$what" req) requests"
		total[$cfg.$what]=$t
	done
done
# CRLite on: the directory averaged over the month (the day's and days
# 2..MONTH_DAYS' refreshes), the CRLs and CRLite of the day.
dir_month=$(( ($(fig on day dir) + $(fig on month dir)) / MONTH_DAYS ))
total[on.avg]=$(( $(fig on day crl) + $(fig on day crlite) + dir_month ))
echo "on: directory over $MONTH_DAYS days $(( $(fig on day dir) + $(fig on month dir) )) bytes," \
    "$dir_month a day; a day with it averaged: ${total[on.avg]} bytes"
# What CRLite on fetched in the day: the young leaves' CRLs, and CRLs of
# roots (the chains' links), nothing else.
sort -u on.day.crls >on.urls
echo "CRLs downloaded in the day, CRLite on: $(paste -sd' ' on.urls)"
echo "CRLs downloaded in the day, CRLite off: $(sort -u off.day.crls | wc -l) distinct URLs"
for y in $YOUNG; do crl_url "${y%:*}" "${y#*:}"; done | sed "s|^$BASE_URL||" | sort >young.urls
comm -23 on.urls young.urls | grep -v '^/crl/\(X1\|X2\|G\)\.crl$' &&
    fail "CRLite on downloaded CRLs of certificates the filters answer for"
row() {	# row WHAT OFF_BYTES ON_BYTES [TARGET]
	printf 'ROW\t%s\t%s\t%s\t%s\tMB\t%s\n' "$1" "$(mb "$2")" "$(mb "$3")" "$(ratio "$2" "$3")" "${4:--}"
}
{
	row "bytes a day, 20 CAs met, all sources, the directory averaged over its refresh period (without: CRLite off, with: on)" \
	    "${total[off.day]}" "${total[on.avg]}" "<= 1 MB with CRLite"
	row "bytes a day, CRLs (CRLite off / on)" "$(fig off day crl)" "$(fig on day crl)"
	row "bytes a day, issuer directory, averaged over $MONTH_DAYS days (CRLite off: daily / on: monthly)" \
	    "$(fig off day dir)" "$dir_month"
	row "bytes a day, CRLite filters (CRLite off / on)" "$(fig off day crlite)" "$(fig on day crlite)"
	row "bytes of the start from an empty state: update, hints, update --hints (CRLite off / on)" \
	    "${total[off.start]}" "${total[on.start]}"
} | bench_rows
echo "bandwidth: $HOURS runs a configuration, $(($(date +%s) - t0)) s"
