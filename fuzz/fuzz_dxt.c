/* fuzz_dxt.c - libFuzzer harness: the input as a dxt trace (forced
 * format), loaded into an .ops file and read back (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_reader(data, size, "trace.txt", "dxt");
}
