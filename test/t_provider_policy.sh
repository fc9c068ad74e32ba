#!/usr/bin/env bash
# Provider policy with real programs: mode = audit lets a revoked chain pass
# and logs it; on_stale = deny refuses a chain whose covering CRL is past
# nextUpdate (the default on_stale = allow accepts it); a missing index passes
# everything through (and says so once); a bad config value passes through.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_provider.sh"

tls_ready
srv_start rev rev_ec
port=$(srv_port rev)

# show FILE: into the test log
show() { sed 's/^/    | /' "$1"; }

# 1. audit: every client succeeds; the provider logs the revocation.
cl_sclient "$port" 1.3 --set mode=audit; show "$W/client.out" | grep -E 'crlcache|Verify return'
if [ "$CLIENT_RC" -eq 0 ] && grep -q 'certificate is revoked (audit, allowed)' "$W/client.out"; then
    case_ok "audit: s_client connects, log says revoked (audit, allowed)"
else case_fail audit-sclient "exit $CLIENT_RC or no audit log line"; fi
cl_curl "$port" 1.2 --set mode=audit; show "$W/client.out"
[ "$CLIENT_RC" -eq 0 ] && grep -q 'audit, allowed' "$W/client.out" \
    && case_ok "audit: curl fetches, logs" || case_fail audit-curl "exit $CLIENT_RC"
cl_verify "$PKI/rev_rsa.pem" --set mode=audit; show "$W/client.out"
[ "$CLIENT_RC" -eq 0 ] && grep -q 'audit, allowed' "$W/client.out" \
    && case_ok "audit: openssl verify OK, logs" || case_fail audit-verify "exit $CLIENT_RC"
# enforce (the default) refuses the same: the audit results are not an accident.
cl_verify "$PKI/rev_rsa.pem"
[ "$CLIENT_RC" -ne 0 ] && case_ok "enforce: same verify refused" || case_fail enforce "accepted"

# 2. Stale: a state whose int CRL expired two days ago (beyond the 1-day grace).
STATE=$W/stale-state
pki_gencrl int "$W/int-old.crl" last="$(gt -259200)" next="$(gt -172800)"
tls_import "$W/int-old.crl" "$W/root.crl"
cl_verify "$PKI/good_ec.pem" --set on_stale=deny; show "$W/client.out"
[ "$CLIENT_RC" -ne 0 ] && grep -q 'revocation data is stale (crlcache)' "$W/client.out" \
    && case_ok "on_stale=deny: verify refuses, stale" || case_fail stale-deny-verify "exit $CLIENT_RC"
srv_start good_stale good_ec --set on_stale=deny
cl_curl "$(srv_port good_stale)" 1.3 --set on_stale=deny; show "$W/client.out"
[ "$CLIENT_RC" -ne 0 ] && case_ok "on_stale=deny: curl refuses" || case_fail stale-deny-curl "exit 0"
cl_python "$(srv_port good_stale)" 1.3 --set on_stale=deny; show "$W/client.out"
[ "$CLIENT_RC" -ne 0 ] && case_ok "on_stale=deny: python refuses" || case_fail stale-deny-python "exit 0"
cl_verify "$PKI/good_ec.pem"; show "$W/client.out"
# (policy.c reports stale only when denying: on_stale = allow is silent.)
[ "$CLIENT_RC" -eq 0 ] && case_ok "on_stale=allow (default): verify OK" || case_fail stale-allow "exit $CLIENT_RC"
cl_verify "$PKI/good_ec.pem" --set on_stale=deny --set stale_grace=300000
[ "$CLIENT_RC" -eq 0 ] && case_ok "on_stale=deny with stale_grace beyond the lateness: OK" \
    || { show "$W/client.out"; case_fail stale-grace "exit $CLIENT_RC"; }
# A revoked certificate stays revoked whatever the freshness.
cl_verify "$PKI/rev_ec.pem"
[ "$CLIENT_RC" -ne 0 ] && case_ok "stale index: revoked still refused" || case_fail stale-revoked "accepted"

# 3. Missing index: pass through, say so once; a revoked chain is accepted.
STATE=$W/no-index; mkdir -p "$STATE"
cl_verify "$PKI/rev_rsa.pem"; show "$W/client.out"
[ "$CLIENT_RC" -eq 0 ] && [ "$(grep -c 'no index file' "$W/client.out")" -eq 1 ] \
    && case_ok "missing index: verify passes through, one notice" || case_fail missing-verify "exit $CLIENT_RC"
cl_sclient "$port" 1.3
[ "$CLIENT_RC" -eq 0 ] && case_ok "missing index: s_client connects to the revoked server" \
    || { show "$W/client.out"; case_fail missing-sclient "exit $CLIENT_RC"; }
prov_assert_active   # still loaded and active, just passing through

# 4. Bad value: pass through with a message, initialisation does not fail.
STATE=$W/state
cl_verify "$PKI/rev_rsa.pem" --set mode=bogus; show "$W/client.out"
[ "$CLIENT_RC" -eq 0 ] && grep -q 'bad value "bogus" for mode' "$W/client.out" \
    && case_ok "mode=bogus: passes through, says why" || case_fail bad-value "exit $CLIENT_RC"

finish
