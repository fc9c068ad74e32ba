#!/usr/bin/env bash
# Older formats (format.h VERSIONS).  A state written in format 1 (made here
# by rewriting the format 2 working index with test/format1.py, and a
# published LMDB file of format 1): readers refuse the published file with a
# notice that says to run `crlcache update` -- `check` with an error, the
# provider passing through with one notice; `update` migrates the working
# index without losing a CRL (its records move to the key of the configured
# CA that verifies them) and publishes format 3, which answers again.  A
# published format 2 file (nothing to migrate) is replaced by the next
# update even when no CRL changed.  A working environment of work format 2
# (no "crlhash") is migrated to 4 by the next writer, with the same content
# ids as ingest gives; one of work format 3 ("rev" keyed by serial, a
# record per scope in its value) has its "rev" written anew by scope.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"
command -v mdb_dump >/dev/null && command -v mdb_load >/dev/null ||
    skip "lmdb-utils (mdb_dump, mdb_load) not installed"
BASE_URL=http://127.0.0.1:9
P1=$BASE_URL/p1.crl
pki_root root "/CN=Test Root"
pki_ca int root "/CN=Migrate Int"
pki_leaf rev1 int "/CN=rev1.test" cdp="$BASE_URL/int.crl"
pki_leaf good1 int "/CN=good1.test" cdp="$BASE_URL/int.crl"
pki_leaf p1rev int "/CN=p1rev.test" cdp="$P1"
pki_revoke int "$PKI/rev1.pem"
pki_revoke int "$PKI/p1rev.pem"
: >"$W/p1.txt"
pki_revoke int "$PKI/p1rev.pem" db="$W/p1.txt"
pki_gencrl int "$W/int.crl" number=05
pki_gencrl int "$W/p1.crl" db="$W/p1.txt" idp="$P1" number=07
pki_gencrl root "$W/root.crl"
write_conf "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem"
cc import "$W/root.crl" "$W/int.crl" "$W/p1.crl" >"$W/o" 2>"$W/e" || { cat "$W/e" >&2; fail "import"; }

# Rewrite the working index in format 1; publish an LMDB file of format 1
# (the working databases but "source", as older versions published them).
mdb_dump -a "$STATE/work" | "$PY" "$TESTDIR/format1.py" >"$W/work1.dump" || fail "format1.py (work)"
rm -rf "$STATE/work"; mkdir -m 700 "$STATE/work"
mdb_load -f "$W/work1.dump" "$STATE/work" || fail "mdb_load (work)"
rm -f "$W/index1.mdb"
for db in meta canon alias rev crl; do
    mdb_dump -s "$db" "$STATE/work" | mdb_load -n -s "$db" "$W/index1.mdb" || fail "mdb_load ($db)"
done
install -m 644 "$W/index1.mdb" "$STATE/index.mdb"
mdb_dump -n -s meta -p "$STATE/index.mdb" | grep -A1 '^ format$' | tail -1 | grep -q '\\00\\00\\00\\01' \
    || fail "the published file is not format 1"

# Format 1 published: refused, with a notice to run update.
cc check "$PKI/rev1.pem" >"$W/check.out" 2>"$W/check.err"; rc=$?
[ "$rc" -ge 4 ] && case_ok v1-check-refused || { cat "$W/check.err" >&2; case_fail v1-check-refused "exit $rc"; }
grep -q 'crlcache update' "$W/check.err" && case_ok v1-check-notice \
    || { cat "$W/check.err" >&2; case_fail v1-check-notice "no notice to run update"; }
ROOT=$PKI/root/cert.pem
cp "$PKI/int/cert.pem" "$W/untrusted.pem"
cl_verify "$PKI/rev1.pem" --set on_unknown=deny
# passes through: the verification is OpenSSL's alone (rev1 is not revoked there)
[ "$CLIENT_RC" -eq 0 ] && case_ok v1-provider-passthrough \
    || { cat "$W/client.out" >&2; case_fail v1-provider-passthrough "verify of rev1 failed"; }
[ "$(grep -c 'crlcache update' "$W/client.out")" = 1 ] && case_ok v1-provider-notice \
    || { cat "$W/client.out" >&2; case_fail v1-provider-notice "not exactly one notice to run update"; }

# update migrates the working index and publishes format 3.
if cc update >"$W/o" 2>"$W/e"; then case_ok update
else cat "$W/e" >&2; case_fail update "update failed"; fi
grep -q 'migrated from format 1' "$W/e" && case_ok migrated || { cat "$W/e" >&2; case_fail migrated "no migration"; }
grep -q '3 moved to their signer' "$W/e" && case_ok adopted || { cat "$W/e" >&2; case_fail adopted "records not moved"; }
[ "$(head -c 8 "$STATE/index.mdb")" = CRLCTOP ] && case_ok published-v3 || case_fail published-v3 "published file not format 3"
migrated() {
    local c n w code
    for c in rev1:revoked:1 good1:good:0 p1rev:revoked:1; do
        IFS=: read -r n w code <<<"$c"
        check_is_soft "$w" "$code" "$PKI/$n.pem" && case_ok "$1-check-$n" || case_fail "$1-check-$n" "$n not $w"
        grep -q 'crlcache update' "$W/check.err" && case_fail "$1-notice-$n" "notice after the update"
    done
    cl_verify "$PKI/good1.pem" --set on_unknown=deny
    [ "$CLIENT_RC" -eq 0 ] && case_ok "$1-provider-good" || { cat "$W/client.out" >&2; case_fail "$1-provider-good" "good1"; }
    cl_verify "$PKI/rev1.pem" --set on_unknown=deny
    [ "$CLIENT_RC" -ne 0 ] && grep -q revoked "$W/client.out" && case_ok "$1-provider-revoked" \
        || { cat "$W/client.out" >&2; case_fail "$1-provider-revoked" "rev1"; }
}
migrated v3

# A published format 2 file (LMDB, the working databases): the next update
# publishes format 3 though no CRL changed.
g=$(generation)
rm -f "$W/index2.mdb"
for db in meta canon alias key rev crl; do
    mdb_dump -s "$db" "$STATE/work" | mdb_load -n -s "$db" "$W/index2.mdb" || fail "mdb_load ($db)"
done
install -m 644 "$W/index2.mdb" "$STATE/index.mdb"
cc check "$PKI/rev1.pem" >"$W/check.out" 2>"$W/check.err"
grep -q 'crlcache update' "$W/check.err" && case_ok v2-check-notice \
    || { cat "$W/check.err" >&2; case_fail v2-check-notice "no notice to run update"; }
if cc update >"$W/o" 2>"$W/e"; then case_ok update-v2
else cat "$W/e" >&2; case_fail update-v2 "update failed"; fi
[ "$(head -c 8 "$STATE/index.mdb")" = CRLCTOP ] && case_ok republished-v3 || case_fail republished-v3 "format 2 file kept"
[ "$(generation)" -gt "$g" ] && case_ok generation || case_fail generation "generation $(generation), was $g"
migrated v3-again
# the rollback state came along: CRL number 04 is older than the 05 held
pki_gencrl int "$W/int-old.crl" number=04
if cc import "$W/int-old.crl" >"$W/o" 2>"$W/e"; then case_fail rollback "an older CRL number was accepted"
elif grep -q rollback "$W/e"; then case_ok rollback
else cat "$W/e" >&2; case_fail rollback "refused, not as a rollback"; fi
# `crlcache publish` (the package's postinst after an upgrade) does the
# same from the working state alone, with no source reachable.
g=$(generation)
install -m 644 "$W/index2.mdb" "$STATE/index.mdb"
if cc publish >"$W/o" 2>"$W/e"; then case_ok publish-cmd
else cat "$W/e" >&2; case_fail publish-cmd "publish failed"; fi
[ "$(head -c 8 "$STATE/index.mdb")" = CRLCTOP ] && case_ok publish-v3 || case_fail publish-v3 "format 2 file kept"
[ "$(generation)" -gt "$g" ] && case_ok publish-generation || case_fail publish-generation "generation $(generation), was $g"
migrated v3-publish

# A working environment of work format 2 (no "crlhash"): the next writer
# stores every "crl" record's hash, records format 3 and publishes; the
# publish after that keeps every scope file (the ids are stable).
mdb_dump -a "$STATE/work" | "$PY" -c '
import sys
out, skip, meta, fmt = [], False, False, False
for line in sys.stdin.read().split("\n"):
    if line.startswith("VERSION="):
        skip = meta = False
    if line == "database=crlhash":
        skip = True
        while out and not out[-1].startswith("VERSION="):
            out.pop()
        out.pop()
    if line == "database=meta":
        meta = True
    if skip:
        continue
    if fmt:
        line, fmt = " 00000002", False
    fmt = meta and line == " " + b"format".hex()
    out.append(line)
sys.stdout.write("\n".join(out))' >"$W/work2.dump" || fail "work2 dump"
grep -q crlhash "$W/work2.dump" && fail "work2.dump holds crlhash"
rm -rf "$STATE/work"; mkdir -m 700 "$STATE/work"
mdb_load -f "$W/work2.dump" "$STATE/work" || fail "mdb_load (work 2)"
g=$(generation)
if cc -v -v publish >"$W/o" 2>"$W/e"; then case_ok publish-work2
else cat "$W/e" >&2; case_fail publish-work2 "publish failed"; fi
grep -q 'migrated from format 2 to 4' "$W/e" && case_ok work2-migrated \
    || { cat "$W/e" >&2; case_fail work2-migrated "no migration"; }
entries() { mdb_stat -s "$1" "$STATE/work" | sed -n 's/^ *Entries: //p'; }
[ "$(entries crlhash)" = "$(entries crl)" ] && [ "$(entries crl)" -gt 0 ] && case_ok work2-hashes \
    || case_fail work2-hashes "crlhash $(entries crlhash), crl $(entries crl)"
mdb_dump -s meta "$STATE/work" | grep -A1 "^ $(printf format | od -An -tx1 | tr -d ' \n')\$" | tail -1 |
    grep -q '^ 00000004$' && case_ok work2-format || case_fail work2-format "work format not 4"
[ "$(generation)" -gt "$g" ] && case_ok work2-generation || case_fail work2-generation "not published"
# the hashes the migration computed are those ingest stored: the same ids
# (a format 2 writer's ids, of another definition, would all be new)
grep -q 'scope files 0 written' "$W/e" && case_ok work2-same-ids \
    || { cat "$W/e" >&2; case_fail work2-same-ids "scope files rewritten"; }
migrated v3-work2
cc -v -v publish >"$W/o" 2>"$W/e" || { cat "$W/e" >&2; fail "publish after the migration"; }
grep -q 'scope files 0 written, 3 unchanged' "$W/e" && case_ok work3-ids-stable \
    || { cat "$W/e" >&2; case_fail work3-ids-stable "scope files rewritten"; }

# A working environment of work format 3: "rev" keyed by prefix || serial
# form, each value a 12-byte record (u16 scope number first) per scope
# that lists the serial -- written here from the format 4 one.  The next
# writer writes "rev" anew, a range per scope: the same records, the same
# scope files, the same answers.
revs_before=$(mdb_dump -s rev "$STATE/work" | sed '1,/^HEADER=END/d' | grep -c '^ ')
mdb_dump -a "$STATE/work" | "$PY" -c '
import sys
lines = sys.stdin.read().split("\n")
out, i, db, meta_fmt = [], 0, None, False
while i < len(lines):
    line = lines[i]
    if line.startswith("database="):
        db = line[len("database="):]
    if db == "rev" and line == "HEADER=END":
        out.append(line)
        i += 1
        recs = {}
        while lines[i] != "DATA=END":
            k, v = bytes.fromhex(lines[i][1:]), bytes.fromhex(lines[i + 1][1:])
            recs.setdefault(k[:8] + k[10:], []).append(k[8:10] + v)
            i += 2
        for k in sorted(recs):
            out += [" " + k.hex(), " " + b"".join(recs[k]).hex()]
        continue
    if meta_fmt:
        line = " 00000003"
    meta_fmt = db == "meta" and line == " " + b"format".hex()
    out.append(line)
    i += 1
sys.stdout.write("\n".join(out))' >"$W/work3.dump" || fail "work3 dump"
rm -rf "$STATE/work"; mkdir -m 700 "$STATE/work"
mdb_load -f "$W/work3.dump" "$STATE/work" || fail "mdb_load (work 3)"
[ "$(mdb_dump -s rev "$STATE/work" | sed '1,/^HEADER=END/d' | grep -c '^ ')" -lt "$revs_before" ] \
    || fail "work3.dump: no serial listed by two scopes"
if cc -v -v publish >"$W/o" 2>"$W/e"; then case_ok publish-work3
else cat "$W/e" >&2; case_fail publish-work3 "publish failed"; fi
grep -q 'migrated from format 3 to 4' "$W/e" && case_ok work3-migrated \
    || { cat "$W/e" >&2; case_fail work3-migrated "no migration"; }
[ "$(mdb_dump -s rev "$STATE/work" | sed '1,/^HEADER=END/d' | grep -c '^ ')" = "$revs_before" ] &&
    case_ok work3-rev-records || case_fail work3-rev-records "not the $((revs_before / 2)) records again"
grep -q 'scope files 0 written, 3 unchanged' "$W/e" && case_ok work3-same-ids \
    || { cat "$W/e" >&2; case_fail work3-same-ids "scope files rewritten"; }
migrated v3-work3
cc -v -v import "$W/int.crl" >"$W/o" 2>"$W/e" || { cat "$W/e" >&2; fail "import after the migration"; }
cc -v -v publish >"$W/o" 2>"$W/e" || { cat "$W/e" >&2; fail "publish after the migration"; }
grep -q 'scope files 0 written, 3 unchanged' "$W/e" && case_ok work4-ids-stable \
    || { cat "$W/e" >&2; case_fail work4-ids-stable "scope files rewritten"; }

# That rewrite killed half way: the "rev_rebuild" flag left in "meta" and
# half of "rev" written.  The next writer starts it over, whole.
mdb_dump -a "$STATE/work" | "$PY" -c '
import sys
lines = sys.stdin.read().split("\n")
out, i, db = [], 0, None
while i < len(lines):
    line = lines[i]
    if line.startswith("database="):
        db = line[len("database="):]
    if line == "DATA=END" and db == "meta":
        out += [" " + b"rev_rebuild".hex(), " 31"]
    if db == "rev" and line.startswith(" ") and lines[i + 1].startswith(" "):
        if (i // 2) % 2 == 0:
            out += [line, lines[i + 1]]
        i += 2
        continue
    out.append(line)
    i += 1
sys.stdout.write("\n".join(out))' >"$W/half.dump" || fail "half dump"
rm -rf "$STATE/work"; mkdir -m 700 "$STATE/work"
mdb_load -f "$W/half.dump" "$STATE/work" || fail "mdb_load (half)"
[ "$(mdb_dump -s rev "$STATE/work" | sed '1,/^HEADER=END/d' | grep -c '^ ')" -lt "$revs_before" ] ||
    fail "half.dump holds every record"
cc -v -v publish >"$W/o" 2>"$W/e" || { cat "$W/e" >&2; fail "publish after a killed rewrite"; }
[ "$(mdb_dump -s rev "$STATE/work" | sed '1,/^HEADER=END/d' | grep -c '^ ')" = "$revs_before" ] &&
    ! mdb_dump -s meta "$STATE/work" | grep -q "^ $(printf rev_rebuild | od -An -tx1 | tr -d ' \n')\$" &&
    case_ok rev-rebuild-resumed || case_fail rev-rebuild-resumed "rev not written whole again, or the flag left"
migrated v4-resumed
finish
