#!/usr/bin/env bash
# The fetcher's modules call one way (docs/hacking.md, "who may call
# whom"): no two files call into each other, directly or round a loop.
# A module is a .c and its header of the same name (a header of no .c,
# as store_int.h, is one too); an arrow is a call (nm: a symbol one
# object uses and another defines) or a local #include.  Any strongly
# connected set of more than one module fails, its arrows named.  A
# first case plants a loop in a copy of the graph, so that the checker
# is seen to find one.  Offline; reads the objects `make` left.
. "$(dirname "$0")/lib.sh"
TOP=$TESTDIR/..
ls "$TOP"/fetcher/*.o >/dev/null 2>&1 || skip "no fetcher objects: run make first"
command -v nm >/dev/null || skip "nm not installed"

cat >"$W/layers.py" <<'PY'
import collections, os, re, subprocess, sys

fdir, plant = sys.argv[1], len(sys.argv) > 2
mods = sorted({f[:-2] for f in os.listdir(fdir) if f.endswith(('.c', '.h'))} - {'fetcher'})
defs, uses = {}, collections.defaultdict(set)
for m in mods:
    o = os.path.join(fdir, m + '.o')
    if not os.path.exists(o):
        continue
    for line in subprocess.run(['nm', o], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'TDBR':
            defs[p[2]] = m
        elif len(p) == 2 and p[0] == 'U':
            uses[m].add(p[1])
edges = collections.defaultdict(dict)
for m in mods:
    for s in uses[m]:
        if defs.get(s, m) != m:
            edges[m].setdefault(defs[s], s)
    for ext in ('.c', '.h'):
        f = os.path.join(fdir, m + ext)
        if os.path.exists(f):
            for inc in re.findall(r'^#include "([a-z_0-9]+)\.h"', open(f).read(), re.M):
                if inc != m and inc in mods:
                    edges[m].setdefault(inc, '#include "%s.h"' % inc)
if plant:   # the self-check: a call back from the lowest module up
    a, b = 'state', 'update'
    edges[a][b] = 'planted'
    edges[b].setdefault(a, 'planted')
index, low, stack, on, sccs = {}, {}, [], set(), []
def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop()
            on.discard(w)
            c.append(w)
            if w == v:
                break
        sccs.append(sorted(c))
sys.setrecursionlimit(10000)
for v in mods:
    if v not in index:
        visit(v)
print('modules %d arrows %d' % (len(mods), sum(len(e) for e in edges.values())))
for c in (c for c in sccs if len(c) > 1):
    print('circle: ' + ' '.join(c))
    for m in c:
        for t, why in sorted(edges[m].items()):
            if t in c:
                print('  %s -> %s (%s)' % (m, t, why))
PY
python3 "$W/layers.py" "$TOP/fetcher" plant >"$W/planted" ||
    fail "the checker failed on the planted graph"
grep -q '^circle: .*state.*update' "$W/planted" && case_ok "a planted loop is found" ||
    case_fail planted "the checker did not find the loop planted: $(cat "$W/planted")"
python3 "$W/layers.py" "$TOP/fetcher" >"$W/out" || fail "the checker failed"
read -r _ n _ arrows < "$W/out"
[ "${n:-0}" -ge 60 ] && [ "${arrows:-0}" -ge 200 ] &&
    case_ok "read $n modules, $arrows arrows" ||
    case_fail read "only ${n:-0} modules, ${arrows:-0} arrows: the checker reads nothing"
if grep -q '^circle' "$W/out"; then
    case_fail circles "$(grep -c '^circle' "$W/out") circle(s):
$(grep -A1000 '^circle' "$W/out")"
else
    case_ok "no module calls or includes its way back to itself"
fi
finish
