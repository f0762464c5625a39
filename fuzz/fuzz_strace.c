/* fuzz_strace.c - libFuzzer harness: the input as an strace trace, once
 * with the format detected (the probe of every format decides, so a
 * mutated input may reach another reader) and once forced to strace. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[4200];
	fuzz_write("trace.txt", data, size, path, sizeof(path));
	int skip = size && (data[size - 1] & 1);
	fuzz_load(path, NULL, skip);
	fuzz_load(path, "strace", skip);
	fuzz_clean(0);
	return 0;
}
