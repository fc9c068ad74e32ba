#!/usr/bin/env bash
# The state an earlier writer left (format.h SCOPE KINDS): it keyed a
# scope by IDP name and reasons only, so the issuer's CA-only CRL is held
# under the key of its complete CRL, its kind a flag of the record.  Made
# here from a state of this writer, the kind component taken off every
# "crl" and "crlhash" key (mdb_dump, mdb_load), then published.  Readers
# answer from that published index by the record's flags; the complete CRL,
# numbered below the CA-only one, is then taken (the earlier writer refused
# it as a rollback), the CA-only CRL moved to its own key keeps its number
# sequence (a lower one is still a rollback), and the index is then that of
# a state that took the same CRLs afresh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
command -v mdb_dump >/dev/null && command -v mdb_load >/dev/null ||
    skip "lmdb-utils (mdb_dump, mdb_load) not installed"
BASE_URL=http://127.0.0.1:9
pki_root root "/CN=Test Root/O=crlcache tests"
pki_ca int root "/CN=Test Legacy/O=crlcache tests"
pki_leaf eerev int "/CN=ee-rev.test"
pki_leaf eegood int "/CN=ee-good.test"
pki_ca carev int "/CN=CA Rev/O=crlcache tests"
pki_ca cagood int "/CN=CA Good/O=crlcache tests"
: >"$W/ca.txt"
pki_revoke int "$PKI/eerev.pem"
pki_revoke int "$PKI/carev/cert.pem"
pki_revoke int "$PKI/carev/cert.pem" db="$W/ca.txt"
CA_ONLY=$(printf 'issuingDistributionPoint = critical,@idp_ca\n[ idp_ca ]\nonlyCA = TRUE')
pki_gencrl int "$W/caonly.crl" db="$W/ca.txt" number=50 ext="$CA_ONLY"
pki_gencrl int "$W/ca40.crl" db="$W/ca.txt" number=40 ext="$CA_ONLY"
pki_gencrl int "$W/full.crl" number=10
pki_gencrl root "$W/root.crl"
CHAIN=$PKI/int/cert.pem
write_conf "# imports only"
# imp CRL...: import, from $W (the sources are the file names)
imp() {
    (cd "$W" && cc import --anchor "$PKI/root/cert.pem" --untrusted "$CHAIN" "$@") >"$W/imp.out" 2>&1
}
crls() { cc status 2>/dev/null | grep '^crl ' | sort; }

imp root.crl caonly.crl || fail "import: $(cat "$W/imp.out")"
# the earlier writer's keys: prefix || name [|| reasons suffix], no kind
mdb_dump -a "$STATE/work" >"$W/work.dump" || fail "mdb_dump"
python3 - "$W/work.dump" >"$W/legacy.dump" 2>"$W/rekeyed" <<'PY' || fail "rewriting the dump"
import sys
db, odd, n = None, False, 0
for line in open(sys.argv[1]):
    if line.startswith("db_pagesize="):
        continue  # mdb_load of lmdb-utils 0.9 does not know it
    if line.startswith("database="):
        db, odd = line.strip().split("=", 1)[1], False
    if line.startswith(" ") and db in ("crl", "crlhash"):
        odd = not odd
        if odd:  # a key: 8-byte prefix || scope name || 00 8x kind [|| 00 u16 reasons]
            k = bytes.fromhex(line.strip())
            s, tail = k[8:], b""
            if len(s) >= 3 and s[-3] == 0:
                s, tail = s[:-3], s[-3:]
            if len(s) >= 2 and s[-2] == 0 and s[-1] & 0x80:
                s, n = s[:-2], n + 1
            line = " " + (k[:8] + s + tail).hex() + "\n"
    sys.stdout.write(line)
sys.stderr.write("%d\n" % n)
PY
# the CA-only CRL's "crl" and "crlhash" keys; none from an earlier writer
case $(cat "$W/rekeyed") in 0|2) ;; *) fail "$(cat "$W/rekeyed") keys rewritten" ;; esac
rm -rf "$STATE/work.legacy" && mkdir -m 700 "$STATE/work.legacy" &&
    mdb_load -f "$W/legacy.dump" "$STATE/work.legacy" || fail "mdb_load"
rm -rf "$STATE/work" && mv "$STATE/work.legacy" "$STATE/work" || fail "replacing the working index"
cc publish >"$W/pub.out" 2>&1 || fail "publish: $(cat "$W/pub.out")"
crls | grep -q 'scope=all .*kind=full+CA-only' || fail "no CA-only CRL held: $(crls)"

# --- readers of the published index the earlier writer would have made
check_is_soft revoked 1 --chain "$CHAIN" "$PKI/carev/cert.pem" && case_ok "old index: CA revoked" ||
    case_fail old-index "CA not revoked"
check_is_soft good 0 --chain "$CHAIN" "$PKI/cagood/cert.pem" && case_ok "old index: CA good" ||
    case_fail old-index "CA not good"
check_is_soft unknown 2 --chain "$CHAIN" "$PKI/eegood.pem" && case_ok "old index: end-entity not covered" ||
    case_fail old-index "end-entity answered from the CA-only CRL"
px -- openssl verify -CAfile "$PKI/root/cert.pem" -untrusted "$CHAIN" "$PKI/carev/cert.pem" \
    >"$W/verify.out" 2>&1 && case_fail old-index "provider verifies the revoked CA" ||
    { grep -qi revoked "$W/verify.out" && case_ok "old index: provider refuses the revoked CA" ||
      case_fail old-index "provider: $(cat "$W/verify.out")"; }

# --- the complete CRL (10, below the CA-only CRL's 50) is taken
if imp full.crl && ! grep -qi rollback "$W/imp.out"; then case_ok "complete CRL taken"
else case_fail complete "$(cat "$W/imp.out")"; fi
[ "$(crls | wc -l)" = 3 ] && case_ok "both held" || case_fail both-held "$(crls)"
check_is_soft revoked 1 --chain "$CHAIN" "$PKI/eerev.pem" || case_fail answers "end-entity not revoked"
check_is_soft good 0 --chain "$CHAIN" "$PKI/eegood.pem" || case_fail answers "end-entity not good"
check_is_soft revoked 1 --chain "$CHAIN" "$PKI/carev/cert.pem" || case_fail answers "CA not revoked"
check_is_soft good 0 --chain "$CHAIN" "$PKI/cagood/cert.pem" || case_fail answers "CA not good"

# --- the CA-only scope, moved, keeps its sequence
imp caonly.crl && ! grep -qi rollback "$W/imp.out" && case_ok "CA-only CRL again: no rollback" ||
    case_fail ca-again "$(cat "$W/imp.out")"
if imp ca40.crl; then case_fail ca-rollback "CA-only CRL 40 after 50 taken"
else grep -qi rollback "$W/imp.out" && case_ok "CA-only CRL 40 after 50: rollback" ||
    case_fail ca-rollback "refused for another reason: $(cat "$W/imp.out")"; fi

# --- the same as a state that took the same CRLs afresh
crls >"$W/migrated.txt"
STATE=$W/state-fresh
imp root.crl caonly.crl full.crl || fail "fresh import: $(cat "$W/imp.out")"
crls >"$W/fresh.txt"
diff "$W/fresh.txt" "$W/migrated.txt" >"$W/diff.out" && case_ok "as if taken afresh" ||
    case_fail afresh "$(cat "$W/diff.out")"
finish
