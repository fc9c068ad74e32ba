# shellcheck shell=bash
# The Web PKI scale data set of test/bench/scale.sh, sourced by it:
# scale_data DIR builds, in DIR, 8,000,000 revocations in 2,000 signed
# CRLs, shaped like the Web PKI that Mozilla counts (a few CRLs of about
# a million entries, thousands of small partitions):
#   root X1 (RSA)  -> R10..R15 (RSA)   128 partitions each (IDP URI),
#   root X2 (P-256)-> E5..E10 (P-256)  as Let's Encrypt publishes them
#   root B (RSA)   -> B1..B4 (RSA)     one complete CRL of 1,000,000 each
#   root O (P-256) -> O1..O4 (P-256)   455 partitions between them
#                  -> M1 (RSA)         one complete CRL of 10,000 (the one
#                                      scale.sh changes)
# and each root's own complete CRL (5 entries): 1536 + 4 + 455 + 1 + 4 =
# 2000 CRLs.  The partitions get 3,989,980 entries between them, each
# within +-50% of the mean.  www/ holds the CRLs under the paths their
# IDPs name (http://$SCALE_HOST:$SCALE_PORT/...), anchors.pem and
# untrusted.pem the CA certificates, urls the URL of every CRL, leaf-*.pem
# certificates under R10, E5, B1 and M1 whose distribution point is one of
# those CRLs, changed/ M1's CRL again with 10 more entries and the next
# cRLNumber.  The CRLs are valid for 60 days from their making (scale.sh
# makes them anew after 30).

# Bounds of the data set; scale.sh reads them too.
SCALE_TOTAL=8000000
SCALE_BIG=1000000		# entries of each B CRL
SCALE_MID=10000			# entries of M1
SCALE_ROOT_ENTRIES=5
SCALE_LE_PARTS=128		# partitions per Let's Encrypt intermediate
SCALE_O_PARTS="114 114 114 113"	# partitions of O1..O4
SCALE_CRL_DAYS=60

# scale_ca_cnf: ca.cnf, the extensions of scale_ca's CA certificates.
scale_ca_cnf() {
	cat >ca.cnf <<'CNF'
[req]
distinguished_name = dn
[dn]
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
CNF
}

# scale_ca NAME ISSUER ALG: NAME.pem/NAME.key, a CA certificate issued by
# ISSUER (a root when ISSUER is "-"); ALG is rsa or p256.
scale_ca() {
	local name=$1 issuer=$2 alg=$3 kopt
	case $alg in
	rsa) kopt=(-newkey rsa:2048) ;;
	p256) kopt=(-newkey ec -pkeyopt ec_paramgen_curve:P-256) ;;
	esac
	if [ "$issuer" = - ]; then
		q openssl req -x509 "${kopt[@]}" -nodes -keyout "$name.key" -out "$name.pem" \
		    -subj "/O=Bench/CN=Bench $name" -days 365 -config ca.cnf -extensions ca
	else
		q openssl req -new "${kopt[@]}" -nodes -keyout "$name.key" -out "$name.csr" \
		    -subj "/O=Bench/CN=Bench $name" -config ca.cnf
		q openssl x509 -req -in "$name.csr" -CA "$issuer.pem" -CAkey "$issuer.key" \
		    -CAcreateserial -days 365 -extfile ca.cnf -extensions ca -out "$name.pem"
	fi
}

# scale_leaf CA URL: leaf-CA.pem, issued by CA, its CRL distribution point URL.
scale_leaf() {
	q openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "leaf-$1.key" -out "leaf-$1.csr" -subj "/CN=leaf $1" -config ca.cnf
	printf '[leaf]\nbasicConstraints = critical,CA:FALSE\n%s\n%s\ncrlDistributionPoints = URI:%s\n' \
	    "subjectKeyIdentifier = hash" "authorityKeyIdentifier = keyid" "$2" >"leaf-$1.ext"
	q openssl x509 -req -in "leaf-$1.csr" -CA "$1.pem" -CAkey "$1.key" -CAcreateserial \
	    -days 90 -extfile "leaf-$1.ext" -extensions leaf -out "leaf-$1.pem"
}

scale_data() {
	local d=$1 base this next parts seed=1 i k n
	mkdir -p "$d/www/le" "$d/www/big" "$d/www/other" "$d/changed"
	cd "$d" || return 1
	base="http://$SCALE_HOST:$SCALE_PORT"
	this=$(($(date +%s) - 3600))
	next=$((this + SCALE_CRL_DAYS * 86400))
	scale_ca_cnf
	cc -O2 -o scale_gen "$ROOT/test/bench/scale_gen.c" $(pkg-config --cflags --libs libcrypto)
	scale_ca X1 - rsa; scale_ca X2 - p256; scale_ca B - rsa; scale_ca O - p256
	for i in 10 11 12 13 14 15; do scale_ca "R$i" X1 rsa; done
	for i in 5 6 7 8 9 10; do scale_ca "E$i" X2 p256; done
	for i in 1 2 3 4; do scale_ca "B$i" B rsa; scale_ca "O$i" O p256; done
	scale_ca M1 O rsa
	cat X1.pem X2.pem B.pem O.pem >anchors.pem
	cat R1?.pem E*.pem B?.pem O?.pem M1.pem >untrusted.pem
	# The plan: OUT CERT KEY ENTRIES SEED NUMBER THIS NEXT IDP (scale_gen.c).
	: >plan
	for i in X1 X2 B O; do
		echo "www/$i.crl $i.pem $i.key $SCALE_ROOT_ENTRIES $((seed++)) 1 $this $next -" >>plan
	done
	for i in 1 2 3 4; do
		echo "www/big/B$i.crl B$i.pem B$i.key $SCALE_BIG $((seed++)) 1 $this $next -" >>plan
	done
	echo "www/other/M1.crl M1.pem M1.key $SCALE_MID $((seed++)) 1 $this $next -" >>plan
	parts=$( (for i in R10 R11 R12 R13 R14 R15 E5 E6 E7 E8 E9 E10; do
		for ((k = 0; k < SCALE_LE_PARTS; k++)); do echo "le/$i/$k.crl $i"; done
	done
	i=1; for n in $SCALE_O_PARTS; do
		for ((k = 0; k < n; k++)); do echo "other/O$i/$k.crl O$i"; done; i=$((i + 1))
	done) | awk -v total=$((SCALE_TOTAL - 4 * SCALE_BIG - SCALE_MID - 4 * SCALE_ROOT_ENTRIES)) \
	    '{ p[NR] = $1; c[NR] = $2 }
	    END { srand(14); for (j = 1; j <= NR; j++) { w[j] = 0.5 + rand(); sw += w[j] }
		left = total
		for (j = 1; j <= NR; j++) {
			n = (j < NR) ? int(total * w[j] / sw) : left; left -= n
			print p[j], c[j], n } }')
	while read -r path ca n; do
		mkdir -p "www/${path%/*}"
		echo "www/$path $ca.pem $ca.key $n $((seed++)) 1 $this $next $base/$path" >>plan
	done <<<"$parts"
	# M1 again, 10 entries more, a later thisUpdate and the next number.
	grep '^www/other/M1.crl ' plan | awk -v t=$((this + 1800)) \
	    '{ $1 = "changed/M1.crl"; $4 += 10; $6 = 2; $7 = t; print }' >plan.changed
	./scale_gen plan
	./scale_gen plan.changed
	awk -v b="$base" '{ sub(/^www/, b, $1); print $1 }' plan >urls
	scale_leaf R10 "$base/le/R10/17.crl"
	scale_leaf E5 "$base/le/E5/77.crl"
	scale_leaf B1 "$base/big/B1.crl"
	scale_leaf M1 "$base/other/M1.crl"
	rm -f ./*.csr ./*.srl
	[ "$(wc -l <urls)" = 2000 ] && echo "$this" >made
	cd - >/dev/null || return 1
}
