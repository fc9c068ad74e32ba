#!/usr/bin/env bash
# The issuer directory over real CA certificates: those of test/data/realcrl
# (ca/ and cert/, 49 certificates of 14 public PKIs, each data set's licence
# in its SOURCES.md) laid out as the CCADB's PEM reports, one a notBefore
# year, with Debian 12's Mozilla roots (test/data/ccadb-real) as the
# anchors, read by `crlcache update` at 2021-03-01 (faketime), must keep
# exactly the certificates that an independent chain search keeps
# (test/ccadb_chains.py: every candidate issuer tried,
# python3-cryptography).  Among them, by name:
#   - a path through a cross-certificate: Portugal's ECCE 001, issued by
#     ECRaizEstado, which is here only as cross-signed by Baltimore
#     CyberTrust Root, an anchor;
#   - a PEM with a blank line after its BEGIN line (as Amazon's 2025 CAs
#     are in the CCADB's report): Let's Encrypt R3;
#   - one certificate in two records: the union of their CRL URLs;
# and status names the refused ones by reason (--directory, --json,
# --prometheus).  The records report has one row per certificate; its CRL
# URLs are on a closed loopback port, and the anchors' own distribution
# points are fetched through a mirror on that port: nothing leaves this
# machine.  (The CCADB's own 10,229 certificates, from an archive that
# grants no licence, are no longer in the tree.)
. "$(dirname "$0")/lib.sh"
need_crlcache
python3 -c 'import cryptography' 2>/dev/null || skip "python3-cryptography missing"
command -v faketime >/dev/null || skip "faketime not installed (test/deps.sh)"
D=$TESTDIR/data/ccadb-real
ANCHORS=$D/anchors-debian12.pem
AT="2021-03-01 00:00:00"
NOW=$(date -u -d "$AT" +%s)
mkdir -p "$W/r"
# The PEM reports: pems-YYYY.csv for every year from the first notBefore
# to AT's, a header line alone where no certificate begins.
python3 - "$W/r" "$(date -u -d "$AT" +%Y)" "$DATA"/realcrl/ca/*.pem "$DATA"/realcrl/cert/*.pem <<'PY' ||
import csv, hashlib, os, sys
from cryptography import x509
from cryptography.hazmat.primitives import serialization
out, last, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rows = {}
for f in files:
    c = x509.load_pem_x509_certificate(open(f, "rb").read())
    der = c.public_bytes(serialization.Encoding.DER)
    pem = c.public_bytes(serialization.Encoding.PEM).decode().strip()
    if os.path.basename(f) == "le-r3.pem":
        pem = pem.replace("-----\n", "-----\n\n", 1)
    fp = hashlib.sha256(der).hexdigest().upper()
    # cryptography 42 and later: _utc; Debian 12's 38 has only the naive one
    nb = getattr(c, "not_valid_before_utc", None) or c.not_valid_before
    rows.setdefault(nb.year, {})[fp] = pem
for y in range(min(rows), last + 1):
    with open(os.path.join(out, "pems-%d.csv" % y), "w", newline="") as o:
        w = csv.writer(o, quoting=csv.QUOTE_ALL, lineterminator="\n")
        w.writerow(["SHA-256 Fingerprint", "X.509 Certificate (PEM)"])
        for fp in sorted(rows.get(y, {})):
            w.writerow([fp, rows[y][fp]])
PY
    fail "cannot write the PEM reports"
REPORTS=("$W"/r/pems-*.csv)
SINCE=$(basename "${REPORTS[0]}" .csv); SINCE=${SINCE#pems-}
PORT=$(closed_port)

python3 "$TESTDIR/ccadb_chains.py" --records "${REPORTS[@]}" >"$W/records.csv" ||
    fail "cannot write the records report"
# ECCE 001 of Portugal, through the cross-certificate; Let's Encrypt R3,
# whose PEM has a blank line; a second record of R3 with another CRL URL.
ECCE=$(openssl x509 -in "$DATA/realcrl/cert/pt-ecce-001.pem" -outform DER | sha256sum | cut -c1-64 | tr a-f A-F)
R3=$(openssl x509 -in "$DATA/realcrl/ca/le-r3.pem" -outform DER | sha256sum | cut -c1-64 | tr a-f A-F)
grep -q ",$R3," "$W/records.csv" || fail "no record of $R3"
grep ",$R3," "$W/records.csv" | sed "s|/$R3.crl|/$R3-second.crl|" >>"$W/records.csv"

ccadb_reference "$ANCHORS" "$NOW" "${REPORTS[@]}"
note "reference: $REF of the certificates chain to an anchor at $AT; $UNJ unjudged"
[ "$UNJ" -le 2 ] || fail "the reference cannot read $UNJ certificates"
[ "$REF" -ge 3 ] || fail "the reference keeps only $REF"

write_conf "anchor = $ANCHORS" "allow_private_urls = yes" \
    "ccadb_records = $W/records.csv" "ccadb_pems = $W/r/pems-{year}.csv" \
    "ccadb_since = $SINCE" "mirror = http://127.0.0.1:$PORT/"
NO_FAKE_STAT=1 DONT_FAKE_MONOTONIC=1 faketime "$AT" "$CRLCACHE" --state-dir "$STATE" -c "$CONF" \
    update >"$W/update.out" 2>"$W/update.err"
assert_not_grep -i 'resolve' "$W/update.err"
assert_grep "directory: $(( ${#REPORTS[@]} + 1 )) reports" "$W/update.err"
dir_is_reference

in_dir() { grep -qx "$1" "$W/dir" || case_fail "$2" "$1 not in the directory"; }
in_dir "$ECCE" "a path through a cross-certificate: ECCE 001"
in_dir "$R3" "a PEM with a blank line: Let's Encrypt R3"
dir_union "$R3"

dir_refusals_said
finish
