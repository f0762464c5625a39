/* cmd_compare.c - `replay compare`: results side by side, normalized to the first. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmd/cmds.h"
#include "cmd/common.h"
#include "cmd/options.h"
#include "report/compare.h"
#include "report/html.h"


/* The page goes to FILE.tmp, renamed to FILE once whole; into FILE itself
 * when that is there and no regular file (/dev/stdout, a FIFO). */
static int write_html(const struct compare *c, const char *path)
{
	char tmp[4096];
	struct stat st;
	if (!lstat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		FILE *f = fopen(path, "w");
		int rc = f ? html_write(c, f) : -errno;
		if (f && fclose(f) && !rc)
			rc = -errno;
		if (rc < 0)
			die_msg("--html: cannot write '%s': %s", path, strerror(-rc));
		return rc;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		die_msg("--html: path too long: %s", path);
		return -ENAMETOOLONG;
	}
	FILE *f = fopen(tmp, "w");
	if (!f) {
		die_msg("--html: cannot create '%s': %s", tmp, strerror(errno));
		return -errno;
	}
	int rc = html_write(c, f);
	if (fclose(f) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (rc < 0) {
		die_msg("--html: cannot write '%s': %s", path, strerror(-rc));
		unlink(tmp);
	}
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	struct compare c;
	struct rerr e = { "" };
	struct results_cli cli = { 0 };
	int ret = 1, rc;

	compare_init(&c);
	rc = results_args(CMD_COMPARE, argc, argv, &cli);
	if (rc) {
		if (rc < 0)
			die_msg("out of memory");
		ret = rc == 1 ? 0 : rc == 2 ? 2 : 1;
		goto out;
	}
	if (cli.json && cli.markdown) {
		die_msg("compare: --json and --markdown are two output forms: give one");
		cmd_short_usage(CMD_COMPARE);
		ret = 2;
		goto out;
	}
	rc = compare_load(&c, argv + optind, (size_t)(argc - optind), cli.lab, &e);
	if (rc < 0) {
		die_msg("%s", e.msg[0] ? e.msg : strerror(-rc));
		goto out;
	}
	if (cli.html && write_html(&c, cli.html) < 0)
		goto out;
	if (cli.json) {
		json_t *j = compare_json(&c);
		if (!j || json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) < 0) {
			json_decref(j);
			die_msg("cannot write the JSON output");
			goto out;
		}
		json_decref(j);
		fputc('\n', stdout);
	} else {
		rc = compare_print(&c, stdout, cli.markdown ? CMP_MARKDOWN : CMP_TEXT);
		if (rc < 0) {
			die_msg("cannot write the comparison: %s", strerror(-rc));
			goto out;
		}
	}
	if (fflush(stdout) != 0) {
		die_msg("cannot write the output: %s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	compare_release(&c);
	results_cli_release(&cli);
	return ret;
}
