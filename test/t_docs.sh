#!/usr/bin/env bash
# The documents lead somewhere and the module map is whole:
#  - every relative link of README.md and docs/*.md names a file that
#    exists and, with an anchor (#...), a heading of the Markdown file it
#    points into, spelled as GitHub spells heading anchors (lower case,
#    punctuation but '-' and '_' dropped, spaces as '-', a repeated
#    heading suffixed -1, -2 ...): README.md sends readers into docs/ for
#    most topics, so a link that no longer resolves is a topic lost;
#  - docs/hacking.md's module map names every source file in its section
#    (fetcher/*.c in "The fetcher, module by module", lib/*.c in "lib/",
#    provider/*.c in "The provider") as `FILE.c`: a file added, split or
#    renamed without its row leaves a room the map does not show.
# Offline, no crlcache binary.
. "$(dirname "$0")/lib.sh"
TOP=$TESTDIR/..

python3 - "$TOP" >"$W/out" <<'PY'
import glob, os, re, sys

top = sys.argv[1]

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

links = 0
for doc in [os.path.join(top, "README.md")] + sorted(glob.glob(os.path.join(top, "docs/*.md"))):
    for n, line in prose(doc):
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z]+:", target):
                continue    # http:, https:, mailto: leave the tree
            links += 1
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
            where = f"{os.path.relpath(doc, top)}:{n}: {target}"
            if not os.path.exists(dest):
                print(f"bad link {where}: no such file")
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                print(f"bad link {where}: no such heading")

sections = {}
for part in re.split(r"^## ", open(os.path.join(top, "docs/hacking.md")).read(), flags=re.M)[1:]:
    title, _, body = part.partition("\n")
    sections[title.strip()] = body
files = 0
for tree, title in (("fetcher", "The fetcher, module by module"), ("lib", "lib/"),
                    ("provider", "The provider")):
    body = sections.get(title, "")
    for path in sorted(glob.glob(os.path.join(top, tree, "*.c"))):
        files += 1
        if f"`{os.path.basename(path)}`" not in body:
            print(f"bad map: {tree}/{os.path.basename(path)} not in hacking.md '## {title}'")
print(f"links {links} files {files}")
PY
rc=$?
cat "$W/out"
[ "$rc" -eq 0 ] || fail "the checker failed (exit $rc)"
read -r _ links _ files < <(grep '^links ' "$W/out")
[ "${links:-0}" -ge 20 ] && [ "${files:-0}" -ge 100 ] && case_ok "read $links links, $files source files" ||
    case_fail found "only ${links:-0} links, ${files:-0} files: the checker reads nothing"
grep -q '^bad link' "$W/out" && case_fail links "$(grep -c '^bad link' "$W/out") broken" || case_ok "every relative link resolves"
grep -q '^bad map' "$W/out" && case_fail map "$(grep -c '^bad map' "$W/out") not in the map" || case_ok "every source file in the module map"
finish
