/*
 * Unit test of lib/point.c: an EC key's point comes out uncompressed
 * whichever form its key object answers (compressed or hybrid, as
 * OpenSSL before 3.0.8 and some certificates hold it), for curves whose
 * coordinates need padding (P-521: 66 bytes, top bits zero); EdDSA keys
 * come out as their raw key (which may start with 04: no coordinates,
 * no recasting).
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>

#include "check.h"
#include <crlcache/point.h>

/* The first octet the key object answers with (SEC 1 2.3.3). */
static int form;

/* EVP_PKEY_get_params, its uncompressed EC point recast into form. */
static int
get_as_form(void *pkey, OSSL_PARAM params[])
{
	OSSL_PARAM *p, *x;
	uint8_t *pt;
	size_t f;

	if (!EVP_PKEY_get_params(pkey, params))
		return 0;
	p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_PUB_KEY);
	x = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_EC_PUB_X);
	if (p == NULL || !OSSL_PARAM_modified(p) || p->return_size < 3 ||
	    x == NULL || !OSSL_PARAM_modified(x) || (pt = p->data)[0] != 0x04)
		return 1;
	f = (p->return_size - 1) / 2;
	if (form == 0x02) {
		pt[0] = (uint8_t)(0x02 | (pt[2 * f] & 1));
		p->return_size = 1 + f;
	} else if (form == 0x06) {
		pt[0] = (uint8_t)(0x06 | (pt[2 * f] & 1));
	}
	return 1;
}

static void
check_curve(const char *type, const char *curve)
{
	uint8_t want[CRLC_POINT_MAX], got[CRLC_POINT_MAX];
	size_t wlen = 0, glen;
	EVP_PKEY *pk;
	int i;

	pk = curve != NULL ? EVP_PKEY_Q_keygen(NULL, NULL, type, curve) :
	    EVP_PKEY_Q_keygen(NULL, NULL, type);
	CHECK(pk != NULL);
	if (pk == NULL)
		return;
	CHECK(EVP_PKEY_get_octet_string_param(pk,
	    OSSL_PKEY_PARAM_PUB_KEY, want, sizeof(want), &wlen));
	for (i = 0; i < 3; i++) {
		form = (int[]){ 0x04, 0x02, 0x06 }[i];
		glen = crlc_key_point(get_as_form, pk, got);
		CHECK(glen == wlen && memcmp(got, want, wlen) == 0);
	}
	EVP_PKEY_free(pk);
}

int
main(void)
{
	int n;

	/* Several keys: about one in two has a leading zero to pad. */
	for (n = 0; n < 8; n++) {
		check_curve("EC", "P-256");
		check_curve("EC", "P-521");
	}
	check_curve("SM2", NULL);
	check_curve("ED25519", NULL);
	check_curve("ED448", NULL);
	return check_result();
}
