/*
 * test_options.c - the option table (src/cmd/options.c): one meaning per
 * letter across commands, every command has a help and options of its
 * own, getopt tables fit, and the parser returns what the table says.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/options.h"

static void test_one_letter_one_meaning(void **st)
{
	(void)st;
	for (size_t i = 0; i < opt_count; i++) {
		const struct optdef *a = &opt_table[i];
		assert_true(a->cmds != 0);
		assert_non_null(a->help);
		assert_true(a->help[0] != 0);
		assert_int_equal(a->id, a->letter ? a->letter : a->id);
		for (size_t j = 0; j < opt_count; j++) {
			const struct optdef *b = &opt_table[j];
			if (a->letter && a->letter == b->letter && strcmp(a->name, b->name))
				fail_msg("-%c is --%s and --%s", a->letter, a->name, b->name);
			/* one name, one id and one argument style everywhere */
			if (!strcmp(a->name, b->name) && (a->id != b->id || !a->arg != !b->arg))
				fail_msg("--%s has two ids or argument styles", a->name);
			/* a name appears once per command */
			if (i < j && !strcmp(a->name, b->name) && (a->cmds & b->cmds))
				fail_msg("--%s twice for one command", a->name);
		}
	}
}

static void test_every_command(void **st)
{
	(void)st;
	for (size_t c = 0; c < cmd_ninfos; c++) {
		const struct cmd_info *ci = &cmd_infos[c];
		size_t n = 0;
		bool help = false;
		for (size_t i = 0; i < opt_count; i++)
			if (opt_table[i].cmds & ci->bit) {
				n++;
				help |= opt_table[i].id == 'h';
			}
		if (!help || n > OPT_MAX)
			fail_msg("%s: %zu options, --help %s", ci->name, n, help ? "yes" : "no");
		assert_ptr_equal(cmd_info_find(ci->name), ci);
		assert_ptr_equal(cmd_info_of(ci->bit), ci);
		assert_non_null(strstr(ci->synopsis, "replay "));
	}
}

static void test_parse(void **st)
{
	(void)st;
	struct optparse op;
	char *argv[] = { "run", "-n", "4", "--engine=libaio", "--overlap", "-f", "lanl", "t", "d", NULL };
	int argc = 9, id, seen = 0;
	optparse_init(&op, CMD_RUN, "run", false);
	while ((id = optparse_next(&op, argc, argv)) != -1) {
		assert_true(id != -2);
		if (id == 'n')
			assert_string_equal(optarg, "4"), seen |= 1;
		else if (id == 'e')
			assert_string_equal(optarg, "libaio"), seen |= 2;
		else if (id == OPT_OVERLAP)
			seen |= 4;
		else if (id == 'f')
			assert_string_equal(optarg, "lanl"), seen |= 8;
	}
	assert_int_equal(seen, 15);
	assert_int_equal(argc - optind, 2);
	/* an option of another command is unknown here */
	char *bad[] = { "stat", "--overlap", "t", NULL };
	optparse_init(&op, CMD_STAT, "stat", false);
	assert_int_equal(optparse_next(&op, 3, bad), -2);
}

static int count_option(void *ctx, int id, const char *arg)
{
	(void)id, (void)arg;
	(*(int *)ctx)++;
	return 0;
}

/* A parse that stops inside a group of short options ("-Gx": G unknown)
 * must not leave getopt there: the next parse, of another argv, starts
 * at its own first argument (issue 15: fuzz_options found getopt going
 * on with the old group's 'x', a use after free of the old argv). */
static void test_parse_after_stop_in_group(void **st)
{
	(void)st;
	char g0[] = "replay", g1[] = "-Gx", g2[] = "t", g3[] = "d";
	char *first[] = { g0, g1, g2, g3, NULL };
	int n = 0;
	assert_int_equal(opts_parse(CMD_RUN, false, 4, first, count_option, &n), 2);
	char *second[] = { "replay", "--quiet", "t", "d", NULL };
	n = 0;
	assert_int_equal(opts_parse(CMD_RUN, false, 4, second, count_option, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(optind, 2);
	memset(g1, 'q', 3);     /* the old group is gone: nothing may read it */
	char *third[] = { "replay", "t", "d", NULL };
	n = 0;
	assert_int_equal(opts_parse(CMD_RUN, false, 3, third, count_option, &n), 0);
	assert_int_equal(n, 0);
}

/* What the parser says on stderr for argv (NULL-ended) of run. */
static void parse_message(char **argv, char *msg, size_t len)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	FILE *f = tmpfile();
	assert_non_null(f);
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	dup2(fileno(f), STDERR_FILENO);
	int n = 0;
	assert_int_equal(opts_parse(CMD_RUN, false, argc, argv, count_option, &n), 2);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(f);
	if (!fgets(msg, (int)len, f))
		msg[0] = 0;
	fclose(f);
}

/* The option a usage error names is the one that is wrong, also inside a
 * group of letters after another argument (getopt leaves optind on the
 * group: "-Gx" used to be reported as the argument before it). */
static void test_usage_error_names_the_option(void **st)
{
	(void)st;
	char msg[256];
	char *a[] = { "replay", "--quiet", "-Gx", "t", "d", NULL };
	parse_message(a, msg, sizeof(msg));
	assert_non_null(strstr(msg, "unknown option '-G'"));
	char *b[] = { "replay", "-Gx", NULL };
	parse_message(b, msg, sizeof(msg));
	assert_non_null(strstr(msg, "unknown option '-G'"));
	char *c[] = { "replay", "--quiet=1", "t", "d", NULL };
	parse_message(c, msg, sizeof(msg));
	assert_non_null(strstr(msg, "option '--quiet' takes no value"));
	char *d[] = { "replay", "--speed=2", "-xq", NULL };
	parse_message(d, msg, sizeof(msg));
	assert_non_null(strstr(msg, "unknown option '-x'"));
	char *e[] = { "replay", "-Nq", NULL };
	parse_message(e, msg, sizeof(msg));
	assert_non_null(strstr(msg, "unknown option '-N'"));
	char *f[] = { "replay", "--overlap", "-q", NULL };
	parse_message(f, msg, sizeof(msg));
	assert_non_null(strstr(msg, "option '-q' needs a value"));
	char *g[] = { "replay", "--bogus=3", NULL };
	parse_message(g, msg, sizeof(msg));
	assert_non_null(strstr(msg, "unknown option '--bogus=3'"));
}

static void test_suggest(void **st)
{
	(void)st;
	char buf[128];
	assert_string_equal(cmd_suggest("sttat", buf, sizeof(buf)), "'stat'");
	assert_string_equal(cmd_suggest("conv", buf, sizeof(buf)), "'convert'");
	assert_string_equal(cmd_suggest("zzzzzzzz", buf, sizeof(buf)), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_letter_one_meaning),
		cmocka_unit_test(test_every_command),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_after_stop_in_group),
		cmocka_unit_test(test_usage_error_names_the_option),
		cmocka_unit_test(test_suggest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
