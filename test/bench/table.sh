#!/bin/bash
# `make bench`'s summary: the rows the benchmarks appended to ROWS (one
# per line: ROW <tab> what <tab> without <tab> with <tab> ratio [<tab> unit])
# as a markdown table on stdout and as JSON in JSON.
#
#   test/bench/table.sh ROWS JSON
#
# A benchmark adds rows by piping its program's output through bench_rows
# (common.sh) with BENCH_ROWS set; the "without" and "with" columns are
# the same measurement without and with crlcache (or, for a row whose
# baseline is another program, that program), the unit defaults to us.
set -eu
rows=$1 json=$2
echo "| what | without | with crlcache | ratio |"
echo "|---|---:|---:|---:|"
awk -F'\t' '$1 == "ROW" { u = ($6 == "" ? "us" : $6);
    printf "| %s | %s %s | %s %s | %s |\n", $2, $3, u, $4, u, $5 }' "$rows"
awk -F'\t' 'BEGIN { printf "[" }
    $1 == "ROW" { gsub(/["\\]/, "", $2); u = ($6 == "" ? "us" : $6);
        printf "%s\n  {\"what\": \"%s\", \"without\": %s, \"with\": %s, \"ratio\": %s, \"unit\": \"%s\"}",
            (n++ ? "," : ""), $2, $3, $4, $5, u }
    END { print "\n]" }' "$rows" >"$json"
