/*
 * fuzz_strace.c - libFuzzer harness: the input as an strace trace, once
 * with the format detected (the probe of every format decides, so a
 * mutated input may reach another reader) and once forced to strace.
 * An input holding form feeds is also cut there into strace -ff files
 * PREFIX.<pid> (at most 24), loaded through the prefix; the descriptor
 * limit is lowered to 48 first, so the reader's pool keeps only 8 of
 * them open and must close and reopen the others as it merges them.
 */
#include <sys/resource.h>

#include "fuzz_common.h"

#define FF_MAX 24

static void load_ff(const uint8_t *data, size_t size, int skip)
{
	static int limited;
	if (!limited) {
		struct rlimit rl = { 48, 48 };
		setrlimit(RLIMIT_NOFILE, &rl);
		limited = 1;
	}
	char path[4200], name[32];
	size_t start = 0, n = 0;
	for (size_t i = 0; i <= size && n < FF_MAX; i++) {
		if (i < size && data[i] != '\f')
			continue;
		snprintf(name, sizeof(name), "ff.%zu", 1000 + n++);
		fuzz_write(name, data + start, i - start, path, sizeof(path));
		start = i + 1;
	}
	snprintf(path, sizeof(path), "%s/ff", fuzz_tmpdir());
	fuzz_load(path, NULL, skip);
	fuzz_load(path, "strace", skip);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[4200];
	fuzz_write("trace.txt", data, size, path, sizeof(path));
	int skip = size && (data[size - 1] & 1);
	fuzz_load(path, NULL, skip);
	fuzz_load(path, "strace", skip);
	fuzz_clean(0);
	if (memchr(data, '\f', size)) {
		load_ff(data, size, skip);
		fuzz_clean(0);
	}
	return 0;
}
