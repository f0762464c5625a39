/* test_engine_uring.c - the io_uring engine on real files (tests in
 * engine_check.h).  Skips (77) with the reason when io_uring is blocked. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#define ENGINE_UNDER_TEST engine_uring
#include "engine_check.h"

int main(void)
{
	const char *why = NULL;
	int ret = engine_uring.probe(&why);

	if (ret < 0) {
		printf("SKIP: %s (%s)\n", why ? why : "io_uring unavailable", strerror(-ret));
		return 77;
	}
	const struct CMUnitTest tests[] = {
		ENGINE_CHECK_TESTS,
	};
	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
