#!/usr/bin/env bash
# The package built as Debian 13's build daemons build it: nocheck and with
# the unit tests, in a clean buildd root of trixie (test/deb_buildd.sh).
# run.sh: timeout=600
# shellcheck disable=SC2034 # read by deb_buildd.sh
SUITE=trixie
. "$(dirname "$0")/deb_buildd.sh"
