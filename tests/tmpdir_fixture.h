/*
 * tmpdir_fixture.h - cmocka group fixture: a fresh directory `dir` for the
 * tests of one file, made before the group and removed (with everything
 * in it) after it.
 *
 *   #define TMPDIR_TEMPLATE "/tmp/replay-test-NAMEXXXXXX"
 *   #include "tmpdir_fixture.h"
 *   ...
 *   return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
 */
#ifndef REPLAY_TEST_TMPDIR_FIXTURE_H
#define REPLAY_TEST_TMPDIR_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#ifndef TMPDIR_TEMPLATE
#error "define TMPDIR_TEMPLATE (a mkdtemp template) before including tmpdir_fixture.h"
#endif

static char dir[] = TMPDIR_TEMPLATE;

static inline int tmpdir_setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static inline int tmpdir_teardown(void **state)
{
	(void)state;
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

#endif
