#!/usr/bin/env bash
# Where there is no syslog (a container, a minimal root) and the client
# prints only "certificate signature failure" (python), `crlcache status
# --refusals` says which certificate was refused and why, and which
# account's program met it.  The provider logs nowhere here (log = none).
# A loop of refusals in one process notes at most the burst; a line a
# user forges in the spool is shown under that user's uid, never as
# another's; 50 files a user dates 2099 hide no other's refusal, and go a
# week after they were made, as every file does (its birth time, which no
# owner sets: faketime moves the fetcher's clock a week on).  --json is a
# JSON array, every string escaped.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"

tls_pki
tls_import
SPOOL=$STATE/refusals
[ -d "$SPOOL" ] && [ ! -L "$SPOOL" ] && [ "$(stat -c %a "$SPOOL")" = 3733 ] &&
    case_ok "import made the spool, mode 3733" || case_fail spool "$(ls -ld "$SPOOL" 2>&1)"
srv_start rev_ec rev_ec

cl_python "$(srv_port rev_ec)" 1.3 --set log=none
[ "$CLIENT_RC" -ne 0 ] && grep -q 'CERTIFICATE_VERIFY_FAILED' "$W/client.out" ||
    { cat "$W/client.out" >&2; fail "python accepted rev_ec: the provider is not on"; }
grep -q 'revoked' "$W/client.out" && note "python names the revocation itself: $(cat "$W/client.out")"
assert_exit 0 cc status --refusals
cat "$W/last.out" | sed 's/^/    | /'
grep -Eq '^refusal [0-9T:Z-]+ uid=0\(root\) python3?[^ ]*\[[0-9]+\]: certificate is revoked \(refused\): serial=[0-9A-F]+ issuer=.*Prov Test Int.*reason keyCompromise$' "$W/last.out" &&
    case_ok "the refusal, its reason and its writer" || case_fail reason "no refusal line for python"

# one process refusing in a loop notes at most the burst (5 per minute)
before=$(find "$SPOOL" -type f | wc -l)
px --set log=none -- "$PY" -c '
import ssl, sys, socket
ctx = ssl.create_default_context(cafile=sys.argv[2])
for _ in range(12):
    try:
        with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20) as s:
            ctx.wrap_socket(s, server_hostname="127.0.0.1")
    except ssl.SSLError:
        pass
' "$(srv_port rev_ec)" "$ROOT" >/dev/null 2>&1
after=$(find "$SPOOL" -type f | wc -l)
[ $((after - before)) -ge 1 ] && [ $((after - before)) -le 5 ] &&
    case_ok "12 refusals in one process: $((after - before)) noted" ||
    case_fail burst "$((after - before)) files for 12 refusals"

# another user's forgery is shown as that user's
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
    d=$W
    while case $d in "${TMPDIR:-/tmp}"/?*) true ;; *) false ;; esac; do
        chmod o+x "$d"; d=$(dirname "$d")
    done
    setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c \
        'printf "sshd[1]: certificate is revoked (refused): forged\n" >"$1/0123456789abcdef0123456789abcdef.txt"' sh "$SPOOL" ||
        fail "nobody cannot write to the 3733 spool"
    setpriv --reuid=nobody --regid=nogroup --clear-groups ls "$SPOOL" >/dev/null 2>&1 &&
        case_fail listing "nobody may list the spool"
    cc status --refusals >"$W/r2.out"
    grep -q '^refusal [^ ]* uid=65534(nobody) sshd\[1\]: certificate is revoked (refused): forged$' "$W/r2.out" &&
        ! grep -q 'uid=0(root) sshd' "$W/r2.out" && case_ok "a forged line is shown as its writer's" ||
        { cat "$W/r2.out" >&2; case_fail forgery "not shown under nobody"; }
else
    note "no setpriv or nobody: the forgery case is not run"
fi

# 50 files by nobody dated 2099 (an owner sets its files' mtime at will)
# hide no genuine refusal: the time believed is the birth (else the
# status change), which no owner sets, and the lines shown are taken in
# turns across writers.  --json: an array, every string escaped.
command -v faketime >/dev/null || skip "faketime not installed (test/deps.sh)"
born=$(date +%s)
sleep 2
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$PY" - "$SPOOL" <<'PY' || fail "nobody cannot flood the spool"
import os, sys
for i in range(50):
    p = os.path.join(sys.argv[1], "%032x.txt" % (0xf100d0000 + i))
    with open(p, "wb") as f:
        f.write(b"sshd[1]: flood %d \"q\" \\ \x1b[2J \xff\n" % i)
    os.utime(p, (4070908800, 4070908800))   # 2099-01-01
PY
    cc status --refusals >"$W/r4.out"
    grep -q 'uid=0(root) python' "$W/r4.out" && grep -q '^refusals: 50 of [0-9]* shown' "$W/r4.out" &&
        case_ok "50 files of nobody dated 2099 hide no genuine refusal" ||
        { sed 's/^/    | /' "$W/r4.out" >&2; case_fail "flood" "root's refusal not shown"; }
    assert_not_grep "$(printf '\033')" "$W/r4.out"
    cc status --refusals --json >"$W/r4.json"
    python3 - "$W/r4.json" <<'PY' && case_ok "--json: an array, escaped, root's refusal in it" ||
import json, sys
raw = open(sys.argv[1], "rb").read()
assert all(0x20 <= b < 0x7f or b == 0x0a for b in raw), "unescaped bytes"
d = json.loads(raw)
assert isinstance(d, list) and len(d) == 50, len(d)
assert any(r["uid"] == 0 and r["user"] == "root" and r["line"].startswith("python") for r in d), d
flood = [r for r in d if r["uid"] == 65534 and "flood" in r["line"]]
assert flood and all("\\x1b" in r["line"] and "\\xff" in r["line"] and '"q"' in r["line"] for r in flood), flood[:1]
assert all(isinstance(r["time"], int) and r["time"] < 4070908800 for r in d), d
PY
        { head -c 2000 "$W/r4.json" >&2; case_fail json "not the array wanted"; }
else
    note "no setpriv or nobody: the flood case is not run"
fi

# a planted link: not followed
echo 'planted secret' >"$W/secret"
ln -s "$W/secret" "$SPOOL/fedcba9876543210fedcba9876543210.txt"
cc status --refusals >"$W/r3.out"
assert_not_grep 'planted secret' "$W/r3.out"
# A week after the first files were born they go, the flood's (born two
# seconds later, dated 2099) stays; a week after the flood's, it goes.
total=$(find "$SPOOL" -type f | wc -l)
flood=$(find "$SPOOL" -type f -name '*f100d00*' | wc -l)
keep() { TZ=UTC NO_FAKE_STAT=1 DONT_FAKE_MONOTONIC=1 faketime "$(date -u -d "@$1" '+%Y-%m-%d %H:%M:%S')" \
    "$CRLCACHE" --state-dir "$STATE" -c "$CONF" publish >/dev/null 2>&1 || fail "publish under faketime"; }
keep $((born + 7 * 86400 + 1))
left=$(find "$SPOOL" -type f | wc -l)
[ "$left" = "$flood" ] && [ "$left" -lt "$total" ] &&
    case_ok "a week after: the older refusals pruned, the younger kept ($left of $total)" ||
    case_fail prune "$left of $total left, the flood is $flood: $(ls -l --time=birth "$SPOOL" 2>&1 | head -5)"
keep $(($(date +%s) + 8 * 86400))
[ "$(find "$SPOOL" -type f | wc -l)" = 0 ] && case_ok "files dated 2099 pruned by their age" ||
    case_fail "prune 2099" "$(find "$SPOOL" -type f | wc -l) files left"
[ -L "$SPOOL/fedcba9876543210fedcba9876543210.txt" ] || case_fail link "the planted link was removed or followed"
finish
