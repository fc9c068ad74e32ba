# shellcheck shell=bash
# The data set of test/bench/webpki.sh, sourced by it: webpki_data DIR
# builds, in DIR, the CRLs a fleet's cache host with `enroll = all`
# fetches: 16,000 signed CRLs, as many distinct URLs as the CCADB lists
# for the intermediates with the TLS trust bit, on a few hosts:
#   root X1 (RSA)   -> R1..R8 (RSA)     partitions (IDP URI), shards as
#   root X2 (P-256) -> E1..E8 (P-256)   Let's Encrypt publishes them
#   root B (RSA)    -> B1..B3 (RSA)     one complete CRL of 1,000,000
#                                       entries each
# and each root's own complete CRL (5 entries): 15,994 + 3 + 3 = 16,000.
# A quarter of the partitions are empty, the others hold 1 to 200
# entries.  Each pair of intermediates has its own host (WEBPKI_HOSTS,
# 2,000 URLs each: a CDN host); the roots and B1..B3 live on the first.
# www/HOST/ holds what HOST serves, ccadb.csv the URLs as a CCADB export
# (`ccadb =`), anchors.pem and untrusted.pem the CA certificates,
# changed/ the 1% that change (every 100th partition, 5 entries more, a
# later thisUpdate and the next cRLNumber) at the same paths, urls every
# URL.  scale_gen.c signs them; its helpers come from scale_data.sh.

WEBPKI_CRLS=16000
WEBPKI_BIG=1000000		# entries of each B CRL
WEBPKI_SHARD_MAX=200		# entries of a non-empty partition at most
WEBPKI_CHANGE_EVERY=100		# 1% of the partitions change
WEBPKI_CRL_DAYS=60

webpki_data() {
	local d=$1 this next seed=1 i h shards
	mkdir -p "$d/changed"
	cd "$d" || return 1
	this=$(($(date +%s) - 3600))
	next=$((this + WEBPKI_CRL_DAYS * 86400))
	scale_ca_cnf
	cc -O2 -o scale_gen "$ROOT/test/bench/scale_gen.c" $(pkg-config --cflags --libs libcrypto)
	scale_ca X1 - rsa; scale_ca X2 - p256; scale_ca B - rsa
	for i in 1 2 3 4 5 6 7 8; do scale_ca "R$i" X1 rsa; scale_ca "E$i" X2 p256; done
	for i in 1 2 3; do scale_ca "B$i" B rsa; done
	cat X1.pem X2.pem B.pem >anchors.pem
	cat R?.pem E?.pem B?.pem >untrusted.pem
	# The plan: OUT CERT KEY ENTRIES SEED NUMBER THIS NEXT IDP (scale_gen.c);
	# OUT is www/HOST/PATH.
	h=${WEBPKI_HOSTS%% *}
	: >plan
	for i in X1 X2 B; do
		echo "www/$h/$i.crl $i.pem $i.key 5 $((seed++)) 1 $this $next -" >>plan
	done
	for i in 1 2 3; do
		echo "www/$h/big/B$i.crl B$i.pem B$i.key $WEBPKI_BIG $((seed++)) 1 $this $next -" >>plan
	done
	shards=$((WEBPKI_CRLS - 6))
	# Partition j: issuer R1..R8, E1..E8 in turn, host k / 2 of the 8.
	awk -v n="$shards" -v max="$WEBPKI_SHARD_MAX" -v seed="$seed" -v this="$this" \
	    -v next_="$next" -v hosts="$WEBPKI_HOSTS" 'BEGIN { srand(22); split(hosts, h, " ")
	    for (j = 0; j < n; j++) {
		k = j % 16; ca = (k < 8) ? "R" (k + 1) : "E" (k - 7); host = h[int(k / 2) + 1]
		e = (rand() < 0.25) ? 0 : 1 + int(rand() * max)
		path = host "/" ca "/" int(j / 16) ".crl"
		print "www/" path, ca ".pem", ca ".key", e, seed + j, 1, this, next_, "http://" path } }' >>plan
	awk -v t=$((this + 1800)) -v every="$WEBPKI_CHANGE_EVERY" \
	    'NR > 6 && (NR - 7) % every == 0 { $1 = "changed/" $1; $4 += 5; $6 = 2; $7 = t; print }' \
	    plan >plan.changed
	mkdir -p $(cut -d' ' -f1 plan plan.changed | sed 's,/[^/]*$,,' | sort -u)
	./scale_gen plan
	./scale_gen plan.changed
	awk '{ sub(/^www\//, "http://", $1); print $1 }' plan >urls
	# One row per issuer, as the CCADB lists them: a complete CRL or the
	# JSON array of its partitions.
	{
		echo 'CA Owner,Full CRL Issued By This CA,JSON Array of Partitioned CRLs'
		sed -n '1,6p' urls | awk '{ printf "Bench,%s,\n", $1 }'
		sed -n '7,$p' urls | awk -F/ '{ u[$4] = u[$4] (u[$4] == "" ? "" : ",") "\"\"" $0 "\"\"" }
		    END { for (ca in u) printf "Bench,,\"[%s]\"\n", u[ca] }'
	} >ccadb.csv
	rm -f ./*.csr ./*.srl
	[ "$(wc -l <urls)" = "$WEBPKI_CRLS" ] && [ "$(wc -l <plan.changed)" -gt 0 ] &&
	    echo "$this" >made
	cd - >/dev/null || return 1
}
