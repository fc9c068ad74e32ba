#!/bin/bash
# `make bench`'s summary: the rows the benchmarks appended to ROWS (one
# per line: ROW <tab> what <tab> without <tab> with <tab> ratio <tab> unit
# <tab> target, see bench_rows in common.sh) as a markdown table on
# stdout and as JSON in JSON.
#
#   test/bench/table.sh ROWS JSON
#
# The "without" and "with" columns are the same measurement without and
# with crlcache (or, for a row whose baseline is another program or a
# size, that baseline); a figure without a baseline has "-" there and as
# its ratio (JSON null).  The target is what the row must meet
# (docs/performance.md), "-" where none is set.
#
# Above the table: what produced it (command, date, commit, OpenSSL
# version, cores), so that a table pasted into docs/performance.md says
# where it came from.  Rows counted in instructions come first: they do not
# move with the machine's load, the timed rows do.
set -eu
rows=$1 json=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "not a git tree")
[ -z "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ] ||
    commit="$commit with uncommitted changes"
echo "- command: make bench"
echo "- date: $(date -u +%Y-%m-%d)"
echo "- commit: $commit"
echo "- OpenSSL: $(openssl version 2>/dev/null | awk '{ print $2 }')"
echo "- cores: $(nproc)"
echo
echo "| what | without | with crlcache | ratio | target |"
echo "|---|---:|---:|---:|---|"
for pass in instructions timed; do
    awk -F'\t' -v pass="$pass" '$1 == "ROW" {
        instr = ($2 ~ /\(instructions\)$/)
        if ((pass == "instructions") != instr)
            next
        u = ($6 == "" ? "us" : $6)
        a = ($3 == "-" ? "-" : $3 " " u); b = ($4 == "-" ? "-" : $4 " " u)
        printf "| %s | %s | %s | %s | %s |\n", $2, a, b, $5, ($7 == "" ? "-" : $7) }' "$rows"
done
awk -F'\t' 'function num(v) { return v ~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/ ? v : "null" }
    function str(v) { gsub(/["\\]/, "", v); return "\"" v "\"" }
    BEGIN { printf "[" }
    $1 == "ROW" {
        printf "%s\n  {\"what\": %s, \"without\": %s, \"with\": %s, \"ratio\": %s, \"unit\": %s, \"target\": %s}",
            (n++ ? "," : ""), str($2), num($3), num($4), num($5), str($6 == "" ? "us" : $6),
            str($7 == "" ? "-" : $7) }
    END { print "\n]" }' "$rows" >"$json"
