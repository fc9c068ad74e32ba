#!/usr/bin/env bash
# update rejects a CRL whose thisUpdate is in the future (2 days).
. "$(dirname "$0")/lib.sh"
reject_setup future
pki_gencrl int "$W/bad.crl" number=20 last="$(gt 172800)" next="$(gt 777600)"
reject_expect "$W/bad.crl" 'future'
note "ok"
