#!/usr/bin/env bash
# Root never opens, creates or follows anything in another account's
# state directory on its behalf.  The state belongs to nobody, who planted
# symbolic links at every name crlcache opens there (work/lock.mdb,
# work/data.mdb, work/directory, work/enrolled, lock, hints, index.mdb,
# scope files, work itself), pointing at files and directories of root
# outside it, or dangling where a file would be created.  Every command
# runs as root (as an administrator would: no --allow-root), and no file
# outside the state directory changes, appears or changes owner, mode or
# mtime; the commands that read the state still answer from a sound index
# (check, status, mirror DIR writing DIR as root), the writing ones run as
# nobody and fail on its links.
. "$(dirname "$0")/lib.sh"
need_module
[ "$(id -u)" -eq 0 ] || skip "needs root"
id nobody >/dev/null 2>&1 || skip "no user nobody to own the state directory"
command -v setpriv >/dev/null || skip "no setpriv to plant links as nobody"

served_chain_crls
write_conf "url = $BASE_URL/int.crl" "anchor = $PKI/root/cert.pem" \
    "untrusted = $PKI/int/cert.pem" "timeout = 10" "connect_timeout = 5" "retries = 0"
assert_exit 0 cc update
for f in index.mdb lock work/data.mdb work/lock.mdb; do
    [ -e "$STATE/$f" ] || fail "no $f in the state to plant a link at"
done
scopes=$(cd "$STATE/scope" && ls) || fail "no scope file"
[ -n "$scopes" ] || fail "no scope file"
cp -a "$STATE" "$W/pristine"

# nobody reaches the state and the PKI (the writing commands run as
# nobody), and may write nothing in $OUT: root's, 0755, its files 0600.
d=$W
while [ "$d" != / ] && [ "$(stat -c %u "$d")" -eq 0 ]; do chmod o+x "$d"; d=$(dirname "$d"); done
chmod -R o+rX "$PKI"
OUT=$W/outside
# outside: $OUT afresh, root's: a victim file, a spool, copies of the index,
# scope files and working data.
outside() {
    local f
    rm -rf "$OUT"
    mkdir -m 0755 "$OUT" "$OUT/scope"
    mkdir -m 0700 "$OUT/spool" "$OUT/work"
    for f in victim spool/victim.crt; do printf 'root secret %s\n' "$f" >"$OUT/$f"; done
    cp "$W/pristine/index.mdb" "$OUT/index.mdb"
    for f in $scopes; do cp "$W/pristine/scope/$f" "$OUT/scope/"; done
    cp "$W/pristine/work/data.mdb" "$W/pristine/work/lock.mdb" "$OUT/work/"
    chmod 0600 "$OUT/victim" "$OUT/spool/victim.crt"
    touch -d '2001-01-01 00:00:00' "$OUT" "$OUT"/* "$OUT"/*/*
}

# Everything outside the state that a command could touch: names, kinds,
# sizes, mtimes, owners, modes and content.
manifest() {
    (cd "$OUT" && find . -printf '%p %y %s %T@ %U %G %m\n' | sort &&
        find . -type f -exec sha256sum {} + | sort -k2)
}

WORK_NAMES="data.mdb lock.mdb directory directory.state enrolled hints.drain hints.queue hints.junk hints.turn unpublished"
# plant KIND: a fresh copy of the state, nobody's, with links planted by
# nobody.  KIND work: a sound index and lock file, links at every other
# name, to root's victim file or spool.  KIND dangling: a sound index and
# work/data.mdb (LMDB opens a read-only environment's lock file once its
# data file exists), links at every other name, dangling into $OUT.
# KIND index: index.mdb, the scope files and work/ are links too.  KIND
# rootdir: as work, in a directory root owns (nobody's entries in it:
# its index is no one's the provider trusts).
plant() {
    local kind=$1 n t
    rm -rf "$STATE"
    cp -a "$W/pristine" "$STATE"
    chown -R nobody:nogroup "$STATE"
    for n in lock hints $(printf 'work/%s ' $WORK_NAMES); do
        case $kind:$n in work:lock|rootdir:lock|dangling:work/data.mdb) continue ;; esac
        case $kind in
            dangling) t=$OUT/new.${n#work/} ;;
            *) t=$OUT/victim; [ "$n" = hints ] && t=$OUT/spool ;;
        esac
        rm -rf "${STATE:?}/$n"
        setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$t" "$STATE/$n" ||
            fail "nobody cannot plant $n"
    done
    if [ "$kind" = index ]; then
        rm -rf "$STATE/index.mdb" "$STATE/scope"/* "$STATE/work"
        setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c '
            o=$1 s=$2; shift 2
            ln -s "$o/index.mdb" "$s/index.mdb" && ln -s "$o/work" "$s/work" || exit 1
            for f; do ln -s "$o/scope/$f" "$s/scope/$f" || exit 1; done' \
            sh "$OUT" "$STATE" $scopes || fail "nobody cannot plant"
    fi
    [ "$kind" != rootdir ] || chown root:root "$STATE"
}

# rc COMMAND ARGS...: crlcache as root without --allow-root; the exit
# code is in $rc, the output in $W/out, $W/err.  Nothing outside the
# state directory may have changed (else $OUT is made afresh).
rc() {
    local after name=$1
    [ "$1" != --allow-root ] || name="$2 $1"
    env -u CRLCACHE_ALLOW_ROOT "$CRLCACHE" --state-dir "$STATE" -c "$CONF" "$@" \
        >"$W/out" 2>"$W/err"
    rc=$?
    note "$kind: $name -> $rc: $(head -c 200 "$W/err" | head -n 1)"
    after=$(manifest)
    [ "$after" = "$before" ] && return 0
    diff <(echo "$before") <(echo "$after") >&2
    case_fail "$kind $name" "a file outside the state directory changed or appeared"
    outside
    before=$(manifest)
}
# want CODE WHAT: the last command's exit was CODE.
want() {
    [ "$rc" -eq "$1" ] && return 0
    { echo "--- stdout"; cat "$W/out"; echo "--- stderr"; cat "$W/err"; } >&2
    case_fail "$kind $2" "exit $rc, wanted $1"
}

cp "$(openssl version -d | sed -E 's/^OPENSSLDIR: "(.*)"$/\1/')/openssl.cnf" "$W/openssl.cnf" 2>/dev/null ||
    printf 'openssl_conf = init\n[init]\n' >"$W/openssl.cnf"
mkdir -m 0755 "$W/mirror"
for kind in work dangling index rootdir; do
    fails=$_SOFT_FAILS
    outside
    before=$(manifest)
    plant "$kind"
    # The writing commands run as nobody, whose links lead nowhere it may
    # write.
    rc update; want 4 "update"
    rc import "$W/int.crl"; want 4 "import"
    rc enroll "$PKI/rev1.pem"; want 4 "enroll"
    rc reset --issuer "$PKI/int/cert.pem"; want 4 "reset"
    rc publish; want 4 "publish"
    if [ "$kind" = rootdir ]; then
        # --allow-root is for root's own state, not nobody's in root's directory.
        rc --allow-root update; want 4 "update --allow-root"
        rc --allow-root import "$W/int.crl"; want 4 "import --allow-root"
        rc --allow-root reset --issuer "$PKI/int/cert.pem"; want 4 "reset --allow-root"
        rc --allow-root publish; want 4 "publish --allow-root"
    fi
    # The reading ones read as nobody: a sound index still answers.
    rm -rf "$W/mirror"/*
    if [ "$kind" = index ] || [ "$kind" = rootdir ]; then
        rc check "$PKI/rev1.pem"; want 4 "check"
        rc status; want 4 "status"
        rc mirror "$W/mirror"; want 4 "mirror"
    else
        rc check "$PKI/rev1.pem"; want 1 "check"
        grep -q '^revoked ' "$W/out" || case_fail "$kind check" "rev1 not revoked"
        rc status; want 0 "status"
        grep -q '^revoked 1$' "$W/out" || case_fail "$kind status" "no 'revoked 1'"
        rc mirror "$W/mirror"; want 0 "mirror"
        cmp -s "$W/int.crl" "$W/mirror/http/127.0.0.1:$HTTPD_PORT/int.crl" ||
            case_fail "$kind mirror" "DIR does not hold int.crl"
        [ "$(stat -c %U "$W/mirror/http/127.0.0.1:$HTTPD_PORT/int.crl")" = root ] ||
            case_fail "$kind mirror" "DIR not written by root"
    fi
    # The provider, loaded by root's programs, opens only what it checked.
    rc exec -- openssl verify -CAfile "$PKI/root/cert.pem" -untrusted "$PKI/int/cert.pem" \
        "$PKI/rev1.pem"
    case $kind:$rc in work:0|dangling:0) case_fail "$kind exec" "rev1 verified under exec" ;; esac
    rc enable --openssl-cnf "$W/openssl.cnf" --module "$MOD" --snippet "$SNIP"
    rc disable --openssl-cnf "$W/openssl.cnf"
    [ "$_SOFT_FAILS" -ne "$fails" ] || case_ok "$kind: nothing outside the state directory changed"
done

# A world-writable directory of root's (sticky, like /tmp): whoever made
# an entry there first is no owner root may switch to.  nobody makes
# hints first; root's update and status refuse the directory instead of
# running as nobody.
kind=sticky
fails=$_SOFT_FAILS
outside
before=$(manifest)
rm -rf "$STATE"; mkdir -m 1777 "$STATE"
setpriv --reuid=nobody --regid=nogroup --clear-groups mkdir -m 3733 "$STATE/hints" ||
    fail "nobody cannot make hints in a sticky directory"
rc update; want 4 "update"
grep -q "writable by every user" "$W/err" || case_fail "sticky update" "not refused as world-writable"
[ ! -e "$STATE/work" ] || case_fail "sticky update" "work/ was made (the run went on as nobody)"
rc status; want 4 "status"
[ "$_SOFT_FAILS" -ne "$fails" ] || case_ok "sticky: a world-writable state directory is refused"
finish
