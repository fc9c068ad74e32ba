#!/usr/bin/env bash
# Fresh data without a restart: ONE long-running python3 process (under
# `crlcache exec`) does a TLS handshake to a server presenting good_ec every
# 0.2 s for 20 s.  After ~6 s the test imports a new int CRL that revokes
# good_ec (a new generation of the index).  The same process must go from
# accepting to refusing within 5 s of the publish, and never accept again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"

tls_pki
tls_import
prov_assert_active
srv_start good good_ec
port=$(srv_port good)

cat >"$W/loop.py" <<'PY'
import socket, ssl, sys, time
port, root, secs = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
end = time.time() + secs
while time.time() < end:
    ctx = ssl.create_default_context(cafile=root)    # fresh: no session reuse
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
                s.sendall(b"GET / HTTP/1.0\r\n\r\n"); s.recv(64)
        print(f"{time.time():.2f} ok", flush=True)
    except ssl.SSLCertVerificationError as e:
        print(f"{time.time():.2f} refused {e.verify_message}", flush=True)
    except Exception as e:
        print(f"{time.time():.2f} error {type(e).__name__}: {e}", flush=True)
    time.sleep(0.2)
PY
px --set log=stderr -- "$PY" "$W/loop.py" "$port" "$ROOT" 20 >"$W/loop.out" 2>"$W/loop.err" &
pid=$!; bg_register "$pid"
sleep 6
pki_revoke int "$PKI/good_ec.pem" reason=superseded
pki_gencrl int "$W/int-new.crl"
assert_exit 0 cc import --anchor "$ROOT" --untrusted "$W/untrusted.pem" "$W/int-new.crl"
t_pub=$(date +%s.%N)
note "published the revocation of good_ec at $t_pub (generation $(generation))"
wait "$pid"; rc=$?
[ "$rc" -eq 0 ] || case_fail loop "python exit $rc"
awk '{print "    | " $0}' "$W/loop.out" | sed -n '1,3p;/refused/{p;q}'
sed 's/^/    | stderr: /' "$W/loop.err" | sort -u | head -5

# Judge: ok before the publish, refused from at most 5 s after it, nothing else.
awk -v tp="$t_pub" '
    $2 == "error" { err++ }
    $1 < tp && $2 == "ok" { before_ok++ }
    $2 == "refused" { if (!first) first = $1; ref++ }
    $2 == "ok" && first { ok_after_refusal++ }
    $1 > tp + 5 && $2 == "ok" { late_ok++ }
    END {
        printf "before_ok=%d refused=%d errors=%d ok_after_refusal=%d late_ok=%d switch_after=%.2fs\n",
            before_ok, ref, err, ok_after_refusal, late_ok, first ? first - tp : -1
        exit !(before_ok >= 10 && ref >= 10 && err == 0 && ok_after_refusal == 0 && late_ok == 0)
    }' "$W/loop.out" >"$W/judge.out"; jrc=$?
note "$(cat "$W/judge.out")"
[ "$jrc" -eq 0 ] && case_ok "long-running process refuses within 5 s of the publish, no restart" \
    || { sed 's/^/    | /' "$W/loop.out"; case_fail reload "see counts above"; }
grep -q 'refused certificate signature failure' "$W/loop.out" \
    || case_fail reload-words "refusal was not certificate signature failure"
finish
