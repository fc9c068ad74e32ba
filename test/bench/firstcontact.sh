#!/bin/bash
# Benchmark: the first handshake with a good server of a CA no program on
# the host met before, with the crlcache provider (which leaves a hint
# and waits, learn_wait, for the fast run the spool's watcher starts to
# publish the CA's CRL) vs a client without it, the CA's CRLs in 1 (a
# full CRL) and in 100 partitions, every HTTP answer held 50 ms.  The
# scenario is test/t_learn_partitioned.sh's (real PKI, directory, server,
# `update --hints` started as crlcache-hints.service starts it); it times
# CAS never-met CAs and prints the medians, which become the rows.  The
# target: what the first contact adds to the next handshake, <= 1 s.
#
#   test/bench/firstcontact.sh [CAS]     (default 5)
CAS=${1:-5}
. "$(dirname "$0")/common.sh"
for parts in 1 100; do
	PARTS=$parts FIRSTCONTACT_CAS=$CAS bash "$ROOT/test/t_learn_partitioned.sh" >run.out 2>&1 ||
	    { cat run.out; exit 1; }
	# "... (median ms): without crlcache A, with B, the next handshake C, added D"
	sed -n 's/^.*first contact, .*(median ms): without crlcache \([0-9]*\), with \([0-9]*\), the next handshake \([0-9]*\), added \(-*[0-9]*\)$/\1 \2 \3 \4/p' \
	    run.out >fig
	[ -s fig ] || { cat run.out; echo "firstcontact: no figures" >&2; exit 1; }
	read -r without with next added <fig
	echo "CRLs in $parts partition(s): the next handshake $next ms; the first adds $added ms (median of $CAS CAs)"
	printf 'ROW\tfirst handshake with a never-met CA'"'"'s good server, its CRLs in %d partition(s), 50 ms a request\t%s\t%s\t%s\tms\tadded <= 1 s\n' \
	    "$parts" "$without" "$with" "$(echo "$with / $without" | bc -l | xargs printf '%.1f')" | bench_rows
done
