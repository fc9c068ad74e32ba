#!/usr/bin/env bash
# The administrator's first hour through the Debian package, installed in
# a fresh root of this host's distribution (test/mkroot.sh; Debian 13 in
# test/trixie.sh's stage), as README and the man pages say: every
# document README.md links is installed under that name; the cron file's
# comments are the source's; with the shipped crlcache.conf and no route
# to the CCADB (a closed port of loopback), update and status exit 3 and
# another user's status says the same; with the ccadb_* lines commented
# out both exit 0; a typo is named in one line; status --refusals answers.
# Root only.
. "$(dirname "$0")/lib.sh"
need_deb_root
deb_build
deb_root
mkdir -p "$W/in" "$W/out"
cp "$TESTDIR/../cron/crlcache" "$W/in/cron.src"
cat >"$W/in/inside.sh" <<EOF
#!/bin/sh
# Run inside the fresh root (test/t_deb_firsthour.sh).
set -u
export DEBIAN_FRONTEND=noninteractive
{ apt-get update -q && apt-get install -y -q --no-install-recommends /pkg/$DEB; } \
    >/out/install.log 2>&1 || { echo "install failed"; exit 3; }
doc=/usr/share/doc/crlcache
for f in \$(zcat -f \$doc/README.md* | grep -o '](docs/[a-z-]*\.md' | cut -c3- | sort -u); do
    [ -f "\$doc/\$f" ] && echo "link ok \$f" || echo "link broken \$f"
done
grep '^#' /in/cron.src >/out/cron.src; grep '^#' /etc/cron.d/crlcache >/out/cron.inst
cmp -s /out/cron.src /out/cron.inst && echo "cron comments ok" || echo "cron comments differ"
sed -i 's|https://ccadb[.a-z-]*/|http://127.0.0.1:$(closed_port)/|' /etc/crlcache/crlcache.conf
sed -i 's/^crlite = /#crlite = /' /etc/crlcache/crlcache.conf
grep -q '^[^#]*https://' /etc/crlcache/crlcache.conf && { echo "a URL left that leaves loopback"; exit 3; }
crlcache update >/out/u1.log 2>&1; echo "update \$?"
crlcache status >/out/s1.txt 2>&1; echo "status \$?"
setpriv --reuid=nobody --regid=nogroup --clear-groups crlcache status >/out/n1.txt 2>&1; echo "nobody status \$?"
sed -i 's/^ccadb_/#ccadb_/' /etc/crlcache/crlcache.conf
crlcache update >/out/u2.log 2>&1; echo "update off \$?"
crlcache status >/out/s2.txt 2>&1; echo "status off \$?"
crlcache statsu 2>/out/typo.err; echo "typo \$? \$(wc -l </out/typo.err) lines"
crlcache status --refusals >/out/ref.txt 2>&1; echo "refusals \$?"
EOF
sh "$TESTDIR/inroot.sh" -b "$W/pkg:/pkg" -r "$W/in:/in" -b "$W/out:/out" "$DEB_ROOT" \
    sh /in/inside.sh >"$W/inside.txt" 2>&1; rc=$?
sed 's/^/    | /' "$W/inside.txt"
[ "$rc" -eq 0 ] || { tail -20 "$W/out/install.log" 2>/dev/null; fail "the run in the root failed (exit $rc)"; }
expect() { grep -qx "$2" "$W/inside.txt" && case_ok "$1" || case_fail "$1" "no line '$2'"; }
grep -q '^link ok docs/' "$W/inside.txt" && ! grep -q '^link broken' "$W/inside.txt" &&
    case_ok "README's docs links resolve" || case_fail links "$(grep '^link broken' "$W/inside.txt" | paste -sd' ')"
expect "cron comments as the source's" "cron comments ok"
expect "no route: update 3" "update 3"
expect "no route: status 3" "status 3"
expect "no route: another user's status 3" "nobody status 3"
expect "ccadb off: update 0" "update off 0"
expect "ccadb off: status 0" "status off 0"
expect "a typo: one line" "typo 4 1 lines"
expect "status --refusals" "refusals 0"
finish
