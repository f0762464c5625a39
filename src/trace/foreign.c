/*
 * foreign.c - the files given with a trace's that are no trace of its
 * format (a README in the directory of LANL, Sandia or strace -ff
 * files): left out by the readers, named in a warning (trace.h).
 * Nothing here uses the builder (the readers' unit tests link a fake).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "trace/dxt.h"
#include "trace/trace.h"

int trace_skipped_file(struct trace_input *in, const char *path, struct rerr *e)
{
	const char *other = in->probe_name ? in->probe_name(path) : NULL;
	if (other && in->format && strcmp(other, in->format))
		return rerr_set(e, -EINVAL, "'%s' is a %s trace among %s traces: give"
				" traces of one format at a time (only a file that is no trace, such"
				" as a README, is left out)", path, other, in->format);
	size_t n = strlen(in->skipped_names), cap = sizeof(in->skipped_names);
	in->skipped_files++;
	if (n + 4 >= cap)
		return 0;
	if (n + strlen(path) + 2 + 4 >= cap) {
		snprintf(in->skipped_names + n, cap - n, "%s...", n ? ", " : "");
		return 0;
	}
	snprintf(in->skipped_names + n, cap - n, "%s%s", n ? ", " : "", path);
	return 0;
}

/* 1: path has a line `looks` takes, or no line but blank ones; 0: only
 * other lines; -errno. */
static int has_format_line(const char *path, bool (*looks)(const char *line, size_t len))
{
	struct linereader lr;
	char *line;
	size_t len;
	int rc = lr_open(&lr, path), any = 0;
	if (rc)
		return rc;
	while ((rc = lr_next(&lr, &line, &len)) != 0) {
		if (rc == -E2BIG) {
			any = 1;
			continue;
		}
		if (rc < 0)
			break;
		size_t k = 0;
		while (k < len && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r'))
			k++;
		if (k == len)
			continue;
		any = 1;
		if (looks(line + k, len - k)) {
			rc = 1;
			break;
		}
	}
	lr_close(&lr);
	if (rc < 0)
		return rc;
	return rc == 1 || !any;
}

int trace_drop_foreign(struct trace_input *in, bool (*looks)(const char *line, size_t len),
		       const char *what, struct rerr *e)
{
	size_t k = 0;
	if (in->nfiles < 2)
		return 0;
	for (size_t i = 0; i < in->nfiles; i++) {
		int r = strcmp(in->files[i], "-") && !file_is_stream(in->files[i]) &&
			trace_file_is_gzip(in->files[i]) != 1 ?   /* its reader's to refuse or read */
			has_format_line(in->files[i], looks) : 1;
		if (r < 0)
			return rerr_set(e, r, "cannot read '%s': %s", in->files[i], strerror(-r));
		if (r) {
			char *t = in->files[k];
			in->files[k++] = in->files[i];
			in->files[i] = t;
		} else if ((r = trace_skipped_file(in, in->files[i], e)) < 0) {
			return r;
		}
	}
	if (!k)
		return rerr_set(e, -EINVAL, "'%s' and the other files: expected %s lines, found"
				" none in any of them", in->files[0], what);
	in->nfiles = k;
	return 0;
}

