#!/usr/bin/env bash
# The issuer directory over the whole real CCADB: the 33 PEM reports of
# crt.sh's archive (test/data/ccadb-real, 10,229 CA certificates) with
# Debian 12's Mozilla roots as the anchors, read by `crlcache update`, must
# keep exactly the certificates that an independent chain search keeps
# (test/ccadb_chains.py: every candidate issuer tried, python3-cryptography).
# Among them, by name, the real CAs that fell out before:
#   - cross-signed roots: Microsoft TLS G2 RSA CA OCSP 06 and GoDaddy TLS
#     Intermediate CA DV - R1v1, whose issuers exist both as self-signed roots
#     not trusted here and cross-signed by an anchor;
#   - Amazon's 2025 CAs, whose PEM has a blank line after the BEGIN line;
#   - one certificate in two records: the union of their CRL URLs;
# and status names the refused ones by reason (--directory, --json,
# --prometheus).  The records report has one row per certificate (the
# reports' own V5 records report is not in the archive); its CRL URLs are
# on a closed loopback port, and the anchors' own distribution points are
# fetched through a mirror on that port: nothing leaves this machine.
. "$(dirname "$0")/lib.sh"
need_crlcache
python3 -c 'import cryptography' 2>/dev/null || skip "python3-cryptography missing"
D=$TESTDIR/data/ccadb-real
ANCHORS=$D/anchors-debian12.pem
# The release tarball leaves the archive out (its SOURCES says why).
[ -f "$D/pems.tar.xz" ] || skip "no $D/pems.tar.xz (a release tarball: see its SOURCES)"
mkdir -p "$W/r"
tar -xJf "$D/pems.tar.xz" -C "$W/r" || fail "cannot unpack $D/pems.tar.xz"
REPORTS=("$W"/r/pems-*.csv)
[ "${#REPORTS[@]}" -eq 33 ] || fail "expected 33 PEM reports, got ${#REPORTS[@]}"
PORT=$(closed_port)

python3 "$TESTDIR/ccadb_chains.py" --records "${REPORTS[@]}" >"$W/records.csv" ||
    fail "cannot write the records report"
# A second record of Microsoft's OCSP 06 CA, with another CRL URL.
MS=016CB2A68F7B7D96311306DB9648FA798C2C40BE1574AD12891549C99F41082E
grep -q ",$MS," "$W/records.csv" || fail "no record of $MS"
grep ",$MS," "$W/records.csv" | sed "s|/$MS.crl|/$MS-second.crl|" >>"$W/records.csv"

NOW=$(now_epoch)
ccadb_reference "$ANCHORS" "$NOW" "${REPORTS[@]}"
note "reference: $REF of the CCADB's certificates chain to an anchor; $UNJ unjudged"
[ "$UNJ" -le 20 ] || fail "the reference cannot read $UNJ certificates"
# The set shrinks as the archive's certificates expire: far below today's
# 4,100 (December 2026) means the data no longer shows coverage and must be taken anew.
[ "$REF" -ge 1000 ] || fail "the reference keeps only $REF: refresh test/data/ccadb-real"

write_conf "anchor = $ANCHORS" "allow_private_urls = yes" \
    "ccadb_records = $W/records.csv" "ccadb_pems = $W/r/pems-{year}.csv" \
    "ccadb_since = 1994" "mirror = http://127.0.0.1:$PORT/"
cc update >"$W/update.out" 2>"$W/update.err"
assert_not_grep -i 'resolve' "$W/update.err"
assert_grep 'directory: 34 reports' "$W/update.err"
dir_is_reference

in_dir() { grep -qx "$1" "$W/dir" || case_fail "$2" "$1 not in the directory"; }
in_dir "$MS" "cross-signed root: Microsoft TLS G2 RSA CA OCSP 06"
in_dir 7A43BC7747D0633FBD90FF900C9242417C027DBDCA05AF72DA9A70E3518DBE2E \
    "cross-signed root: GoDaddy TLS Intermediate CA DV - R1v1"
for fp in 2CE3BE72BBF56EDB17095B603ED4D8280B081B38204341546802C1427BB2435F \
    46D1B2F46F959410BD0201702CB33077A9C34F5CB23F976CDD8D328989B04B27 \
    9A471687404FB5C3AAA5B218047A3255A41997C85B6AA8009F4C3DBEFE7A9299; do
    in_dir "$fp" "Amazon PEM with a blank line"
done
dir_union "$MS"

dir_refusals_said
finish
