#!/usr/bin/env bash
# Every relative link of README.md and docs/*.md leads somewhere: the
# file exists, and an anchor (#...) names a heading of the Markdown file
# it points into, spelled as GitHub spells heading anchors (lower case,
# punctuation but '-' and '_' dropped, spaces as '-', a repeated heading
# suffixed -1, -2 ...).  README.md sends readers into docs/ for most
# topics, so a link that moved with its text and no longer resolves is a
# topic lost.  Offline, no crlcache binary.
. "$(dirname "$0")/lib.sh"
TOP=$TESTDIR/..

python3 - "$TOP"/README.md "$TOP"/docs/*.md >"$W/out" <<'PY'
import os, re, sys

def slug(heading):
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")

def prose(path):
    """(line number, line) outside fenced code blocks."""
    fence = False
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.startswith("```"):
            fence = not fence
        elif not fence:
            yield n, line

def anchors(path):
    out, seen = set(), {}
    for _, line in prose(path):
        m = re.match(r"#{1,6} (.*)", line)
        if m:
            s = slug(m.group(1))
            k = seen.get(s, 0)
            seen[s] = k + 1
            out.add(s if k == 0 else f"{s}-{k}")
    return out

links = bad = 0
for doc in sys.argv[1:]:
    for n, line in prose(doc):
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z]+:", target):
                continue    # http:, https:, mailto: leave the tree
            links += 1
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
            where = f"{os.path.relpath(doc, sys.argv[1] + '/..')}:{n}: {target}"
            if not os.path.exists(dest):
                print(f"broken {where}: no such file"); bad += 1
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                print(f"broken {where}: no such heading"); bad += 1
print(f"links {links}")
PY
rc=$?
cat "$W/out"
[ "$rc" -eq 0 ] || fail "the link checker failed (exit $rc)"
n=$(sed -n 's/^links //p' "$W/out")
[ "${n:-0}" -ge 20 ] && case_ok "relative links found ($n)" || case_fail found "only ${n:-0} relative links: the checker reads nothing"
grep -q '^broken' "$W/out" && case_fail links "$(grep -c '^broken' "$W/out") broken" || case_ok "every relative link resolves"
finish
