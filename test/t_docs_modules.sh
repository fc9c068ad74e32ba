#!/usr/bin/env bash
# docs/hacking.md's module map names every source file where it lives: each
# fetcher/*.c in "The fetcher, module by module", each lib/*.c in "lib/",
# each provider/*.c in "The provider", as `FILE.c`.  A file added, split
# or renamed without its row leaves a newcomer a room the map does not
# show.  Offline, no crlcache binary.
. "$(dirname "$0")/lib.sh"
TOP=$TESTDIR/..

python3 - "$TOP" >"$W/out" <<'PY'
import glob, os, re, sys

top = sys.argv[1]
text = open(os.path.join(top, "docs/hacking.md"), encoding="utf-8").read()
sections = {}
for part in re.split(r"^## ", text, flags=re.M)[1:]:
    title, _, body = part.partition("\n")
    sections[title.strip()] = body
where = {"fetcher": "The fetcher, module by module", "lib": "lib/",
         "provider": "The provider"}
files = 0
for tree, title in where.items():
    body = sections.get(title)
    if body is None:
        print(f"missing section '## {title}'")
        continue
    for path in sorted(glob.glob(os.path.join(top, tree, "*.c"))):
        files += 1
        name = os.path.basename(path)
        if f"`{name}`" not in body:
            print(f"missing {tree}/{name} in '## {title}'")
print(f"files {files}")
PY
rc=$?
cat "$W/out"
[ "$rc" -eq 0 ] || fail "the map checker failed (exit $rc)"
n=$(sed -n 's/^files //p' "$W/out")
[ "${n:-0}" -ge 100 ] && case_ok "source files found ($n)" || case_fail found "only ${n:-0} source files: the checker reads nothing"
grep -q '^missing' "$W/out" && case_fail map "$(grep -c '^missing' "$W/out") not in the map" || case_ok "every source file in the module map"
finish
