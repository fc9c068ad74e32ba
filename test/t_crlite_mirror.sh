#!/usr/bin/env bash
# CRLite from an upki mirror (crlite_mirror =): its manifest.json lists a
# full filter and two deltas (test/clubcard_build.py's), served over HTTPS
# on loopback by test/httpd.py with a certificate of a test root that is
# the trust store (SSL_CERT_FILE).  update installs the three; a second
# update asks for the manifest conditionally and downloads nothing; the
# mirror's certificate not trusted, or a file whose SHA-256 is not the
# manifest's, leave the set in force and exit 1; so does a manifest whose
# files add up to more than 256 MiB, before any is downloaded; a full
# filter with the 91 deltas of Mozilla's 45 days is installed, 129 files
# are refused; an http:// mirror is refused by the configuration.
. "$(dirname "$0")/lib.sh"
need_crlcache

# the HTTPS server's PKI: a root, a certificate for 127.0.0.1
mkdir -p "$W/tls" "$W/mirror/crlite"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$W/tls/root.key" -out "$W/tls/root.pem" -subj "/CN=mirror test root" \
    -days 30 -addext basicConstraints=critical,CA:true 2>/dev/null || fail "root"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$W/tls/srv.key" -out "$W/tls/srv.csr" -subj "/CN=127.0.0.1" 2>/dev/null &&
openssl x509 -req -in "$W/tls/srv.csr" -CA "$W/tls/root.pem" -CAkey "$W/tls/root.key" \
    -CAcreateserial -days 20 -out "$W/tls/srv.pem" \
    -extfile <(printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n') \
    2>/dev/null || fail "server certificate"
python3 "$TESTDIR/httpd.py" --root "$W/mirror" --port-file "$W/tls.port" \
    --log "$W/tls.log" --tls-cert "$W/tls/srv.pem" --tls-key "$W/tls/srv.key" \
    2>"$W/tls.err" &
bg_register $!
for _ in $(seq 1 100); do [ -s "$W/tls.port" ] && break; sleep 0.05; done
[ -s "$W/tls.port" ] || { cat "$W/tls.err"; fail "httpd.py --tls did not start"; }
MIRROR=https://127.0.0.1:$(cat "$W/tls.port")/crlite

python3 "$TESTDIR/clubcard_build.py" suite "$W/cc" >/dev/null || fail "clubcard_build.py"
cp "$W/cc/full.v4" "$W/mirror/crlite/20260624-0-default.filter"
cp "$W/cc/delta.v4" "$W/mirror/crlite/20260624-1-default.delta"
cp "$W/cc/main.v4" "$W/mirror/crlite/20260625-0-default.delta"
# manifest [FILE=HASH]...: upki's manifest of the three, a hash replaced
manifest() {
    python3 - "$W/mirror/crlite" "$@" <<'EOF'
import hashlib, json, os, sys
d, over = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
names = ["20260624-0-default.filter", "20260624-1-default.delta",
         "20260625-0-default.delta"]
files = []
for n in names:
    body = open(os.path.join(d, n), "rb").read()
    files.append({"filename": n, "size": len(body),
                  "hash": over.get(n, hashlib.sha256(body).hexdigest())})
m = {"generated_at": 1782345600, "comment": "test mirror", "files": files}
open(os.path.join(d, "manifest.json.tmp"), "w").write(json.dumps(m))
os.replace(os.path.join(d, "manifest.json.tmp"), os.path.join(d, "manifest.json"))
EOF
}
manifest
write_conf "crlite_mirror = $MIRROR" "enroll = none"
tls_cc() { SSL_CERT_FILE=$W/tls/root.pem cc "$@"; }

assert_exit 0 tls_cc update
assert_grep 'crlite: 3 filters installed \(3 fetched' "$W/last.err"
assert_exit 0 cc status
assert_grep '^crlite source=mirror filters=3 .*in_use=yes' "$W/last.out"
for f in "$W"/mirror/crlite/*-default.*; do
    [ -f "$STATE/crlite/$(sha256sum "$f" | cut -d' ' -f1).filter" ] || fail "$(basename "$f") not installed"
done
case_ok "a full filter and two deltas from the mirror"

cp "$STATE/crlite/set" "$W/set.before"
n0=$(wc -l <"$W/tls.log")
assert_exit 0 tls_cc update
assert_grep 'crlite not modified' "$W/last.err"
only_request "$W/tls.log" "$n0" '^GET /crlite/manifest\.json 304'
case_ok "second update: the manifest asked conditionally, nothing downloaded"

# the system trust store does not know the mirror's root
touch "$W/mirror/crlite/manifest.json"
assert_exit 1 cc update
assert_grep 'crlite: .*manifest.json: .*certificate.*; the set in force is kept' "$W/last.err"
cmp -s "$STATE/crlite/set" "$W/set.before" || fail "set changed"
case_ok "an untrusted mirror certificate keeps the set"

cp "$W/cc/delta.v3" "$W/mirror/crlite/20260625-0-default.delta"
manifest 20260625-0-default.delta=$(printf '%064d' 7)
assert_exit 1 tls_cc update
assert_grep "file 20260625-0-default.delta: the attachment's SHA-256 is not the one the manifest says" "$W/last.err"
cmp -s "$STATE/crlite/set" "$W/set.before" || fail "set changed"
case_ok "a file not as the manifest says keeps the set"

cp "$W/cc/main.v3" "$W/mirror/crlite/20260625-0-default.delta"
manifest
assert_exit 0 tls_cc update
assert_grep 'crlite: 3 filters installed \(1 fetched' "$W/last.err"
# the set, its three filters and its lookup file
[ "$(ls "$STATE/crlite" | wc -l)" = 5 ] || { ls "$STATE/crlite"; fail "the replaced delta kept"; }
case_ok "a changed delta replaces the old one"

# no rollback: a last delta covering less recent certificates (to 1.1 s,
# the set in force to 2.5 s) is refused, the newer set kept
cp "$STATE/crlite/set" "$W/set.before"
cp "$W/cc/delta.v3" "$W/mirror/crlite/20260625-0-default.delta"
manifest
assert_exit 1 tls_cc update
assert_grep "crlite: the set's newest filter covers certificates up to 1970-01-01T00:00:01Z, the set in force up to 1970-01-01T00:00:02Z: refused" "$W/last.err"
cmp -s "$STATE/crlite/set" "$W/set.before" || fail "set changed"
case_ok "an older set refused (no rollback)"

# Mozilla's whole cycle: the full filter and the 91 deltas of its 45
# days (include/crlcache/crlite.h), the deltas as recent as the set in
# force (no rollback); 129 files are past the bound
cycle() {   # cycle N: a manifest of the full filter and N - 1 deltas
    python3 - "$TESTDIR" "$W/mirror/crlite" "$W/cc/main.v4" "$1" <<'EOF'
import hashlib, json, os, sys
sys.path.insert(0, sys.argv[1])
import crlite_pki
d, delta, n = sys.argv[2], sys.argv[3], int(sys.argv[4])
names = ["20260624-0-default.filter"]
for i in range(1, n):     # distinct deltas: padded by i words
    names.append("cycle-%03d-default.delta" % i)
    crlite_pki.pad(delta, os.path.join(d, names[-1]), os.path.getsize(delta) + 8 * i)
files = []
for name in names:
    body = open(os.path.join(d, name), "rb").read()
    files.append({"filename": name, "size": len(body),
                  "hash": hashlib.sha256(body).hexdigest()})
json.dump({"files": files}, open(os.path.join(d, "manifest.json"), "w"))
EOF
}
cycle 92
assert_exit 0 tls_cc update
assert_grep 'crlite: 92 filters installed \(91 fetched' "$W/last.err"
assert_exit 0 cc status
assert_grep '^crlite source=mirror filters=92 .*in_use=yes' "$W/last.out"
cycle 129
assert_exit 1 tls_cc update
assert_grep 'crlite: manifest: no list of 1 to 128 files; the set in force is kept' "$W/last.err"
case_ok "a full filter and 91 deltas (a 45-day cycle) installed; 129 files refused"

# a manifest of five files of 60 MiB: refused before any is downloaded
python3 -c 'import json,sys; json.dump({"files": [{"filename": "f%d.delta" % i,
    "size": 60 << 20, "hash": "%064x" % i} for i in range(5)]}, open(sys.argv[1], "w"))' \
    "$W/mirror/crlite/manifest.json"
n0=$(wc -l <"$W/tls.log")
assert_exit 1 tls_cc update
assert_grep 'crlite: a set of 314572800 bytes, more than 268435456; the set in force is kept' "$W/last.err"
only_request "$W/tls.log" "$n0" '^GET /crlite/manifest\.json 200'
case_ok "a set larger than 256 MiB refused unread"
# a manifest naming one filter twice (readers refuse such a set): refused unread
python3 -c 'import json,sys; json.dump({"files": [{"filename": "f%d.delta" % i,
    "size": 1000, "hash": "0" * 64} for i in range(2)]}, open(sys.argv[1], "w"))' \
    "$W/mirror/crlite/manifest.json"
n0=$(wc -l <"$W/tls.log")
assert_exit 1 tls_cc update
assert_grep 'crlite: file f1\.delta: the filter of file f0\.delta again; the set in force is kept' "$W/last.err"
only_request "$W/tls.log" "$n0" '^GET /crlite/manifest\.json 200'
case_ok "a set naming one filter twice refused unread"

write_conf "crlite_mirror = ${MIRROR/https:/http:}"
assert_exit 4 cc update
assert_grep 'crlite_mirror: expected an https:// URL' "$W/last.err"
case_ok "an http mirror refused"
finish
