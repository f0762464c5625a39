/* test_topo.c - topology summary and worker placement on HWLOC_SYNTHETIC
 * machines, plus a real bind on this one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwloc.h>

#include "run/topo.h"

static struct topo *load_synthetic(const char *desc)
{
	struct topo *t = NULL;

	setenv("HWLOC_SYNTHETIC", desc, 1);
	assert_int_equal(topo_load(&t), 0);
	unsetenv("HWLOC_SYNTHETIC");
	assert_non_null(t);
	assert_int_equal(topo_is_thissystem(t), 0);
	return t;
}

static void plan_is(struct topo *t, enum bind_mode m, unsigned idx, const char *cs, int numa)
{
	char buf[64];
	int node = -2;

	assert_int_equal(topo_plan_worker(t, m, idx, 16, buf, sizeof(buf), &node), 0);
	assert_string_equal(buf, cs);
	assert_int_equal(node, numa);
}

static void t_summary(void **state)
{
	(void)state;
	struct topo *t = load_synthetic("pack:2 numa:1 core:4 pu:2");
	struct topo_summary s;

	topo_get_summary(t, &s);
	assert_int_equal(s.packages, 2);
	assert_int_equal(s.numa_nodes, 2);
	assert_int_equal(s.cores, 8);
	assert_int_equal(s.pus, 16);
	topo_free(t);

	t = load_synthetic("pack:1 core:3 pu:1");
	topo_get_summary(t, &s);
	assert_int_equal(s.packages, 1);
	assert_int_equal(s.numa_nodes, 1);
	assert_int_equal(s.cores, 3);
	assert_int_equal(s.pus, 3);
	topo_free(t);
}

static void t_spread(void **state)
{
	(void)state;
	struct topo *t = load_synthetic("pack:2 numa:1 core:4 pu:2");

	/* alternate packages: core 0 of pack 0 (PUs 0-1), core 0 of pack 1 (8-9) ... */
	plan_is(t, BIND_SPREAD, 0, "0-1", 0);
	plan_is(t, BIND_SPREAD, 1, "8-9", 1);
	plan_is(t, BIND_SPREAD, 2, "2-3", 0);
	plan_is(t, BIND_SPREAD, 3, "10-11", 1);
	plan_is(t, BIND_SPREAD, 7, "14-15", 1);
	/* wraps after 8 cores */
	plan_is(t, BIND_SPREAD, 8, "0-1", 0);
	plan_is(t, BIND_SPREAD, 9, "8-9", 1);
	topo_free(t);
}

static void t_core(void **state)
{
	(void)state;
	struct topo *t = load_synthetic("pack:2 numa:1 core:4 pu:2");

	/* compact: package 0 fills first */
	plan_is(t, BIND_CORE, 0, "0-1", 0);
	plan_is(t, BIND_CORE, 1, "2-3", 0);
	plan_is(t, BIND_CORE, 4, "8-9", 1);
	plan_is(t, BIND_CORE, 11, "6-7", 0);
	topo_free(t);
}

static void t_numa_none(void **state)
{
	(void)state;
	struct topo *t = load_synthetic("pack:2 numa:1 core:4 pu:2");
	char buf[64];
	int node;

	plan_is(t, BIND_NUMA, 0, "0-7", 0);
	plan_is(t, BIND_NUMA, 1, "8-15", 1);
	plan_is(t, BIND_NUMA, 2, "0-7", 0);
	plan_is(t, BIND_NONE, 5, "0-15", -1);
	/* binding on a synthetic machine computes, binds nothing, succeeds */
	assert_int_equal(topo_bind_worker(t, BIND_SPREAD, 1, 2, buf, sizeof(buf), &node), 0);
	assert_string_equal(buf, "8-9");
	assert_int_equal(node, 1);
	/* too small a buffer is an error, not a truncated answer */
	assert_int_equal(topo_plan_worker(t, BIND_NONE, 0, 1, buf, 3, &node), -ENAMETOOLONG);
	topo_free(t);
}

static void t_parse(void **state)
{
	(void)state;
	enum bind_mode m = BIND_NONE;

	assert_int_equal(topo_parse_bind("spread", &m), 0);
	assert_int_equal(m, BIND_SPREAD);
	assert_int_equal(topo_parse_bind("core", &m), 0);
	assert_int_equal(m, BIND_CORE);
	assert_int_equal(topo_parse_bind("numa", &m), 0);
	assert_int_equal(m, BIND_NUMA);
	assert_int_equal(topo_parse_bind("none", &m), 0);
	assert_int_equal(m, BIND_NONE);
	assert_int_equal(topo_parse_bind("socket", &m), -EINVAL);
	assert_int_equal(topo_parse_bind("", &m), -EINVAL);
	assert_string_equal(topo_bind_name(BIND_NUMA), "numa");
}

static void t_bad_env(void **state)
{
	(void)state;
	struct topo *t = (struct topo *)1;

	/* a synthetic description hwloc cannot parse is an error, not "this machine" */
	setenv("HWLOC_SYNTHETIC", "pack:2 bogus:x", 1);
	assert_int_equal(topo_load(&t), -EINVAL);
	assert_null(t);
	unsetenv("HWLOC_SYNTHETIC");
	/* so is an XML file that does not exist */
	setenv("HWLOC_XMLFILE", "/nonexistent/topo.xml", 1);
	t = (struct topo *)1;
	assert_true(topo_load(&t) < 0);
	assert_null(t);
	unsetenv("HWLOC_XMLFILE");
}

/* A real bind, in a child so the test process keeps its CPUs: the child's
 * affinity afterwards must be exactly the cpuset reported. */
static void t_real_bind(void **state)
{
	(void)state;
	struct topo *t = NULL;
	struct topo_summary s;
	int fds[2];

	unsetenv("HWLOC_SYNTHETIC");
	assert_int_equal(topo_load(&t), 0);
	assert_int_equal(topo_is_thissystem(t), 1);
	topo_get_summary(t, &s);
	assert_true(s.pus >= 1);
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char cs[64], got[256] = "";
		int node, ret, len = 0;
		cpu_set_t aff;

		ret = topo_bind_worker(t, BIND_CORE, 1, 2, cs, sizeof(cs), &node);
		CPU_ZERO(&aff);
		sched_getaffinity(0, sizeof(aff), &aff);
		/* the kernel's answer, printed in hwloc list syntax */
		hwloc_bitmap_t b = hwloc_bitmap_alloc();
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &aff))
				hwloc_bitmap_set(b, (unsigned)c);
		len = hwloc_bitmap_list_snprintf(got, sizeof(got), b);
		hwloc_bitmap_free(b);
		(void)len;
		dprintf(fds[1], "%d %s %s\n", ret, cs, got);
		_exit(0);
	}
	close(fds[1]);
	char line[512] = "";
	ssize_t n = read(fds[0], line, sizeof(line) - 1);
	int st;
	waitpid(pid, &st, 0);
	close(fds[0]);
	assert_true(n > 0);
	int ret = -1;
	char cs[64], got[256];
	assert_int_equal(sscanf(line, "%d %63s %255s", &ret, cs, got), 3);
	assert_int_equal(ret, 0);
	/* the expected single core: core 1 mod ncores, PU list from the plan */
	char want[64];
	int node;
	assert_int_equal(topo_plan_worker(t, BIND_CORE, 1, 2, want, sizeof(want), &node), 0);
	assert_string_equal(cs, want);
	/* the process really runs on exactly those CPUs */
	assert_string_equal(got, want);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_summary),
		cmocka_unit_test(t_spread),
		cmocka_unit_test(t_core),
		cmocka_unit_test(t_numa_none),
		cmocka_unit_test(t_parse),
		cmocka_unit_test(t_bad_env),
		cmocka_unit_test(t_real_bind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
