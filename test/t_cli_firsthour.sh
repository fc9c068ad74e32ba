#!/usr/bin/env bash
# What a new administrator types in the first hour gets a straight answer:
# a typo of a command is named in one line (not buried in the usage), -V
# prints the version, `check` of a missing file says the file is missing,
# `status --json` before the first update is still JSON, `--prometheus -`
# writes to stdout, --help lists `status --directory`, and the tables of
# README and of docs/configuration.md (where README's went) have no row outside
# them.  Offline.
. "$(dirname "$0")/lib.sh"
offline_int_crl
write_conf "anchor = $PKI/root/cert.pem" "untrusted = $PKI/int/cert.pem"
mkdir -p "$STATE"

# The tables: every row follows the table's header or another row
python3 - "$TESTDIR/../README.md" "$TESTDIR/../docs/configuration.md" <<'PY' && case_ok "README tables whole" || case_fail readme "a table row outside its table"
import sys
for path in sys.argv[1:]:
    lines = open(path).read().split("\n")
    for n, line in enumerate(lines):
        header = n + 1 < len(lines) and lines[n + 1].startswith("| ---")
        if line.startswith("|") and not header and not lines[n - 1].startswith("|"):
            sys.exit(f"{path}:{n + 1}: a row outside a table: {line}")
PY

cc statsu >"$W/o" 2>"$W/e"; rc=$?
[ "$rc" = 4 ] && grep -q "unknown command 'statsu'" "$W/e" && [ "$(wc -l <"$W/e")" -le 2 ] &&
    case_ok "a typo is named, in one line" ||
    { head -5 "$W/e" >&2; case_fail typo "exit $rc, $(wc -l <"$W/e") lines, the word not named"; }
cc --bogus status >"$W/o" 2>"$W/e"; rc=$?
[ "$rc" = 4 ] && grep -q 'bogus' "$W/e" && [ "$(wc -l <"$W/e")" -le 2 ] &&
    case_ok "an unknown option: named, short" || { head -5 "$W/e" >&2; case_fail option "exit $rc"; }

"$CRLCACHE" -V >"$W/o" 2>"$W/e"; rc=$?
[ "$rc" = 0 ] && grep -qx "crlcache $(cat "$TESTDIR/../VERSION")" "$W/o" && case_ok "-V" ||
    case_fail "-V" "exit $rc: $(cat "$W/o" "$W/e")"

"$CRLCACHE" --help >"$W/help" 2>&1
grep -q 'status --directory' "$W/help" && case_ok "--help lists status --directory" ||
    case_fail help "no status --directory in --help"

cc status --json >"$W/s.json" 2>"$W/e"; rc=$?
[ "$rc" = 4 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "error" in d, d' "$W/s.json" 2>/dev/null &&
    case_ok "status --json before the first update: JSON, exit 4" ||
    { cat "$W/s.json" "$W/e" >&2; case_fail json "exit $rc, not JSON"; }

cc check "$W/missing.pem" >"$W/o" 2>"$W/e"; rc=$?
[ "$rc" = 4 ] && grep -q 'missing.pem: No such file or directory' "$W/e" && ! grep -q 'neither a file' "$W/e" &&
    case_ok "check of a missing file says so" || { cat "$W/e" >&2; case_fail missing "exit $rc"; }

assert_exit 0 cc import "$W/int.crl"
cc status --prometheus - >"$W/prom" 2>"$W/e"; rc=$?
[ "$rc" = 0 ] && grep -q '^crlcache_index_generation 1$' "$W/prom" && [ ! -e ./- ] && [ ! -e "$STATE/-" ] &&
    case_ok "--prometheus - writes to stdout" || { cat "$W/prom" "$W/e" >&2; case_fail prom "exit $rc"; }
finish
