# shellcheck shell=bash
# Shared by the benchmarks: a scratch directory, the crlcache binary, an
# `openssl ca` configuration and a fast way to list many revocations.
set -eu
export CRLCACHE_ALLOW_ROOT=1	# benchmarks write only their own temporary state
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CRLCACHE=${CRLCACHE:-$ROOT/fetcher/crlcache}
W=$(mktemp -d /tmp/crlcache-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"

q() { "$@" >/dev/null 2>&1; }

# An empty crlcache configuration: the host's own (/etc/crlcache) plays no
# part in a benchmark.
: >none.conf

# published_bytes STATE_DIR: bytes of the published index, the top file
# index.mdb and the scope files it names (format 3).
published_bytes() {
	find "$1/index.mdb" "$1/scope" -type f ! -name '.*' -printf '%s\n' 2>/dev/null |
	    awk '{ s += $1 } END { printf "%d\n", s }'
}

# bench_ca_conf DIR: DIR/ca.cnf for a CA whose database lives in DIR, with
# extension sections `int` (a CA) and `leaf` (with a CRL DP).
bench_ca_conf() {
	local d=$1
	mkdir -p "$d"
	touch "$d/index.txt"
	echo 1000 >"$d/serial"
	echo 01 >"$d/crlnumber"
	cat >"$d/ca.cnf" <<CNF
[ca]
default_ca = d
[d]
database = $d/index.txt
new_certs_dir = $d
serial = $d/serial
crlnumber = $d/crlnumber
default_md = sha256
default_days = 30
default_crl_days = 7
policy = p
copy_extensions = none
[p]
commonName = supplied
[int]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
[leaf]
basicConstraints = critical,CA:FALSE
crlDistributionPoints = URI:http://127.0.0.1/int.crl
CNF
}

# bench_revocations N >> DIR/index.txt: N revoked entries with random 16-byte
# serials (as Let's Encrypt issues), in openssl ca's database format.
bench_revocations() {
	local rd
	rd=$(date -u +%y%m%d%H%M%SZ)
	openssl rand -hex $((16 * $1)) | fold -w 32 | awk -v rd="$rd" \
	    '{ printf "R\t351231235959Z\t%s,keyCompromise\t%s\tunknown\t/CN=b%d\n", rd, toupper($0), NR }'
}

# bench_pki N: in the scratch directory, root.pem (RSA-2048) issuing int.pem
# (RSA-2048) and int-ec.pem (P-256); rsa-leaf.pem (RSA-2048, under int) and
# p256-leaf.pem (P-256, under int-ec), each with its key and a CHAIN file
# (leaf then intermediate) for a TLS server; the root's CRL and both
# intermediates' CRLs, these with N revoked entries each, imported into the
# index st/index.mdb; OPENSSL_CONF for it in crlcache.cnf, and the same
# configuration without the provider in plain.cnf.  Both leave out the
# system openssl.cnf that `crlcache exec` includes: what it holds (a
# `crlcache enable` of this machine) must not change the figures.
bench_pki() {
	local n=$1 ca
	bench_ca_conf "$W/root"
	q openssl req -x509 -newkey rsa:2048 -nodes -keyout root.key -out root.pem \
	    -subj "/CN=Bench Root" -days 30 -addext "keyUsage=critical,keyCertSign,cRLSign"
	q openssl req -new -newkey rsa:2048 -nodes -keyout int.key -out int.csr -subj "/CN=Bench Int"
	q openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout int-ec.key -out int-ec.csr -subj "/CN=Bench Int P-256"
	q openssl req -new -newkey rsa:2048 -nodes -keyout rsa.key -out rsa.csr -subj "/CN=rsa leaf"
	q openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout p256.key \
	    -out p256.csr -subj "/CN=p256 leaf"
	for ca in int int-ec; do
		bench_ca_conf "$W/$ca"
		q openssl ca -batch -config root/ca.cnf -cert root.pem -keyfile root.key \
		    -extensions int -in "$ca.csr" -out "$ca.pem"
		bench_revocations "$n" >>"$ca/index.txt"
	done
	q openssl ca -batch -config int/ca.cnf -cert int.pem -keyfile int.key \
	    -extensions leaf -in rsa.csr -out rsa-leaf.pem
	q openssl ca -batch -config int-ec/ca.cnf -cert int-ec.pem -keyfile int-ec.key \
	    -extensions leaf -in p256.csr -out p256-leaf.pem
	cat rsa-leaf.pem int.pem >rsa-chain.pem
	cat p256-leaf.pem int-ec.pem >p256-chain.pem
	for ca in root int int-ec; do
		q openssl ca -batch -config "$ca/ca.cnf" -cert "$ca.pem" -keyfile "$ca.key" \
		    -gencrl -out "$ca.crl"
	done
	cat int.pem int-ec.pem >ints.pem
	"$CRLCACHE" -c none.conf --state-dir st import --anchor root.pem --untrusted ints.pem \
	    root.crl int.crl int-ec.crl
	"$CRLCACHE" -c none.conf --state-dir st exec --set log=stderr -- \
	    sh -c 'cat "$OPENSSL_CONF"' | sed '/^\.include .*\/openssl\.cnf$/d' >crlcache.cnf
	sed '/^crlcache = crlcache_sect$/d' crlcache.cnf >plain.cnf
}

# bench_crlite: after bench_pki, the CRLite case: rsa-sct-leaf.pem and
# p256-sct-leaf.pem, the two leaves' keys certified again with an
# embedded SCT list of
# two SCTs (test/crlite_pki.py sctext), their chains and keys as above,
# and a CRLite set in st/crlite (test/crlite_set.py) of a filter of a
# full filter's size (Mozilla's real delta, 969 issuers and 50 logs,
# padded to 6 MB: test/crlite_pki.py pad) and a delta enrolling both
# intermediates, each with 200 revoked and 20000 good serials and its
# leaf good (ranks as Mozilla's: about 1% revoked), covering the leaves'
# log: every verification of these leaves asks both filters.
bench_crlite() {
	local log now ext leaf ca args=() i
	log=$(printf 'c7%.0s' $(seq 32))
	now=$(( $(date +%s) * 1000 ))
	python3 "$ROOT/test/crlite_pki.py" sctext "$log:$now,$(printf 'd8%.0s' $(seq 32)):$now" >sct.ext
	for leaf in rsa:int p256:int-ec; do
		ca=${leaf#*:}; leaf=${leaf%:*}
		printf '[leafsct]\nbasicConstraints = critical,CA:FALSE\n%s\n%s\n' \
		    'crlDistributionPoints = URI:http://127.0.0.1/int.crl' "$(cat sct.ext)" >"$leaf-sct.cnf"
		q openssl req -new -key "$leaf.key" -subj "/CN=$leaf leaf with SCTs" -out "$leaf-sct.csr"
		q openssl ca -batch -config "$ca/ca.cnf" -cert "$ca.pem" -keyfile "$ca.key" \
		    -extfile "$leaf-sct.cnf" -extensions leafsct -in "$leaf-sct.csr" \
		    -out "$leaf-sct-leaf.pem"
		cat "$leaf-sct-leaf.pem" "$ca.pem" >"$leaf-sct-chain.pem"
		# 200 revoked and 20000 good serials besides the leaf
		openssl rand -hex $((16 * 20200)) | fold -w 32 >"$ca.serials"
		args+=("$ca.pem" "$leaf-sct-leaf.pem=good" "@$ca.serials=200")
	done
	python3 "$ROOT/test/crlite_pki.py" filter bench.filter 4 \
	    "$log:$((now - 86400000)):$((now + 86400000))" "${args[@]}"
	python3 "$ROOT/test/crlite_pki.py" pad "$ROOT/test/data/crlite/20260624-1-default.filter.delta" \
	    full.filter 6000000
	python3 "$ROOT/test/crlite_set.py" st full.filter bench.filter
}

# A measured row for `make bench`'s table (test/bench/table.sh):
#   ROW <tab> what <tab> without <tab> with <tab> ratio [<tab> unit [<tab> target]]
# "without" is the baseline ("-" for a figure that has none), "with" the
# figure with crlcache, ratio with / without ("-" when there is no
# baseline), unit defaults to us.  Lines of a benchmark program that start
# with ROW are printed and, when BENCH_ROWS names a file, appended to it
# with the target bench_target gives the row unless it has one; other
# lines pass through.
bench_rows() {
	local line
	while IFS= read -r line; do
		case $line in
		ROW$'\t'*)
			line=$(printf '%s\n' "$line" | awk -F'\t' -v OFS='\t' \
			    '{ if ($6 == "") $6 = "us"; print }')
			case $(printf '%s\n' "$line" | awk -F'\t' '{ print NF }') in
			6) line="$line"$'\t'"$(bench_target "$(printf '%s\n' "$line" | cut -f2)")" ;;
			esac
			printf '%s\n' "$line" | awk -F'\t' \
			    '{ printf "%-64s %10s %10s  ratio %s %s  (target %s)\n", $2, $3, $4, $5, $6, $7 }'
			if [ -n "${BENCH_ROWS:-}" ]; then
				printf '%s\n' "$line" >>"$BENCH_ROWS"
			fi ;;
		*) printf '%s\n' "$line" ;;
		esac
	done
}

# bench_target WHAT: the target a row must meet (docs/performance.md),
# by its description
# (the instruction-count twin of a timed row has the same target).
bench_target() {
	case $1 in
	*handshake*) echo "<= 1.03x" ;;
	*"decoded afresh"*) echo "<= 1.03x" ;;
	"openssl verify process, leaf with SCTs, CRLite day"*) echo "<= 1.05x" ;;
	"openssl verify process"*) echo "<= 1.10x" ;;
	*"import"*"peak RSS"*|*"update"*"loopback"*"peak RSS"*) echo "<= 2x the CRL" ;;
	*"import"*|*"update"*"loopback"*) echo "<= 1.0x" ;;
	*"nothing changed"*) echo "-" ;;
	*"changed"*"time"*|*"publish"*"alone"*) echo "<= 1 s" ;;
	*"bytes written"*) echo "a small multiple of the change" ;;
	*) echo "-" ;;
	esac
}
# Operations callgrind counts per row and side: instruction counts do not
# vary with the load of the machine, so a few are enough.
COUNT_OPS=10

# bench_count ROW SIDE PROGRAM ARGS...: thousands of instructions per
# operation of PROGRAM's ROW-th row (from 0) on SIDE (0 without crlcache,
# 1 with it): BENCH_COUNT makes the program run only that batch
# (bench.h: alternate), counted alone with --toggle-collect.
bench_count() {
	local row=$1 side=$2; shift 2
	BENCH_COUNT="$row $side $COUNT_OPS" valgrind --tool=callgrind \
	    --toggle-collect='batch*' --callgrind-out-file=/dev/null "$@" 2>&1 |
	    sed -n 's/.*Collected : //p' | awk -v n="$COUNT_OPS" '{ printf "%.1f", $1 / n / 1000 }'
}

# bench_run PROGRAM ARGS...: PROGRAM's timed rows, then, with valgrind
# installed, each row again in instructions (bench_count).
bench_run() {
	local out=$W/run.out k=0 tag what rest a b
	"$@" >"$out"
	bench_rows <"$out"
	command -v valgrind >/dev/null || return 0
	while IFS=$'\t' read -r tag what rest; do
		[ "$tag" = ROW ] || continue
		a=$(bench_count "$k" 0 "$@")
		b=$(bench_count "$k" 1 "$@")
		printf 'ROW\t%s (instructions)\t%s\t%s\t%.3f\tk instr\n' "$what" "$a" "$b" \
		    "$(echo "$b / $a" | bc -l)" | bench_rows
		k=$((k + 1))
	done <"$out"
}

# Batches per side and `openssl verify` processes per batch (bench_process).
PROCESS_ROUNDS=11
PROCESS_PER_ROUND=20

# bench_process LABEL PLAIN.cnf CRLCACHE.cnf CAFILE UNTRUSTED LEAF: the
# whole `openssl verify` process (start, configuration, module load,
# index open, one chain verified, exit) with the configuration that
# enables the provider vs the same without it, in alternating batches
# (the ratio is the median of the batches' ratios), and, with valgrind
# installed, the instructions of one process each.  Rows are "openssl
# verify process, LABEL".
bench_process() {
	local label=$1 plain=$2 crlc=$3 ca=$4 unt=$5 leaf=$6 r p c t=$W/process.times
	pverify() { OPENSSL_CONF=$1 openssl verify -CAfile "$ca" -untrusted "$unt" "$leaf" >/dev/null; }
	pbatch() {
		local t0 i
		t0=$(date +%s%N)
		for ((i = 0; i < PROCESS_PER_ROUND; i++)); do pverify "$1"; done
		echo $(( ($(date +%s%N) - t0) / PROCESS_PER_ROUND / 1000 ))
	}
	pverify "$crlc" && pverify "$plain"	# warm the page cache; both must pass
	: >"$t"
	for ((r = 0; r < PROCESS_ROUNDS; r++)); do
		if ((r % 2 == 0)); then p=$(pbatch "$plain"); c=$(pbatch "$crlc")
		else c=$(pbatch "$crlc"); p=$(pbatch "$plain"); fi
		echo "$p $c" >>"$t"
	done
	printf 'ROW\topenssl verify process, %s\t%s\t%s\t%.3f\n' "$label" \
	    "$(awk '{ print $1 }' "$t" | bench_median)" "$(awk '{ print $2 }' "$t" | bench_median)" \
	    "$(awk '{ print $2 / $1 }' "$t" | bench_median)" | bench_rows
	command -v valgrind >/dev/null || return 0
	for c in "$plain" "$crlc"; do
		OPENSSL_CONF=$c valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		    openssl verify -CAfile "$ca" -untrusted "$unt" "$leaf" 2>&1 |
		    sed -n 's/.*Collected : //p'
	done | paste -s | awk -v l="$label" '{ printf "ROW\topenssl verify process, %s (instructions)\t%.2f\t%.2f\t%.3f\tM instr\n",
	    l, $1 / 1e6, $2 / 1e6, $2 / $1 }' | bench_rows
}

# The median of the numbers on stdin, one a line.
bench_median() {
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench_measure NAME CMD...: run CMD under /usr/bin/time in a shell that
# then reads its own /proc/PID/io, which holds the counts of its reaped
# children; NAME.m gets "seconds peak-RSS-kB write_bytes" (bytes the
# command and its children sent, or will send, to storage), NAME.cpu its
# CPU seconds (user + system).
bench_measure() {
	local name=$1; shift
	bash -c '/usr/bin/time -f "%e %M %U %S" -o "$0.time" "$@" || exit 1
	    awk "/^write_bytes/ { print \$2 }" /proc/$$/io >"$0.io"' "$name" "$@" ||
	    { echo "failed: $*" >&2; exit 1; }
	tail -n 1 "$name.time" | awk -v wb="$(cat "$name.io")" '{ print $1, $2, wb }' >"$name.m"
	tail -n 1 "$name.time" | awk '{ printf "%.2f\n", $3 + $4 }' >"$name.cpu"
}

# published_files STATE_DIR: inode and size of every file of the state
# directory but work/; a file an update wrote has a new inode (or size).
published_files() {
	find "$1" -path "$1/work" -prune -o -type f -printf '%i %s\n' | sort
}

# written_bytes BEFORE AFTER: bytes of the files in AFTER that are not in
# BEFORE (two published_files lists).
written_bytes() {
	comm -13 "$1" "$2" | awk '{ s += $2 } END { print s + 0 }'
}

# bench_data NAME MAX_AGE EXTRA MAKER RECIPE...: D, a data set made by
# `MAKER DIR` (it writes DIR/made, the time it was made, last), kept in
# $CRLCACHE_BENCH_CACHE (default test/bench/.cache) under NAME and a name
# that changes with the files of its RECIPE and the text EXTRA, and made
# anew when older than MAX_AGE seconds.  Other data sets of NAME go.
bench_data() {
	local name=$1 max_age=$2 extra=$3 maker=$4 cache key t0
	shift 4
	cache=${CRLCACHE_BENCH_CACHE:-$ROOT/test/bench/.cache}
	key=$({ cat "$@"; echo "$extra"; } | sha256sum | cut -c1-16)
	D=$cache/$name-$key
	if [ -s "$D/made" ] && (($(date +%s) - $(cat "$D/made") <= max_age)); then
		echo "data set: $D (cached)"
		return 0
	fi
	mkdir -p "$cache"
	rm -rf "$cache/$name"-*
	t0=$(date +%s)
	"$maker" "$D" >/dev/null
	[ -s "$D/made" ] || { echo "$name: making the data set failed" >&2; exit 1; }
	echo "data set made in $(($(date +%s) - t0)) s: $D"
}
