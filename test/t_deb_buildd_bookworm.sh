#!/usr/bin/env bash
# The package built as Debian 12's build daemons build it: nocheck and with
# the unit tests, in a clean buildd root of bookworm (test/deb_buildd.sh).
# run.sh: timeout=600
# shellcheck disable=SC2034 # read by deb_buildd.sh
SUITE=bookworm
. "$(dirname "$0")/deb_buildd.sh"
