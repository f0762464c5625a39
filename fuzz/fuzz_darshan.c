/* fuzz_darshan.c - libFuzzer harness: the input as a binary Darshan log,
 * printed by replay's own reader (darshan_log.c) in this process (the tool
 * runs it in a child, where a fuzzer would not see a crash), its text
 * thrown away. */
#include "fuzz_common.h"
#include "trace/dxt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[4200], why[1024];
	static FILE *null;
	int fd;

	snprintf(path, sizeof(path), "%s/log.darshan", fuzz_tmpdir());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	if (!null)
		null = fopen("/dev/null", "w");
	if (null)
		darshan_log_print(fd, null, why, sizeof(why));
	close(fd);
	unlink(path);
	return 0;
}
