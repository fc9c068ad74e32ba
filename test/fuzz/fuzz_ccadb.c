/*
 * libFuzzer target: the CCADB CSV export parser (fetcher/ccadb.c), which
 * reads a file that may come from the network.
 */
#include <stddef.h>
#include <stdint.h>

#include "../../fetcher/ccadb.h"
#include "../../fetcher/fetcher.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strlist urls = { NULL, 0 };

	verbosity = -1;		/* malformed input is the normal case here */
	(void)ccadb_parse(data, size, "fuzz", &urls);
	strlist_free(&urls);
	return 0;
}
