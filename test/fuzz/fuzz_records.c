/*
 * libFuzzer target: the CCADB records report parser (fetcher/report.c,
 * AllCertificateRecordsCSVFormatv4), which reads a file from the network.
 */
#include <stddef.h>
#include <stdint.h>

#include "../../fetcher/fetcher.h"
#include "../../fetcher/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ccadb_records r = { 0 };
	char err[ERRLEN];

	verbosity = -1;		/* malformed input is the normal case here */
	(void)records_parse(&r, data, size, 1700000000, err, sizeof(err));
	records_sort(&r);
	records_free(&r);
	return 0;
}
