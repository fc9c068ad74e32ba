#!/usr/bin/env bash
# update rejects a CRL with a lower CRL number than the one held (rollback).
. "$(dirname "$0")/lib.sh"
reject_setup rollback
sleep 1   # the rolled-back CRL is not older by thisUpdate, only by number
pki_gencrl int "$W/bad.crl" number=05
crl_text "$W/bad.crl" | grep -A1 'CRL Number' | grep -qw 5 || fail "bad CRL number is not 5"
reject_expect "$W/bad.crl" 'rollback|older'
note "ok"
