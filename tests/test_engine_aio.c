/* test_engine_aio.c - the libaio engine on real files (tests in engine_check.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#define ENGINE_UNDER_TEST engine_libaio
#include "engine_check.h"

static void t_warn_buffered(void **state)
{
	(void)state;
	assert_int_equal(engine_warn_buffered(&engine_libaio, 0), 1);
	assert_int_equal(engine_warn_buffered(&engine_libaio, 1), 0);
	assert_int_equal(engine_warn_buffered(&engine_uring, 0), 0);
}

int main(void)
{
	const char *why = NULL;
	int ret = engine_libaio.probe(&why);

	if (ret < 0) {
		printf("SKIP: %s\n", why ? why : "libaio unavailable");
		return 77;
	}
	const struct CMUnitTest tests[] = {
		ENGINE_CHECK_TESTS,
		cmocka_unit_test(t_warn_buffered),
	};
	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
