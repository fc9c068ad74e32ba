# shellcheck shell=bash
# Shared helpers for crlcache integration tests.  Source it from a test:
#     . "$(dirname "$0")/lib.sh"
# Provides: fail/skip/note, assert_exit, assert_grep, assert_not_grep,
# an HTTP server (test/httpd.py) on 127.0.0.1, an openssl-CLI PKI builder,
# and small wrappers around the crlcache binary.

set -u

TESTDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TEST_NAME=$(basename "$0" .sh)
: "${CRLCACHE:=$TESTDIR/../fetcher/crlcache}"
: "${CRLCACHE_MODULES:=$TESTDIR/../provider}"
export CRLCACHE CRLCACHE_MODULES

# Never let the user's / system's configuration leak into a test.
unset CRLCACHE_STATE_DIR OPENSSL_CONF SSL_CERT_FILE SSL_CERT_DIR 2>/dev/null || true
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY 2>/dev/null || true
export no_proxy='*' NO_PROXY='*'
export LC_ALL=C TZ=UTC
# The test helpers in Python write no bytecode into the tree (a package
# built from the tree would carry it).
export PYTHONDONTWRITEBYTECODE=1
# Tests run as root in CI; the state dirs are theirs, not the crlcache user's.
export CRLCACHE_ALLOW_ROOT=1

if [ -z "${TMPDIR_TEST:-}" ]; then
    TMPDIR_TEST=$(mktemp -d "${TMPDIR:-/tmp}/crlcache-$TEST_NAME.XXXXXX")
    _LIB_OWN_TMP=1
else
    _LIB_OWN_TMP=0
fi
export TMPDIR_TEST
W=$TMPDIR_TEST            # short alias used by the tests

# tree_copy DEST: the tracked files of the tree (as they are in the work
# tree) copied into DEST; outside a git checkout (test/trixie.sh's copy) the
# whole tree but .git and test/.roots.
tree_copy() {
    local top
    top=$(cd "$TESTDIR/.." && pwd)
    mkdir -p "$1" || return 1
    if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        (cd "$top" && git ls-files -z | tar --null -cf - -T -) | tar -xf - -C "$1"
    else
        (cd "$top" && tar --exclude=./.git --exclude=./test/.roots --exclude=__pycache__ \
            -cf - .) | tar -xf - -C "$1"
    fi
}

# need_deb_root: skip unless root, with the tools to build the package and
# a root, on a host whose /etc/os-release names its release (read here).
need_deb_root() {
    local t
    [ "$(id -u)" -eq 0 ] || skip "makes a Debian root: run as root"
    for t in dpkg-buildpackage mmdebstrap; do
        command -v "$t" >/dev/null || skip "$t not installed (test/deps.sh installs it)"
    done
    . /etc/os-release
    [ -n "${VERSION_CODENAME:-}" ] || skip "no VERSION_CODENAME in /etc/os-release"
}

# orig_tarball SRC DIR: the release tarball (make dist: the tracked files
# but debian/) as DIR/crlcache_VERSION.orig.tar.gz, the .orig of the 3.0
# (quilt) source package.  Outside a git checkout (test/trixie.sh's copy,
# the tracked files and what the build made) the same files from SRC, a
# tree_copy, once `make clean` took the build's away.
orig_tarball() {
    local top v
    top=$(cd "$TESTDIR/.." && pwd)
    v=$(cat "$top/VERSION")
    if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        make -C "$top" --no-print-directory dist DISTDIR="$2" >/dev/null &&
            mv "$2/crlcache-$v.tar.gz" "$2/crlcache_$v.orig.tar.gz"
    else
        make -C "$1" --no-print-directory clean >/dev/null &&
            (cd "$1" && find . -path ./debian -prune -o ! -type d -print0 | LC_ALL=C sort -z |
                tar --null -T - --transform "s,^\.,crlcache-$v," -czf "$2/crlcache_$v.orig.tar.gz")
    fi
}
# deb_build: the package built from a copy of the tree: $W/pkg/$DEB, its
# source in $W/pkg/src.  deb_root: the fresh root of this host's Debian
# release the package is installed in (test/mkroot.sh, cached), in DEB_ROOT.
deb_build() {
    tree_copy "$W/pkg/src" || fail "copying the tree"
    (cd "$W/pkg/src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
        DEB_BUILD_OPTIONS="nocheck noddebs parallel=$(nproc)" dpkg-buildpackage -us -uc -b) \
        >"$W/build.log" 2>&1 || { tail -40 "$W/build.log" >&2; fail "dpkg-buildpackage"; }
    DEB=$(cd "$W/pkg" && echo crlcache_*.deb)
    [ -f "$W/pkg/$DEB" ] || fail "no .deb built"
}
deb_root() {
    DEB_ROOT=$(sh "$TESTDIR/mkroot.sh" "$VERSION_CODENAME" autopkgtest curl openssl python3 adduser) ||
        fail "mkroot.sh $VERSION_CODENAME"
}

# ---------------------------------------------------------------- reporting
note() { printf '%s: %s\n' "$TEST_NAME" "$*"; }
fail() { printf 'FAIL: %s: %s\n' "$TEST_NAME" "$*" >&2; exit 1; }
skip() { printf 'SKIP: %s\n' "$*"; exit 77; }

# Soft failures: a script with several cases reports each one and fails at the end.
_SOFT_FAILS=0
case_ok()   { printf 'case %s: ok\n' "$1"; }
case_fail() { printf 'case %s: FAILED: %s\n' "$1" "$2" >&2; _SOFT_FAILS=$((_SOFT_FAILS + 1)); }
finish()    { [ "$_SOFT_FAILS" -eq 0 ] || fail "$_SOFT_FAILS case(s) failed"; note "all ok"; exit 0; }

# assert_exit EXPECTED cmd...   (EXPECTED may be "nonzero"); output kept in $W/last.out/.err
assert_exit() {
    local want=$1 rc; shift
    "$@" >"$W/last.out" 2>"$W/last.err"; rc=$?
    if [ "$want" = nonzero ]; then
        [ "$rc" -ne 0 ] && return 0
    elif [ "$rc" -eq "$want" ]; then
        return 0
    fi
    {
        echo "assert_exit: expected $want, got $rc: $*"
        echo "--- stdout"; cat "$W/last.out"; echo "--- stderr"; cat "$W/last.err"
    } >&2
    fail "unexpected exit status $rc (wanted $want) from: $*"
}

assert_grep() {      # assert_grep [-i] PATTERN FILE  (extended regex)
    local opt=""; [ "$1" = -i ] && { opt=-i; shift; }
    grep -Eq $opt -- "$1" "$2" && return 0
    { echo "--- $2:"; cat "$2"; } >&2
    fail "pattern '$1' not found in $2"
}
assert_not_grep() {
    local opt=""; [ "$1" = -i ] && { opt=-i; shift; }
    grep -Eq $opt -- "$1" "$2" || return 0
    { echo "--- $2:"; cat "$2"; } >&2
    fail "pattern '$1' unexpectedly found in $2"
}

# ---------------------------------------------------------------- cleanup
_BG_PIDS=()
bg_register() { _BG_PIDS+=("$1"); }
_lib_cleanup() {
    local p
    for p in "${_BG_PIDS[@]}"; do
        kill "$p" 2>/dev/null
    done
    for p in "${_BG_PIDS[@]}"; do
        wait "$p" 2>/dev/null
    done
    if [ "$_LIB_OWN_TMP" = 1 ] && [ -z "${KEEP:-}" ]; then
        rm -rf "$TMPDIR_TEST"
    fi
}
trap _lib_cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- time
now_epoch() { date -u +%s; }
# gt OFFSET_SECONDS -> GeneralizedTime YYYYMMDDHHMMSSZ relative to now
gt() { date -u -d "@$(( $(now_epoch) + $1 ))" +%Y%m%d%H%M%SZ; }

# ---------------------------------------------------------------- HTTP server
# httpd_start [PORT]  -> HTTPD_PORT, BASE_URL, HTTPD_ROOT ($W/www), HTTPD_LOG
# With HTTPD_MAX_AGE=N, files are served with Cache-Control: max-age=N;
# with HTTPD_DELAY=SECONDS, every answer is held that long; with
# HTTPD_NO_304=1, no answer is a 304.
httpd_start() {
    local port=${1:-0} i
    HTTPD_ROOT=$W/www; HTTPD_LOG=$W/httpd.log
    mkdir -p "$HTTPD_ROOT"
    command -v python3 >/dev/null || skip "python3 not available for test/httpd.py"
    rm -f "$W/httpd.port"
    python3 "$TESTDIR/httpd.py" --root "$HTTPD_ROOT" --port-file "$W/httpd.port" \
        --log "$HTTPD_LOG" --port "$port" ${HTTPD_MAX_AGE:+--max-age "$HTTPD_MAX_AGE"} \
        ${HTTPD_DELAY:+--delay "$HTTPD_DELAY"} ${HTTPD_NO_304:+--no-304} \
        2>>"$W/httpd.err" &
    HTTPD_PID=$!
    bg_register "$HTTPD_PID"
    for i in $(seq 1 100); do
        [ -s "$W/httpd.port" ] && break
        kill -0 "$HTTPD_PID" 2>/dev/null || { cat "$W/httpd.err" >&2; fail "httpd.py died"; }
        sleep 0.05
    done
    [ -s "$W/httpd.port" ] || fail "httpd.py did not start"
    HTTPD_PORT=$(cat "$W/httpd.port")
    BASE_URL=http://127.0.0.1:$HTTPD_PORT
}
httpd_stop() {
    [ -n "${HTTPD_PID:-}" ] || return 0
    kill "$HTTPD_PID" 2>/dev/null; wait "$HTTPD_PID" 2>/dev/null
    HTTPD_PID=
}
# httpd2_start: a second test server, on 127.0.0.2, serving $W/www2
#   -> OTHER (127.0.0.2:PORT), HTTPD2_LOG; SKIP where 127.0.0.2 cannot be bound
httpd2_start() {
    mkdir -p "$W/www2"
    python3 "$TESTDIR/httpd.py" --bind 127.0.0.2 --root "$W/www2" --port-file "$W/httpd2.port" \
        --log "$W/httpd2.log" 2>"$W/httpd2.err" &
    bg_register $!
    for _ in $(seq 1 100); do [ -s "$W/httpd2.port" ] && break; sleep 0.05; done
    [ -s "$W/httpd2.port" ] || { cat "$W/httpd2.err"; skip "cannot listen on 127.0.0.2"; }
    OTHER=127.0.0.2:$(cat "$W/httpd2.port")
    HTTPD2_LOG=$W/httpd2.log
}
# proxy_start [--faithful]: test/alterproxy.py on 127.0.0.1 (loopback
# origins only) -> PROXY (its URL), AP_LOG
proxy_start() {
    AP_LOG=$W/proxy.log
    python3 "$TESTDIR/alterproxy.py" "$@" --port-file "$W/proxy.port" --log "$AP_LOG" \
        2>"$W/proxy.err" &
    bg_register $!
    for _ in $(seq 1 100); do [ -s "$W/proxy.port" ] && break; sleep 0.05; done
    [ -s "$W/proxy.port" ] || { cat "$W/proxy.err" >&2; fail "alterproxy.py did not start"; }
    PROXY=http://127.0.0.1:$(cat "$W/proxy.port")
}
# update_with VAR=VALUE...: crlcache -v update with exactly these proxy
# variables (every other one unset, no_proxy included) -> $W/u.out
update_with() {
    env -u http_proxy -u https_proxy -u HTTPS_PROXY -u all_proxy -u ALL_PROXY \
        -u no_proxy -u NO_PROXY "$@" "$CRLCACHE" --state-dir "$STATE" -c "$CONF" -v update \
        >"$W/u.out" 2>&1
}
# A port on 127.0.0.1 with nothing listening (bound, then closed).
closed_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
# wait_port PORT: until something listens on 127.0.0.1:PORT (15 s at most)
wait_port() {
    python3 -c '
import socket, sys, time
deadline = time.monotonic() + 15
while time.monotonic() < deadline:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)' "$1"
}
# serve SRC NAME: publish SRC under the server root as NAME, atomically, with an
# mtime strictly greater (whole seconds) than anything served before, so that
# If-Modified-Since can never wrongly answer 304 for changed content.
_SERVE_T=0
serve() {
    local src=$1 name=$2 t
    mkdir -p "$(dirname "$HTTPD_ROOT/$name")"
    t=$(now_epoch); [ "$t" -gt "$_SERVE_T" ] || t=$((_SERVE_T + 1)); _SERVE_T=$t
    cp "$src" "$HTTPD_ROOT/$name.tmp.$$"
    touch -d "@$t" "$HTTPD_ROOT/$name.tmp.$$"
    mv -f "$HTTPD_ROOT/$name.tmp.$$" "$HTTPD_ROOT/$name"
}
# inject NAME WHAT: make requests for NAME answer WHAT (a status code, stall,
# slow, close); inject NAME "" removes the injection.
inject() {
    if [ -z "$2" ]; then rm -f "$HTTPD_ROOT/$1.status"; else echo "$2" >"$HTTPD_ROOT/$1.status"; fi
}

# ---------------------------------------------------------------- nginx
# need_nginx: NGINX (its path); SKIP where it is not installed.
need_nginx() {
    NGINX=$(command -v nginx || echo /usr/sbin/nginx)
    [ -x "$NGINX" ] || skip "nginx not installed (Debian package nginx-light; test/deps.sh)"
}
# nginx_dir -> NG: a directory for nginx's files, removed at exit.  It lies
# beside, not in, the test's directory: nginx's workers run as nobody, and
# the test's parents may be closed.
nginx_dir() {
    NG=$(mktemp -d "${TMPDIR:-/tmp}/crlcache-nginx.XXXXXX") || fail "mktemp"
    trap '_lib_cleanup; rm -rf "$NG"' EXIT
    chmod 711 "$NG"
}
# nginx_start PORT LINES: nginx on 127.0.0.1:PORT, its files in NG, its
# http block ending with LINES (logs, server blocks).  NGINX_WRAP: words
# run before nginx (a `crlcache exec`), its output in $W/nginx.out.
nginx_start() {
    local user=""
    [ "$(id -u)" -ne 0 ] || user="user nobody nogroup;"
    mkdir -p "$NG/tmp"
    cat >"$W/nginx.conf" <<EOF
daemon off;
$user
worker_processes 1;
pid $NG/nginx.pid;
error_log $NG/error.log;
events { worker_connections 256; }
http {
    client_body_temp_path $NG/tmp/body;
    proxy_temp_path $NG/tmp/proxy;
    fastcgi_temp_path $NG/tmp/fastcgi;
    uwsgi_temp_path $NG/tmp/uwsgi;
    scgi_temp_path $NG/tmp/scgi;
    types { application/pkix-crl crl; }
$2
}
EOF
    # shellcheck disable=SC2086
    ${NGINX_WRAP:-} "$NGINX" -e "$NG/error.log" -p "$NG" -c "$W/nginx.conf" >"$W/nginx.out" 2>&1 &
    bg_register $!
    wait_port "$1" || { cat "$W/nginx.out" "$NG/error.log" >&2; fail "nginx did not start"; }
    note "$("$NGINX" -v 2>&1) on 127.0.0.1:$1"
}

# ---------------------------------------------------------------- PKI builder
# Everything lives under $PKI.  A CA named N has N/cert.pem, N/key.pem, N/index.txt,
# N/serial, N/crlnumber.  Leaves are $PKI/NAME.pem with key $PKI/NAME.key.
PKI=$W/pki

_req_conf() {   # _req_conf MASK -> path of a minimal req config
    local f=$PKI/req-$1.cnf
    [ -f "$f" ] || cat >"$f" <<EOF
[ req ]
distinguished_name = dn
string_mask = $1
utf8 = yes
[ dn ]
[ v3_root ]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
EOF
    echo "$f"
}

_newkey() {     # _newkey TYPE OUT
    case $1 in
        rsa) openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$2" 2>/dev/null ;;
        ec)  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$2" 2>/dev/null ;;
        ec384) openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -out "$2" 2>/dev/null ;;
        ec521) openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-521 -out "$2" 2>/dev/null ;;
        rsa-pss) openssl genpkey -algorithm RSA-PSS -pkeyopt rsa_keygen_bits:2048 -out "$2" 2>/dev/null ;;
        ed25519|ed448|sm2) openssl genpkey -algorithm "$1" -out "$2" 2>/dev/null ;;
        # OpenSSL 3.5+: FIPS 204 and FIPS 205 keys.
        ml-dsa-44|ml-dsa-65|ml-dsa-87|slh-dsa-*)
             openssl genpkey -algorithm "${1^^}" -out "$2" 2>/dev/null ;;
        # OpenSSL 3.0 generates a DSA key from parameters only.
        dsa) openssl genpkey -genparam -algorithm DSA -pkeyopt dsa_paramgen_bits:2048 \
                 -out "$2.params" 2>/dev/null &&
             openssl genpkey -paramfile "$2.params" -out "$2" 2>/dev/null ;;
        *) fail "_newkey: unknown key type $1" ;;
    esac || fail "key generation failed"
}

# _ca_conf CA [db=FILE] [cert=FILE] [key=FILE] -> writes $PKI/CA/ca.cnf and prints its path.
# The CRL extensions go to section [crlext] which the caller appends.
_ca_conf() {
    local ca=$1; shift
    local d=$PKI/$ca db=$PKI/$ca/index.txt cert=$PKI/$ca/cert.pem key=$PKI/$ca/key.pem a
    for a in "$@"; do
        case $a in
            db=*) db=${a#db=} ;; cert=*) cert=${a#cert=} ;; key=*) key=${a#key=} ;;
        esac
    done
    [ -f "$db" ] || : >"$db"
    cat >"$d/ca.cnf" <<EOF
[ ca ]
default_ca = CA_default
[ CA_default ]
dir = $d
database = $db
new_certs_dir = $d/newcerts
serial = $d/serial
crlnumber = $d/crlnumber
certificate = $cert
private_key = $key
# the key's own default: SHA-256 for RSA and EC, none for EdDSA
default_md = default
default_days = 365
default_crl_days = 7
policy = policy_any
unique_subject = no
preserve = yes
email_in_dn = no
copy_extensions = none
string_mask = utf8only
[ policy_any ]
commonName = supplied
organizationName = optional
organizationalUnitName = optional
countryName = optional
EOF
    echo "$d/ca.cnf"
}

_ca_dirs() {    # _ca_dirs CA FIRST_SERIAL
    mkdir -p "$PKI/$1/newcerts"
    : >"$PKI/$1/index.txt"
    echo "unique_subject = no" >"$PKI/$1/index.txt.attr"
    echo "$2" >"$PKI/$1/serial"
    echo 01 >"$PKI/$1/crlnumber"
}

# pki_root NAME SUBJ [keytype=rsa|ec]   -- self-signed root (RSA by default)
pki_root() {
    local name=$1 subj=$2 kt=rsa a; shift 2
    for a in "$@"; do case $a in keytype=*) kt=${a#keytype=} ;; esac; done
    mkdir -p "$PKI"; _ca_dirs "$name" 1000
    _newkey "$kt" "$PKI/$name/key.pem"
    openssl req -x509 -new -config "$(_req_conf utf8only)" -extensions v3_root \
        -key "$PKI/$name/key.pem" -subj "$subj" -days 3650 -sha256 \
        -set_serial 1 -out "$PKI/$name/cert.pem" 2>"$W/openssl.err" \
        || { cat "$W/openssl.err" >&2; fail "pki_root $name failed"; }
}

# _issue CA CSR OUT EXTFILE [startdate]
_issue() {
    local conf; conf=$(_ca_conf "$1")
    openssl ca -batch -config "$conf" -in "$2" -out "$3" -notext -days 365 \
        -extfile "$4" -extensions ext ${5:+-startdate "$5"} 2>"$W/openssl.err" \
        || { cat "$W/openssl.err" >&2; fail "openssl ca failed issuing $3"; }
}

_cdp_line() {   # _cdp_line URL... -> crlDistributionPoints line (empty if no URL)
    local out="" u
    for u in "$@"; do out="${out:+$out, }URI:$u"; done
    [ -n "$out" ] && echo "crlDistributionPoints = $out"
}

# pki_ca NAME PARENT SUBJ [cdp=URL]... [key=EXISTING_KEY] [keytype=ec|rsa] [aia=URL]
#        [mask=utf8only|default]  [first_serial=HEX]
# Creates an intermediate CA signed by PARENT.  With key=, reuses a key (several
# certificates for one CA).  mask=default encodes the subject as PrintableString
# where possible, utf8only (the default) as UTF8String.
pki_ca() {
    local name=$1 parent=$2 subj=$3 kt=ec mask=utf8only key="" fs=1000 aia="" a; shift 3
    local cdps=()
    for a in "$@"; do
        case $a in
            cdp=*) cdps+=("${a#cdp=}") ;; key=*) key=${a#key=} ;; aia=*) aia=${a#aia=} ;;
            keytype=*) kt=${a#keytype=} ;; mask=*) mask=${a#mask=} ;;
            first_serial=*) fs=${a#first_serial=} ;;
        esac
    done
    _ca_dirs "$name" "$fs"
    if [ -n "$key" ]; then cp "$key" "$PKI/$name/key.pem"; else _newkey "$kt" "$PKI/$name/key.pem"; fi
    openssl req -new -config "$(_req_conf "$mask")" -key "$PKI/$name/key.pem" -subj "$subj" \
        -out "$PKI/$name/req.pem" 2>"$W/openssl.err" \
        || { cat "$W/openssl.err" >&2; fail "pki_ca $name: req failed"; }
    {
        echo "[ ext ]"
        echo "basicConstraints = critical,CA:TRUE"
        echo "keyUsage = critical,keyCertSign,cRLSign"
        echo "subjectKeyIdentifier = hash"
        echo "authorityKeyIdentifier = keyid"
        _cdp_line ${cdps[@]+"${cdps[@]}"}
        [ -z "$aia" ] || echo "authorityInfoAccess = caIssuers;URI:$aia"
    } >"$PKI/$name/ext.cnf"
    _issue "$parent" "$PKI/$name/req.pem" "$PKI/$name/cert.pem" "$PKI/$name/ext.cnf"
}

# pki_leaf NAME CA SUBJ [cdp=URL]... [aia=URL] [noakid=1]  -> $PKI/NAME.pem, $PKI/NAME.key
# aia= adds an authorityInfoAccess caIssuers URI; noakid=1 omits the
# authorityKeyIdentifier.
pki_leaf() {
    local name=$1 ca=$2 subj=$3 aia="" akid=1 a; shift 3
    local cdps=()
    for a in "$@"; do
        case $a in
            cdp=*) cdps+=("${a#cdp=}") ;; aia=*) aia=${a#aia=} ;;
            noakid=1) akid=0 ;;
        esac
    done
    _newkey ec "$PKI/$name.key"
    openssl req -new -config "$(_req_conf utf8only)" -key "$PKI/$name.key" -subj "$subj" \
        -out "$PKI/$name.csr" 2>"$W/openssl.err" \
        || { cat "$W/openssl.err" >&2; fail "pki_leaf $name: req failed"; }
    {
        echo "[ ext ]"
        echo "basicConstraints = critical,CA:FALSE"
        echo "keyUsage = critical,digitalSignature"
        echo "extendedKeyUsage = serverAuth"
        echo "subjectKeyIdentifier = hash"
        [ "$akid" = 0 ] || echo "authorityKeyIdentifier = keyid"
        _cdp_line ${cdps[@]+"${cdps[@]}"}
        [ -z "$aia" ] || echo "authorityInfoAccess = caIssuers;URI:$aia"
    } >"$PKI/$name.ext"
    _issue "$ca" "$PKI/$name.csr" "$PKI/$name.pem" "$PKI/$name.ext"
}

CABF_DV=2.23.140.1.2.1        # CA/B Forum domain-validated policy OID
# gtime SECONDS -> GeneralizedTime YYYYMMDDHHMMSSZ
gtime() { date -u -d "@$1" +%Y%m%d%H%M%SZ; }
# dated NAME CA NOTBEFORE_EPOCH LENGTH_SECONDS [policy=OID|none] [ca=1]
#   -> $PKI/NAME.pem (key NAME.key) with notAfter = notBefore + LENGTH_SECONDS,
#   certificatePolicies OID (default the CA/B DV OID), CDP $BASE_URL/CA.crl
dated() {
    local name=$1 ca=$2 nb=$3 len=$4 policy=$CABF_DV isca=0 a conf; shift 4
    for a in "$@"; do
        case $a in policy=*) policy=${a#policy=} ;; ca=1) isca=1 ;; esac
    done
    _newkey ec "$PKI/$name.key"
    openssl req -new -config "$(_req_conf utf8only)" -key "$PKI/$name.key" \
        -subj "/CN=$name.test" -out "$PKI/$name.csr" 2>"$W/openssl.err" \
        || { cat "$W/openssl.err" >&2; fail "dated $name: req failed"; }
    {
        echo "[ ext ]"
        if [ "$isca" = 1 ]; then
            echo "basicConstraints = critical,CA:TRUE"
            echo "keyUsage = critical,keyCertSign,cRLSign"
        else
            echo "basicConstraints = critical,CA:FALSE"
            echo "keyUsage = critical,digitalSignature"
            echo "extendedKeyUsage = serverAuth"
        fi
        echo "subjectKeyIdentifier = hash"
        echo "authorityKeyIdentifier = keyid"
        [ "$policy" = none ] || echo "certificatePolicies = $policy"
        echo "crlDistributionPoints = URI:${BASE_URL:-http://127.0.0.1:9}/$ca.crl"
    } >"$PKI/$name.ext"
    conf=$(_ca_conf "$ca")
    openssl ca -batch -config "$conf" -in "$PKI/$name.csr" -out "$PKI/$name.pem" -notext \
        -startdate "$(gtime "$nb")" -enddate "$(gtime $((nb + len)))" \
        -extfile "$PKI/$name.ext" -extensions ext 2>"$W/openssl.err" \
        || { cat "$W/openssl.err" >&2; fail "openssl ca failed issuing $name"; }
}

serial_of() { openssl x509 -in "$1" -noout -serial | cut -d= -f2; }

# pki_revoke CA CERT [reason=keyCompromise] [db=FILE]
# reason: unspecified keyCompromise CACompromise affiliationChanged superseded
#         cessationOfOperation certificateHold removeFromCRL
pki_revoke() {
    local ca=$1 cert=$2 reason=keyCompromise a conf; shift 2
    local pass=()
    for a in "$@"; do
        case $a in reason=*) reason=${a#reason=} ;; db=*) pass+=("$a") ;; esac
    done
    conf=$(_ca_conf "$ca" ${pass[@]+"${pass[@]}"})
    openssl ca -batch -config "$conf" -revoke "$cert" -crl_reason "$reason" 2>"$W/openssl.err" \
        || { cat "$W/openssl.err" >&2; fail "pki_revoke $cert failed"; }
}

# pki_bulk_revoked DBFILE COUNT [FIRST_SERIAL_DEC]: append COUNT revoked entries
# (serials not issued by anyone) straight into an openssl ca database; for big CRLs.
pki_bulk_revoked() {
    local db=$1 n=$2 s=${3:-100000} i rd
    rd=$(date -u +%y%m%d%H%M%SZ)
    for ((i = 0; i < n; i++)); do
        printf 'R\t351231235959Z\t%s,keyCompromise\t%06X\tunknown\t/CN=bulk %d\n' "$rd" $((s + i)) "$i"
    done >>"$db"
}

# pki_gencrl CA OUT [options]
#   db=FILE         use this openssl ca database instead of CA/index.txt
#   cert=/key=      sign with this certificate / key (default CA's own)
#   last=GT next=GT lastUpdate / nextUpdate (YYYYMMDDHHMMSSZ; see gt)
#   number=HEX      CRL number to use (default: CA's counter, incremented)
#   idp=URL         issuingDistributionPoint fullName URI (partitioned CRL)
#   indirect=1      issuingDistributionPoint indirectCRL TRUE (RFC 5280 5.2.5),
#                   with idp='s fullName if given
#   delta=N         deltaCRLIndicator (critical) naming base CRL number N (decimal)
#   ext=LINE        extra raw line for the CRL extension section (repeatable),
#                   e.g. ext='1.2.3.4.5 = critical,ASN1:UTF8String:x'
#   noakid=1        omit authorityKeyIdentifier
#   form=der|pem    output format (default der)
pki_gencrl() {
    local ca=$1 out=$2 a conf last="" next="" number="" idp="" delta="" form=der akid=1 ind=0
    shift 2
    local pass=() exts=()
    for a in "$@"; do
        case $a in
            db=*|cert=*|key=*) pass+=("$a") ;;
            last=*) last=${a#last=} ;; next=*) next=${a#next=} ;;
            number=*) number=${a#number=} ;; idp=*) idp=${a#idp=} ;;
            delta=*) delta=${a#delta=} ;; ext=*) exts+=("${a#ext=}") ;;
            form=*) form=${a#form=} ;; noakid=1) akid=0 ;; indirect=1) ind=1 ;;
            *) fail "pki_gencrl: unknown option $a" ;;
        esac
    done
    conf=$(_ca_conf "$ca" ${pass[@]+"${pass[@]}"})
    {
        echo "[ crlext ]"
        [ "$akid" = 1 ] && echo "authorityKeyIdentifier = keyid:always"
        [ -n "$idp$ind" ] && [ "$idp$ind" != 0 ] && echo "issuingDistributionPoint = critical,@idp_sect"
        [ -n "$delta" ] && echo "deltaCRL = critical,ASN1:INTEGER:$delta"
        for a in ${exts[@]+"${exts[@]}"}; do echo "$a"; done
        if [ -n "$idp$ind" ] && [ "$idp$ind" != 0 ]; then
            echo "[ idp_sect ]"
            [ -z "$idp" ] || echo "fullname = URI:$idp"
            [ "$ind" = 0 ] || echo "indirectCRL = TRUE"
        fi
    } >>"$conf"
    [ -n "$number" ] && echo "$number" >"$PKI/$ca/crlnumber"
    local certopt=() keyopt=()
    for a in ${pass[@]+"${pass[@]}"}; do
        case $a in cert=*) certopt=(-cert "${a#cert=}") ;; key=*) keyopt=(-keyfile "${a#key=}") ;; esac
    done
    openssl ca -batch -config "$conf" -gencrl -crlexts crlext -out "$W/crl.tmp.pem" \
        ${certopt[@]+"${certopt[@]}"} ${keyopt[@]+"${keyopt[@]}"} \
        ${last:+-crl_lastupdate "$last"} ${next:+-crl_nextupdate "$next"} 2>"$W/openssl.err" \
        || { cat "$W/openssl.err" >&2; fail "pki_gencrl $ca -> $out failed"; }
    openssl crl -in "$W/crl.tmp.pem" -outform "$form" -out "$out" || fail "openssl crl convert failed"
}

crl_text() { openssl crl -inform DER -in "$1" -noout -text 2>/dev/null || openssl crl -in "$1" -noout -text; }

# A standard small PKI:  root (RSA) -> int (EC) -> leaves.  Requires BASE_URL.
#   $PKI/root, $PKI/int; leaves good1 rev1 rev2 with CDP $BASE_URL/int.crl.
#   The int certificate has no CDP unless called as `std_pki cdp` (then
#   $BASE_URL/root.crl), so tests do not depend on which certificates' CDPs
#   `update` enrols.
std_pki() {
    pki_root root "/CN=Test Root/O=crlcache tests"
    if [ "${1:-}" = cdp ]; then
        pki_ca int root "/CN=Test Int/O=crlcache tests" cdp="$BASE_URL/root.crl"
    else
        pki_ca int root "/CN=Test Int/O=crlcache tests"
    fi
    pki_leaf rev1 int "/CN=rev1.test" cdp="$BASE_URL/int.crl"
    pki_leaf rev2 int "/CN=rev2.test" cdp="$BASE_URL/int.crl"
    pki_leaf good1 int "/CN=good1.test" cdp="$BASE_URL/int.crl"
}

# rev1_crl [pki_gencrl ARGS...]: rev1 revoked in the intermediate's CRL
# $W/int.crl (ARGS such as last=, next=, number=).
rev1_crl() {
    pki_revoke int "$PKI/rev1.pem"
    pki_gencrl int "$W/int.crl" "$@"
}

# offline_pki [cdp]: `std_pki` for tests that fetch nothing: BASE_URL, only
# written into CDPs, is port 9 of loopback, where no test listens.
offline_pki() {
    need_crlcache
    BASE_URL=http://127.0.0.1:9
    std_pki "$@"
}
# offline_int_crl [pki_gencrl ARGS...]: offline_pki, then rev1_crl.
offline_int_crl() {
    offline_pki
    rev1_crl "$@"
}

# noroute_setup: the intermediate's CRL revoking rev1 served, and
# noroute_conf writes $CONF: the shipped crlcache.conf, its CCADB host
# a closed port of loopback (a host with no route to it), CRLite off
# (these tests are about the directory; t_crlite_rs: a failed CRLite
# source), plus that CRL, the anchor and the intermediate.
noroute_setup() {
    need_crlcache
    httpd_start
    std_pki
    rev1_crl
    serve "$W/int.crl" int.crl
    SHIPPED=$TESTDIR/../etc/crlcache.conf
    grep -q '^ccadb_records = https://ccadb' "$SHIPPED" || fail "the shipped crlcache.conf names no CCADB report"
    NOROUTE=http://127.0.0.1:$(closed_port)
}
noroute_conf() {
    { sed -e "s|https://ccadb[.a-z-]*/|$NOROUTE/|" -e 's|^crlite = |#crlite = |' "$SHIPPED"
      printf '%s\n' "url = $BASE_URL/int.crl" "anchor = $PKI/root/cert.pem" \
          "untrusted = $PKI/int/cert.pem"; } >"$CONF"
}

# offline_int_index: offline_int_crl, imported into $STATE (empty
# configuration): rev1 revoked in the index, good1 not.
offline_int_index() {
    offline_int_crl
    write_conf "# empty"
    assert_exit 0 cc import --anchor "$PKI/root/cert.pem" --untrusted "$PKI/int/cert.pem" "$W/int.crl"
}

# served_chain_crls: server + `std_pki cdp`; int.crl (revoking rev1) and
# root.crl served, as a CA serves the CRLs of its chain.
served_chain_crls() {
    httpd_start
    std_pki cdp
    rev1_crl
    serve "$W/int.crl" int.crl
    pki_gencrl root "$W/root.crl"
    serve "$W/root.crl" root.crl
}
# served_at CRL N FORMAT: CRL (int's) served at N paths, printf FORMAT of
# 1 to N, and a configuration that fetches them all: one scope fed from N
# URLs, which `mirror` writes N times.
served_at() {
    local k p conf=("anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem")
    for k in $(seq "$2"); do
        # shellcheck disable=SC2059  # the format is the caller's
        p=$(printf "$3" "$k")
        serve "$1" "$p"
        conf+=("url = $BASE_URL/$p")
    done
    write_conf "${conf[@]}"
}

# ---------------------------------------------------------------- crlcache
need_crlcache() {
    [ -x "$CRLCACHE" ] || fail "crlcache binary not found or not executable: $CRLCACHE (build it first)"
}
# need_owner_nobody: need_crlcache, run as root with a user nobody to own
# a state and setpriv to act as it; PY, a python that account can run
# (root's PATH may lead where nobody cannot go).
need_owner_nobody() {
    need_crlcache
    [ "$(id -u)" -eq 0 ] || skip "needs root"
    id nobody >/dev/null 2>&1 || skip "no user nobody to own the state directory"
    command -v setpriv >/dev/null || skip "setpriv not available"
    PY=/usr/bin/python3
    [ -x "$PY" ] || skip "no $PY"
}
# need_module: need_crlcache, the built provider ($MOD) and the openssl.cnf
# snippet `enable` installs ($SNIP).
need_module() {
    need_crlcache
    MOD=$CRLCACHE_MODULES/crlcache.so
    SNIP=$TESTDIR/../openssl.cnf.d/crlcache.cnf
    [ -f "$MOD" ] || fail "no $MOD (build it first)"
}
# stock_cnf: $stock, the system's openssl.cnf (skip without one), copied to
# $W/openssl.cnf; and en ARGS...: crlcache ARGS on that copy (enable, disable).
stock_cnf() {
    stock=$(openssl version -d | sed -E 's/^OPENSSLDIR: "(.*)"$/\1/')/openssl.cnf
    [ -r "$stock" ] || skip "no system openssl.cnf at $stock"
    cp "$stock" "$W/openssl.cnf"
    en() { "$CRLCACHE" --state-dir "$STATE" "$@" --openssl-cnf "$W/openssl.cnf"; }
}
# DATA: outside test data kept in the tree (test/data/*/README.md or
# SOURCES.md say where each file came from).
DATA=$TESTDIR/data
STATE=$W/state
CONF=$W/crlcache.conf
# cc ARGS...: crlcache with the test's state dir and config
cc() { "$CRLCACHE" --state-dir "$STATE" -c "$CONF" "$@"; }
# write_conf LINE... : (re)write $CONF
write_conf() { printf '%s\n' "# crlcache test config ($TEST_NAME)" "$@" >"$CONF"; }

# check_is STATE_WORD EXIT CERT [--chain FILE]: crlcache check must exit EXIT and
# print a line starting with STATE_WORD.
check_is() {
    local word=$1 code=$2 rc; shift 2
    cc check "$@" >"$W/check.out" 2>"$W/check.err"; rc=$?
    if [ "$rc" -ne "$code" ] || ! grep -Eq "^$word( |$)" "$W/check.out"; then
        { echo "--- check $* stdout"; cat "$W/check.out"; echo "--- stderr"; cat "$W/check.err"; } >&2
        fail "check $*: expected '$word' exit $code, got exit $rc"
    fi
}
# Non-fatal variant, returns 0/1
check_is_soft() {
    local word=$1 code=$2 rc; shift 2
    cc check "$@" >"$W/check.out" 2>"$W/check.err"; rc=$?
    if [ "$rc" -ne "$code" ] || ! grep -Eq "^$word( |$)" "$W/check.out"; then
        { echo "--- check $* (wanted $word/$code, exit $rc) stdout"; cat "$W/check.out"
          echo "--- stderr"; cat "$W/check.err"; } >&2
        return 1
    fi
    return 0
}

generation() {   # prints the generation number from `crlcache status`
    cc status 2>/dev/null | sed -nE 's/^generation[: ]+([0-9]+).*/\1/p' | head -n1
}

# served_int_crl [CONF_LINE...]: server + standard PKI; the intermediate's CRL,
# revoking rev1, served as $BASE_URL/int.crl and named in $CONF with the root
# as anchor and the intermediate as untrusted (plus the extra lines given).
served_int_crl() {
    need_crlcache
    httpd_start
    std_pki
    rev1_crl
    serve "$W/int.crl" int.crl
    write_conf "url = $BASE_URL/int.crl" "anchor = $PKI/root/cert.pem" \
        "untrusted = $PKI/int/cert.pem" "$@"
}

# ---------------------------------------------------------------- rejection tests
# reject_setup NAME: server + standard PKI; a good CRL (number 0x10) revoking rev1
# is served as NAME.crl and ingested by `update`.  Afterwards rev2 is revoked in
# the CA database, so every "bad" CRL generated later also revokes rev2: if a bad
# CRL is wrongly ingested, rev2 turns revoked.
reject_setup() {
    RJ_NAME=$1
    need_crlcache
    httpd_start
    std_pki
    pki_revoke int "$PKI/rev1.pem" reason=keyCompromise
    pki_gencrl int "$W/good.crl" number=10
    serve "$W/good.crl" "$RJ_NAME.crl"
    RJ_URL=$BASE_URL/$RJ_NAME.crl
    write_conf "url = $RJ_URL" "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem" \
        "timeout = 10" "connect_timeout = 5" ${RJ_EXTRA_CONF[@]+"${RJ_EXTRA_CONF[@]}"}
    assert_exit 0 cc update
    check_is revoked 1 "$PKI/rev1.pem"
    check_is good 0 "$PKI/rev2.pem"
    RJ_GEN=$(generation)
    pki_revoke int "$PKI/rev2.pem" reason=keyCompromise
}
# reject_expect FILE REASON_REGEX: serve FILE as the source, run update and
# require failure, a reason line for the URL and unchanged data.
reject_expect() {
    local re=$2
    serve "$1" "$RJ_NAME.crl"
    cc update >"$W/upd.out" 2>"$W/upd.err"; local rc=$?
    sed 's/^/    update stderr: /' "$W/upd.err"
    [ "$rc" -ne 0 ] || fail "update accepted the bad CRL (exit 0)"
    [ "$rc" -eq 1 ] || note "warning: update exit $rc (contract says 1 when a source failed)"
    grep -Fq "crlcache: $RJ_URL: " "$W/upd.err" || fail "no 'crlcache: $RJ_URL: REASON' line"
    grep -F "crlcache: $RJ_URL: " "$W/upd.err" | grep -Eiq -- "$re" \
        || fail "reason line does not match /$re/"
    grep -Eq 'crlcache: update: 1 sources, 0 updated, 0 unchanged, 1 failed' "$W/upd.err" \
        || fail "summary line missing or wrong"
    check_is revoked 1 "$PKI/rev1.pem"      # earlier data kept
    check_is good 0 "$PKI/rev2.pem"         # bad CRL changed nothing
    [ "$(generation)" = "$RJ_GEN" ] || fail "generation changed ($RJ_GEN -> $(generation)) though nothing was ingested"
}

# ---------------------------------------------------------------- hints
# hint CERT.pem: leave CERT in $STATE/hints as the provider would (its DER,
# named by the DER's SHA-256), creating the spool like the fetcher does.
hint() {
    local der=$W/hint.der sum
    mkdir -p "$STATE/hints"; chmod 3733 "$STATE/hints"
    openssl x509 -in "$1" -outform DER -out "$der" || fail "hint: cannot convert $1"
    sum=$(sha256sum "$der" | cut -d' ' -f1)
    cp "$der" "$STATE/hints/$sum.crt"
    echo "$sum"
}
# requests the test HTTP server logged for PATH (0 when none)
# only_request LOG BEFORE PATTERN: LOG gained exactly one request after its
# first BEFORE lines, and it matches PATTERN (extended regex)
only_request() {
    local new
    new=$(tail -n +$(( $2 + 1 )) "$1")
    [ "$(printf '%s\n' "$new" | grep -c .)" = 1 ] && printf '%s\n' "$new" | grep -Eq "$3" ||
        { printf '%s\n' "$new" >&2; fail "expected one request matching $3"; }
}
requests_for() { grep -c -- "$1" "$HTTPD_LOG" 2>/dev/null || true; }

# ---------------------------------------------------------------- Remote Settings
# A content-signing chain made with the openssl CLI for test/remotesettings.py
# (P-384 throughout, as Mozilla's): cs_cert NAME SUBJECT ISSUER|- EXTENSIONS
# writes $W/cs/NAME.pem and .key; cs_chain makes root, int and ee (for
# $CS_SIGNER, with the code signing usage) and $W/cs/chain.pem, and sets
# CS_ROOT_FP, the root's SHA-256 fingerprint for crlite_root.
CS_SIGNER=onecrl.content-signature.mozilla.org
cs_cert() {     # cs_cert NAME SUBJECT ISSUER|- EXTENSIONS  (CS_DAYS: validity)
    local n=$1 subj=$2 iss=$3 ext=$4
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 \
        -out "$W/cs/$n.key" 2>/dev/null || fail "genpkey $n"
    printf '%s\n' "[x]" "$ext" >"$W/cs/$n.ext"
    if [ "$iss" = - ]; then
        openssl req -new -x509 -key "$W/cs/$n.key" -subj "$subj" -days "${CS_DAYS:-30}" \
            -sha384 -extensions x -config <(printf '%s\n' "[req]" \
            "distinguished_name=dn" "[dn]" "[x]" "$ext") \
            -out "$W/cs/$n.pem" 2>/dev/null || fail "root $n"
    else
        openssl req -new -key "$W/cs/$n.key" -subj "$subj" \
            -out "$W/cs/$n.csr" 2>/dev/null &&
        openssl x509 -req -in "$W/cs/$n.csr" -CA "$W/cs/$iss.pem" \
            -CAkey "$W/cs/$iss.key" -CAcreateserial -days "${CS_DAYS:-20}" -sha384 \
            -extfile "$W/cs/$n.ext" -extensions x -out "$W/cs/$n.pem" \
            2>/dev/null || fail "cert $n"
    fi
}
cs_chain() {
    mkdir -p "$W/cs"
    cs_cert root "/CN=test content signing root" - \
        "basicConstraints=critical,CA:true
keyUsage=critical,keyCertSign,cRLSign
subjectKeyIdentifier=hash"
    cs_cert int "/CN=test content signing intermediate" root \
        "basicConstraints=critical,CA:true,pathlen:0
keyUsage=critical,keyCertSign,cRLSign
extendedKeyUsage=codeSigning
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid"
    cs_cert ee "/CN=$CS_SIGNER" int \
        "basicConstraints=critical,CA:false
keyUsage=critical,digitalSignature
extendedKeyUsage=codeSigning
subjectAltName=DNS:$CS_SIGNER
authorityKeyIdentifier=keyid"
    cat "$W/cs/ee.pem" "$W/cs/int.pem" "$W/cs/root.pem" >"$W/cs/chain.pem"
    CS_ROOT_FP=$(openssl x509 -in "$W/cs/root.pem" -noout -fingerprint -sha256 | cut -d= -f2)
}

# ---------------------------------------------------------------- CCADB reports
# A synthetic CCADB in the real formats: AllCertificateRecordsCSVFormatv4
# (every column, in order) and AllCertificatePEMsCSVFormat?NotBeforeYear=YYYY
# (one file per year), RFC 4180 quoting, CRLF rows, PEMs in quoted
# multi-line fields.  Build it row by row with ccadb_row, write it with
# ccadb_write.
CCADB_V4_COLUMNS=("CA Owner" "Salesforce Record ID" "Certificate Name"
    "Parent Salesforce Record ID" "Parent Certificate Name" "Certificate Record Type"
    "Subordinate CA Owner" "Apple Status" "Chrome Status" "Microsoft Status"
    "Mozilla Status" "Status of Root Cert" "Revocation Status" "SHA-256 Fingerprint"
    "Parent SHA-256 Fingerprint" "Valid From (GMT)" "Valid To (GMT)"
    "Authority Key Identifier" "Subject Key Identifier" "Technically Constrained"
    "Derived Trust Bits" "Full CRL Issued By This CA" "JSON Array of Partitioned CRLs"
    "Auditor" "Audits Same as Parent?" "Standard Audit URL" "Standard Audit Type"
    "Standard Audit Statement Date" "Standard Audit Period Start Date"
    "Standard Audit Period End Date" "NetSec Audit URL" "NetSec Audit Type"
    "NetSec Audit Statement Date" "NetSec Audit Period Start Date"
    "NetSec Audit Period End Date" "TLS BR Audit URL" "TLS BR Audit Type"
    "TLS BR Audit Statement Date" "TLS BR Audit Period Start Date"
    "TLS BR Audit Period End Date" "TLS EVG Audit URL" "TLS EVG Audit Type"
    "TLS EVG Audit Statement Date" "TLS EVG Audit Period Start Date"
    "TLS EVG Audit Period End Date" "Code Signing Audit URL" "Code Signing Audit Type"
    "Code Signing Audit Statement Date" "Code Signing Audit Period Start Date"
    "Code Signing Audit Period End Date" "S/MIME BR Audit URL" "S/MIME BR Audit Type"
    "S/MIME BR Audit Statement Date" "S/MIME BR Audit Period Start Date"
    "S/MIME BR Audit Period End Date" "VMC Audit URL" "VMC Audit Type"
    "VMC Audit Statement Date" "VMC Audit Period Start Date" "VMC Audit Period End Date"
    "Policy Documentation" "CA Document Repository" "CP Same as Parent?"
    "Certificate Policy (CP) URL" "CP Last Update Date" "CPS Same as Parent?"
    "Certificate Practice Statement (CPS) URL" "CPS Last Update Date"
    "CP/CPS Same as Parent?" "Certificate Practice & Policy Statement"
    "CP/CPS Last Updated Date" "Test Website URL - Valid" "Test Website URL - Expired"
    "Test Website URL - Revoked" "TLS Capable" "TLS EV Capable" "Code Signing Capable"
    "S/MIME Capable" "Country")
# AllCertificateRecordsCSVFormatV5: its real header, from crt.sh's archive
# of the CCADB (test/data/ccadb/SOURCES); no column name holds a comma.
IFS=, read -r -a CCADB_V5_COLUMNS <"$TESTDIR/data/ccadb/records-v5.csv"
CCADB_D=$W/ccadb.rows
_csvq() { printf '"%s"' "${1//\"/\"\"}"; }         # one RFC 4180 quoted field
cert_fp() {     # cert_fp CERT.pem -> SHA-256 in uppercase hex, as the CCADB writes it
    openssl x509 -in "$1" -noout -fingerprint -sha256 | sed 's/^.*=//; s/://g'
}
_cert_date() {  # _cert_date CERT.pem startdate|enddate FORMAT
    date -u -d "$(openssl x509 -in "$1" -noout "-$2" | cut -d= -f2)" +"$3"
}
# ccadb_row CERT.pem [type=root|int] [status=TEXT] [valid_to=YYYY.MM.DD]
#     [full=URL[,URL...]] [parts=URL,URL...] [parent=PARENT.pem] [pem=FILE]
#     [fullraw=TEXT] [partsraw=TEXT]
# One certificate: a row of the records reports (the columns crlcache reads
# filled from the certificate unless given; some others with commas, quotes
# and line breaks), and a row of the PEM report of its notBefore year
# (pem= puts another file's PEM under CERT's fingerprint).  The V4 row
# has the first full URL in "Full CRL Issued By This CA", the V5 row all
# of them in "JSON Array of All Full CRL URLs" and its dates as
# YYYY-MM-DD (crt.sh's copy); fullraw= and partsraw= are those fields as
# given, in both.
ccadb_row() {
    local cert=$1 type=int status="Not Revoked" vt="" full="" parts="" parent="" pem a
    local fullraw="" partsraw="" raw_f=0 raw_p=0
    shift
    pem=$cert
    for a in "$@"; do
        case $a in
            type=*) type=${a#type=} ;; status=*) status=${a#status=} ;;
            valid_to=*) vt=${a#valid_to=} ;; full=*) full=${a#full=} ;;
            parts=*) parts=${a#parts=} ;; parent=*) parent=${a#parent=} ;;
            pem=*) pem=${a#pem=} ;;
            fullraw=*) fullraw=${a#fullraw=}; raw_f=1 ;;
            partsraw=*) partsraw=${a#partsraw=}; raw_p=1 ;;
            *) fail "ccadb_row: unknown option $a" ;;
        esac
    done
    mkdir -p "$CCADB_D"
    local fp json="" fjson="" u c line="" line5="" year
    fp=$(cert_fp "$cert")
    [ -n "$vt" ] || vt=$(_cert_date "$cert" enddate %Y.%m.%d)
    year=$(_cert_date "$cert" startdate %Y)
    if [ -n "$parts" ]; then
        for u in ${parts//,/ }; do json="${json:+$json, }\"$u\""; done
        json="[$json]"
    fi
    if [ -n "$full" ]; then
        for u in ${full//,/ }; do fjson="${fjson:+$fjson, }\"$u\""; done
        fjson="[$fjson]"
    fi
    [ "$raw_f" = 0 ] || { full=$fullraw; fjson=$fullraw; }
    [ "$raw_p" = 0 ] || json=$partsraw
    local -A v=(
        ["CA Owner"]='crlcache tests, "Test" Owner'
        ["Certificate Name"]=$(openssl x509 -in "$cert" -noout -subject -nameopt RFC2253 | sed 's/^subject=//')
        ["Certificate Record Type"]=$([ "$type" = root ] && echo "Root Certificate" || echo "Intermediate Certificate")
        ["Revocation Status"]=$status
        ["SHA-256 Fingerprint"]=$fp
        ["Parent SHA-256 Fingerprint"]=$([ -n "$parent" ] && cert_fp "$parent")
        ["Valid From (GMT)"]=$(_cert_date "$cert" startdate %Y.%m.%d)
        ["Valid To (GMT)"]=$vt
        ["Full CRL Issued By This CA"]=${full%%,*}
        ["JSON Array of All Full CRL URLs"]=$fjson
        ["JSON Array of Partitioned CRLs"]=$json
        ["Auditor"]=$'Audit, "Test"\nLLP'
        ["Derived Trust Bits"]="Client Authentication;Server Authentication"
        ["TLS Capable"]=True ["TLS EV Capable"]=False ["Code Signing Capable"]=False
        ["S/MIME Capable"]=False ["Country"]="Testland"
    )
    for c in "${CCADB_V4_COLUMNS[@]}"; do line+="${line:+,}$(_csvq "${v[$c]:-}")"; done
    printf '%s\r\n' "$line" >>"$CCADB_D/records"
    v["Valid To (GMT)"]=${vt//./-}
    v["Valid From (GMT)"]=$(_cert_date "$cert" startdate %Y-%m-%d)
    for c in "${CCADB_V5_COLUMNS[@]}"; do line5+="${line5:+,}$(_csvq "${v[$c]:-}")"; done
    printf '%s\r\n' "$line5" >>"$CCADB_D/records5"
    printf '%s,%s\r\n' "$(_csvq "$fp")" "$(_csvq "$(cat "$pem")")" >>"$CCADB_D/pems-$year"
}
# ccadb_write DIR [FIRST_YEAR]: the reports of the rows so far, as
# DIR/records.csv (V4), DIR/records-v5.csv (V5, header unquoted as the
# CCADB writes it), DIR/pems-YYYY.csv for every year from FIRST_YEAR
# (default: this one) to this year and DIR/pems-decade-YYY0.csv for the
# decade of each.
ccadb_write() {
    local d=$1 first=${2:-$(date -u +%Y)} y c hdr=""
    mkdir -p "$d" "$CCADB_D"
    for c in "${CCADB_V4_COLUMNS[@]}"; do hdr+="${hdr:+,}$(_csvq "$c")"; done
    { printf '%s\r\n' "$hdr"; cat "$CCADB_D/records" 2>/dev/null; } >"$d/records.csv"
    hdr=$(IFS=,; echo "${CCADB_V5_COLUMNS[*]}")
    { printf '%s\r\n' "$hdr"; cat "$CCADB_D/records5" 2>/dev/null; } >"$d/records-v5.csv"
    for y in $(seq "$((first - first % 10))" "$(date -u +%Y)"); do
        [ $((y % 10)) = 0 ] && printf '"SHA-256 Fingerprint","X.509 Certificate (PEM)"\r\n' \
            >"$d/pems-decade-$y.csv"
        cat "$CCADB_D/pems-$y" 2>/dev/null >>"$d/pems-decade-$((y - y % 10)).csv"
    done
    for y in $(seq "$first" "$(date -u +%Y)"); do
        { printf '"SHA-256 Fingerprint","X.509 Certificate (PEM)"\r\n'
          cat "$CCADB_D/pems-$y" 2>/dev/null; } >"$d/pems-$y.csv"
    done
}

# ---------------------------------------------------------------- the CCADB directory against a reference
# (t_ccadb_real, t_ccadb_realcrl)
# ccadb_reference ANCHORS AT REPORT...: the independent chain search
# (test/ccadb_chains.py) at AT -> $W/ref (kept), $W/unjudged, REF, UNJ.
ccadb_reference() {
    local anchors=$1 at=$2; shift 2
    python3 "$TESTDIR/ccadb_chains.py" "$anchors" "$at" "$@" >"$W/ref.out" ||
        fail "the reference search failed"
    awk '$1 == "kept" { print $2 }' "$W/ref.out" | sort >"$W/ref"
    # What this python3-cryptography cannot read has no verdict: left out
    # of the comparison (OpenSSL reads them).
    awk '$1 == "unjudged" { print $2 }' "$W/ref.out" | sort >"$W/unjudged"
    REF=$(wc -l <"$W/ref")
    UNJ=$(wc -l <"$W/unjudged")
}
# dir_is_reference: the directory's certificates ($W/dir) are the
# reference's, the unjudged left out.
dir_is_reference() {
    grep '^cert ' "$STATE/work/directory" | awk '{print $2}' | sort |
        comm -23 - "$W/unjudged" >"$W/dir"
    if ! cmp -s "$W/ref" "$W/dir"; then
        comm -23 "$W/ref" "$W/dir" | head -20 | sed 's/^/missing from the directory: /'
        comm -13 "$W/ref" "$W/dir" | head -20 | sed 's/^/in the directory, not the reference: /'
        fail "the directory ($(wc -l <"$W/dir")) is not the reference ($REF)"
    fi
    case_ok "the directory is the reference: $REF entries"
}
# dir_union FP: the entry FP, given in two records, has both records'
# URLs (FP.crl and FP-second.crl): the lines after its cert line.
dir_union() {
    awk -v fp="$1" '$1 == "cert" { on = ($2 == fp) } on && $1 == "url" { print $3 }' \
        "$STATE/work/directory" >"$W/union.urls"
    assert_grep "/$1.crl\$" "$W/union.urls"
    assert_grep "/$1-second.crl\$" "$W/union.urls"
    case_ok "two records of one certificate: the union of their URLs"
}
# dir_refusals_said: status, --directory, --json and --prometheus name
# the refused certificates by reason, as many as they count.
dir_refusals_said() {
    local why n
    cc status >"$W/status" || true
    assert_grep "refused_no_chain=[0-9]+ refused_not_anchor=[0-9]+" "$W/status"
    cc status --directory >"$W/refused" || fail "status --directory failed"
    for why in no_chain not_anchor; do
        n=$(grep -c "^refused [0-9A-F]* $why " "$W/refused")
        assert_grep "refused_$why=$n( |\$)" "$W/status"
    done
    assert_grep '^refused [0-9A-F]{64} not_anchor ' "$W/refused"
    assert_grep '^refused [0-9A-F]{64} no_chain ' "$W/refused"
    cc status --json | python3 -c '
import json, sys
d = json.load(sys.stdin)["directory"]
assert d["entries"] == int(sys.argv[1]) + int(sys.argv[2]), d
assert d["refused"]["no_chain"] > 0 and d["refused"]["not_anchor"] > 0, d
' "$REF" "$(comm -12 "$W/unjudged" <(grep '^cert ' "$STATE/work/directory" | awk '{print $2}' | sort) | wc -l)" ||
        case_fail "status --json" "refused counts"
    cc status --prometheus "$W/p.prom" || true
    assert_grep '^crlcache_directory_refused\{reason="no_chain"\} [1-9]' "$W/p.prom"
    case_ok "status: refusals by reason, and the refused CAs listed"
}
