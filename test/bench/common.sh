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
