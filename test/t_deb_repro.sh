#!/usr/bin/env bash
# The Debian package is reproducible: built twice (dpkg-buildpackage -b,
# the -dbgsym package too, whose DWARF would name the build path) from two
# copies of the tree, with SOURCE_DATE_EPOCH fixed at the last commit's
# time, its .deb files are byte for byte the same, though the second build
# differs from the first in what reprotest varies that this host can:
#   build path   .../a/src            .../b/a/much/longer/build/path/src
#   umask        022                  002
#   locale       C.UTF-8              fr_FR.UTF-8 (localedef into the test
#                                     directory: LOCPATH, the host unchanged)
#   time zone    UTC                  New Zealand's, as a POSIX TZ rule
#   clock        now                  400 days on (faketime)
#   host name    the host's           another (unshare --uts)
#   HOME, jobs   one, parallel=nproc  another, parallel=1
#   source times as copied            a day before the last commit
# On a difference: diffoscope's report where it is installed (test/deps.sh
# installs diffoscope-minimal), else the two dpkg-deb -c listings and which
# ar members differ.  Root only (unshare --uts).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "changes the host name in a namespace: run as root"
command -v dpkg-buildpackage >/dev/null || skip "dpkg-buildpackage not installed (test/deps.sh installs it)"
for t in faketime localedef unshare; do
    command -v "$t" >/dev/null || fail "$t not installed (test/deps.sh installs it)"
done
[ -f /usr/share/i18n/locales/fr_FR ] || fail "no fr_FR locale source (package locales; test/deps.sh)"

A=$W/a/src
B=$W/b/a/much/longer/build/path/src
tree_copy "$A" || fail "copying the tree"
tree_copy "$B" || fail "copying the tree"
TOP=$(cd "$TESTDIR/.." && pwd)
SDE=$(git -C "$TOP" log -1 --format=%ct 2>/dev/null) ||
    SDE=$(dpkg-parsechangelog -l "$A/debian/changelog" -STimestamp) || fail "no SOURCE_DATE_EPOCH"
note "SOURCE_DATE_EPOCH=$SDE"
find "$B" -exec touch --no-dereference --date=@$((SDE - 86400)) {} + || fail "touching the second copy"
mkdir -p "$W/locale"
localedef -i fr_FR -f UTF-8 "$W/locale/fr_FR.UTF-8" 2>"$W/localedef.err" ||
    { cat "$W/localedef.err" >&2; fail "localedef fr_FR.UTF-8"; }
mkdir -p "$W/a/home" "$W/b/home"
LOCPATH=$W/locale LC_ALL=fr_FR.UTF-8 date +%A | grep -Eq '^(lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)$' ||
    fail "the fr_FR.UTF-8 locale made by localedef is not used"

# build DIR LOG CMD...: CMD in DIR, its output in LOG.
build() {
    local dir=$1 log=$2; shift 2
    (cd "$dir" && exec "$@") >"$log" 2>&1 || { tail -30 "$log" >&2; return 1; }
}
ENV=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin SOURCE_DATE_EPOCH="$SDE")
BP=(dpkg-buildpackage -us -uc -b)
start=$(date +%s)
(umask 022; build "$A" "$W/a/build.log" "${ENV[@]}" HOME="$W/a/home" LANG=C.UTF-8 LC_ALL=C.UTF-8 \
    TZ=UTC0 DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" "${BP[@]}") || fail "the first build"
mid=$(date +%s)
# The host name in a UTS namespace of its own; faketime inside env -i,
# which would drop its LD_PRELOAD.
(umask 002; build "$B" "$W/b/build.log" \
    unshare --uts sh -c 'hostname crlcache-repro-second && exec "$@"' sh \
    "${ENV[@]}" HOME="$W/b/home" LANG=fr_FR.UTF-8 LC_ALL=fr_FR.UTF-8 LOCPATH="$W/locale" \
    TZ='NZST-12NZDT,M9.5.0,M4.1.0/3' DEB_BUILD_OPTIONS="nocheck parallel=1" \
    faketime -f +400d "${BP[@]}") || fail "the second build"
note "builds: $((mid - start)) s and $(( $(date +%s) - mid )) s"
# The variations took: the second .buildinfo's Build-Date is a year on, in
# New Zealand's zone, and its environment names the other locale.
BI1=$(echo "$W"/a/crlcache_*.buildinfo) BI2=$(echo "$W"/b/a/much/longer/build/path/crlcache_*.buildinfo)
y1=$(sed -n 's/^Build-Date: [A-Za-z]*, [0-9]* [A-Za-z]* \([0-9]*\) .*/\1/p' "$BI1")
y2=$(sed -n 's/^Build-Date: [A-Za-z]*, [0-9]* [A-Za-z]* \([0-9]*\) .*/\1/p' "$BI2")
[ -n "$y1" ] && [ -n "$y2" ] && [ "$y2" -gt "$y1" ] ||
    fail "the second build ran at no later year: $(grep -h ^Build-Date "$BI1" "$BI2")"
grep -Eq '^Build-Date: .* \+1[23]00$' "$BI2" || fail "the second build's zone: $(grep ^Build-Date "$BI2")"
grep -q '^ LC_ALL="fr_FR.UTF-8"$' "$BI2" || fail "the second build's locale is not in its .buildinfo"

(cd "$W/a" && ls -- *.deb) >"$W/a.list" 2>/dev/null
(cd "$W/b/a/much/longer/build/path" && ls -- *.deb) >"$W/b.list" 2>/dev/null
for p in crlcache crlcache-dbgsym; do
    grep -q "^${p}_.*\.deb$" "$W/a.list" || fail "the first build made no $p .deb: $(cat "$W/a.list")"
done
cmp -s "$W/a.list" "$W/b.list" ||
    { diff "$W/a.list" "$W/b.list" >&2; fail "the two builds made different .deb files"; }

differ=0
while read -r deb; do
    one=$W/a/$deb two=$W/b/a/much/longer/build/path/$deb
    if cmp -s "$one" "$two"; then
        note "$deb: identical, sha256 $(sha256sum <"$one" | cut -c1-16)"
        continue
    fi
    differ=1
    echo "$deb differs between the builds:" >&2
    if command -v diffoscope >/dev/null; then
        diffoscope --no-progress --text - "$one" "$two" 2>&1 | head -200 >&2
    else
        diff <(dpkg-deb -c "$one") <(dpkg-deb -c "$two") >&2
        for m in $(ar t "$one"); do
            cmp -s <(ar p "$one" "$m") <(ar p "$two" "$m") || echo "ar member $m differs" >&2
        done
    fi
done <"$W/a.list"
[ "$differ" -eq 0 ] || fail "the package is not reproducible (above)"
note "$(wc -l <"$W/a.list") .deb files byte for byte the same"
