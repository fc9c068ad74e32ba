/*
 * libFuzzer target: the CCADB PEM report parser (fetcher/report.c,
 * AllCertificatePEMsCSVFormat).  Every fingerprint in the input is made a
 * wanted record first, so that each PEM field is decoded and hashed, and
 * the seeds' certificates, whose digests match, are parsed.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../fetcher/csv.h"
#include "../../fetcher/fetcher.h"
#include "../../fetcher/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
want_every_fingerprint(struct ccadb_records *r, const uint8_t *data,
    size_t size)
{
	struct ccadb_record *v;
	struct csv c;
	const char *s;
	size_t len;
	int col = -1;

	csv_init(&c, data, size);
	if (csv_row(&c) == 1)
		col = csv_column(&c, "SHA-256 Fingerprint");
	while (col != -1 && r->n < 64 && csv_row(&c) == 1) {
		s = csv_get(&c, col, &len);
		if ((v = realloc(r->v, (r->n + 1) * sizeof(*v))) == NULL)
			break;
		r->v = v;
		memset(&v[r->n], 0, sizeof(v[r->n]));
		if (crlc_hex_decode(s, len, v[r->n].fp, CRLC_HASH_LEN) == 0)
			r->n++;
	}
	csv_free(&c);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ccadb_records r = { 0 };
	char err[ERRLEN];

	verbosity = -1;
	want_every_fingerprint(&r, data, size);
	records_sort(&r);
	(void)records_add_pems(&r, data, size, "fuzz", err, sizeof(err));
	records_free(&r);
	return 0;
}
