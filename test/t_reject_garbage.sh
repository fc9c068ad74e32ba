#!/usr/bin/env bash
# update rejects a garbage body (an HTML page, then random bytes) served with 200.
. "$(dirname "$0")/lib.sh"
reject_setup garbage
printf '<html><body>Captive portal: please log in</body></html>\n' >"$W/bad.crl"
reject_expect "$W/bad.crl" 'parse|malformed|truncated|decode'
openssl rand 700 >"$W/bad.crl"
reject_expect "$W/bad.crl" 'parse|malformed|truncated|decode'
note "ok"
