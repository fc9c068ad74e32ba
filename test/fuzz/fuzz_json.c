/*
 * libFuzzer target: the JSON reader and the canonical serializer
 * (fetcher/json.c), which read Remote Settings changesets, root documents
 * and upki manifests from the network.  Besides not crashing: whatever
 * has a canonical form reads back to the same canonical form.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../fetcher/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every accessor on every value: none may read outside the document. */
static void
walk(const struct json *j)
{
	char s[64];
	int64_t n;
	size_t i;

	for (i = 0; i < j->n; i++) {
		(void)json_str(j, i, s, sizeof(s));
		(void)json_int(j, i, &n);
		(void)json_get(j, i, "id");
		if (j->v[i].n > 0)
			(void)json_next(j, json_first(j, i));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json j, again;
	char err[256], *canon = NULL, *twice = NULL, *copy;
	size_t len = 0, cap = 0, len2 = 0, cap2 = 0;

	/* exactly size bytes: ASan sees a read past the document */
	if ((copy = malloc(size > 0 ? size : 1)) == NULL)
		return 0;
	memcpy(copy, data, size);
	if (json_parse(&j, copy, size, 100000, err, sizeof(err)) == 0) {
		walk(&j);
		if (json_canonical(&j, 0, NULL, &canon, &len, &cap) == 0) {
			if (json_parse(&again, canon, len, 100000, err,
			    sizeof(err)) != 0 ||
			    json_canonical(&again, 0, NULL, &twice, &len2,
			    &cap2) != 0 || len2 != len ||
			    memcmp(canon, twice, len) != 0)
				abort();	/* not a fixed point */
			json_free(&again);
		}
		json_free(&j);
	}
	free(canon);
	free(twice);
	free(copy);
	return 0;
}
