/* fuzz_ops.c - libFuzzer harness: the input as a binary .ops file
 * (hostile header, offsets and counts).  opstream_open must refuse what
 * it cannot vouch for; whatever it accepts is walked record by record
 * (fuzz_walk aborts on an op naming a path beyond the table) and through
 * the filter. */
#include <stddef.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[4200];
	uint8_t *fixed = NULL;
	/* the last byte odd: the header's file_size made right, so mutations
	 * reach the tables and records behind that first check */
	if (size >= sizeof(struct ops_header) && (data[size - 1] & 1) && (fixed = malloc(size))) {
		uint64_t fs = size;
		memcpy(fixed, data, size);
		memcpy(fixed + offsetof(struct ops_header, file_size), &fs, sizeof(fs));
		data = fixed;
	}
	fuzz_write("in.ops", data, size, path, sizeof(path));
	struct opstream s;
	const char *why = NULL;
	if (opstream_open(&s, path, &why) == 0) {
		struct filter f;
		struct filter_opts fo;
		struct rerr e;
		memset(&fo, 0, sizeof(fo));
		fuzz_walk(&s);
		if (filter_build(&f, &s, &fo, &e) == 0)
			filter_release(&f);
		opstream_close(&s);
	}
	fuzz_clean(0);
	free(fixed);
	return 0;
}
