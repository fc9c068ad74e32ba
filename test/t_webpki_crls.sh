#!/usr/bin/env bash
# rustls-webpki's CRL test vectors (test/data/webpki-crls/, SOURCES.md),
# each through crlcache and through OpenSSL, judged against OpenSSL.  The
# vectors' issuers' keys are not published, so each TBSCertList is kept
# byte for byte and signed again by a root made for it, with its issuer
# Name and key identifier (test/crl_reissue.py), and a certificate of
# that root is checked at an instant the CRL is current: its serial the
# CRL's first revoked one, its distribution point the CRL's IDP URI.
#   crlcache: `import --anchor ROOT --at T` (refused: no answer), then
#             `check --at T` (revoked, good, unknown: no answer);
#   OpenSSL:  `openssl verify -crl_check -extended_crl -attime T` (its
#             RFC 5280 mode: indirect and delta CRLs; OK: good, error 23:
#             revoked, any other error: no answer).
# Where the two differ, DIFFERENCES says why crlcache is right (RFC 5280,
# docs/crl-quirks.md); a difference it does not list fails, and so does
# a listed one that no longer occurs.  webpki's own verdict on each
# vector is in SOURCES.md.
. "$(dirname "$0")/lib.sh"
need_crlcache
DATA=$TESTDIR/data/webpki-crls
answer() {	# answer CRLCACHE_OR_OPENSSL_OUTPUT -> revoked | good | none
    case $1 in revoked*|*"certificate revoked"*) echo revoked ;; good*|*": OK") echo good ;; *) echo none ;; esac
}
n=0 differ=0
: >"$W/seen"
for crl in "$DATA"/*.der; do
    name=$(basename "$crl" .der)
    d=$W/v/$name
    mkdir -p "$d"
    read -r when serial < <(python3 "$TESTDIR/crl_reissue.py" "$crl" "$d") ||
        fail "$name: cannot sign it again"
    [ "$when" != 0 ] || when=$(now_epoch)	# no time to read: any will do
    at=$(date -u -d "@$when" +%Y-%m-%dT%H:%M:%SZ)
    rm -rf "$STATE"; mkdir -p "$STATE"
    write_conf "# $name"
    if cc import --anchor "$d/root.pem" --at "$at" "$d/crl.der" >"$d/import.out" 2>&1; then
        cc check --at "$at" "$d/leaf.pem" >"$d/check.out" 2>&1
        ours=$(answer "$(head -1 "$d/check.out")")
        why=$(head -1 "$d/check.out" | cut -c1-100)
    else
        ours=none
        why="refused: $(grep -v '^crlcache: published' "$d/import.out" | tail -1 | sed 's/^crlcache: [^:]*: //' | cut -c1-100)"
    fi
    if openssl crl -inform DER -in "$d/crl.der" -out "$d/crl.pem" 2>"$d/openssl.err"; then
        openssl verify -attime "$when" -crl_check -extended_crl -CAfile "$d/root.pem" -CRLfile "$d/crl.pem" \
            "$d/leaf.pem" >"$d/verify.out" 2>&1
        ref=$(answer "$(grep -m1 -E 'error [0-9]+ at|: OK$' "$d/verify.out")")
        rwhy=$(grep -m1 -E 'error [0-9]+ at|: OK$' "$d/verify.out" | sed 's/^.*lookup: //; s/^.*: OK$/OK/')
    else
        ref=none rwhy="not read: $(head -1 "$d/openssl.err" | cut -c1-60)"
    fi
    # What crlcache tolerates it says, with the rule broken.
    case $name in
        crl.entry.invalid.reason) quirk='tolerated: a reasonCode no CRLReason defines (RFC 5280 5.3.1)' ;;
        crl.negative.crl.number|crl.too.long.crl.number) quirk='tolerated: a cRLNumber negative or longer than 20 octets' ;;
        crl.entry.empty.ext.seq) quirk='tolerated: a revoked entry with an empty crlEntryExtensions SEQUENCE' ;;
        *) quirk= ;;
    esac
    [ -z "$quirk" ] || grep -qF "$quirk" "$d/import.out" || case_fail "$name" "import did not say: $quirk"
    n=$((n + 1))
    printf '%-36s crlcache %-7s openssl %-7s  (%s | %s)\n' "$name" "$ours" "$ref" "$why" "$rwhy"
    if [ "$ours" != "$ref" ]; then
        differ=$((differ + 1))
        # OpenSSL's answer may be "a|b": it changed between releases.
        listed=$(awk -v n="$name" -v o="$ours" -v r="$ref" \
            '$1 == n && $2 == o && index("|" $3 "|", "|" r "|")' "$DATA/DIFFERENCES")
        [ -n "$listed" ] || case_fail "$name" "crlcache $ours, OpenSSL $ref: a difference DIFFERENCES does not explain"
        echo "$name" >>"$W/seen"
    fi
done
# Every explained difference still occurs: the list says what is true
# (where OpenSSL's releases differ, one of them may agree).
while read -r name ours ref _; do
    case $name in ''|'#'*) continue ;; esac
    case "|$ref|" in *"|$ours|"*) continue ;; esac
    grep -qx "$name" "$W/seen" || case_fail "$name" "listed in DIFFERENCES, but crlcache and OpenSSL now agree"
done <"$DATA/DIFFERENCES"
[ "$n" -ge 31 ] || fail "only $n vectors"
note "$n vectors: crlcache and OpenSSL agree on $((n - differ)), differ on $differ, each explained"
finish
