/*
 * cmd_stat.c - `replay stat`: what a trace does (the study's Table I and
 * Figures 1-2), as aligned text or as JSON.  The analysis is in stat.c; the
 * trace is read in one pass with no .ops file written (stat_stream).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "cmd/cmds.h"
#include "cmd/common.h"
#include "cmd/options.h"
#include "plan/plan.h"
#include "report/jsontext.h"
#include "report/report.h"
#include "report/stat.h"
#include "trace/trace.h"


/* ---- the info blob: key=value lines ---------------------------------- */

typedef void (*info_cb)(const char *key, size_t klen, const char *val, size_t vlen, void *arg);

static void info_each(const char *info, info_cb cb, void *arg)
{
	const char *p = info;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *eq = memchr(p, '=', n);
		if (eq && eq > p)
			cb(p, (size_t)(eq - p), eq + 1, n - (size_t)(eq - p) - 1, arg);
		p += n;
		if (*p == '\n')
			p++;
	}
}

static int is_uint(const char *v, size_t n)
{
	if (!n || n > 19)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (v[i] < '0' || v[i] > '9')
			return 0;
	return 1;
}

#define SKIP_PREFIX "skipped."

/* ---- JSON ------------------------------------------------------------ */

static json_t *jint(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *json_kinds(const uint64_t *kinds)
{
	json_t *o = json_object();

	for (unsigned k = 1; k < OP__COUNT; k++)
		json_object_set_new(o, op_kind_name(k), jint(kinds[k]));
	return o;
}

static json_t *json_pattern(const struct stat_dir *d)
{
	json_t *o = json_object();

	json_object_set_new(o, "pattern", json_string(stat_pattern_name(d->pattern)));
	json_object_set_new(o, "stride", d->pattern == STAT_PAT_STRIDED ?
			    json_integer(d->top_delta) : json_null());
	json_object_set_new(o, "requests", jint(d->requests));
	json_object_set_new(o, "failed", jint(d->failed));
	json_object_set_new(o, "transitions", jint(d->transitions));
	json_object_set_new(o, "sequential_transitions", jint(d->sequential));
	json_object_set_new(o, "top_delta", d->top_delta_n ? json_integer(d->top_delta) : json_null());
	json_object_set_new(o, "top_delta_transitions", jint(d->top_delta_n));
	json_object_set_new(o, "top_size", d->requests ? jint(d->top_size) : json_null());
	json_object_set_new(o, "top_size_requests", jint(d->top_size_n));
	json_object_set_new(o, "requested_bytes", jint(d->req_bytes));
	return o;
}

static json_t *json_hist(const struct stat_dir *d)
{
	json_t *o = json_object();

	for (unsigned i = 0; i < STAT_NBUCKETS; i++)
		json_object_set_new(o, stat_bucket_label(i), jint(d->hist[i]));
	return o;
}

static json_t *json_dhist(const struct stat_dir *d)
{
	json_t *o = json_object();

	for (unsigned i = 0; i < STAT_NDARSHAN; i++)
		json_object_set_new(o, stat_darshan_bucket_label(i), jint(d->dhist[i]));
	return o;
}

/* info keys printed in their own sections, not among the notes */
static int own_section(const char *key, size_t klen)
{
	return klen == 11 && !strncmp(key, "lustre_osts", 11);
}

static json_t *json_extra(const struct opstream *s, const struct stat_report *r, json_t *root)
{
	json_t *a = json_array();

	for (size_t i = 0; i < r->nfr; i++) {
		const struct stat_file_rank *f = &r->fr[i];
		json_array_append_new(a, json_pack("{s:o,s:I,s:I,s:I,s:I,s:I}",
			"path", json_text_str(opstream_path(s, f->file)), "rank", (json_int_t)f->rank,
			"reads", (json_int_t)f->reads, "writes", (json_int_t)f->writes,
			"bytes_read", (json_int_t)f->bytes_read,
			"bytes_written", (json_int_t)f->bytes_written));
	}
	json_object_set_new(root, "file_ranks", a);
	a = json_array();
	for (uint32_t i = 0; i < r->nhosts; i++) {
		const struct stat_host *h = &r->hosts[i];
		json_t *rk = json_array();
		for (uint32_t k = 0; k < h->nranks; k++)
			json_array_append_new(rk, jint(h->ranks[k]));
		json_array_append_new(a, json_pack("{s:o,s:I,s:o,s:I,s:I}", "host", json_text_str(h->name),
			"nranks", (json_int_t)h->nranks, "ranks", rk,
			"bytes_read", (json_int_t)h->bytes_read,
			"bytes_written", (json_int_t)h->bytes_written));
	}
	json_object_set_new(root, "hosts", a);
	a = json_array();
	for (uint32_t i = 0; i < r->nostsets; i++) {
		const struct stat_ostset *o = &r->ostsets[i];
		json_array_append_new(a, json_pack("{s:o,s:I,s:I,s:I}", "osts", json_text_str(o->osts),
			"files", (json_int_t)o->nfiles, "bytes_read", (json_int_t)o->bytes_read,
			"bytes_written", (json_int_t)o->bytes_written));
	}
	json_object_set_new(root, "ost_sets", a);
	return root;
}

struct notes_json {
	json_t *notes, *skipped;
};

static void note_json_cb(const char *key, size_t klen, const char *val, size_t vlen, void *arg)
{
	struct notes_json *nj = arg;
	char k[256];
	json_t *v;

	if (klen >= sizeof(k))
		klen = sizeof(k) - 1;
	memcpy(k, key, klen);
	k[klen] = 0;
	if (is_uint(val, vlen))
		v = json_integer((json_int_t)strtoull(val, NULL, 10));
	else
		v = json_text_strn(val, vlen);
	if (own_section(key, klen)) {
		json_decref(v);
		return;
	}
	if (!strncmp(k, SKIP_PREFIX, strlen(SKIP_PREFIX)) && k[strlen(SKIP_PREFIX)]) {
		json_text_set(nj->skipped, k + strlen(SKIP_PREFIX), v);
		return;
	}
	/* io_submit_iocbs was io_submit_iocbs_as_sync (a wrong name: the
	 * iocbs are async submits): both keys, from a new .ops or an old */
	if (!strcmp(k, "io_submit_iocbs") || !strcmp(k, "io_submit_iocbs_as_sync")) {
		json_object_set(nj->notes, "io_submit_iocbs", v);
		json_object_set_new(nj->notes, "io_submit_iocbs_as_sync", v);
		return;
	}
	/* a key the info section holds once per rank (launcher, thread_of,
	 * rank_source: "RANK VALUE"), or any key it holds more than once:
	 * every value, in an array (one key of an object would keep the last
	 * alone) */
	json_t *had = json_object_get(nj->notes, k);
	if (!had && (!strcmp(k, "launcher") || !strcmp(k, "thread_of") ||
		     !strcmp(k, "rank_source"))) {
		had = json_array();
		json_text_set(nj->notes, k, had);
	} else if (had && !json_is_array(had)) {
		json_t *a = json_array();
		json_array_append(a, had);
		json_text_set(nj->notes, k, a);
		had = a;
	}
	if (had)
		json_array_append_new(had, v);
	else
		json_text_set(nj->notes, k, v);
}

static json_t *json_notes(const struct loaded_trace *lt, const struct stat_report *r)
{
	struct notes_json nj = { json_object(), json_object() };

	info_each(lt->s.info, note_json_cb, &nj);
	json_object_set_new(nj.notes, "skipped", nj.skipped);
	json_object_set_new(nj.notes, "truncated_names", jint(r->truncated_names));
	json_object_set_new(nj.notes, "nofile_data_ops", jint(r->nofile_data_ops));
	if (strcmp(lt->res.format ? lt->res.format : "", "ops")) {
		json_object_set_new(nj.notes, "lines", jint(lt->res.lines));
		if (!json_object_get(nj.notes, "bad_lines"))
			json_object_set_new(nj.notes, "bad_lines", jint(lt->res.bad_lines));
		if (lt->res.first_bad[0])
			json_object_set_new(nj.notes, "first_bad", json_text_str(lt->res.first_bad));
	}
	return nj.notes;
}

static const char *stream_format(const struct loaded_trace *lt, char *buf, size_t len)
{
	const char *f = opstream_info(&lt->s, "format", buf, len);

	if (f && *f)
		return f;
	return lt->res.format ? lt->res.format : "unknown";
}

static int print_json(const struct loaded_trace *lt, const struct stat_report *r,
		      const struct filter *filt)
{
	json_t *root = json_object(), *a;
	char fbuf[64];
	double rf, wf;
	int rc = 0;

	json_object_set_new(root, "format", json_text_str(stream_format(lt, fbuf, sizeof(fbuf))));
	json_object_set_new(root, "ranks", jint(r->nranks));
	json_object_set_new(root, "ops_total", jint(r->nops));
	json_object_set_new(root, "failed_ops", jint(r->failed_ops));
	json_object_set_new(root, "bytes_read", jint(r->rd.bytes));
	json_object_set_new(root, "bytes_written", jint(r->wr.bytes));
	if (stat_ratio(r->rd.bytes, r->wr.bytes, &rf, &wf) == 0)
		json_object_set_new(root, "read_write_ratio", json_pack("[f,f]", rf, wf));
	else
		json_object_set_new(root, "read_write_ratio", json_null());
	char rbuf[32];
	json_object_set_new(root, "read_write_ratio_text",
			    json_string(stat_fmt_ratio(rbuf, sizeof(rbuf), r->rd.bytes, r->wr.bytes)));
	json_object_set_new(root, "duration_ns", jint(r->duration_ns));
	json_object_set_new(root, "ops", json_kinds(r->kinds));
	json_object_set_new(root, "patterns", json_pack("{s:o,s:o}", "read", json_pattern(&r->rd),
							"write", json_pattern(&r->wr)));
	json_object_set_new(root, "size_histogram", json_pack("{s:o,s:o}", "read", json_hist(&r->rd),
							      "write", json_hist(&r->wr)));
	json_object_set_new(root, "size_histogram_darshan",
			    json_pack("{s:o,s:o}", "read", json_dhist(&r->rd),
				      "write", json_dhist(&r->wr)));
	json_object_set_new(root, "synthesized", json_pack("{s:I,s:I}",
			    "open", (json_int_t)r->synth[OP_OPEN], "close", (json_int_t)r->synth[OP_CLOSE]));
	{
		char inc[128];
		const char *iv = opstream_info(&lt->s, "incomplete", inc, sizeof(inc));
		json_object_set_new(root, "incomplete", iv && *iv ? json_text_str(iv) : json_false());
	}
	json_object_set_new(root, "files_shared", jint(r->files_shared));
	json_object_set_new(root, "files_private", jint(r->nfiles - r->files_shared - r->files_failed));
	json_object_set_new(root, "files_failed_only", jint(r->files_failed));
	a = json_array();
	for (uint32_t i = 0; i < r->nfiles; i++) {
		const struct stat_file *f = &r->files[i];
		json_array_append_new(a, json_pack("{s:o,s:b,s:I,s:I,s:I,s:I,s:b,s:o}",
			"path", json_text_str(f->path), "shared", f->nranks > 1, "ranks", (json_int_t)f->nranks,
			"ops", (json_int_t)f->ops, "bytes_read", (json_int_t)f->bytes_read,
			"bytes_written", (json_int_t)f->bytes_written, "truncated_name", f->truncated,
			"osts", f->osts ? json_text_str(f->osts) : json_null()));
	}
	json_object_set_new(root, "files", a);
	a = json_array();
	for (uint32_t i = 0; i < r->nranks; i++) {
		const struct stat_rank *k = &r->ranks[i];
		json_t *o = json_pack("{s:I,s:o,s:o,s:I,s:I,s:I,s:I,s:I}",
			"rank", (json_int_t)k->id, "name", json_text_str(k->name), "host", json_text_str(k->host), "pid", (json_int_t)k->pid,
			"ops", (json_int_t)k->ops, "bytes_read", (json_int_t)k->bytes_read,
			"bytes_written", (json_int_t)k->bytes_written, "duration_ns", (json_int_t)k->end_ns);
		if (o) {
			uint64_t io = k->in_ops_ns < k->end_ns ? k->in_ops_ns : k->end_ns;
			json_object_set_new(o, "in_ops_ns", k->timed ? json_integer((json_int_t)io) : json_null());
			json_object_set_new(o, "think_ns", k->timed ? json_integer((json_int_t)(k->end_ns - io))
								    : json_null());
			json_object_set_new(o, "think_pct", k->timed && k->end_ns ?
					    json_real(100.0 * (double)(k->end_ns - io) / (double)k->end_ns) :
					    json_null());
			json_object_set_new(o, "op_counts", json_kinds(k->kinds));
		}
		json_array_append_new(a, o);
	}
	json_object_set_new(root, "per_rank", a);
	json_object_set_new(root, "filtered", report_filter_json(filt));
	json_extra(&lt->s, r, root);
	json_object_set_new(root, "notes", json_notes(lt, r));

	if (json_dumpf(root, stdout, JSON_INDENT(2)) < 0 || fputc('\n', stdout) == EOF)
		rc = -EIO;
	json_decref(root);
	return rc;
}

/* ---- text ------------------------------------------------------------ */

struct notes_text {
	int nskip;
	char skipped[2048];
	size_t len;
};

static void note_skip_cb(const char *key, size_t klen, const char *val, size_t vlen, void *arg)
{
	struct notes_text *nt = arg;
	size_t pl = strlen(SKIP_PREFIX);

	if (klen <= pl || strncmp(key, SKIP_PREFIX, pl))
		return;
	if (nt->len < sizeof(nt->skipped)) {
		int n = snprintf(nt->skipped + nt->len, sizeof(nt->skipped) - nt->len, "%s%.*s %.*s",
				 nt->nskip ? ", " : "", (int)(klen - pl), key + pl, (int)vlen, val);
		if (n > 0)
			nt->len += (size_t)n;
		if (nt->len >= sizeof(nt->skipped))
			nt->len = sizeof(nt->skipped);
	}
	nt->nskip++;
}

/* Readable labels for the builder's and loader's info keys; other keys
 * print as they are. */
static const struct { const char *key, *label; } note_labels[] = {
	{ "source", "source" },
	{ "source_files", "source files" },
	{ "events", "calls parsed" },
	{ "ops", "ops recorded" },
	{ "skipped_calls", "non-I/O calls skipped" },
	{ "unknown_fd_ops", "ops on unknown fds (dropped)" },
	{ "stdio_ops", "  of which on fds 0-2" },
	{ "undecorated_fd_ops", "  of which not named by -y" },
	{ "implicit_opens", "implicit opens (-y paths)" },
	{ "inherited_opens", "inherited opens" },
	{ "rename_exchanges", "rename exchanges (3 renames each)" },
	{ "mmaps", "file mmaps (not replayed)" },
	{ "failed_calls", "failed calls (every path)" },
	{ "traced_processes", "traced processes" },
	{ "unknown_async_waits", "waits for unknown async ids" },
	{ "bad_lines", "bad lines skipped" },
	{ "cut_lines", "cut last lines dropped" },
	{ "io_submit_iocbs", "io_submit iocbs (async)" },
	{ "io_submit_iocbs_as_sync", "io_submit iocbs (async)" },
	{ "cut_line", "  the first" },
	{ "clock_back_steps", "clock steps back (clamped)" },
	{ "clock_back_first", "  the first" },
	{ "unnamed_shared_opens", "inherited opens of unnamed files" },
	{ "unnamed_shared_first", "  the first" },
	{ "orphan_data_calls", "data calls without a start (lost)" },
	{ "orphan_data_first", "  the first" },
	{ "injected_calls", "made-up results (INJECTED)" },
	{ "injected_first", "  the first" },
	{ "ff_missing", "-ff files missing (forked)" },
	{ "ff_missing_files", "  expected" },
	{ "ff_pid_reused", "-ff files of reused pids" },
	{ "ff_pid_reused_files", "  files" },
	{ "dxt_files_other_layer_only", "files only in the other layer" },
	{ "dxt_files_other_layer_only_bytes", "  their bytes there" },
	{ "dxt_files_other_layer_only_first", "  the first" },
	{ "dxt_longer_than_one_call_ops", "  replayed as ops" },
	{ "dxt_unnamed_records", "records without a name" },
};

static void note_other_cb(const char *key, size_t klen, const char *val, size_t vlen, void *arg)
{
	size_t pl = strlen(SKIP_PREFIX);
	const char *label = NULL;

	unsigned *nsource = arg;

	if (klen > pl && !strncmp(key, SKIP_PREFIX, pl))
		return;
	if (own_section(key, klen))
		return;
	/* the first few input files; "source files" gives the count */
	if (klen == 6 && !strncmp(key, "source", 6) && ++*nsource > 3) {
		if (*nsource == 4)
			printf("  %-30s ...\n", "");
		return;
	}
	if (klen == 6 && !strncmp(key, "format", 6)) /* printed above */
		return;
	/* each rank's file (the JSON has them): the sources say which */
	if (klen == 11 && !strncmp(key, "rank_source", 11))
		return;
	for (size_t i = 0; i < sizeof(note_labels) / sizeof(note_labels[0]); i++)
		if (strlen(note_labels[i].key) == klen && !strncmp(note_labels[i].key, key, klen))
			label = note_labels[i].label;
	if (label)
		printf("  %-30s %.*s\n", label, (int)vlen, val);
	else
		printf("  %-30.*s %.*s\n", (int)klen, key, (int)vlen, val);
}

static const char *trace_label(char *buf, size_t len, char *const *args, int nargs)
{
	const char *b = strrchr(args[0], '/');

	b = b && b[1] ? b + 1 : args[0];
	if (nargs > 1)
		snprintf(buf, len, "%s (+%d)", b, nargs - 1);
	else
		snprintf(buf, len, "%s", b);
	return buf;
}

static void print_dir_pattern(const char *name, const struct stat_dir *d)
{
	printf("  %-6s %-13s", name, stat_pattern_name(d->pattern));
	if (d->pattern == STAT_PAT_STRIDED)
		printf(" stride %" PRId64 " B,", d->top_delta);
	if (!d->requests) {
		printf("\n");
		return;
	}
	printf(" %" PRIu64 " requests, %" PRIu64 " transitions", d->requests, d->transitions);
	if (d->transitions) {
		printf(": %.1f%% sequential", 100.0 * (double)d->sequential / (double)d->transitions);
		if (d->top_delta_n)
			printf(", %.1f%% delta %" PRId64,
			       100.0 * (double)d->top_delta_n / (double)d->transitions, d->top_delta);
	}
	printf("; %.1f%% of size %" PRIu64 "\n",
	       100.0 * (double)d->top_size_n / (double)d->requests, d->top_size);
}

/* The sections about where the bytes went: Lustre OST sets, (file, rank)
 * pairs, hosts. */
static void print_groups(const struct loaded_trace *lt, const struct stat_report *r)
{
	if (r->nostsets || r->osts_unmatched) {
		printf("\nLustre OST sets (files with ops)\n");
		printf("  %-20s %7s %14s %14s\n", "osts", "files", "bytes_read", "bytes_written");
		for (uint32_t i = 0; i < r->nostsets; i++) {
			const struct stat_ostset *o = &r->ostsets[i];
			printf("  %-20s %7" PRIu32 " %14" PRIu64 " %14" PRIu64 "\n", o->osts, o->nfiles,
			       o->bytes_read, o->bytes_written);
		}
		if (r->osts_unmatched)
			printf("  (%" PRIu32 " layouts name paths without ops)\n", r->osts_unmatched);
	}

	printf("\nper file and rank (successful reads and writes)\n");
	printf("  %5s %10s %10s %14s %14s  %s\n", "rank", "reads", "writes", "bytes_read",
	       "bytes_written", "path");
	for (size_t i = 0; i < r->nfr; i++) {
		const struct stat_file_rank *f = &r->fr[i];
		char eb[8192];
		printf("  %5" PRIu32 " %10" PRIu64 " %10" PRIu64 " %14" PRIu64 " %14" PRIu64 "  %s\n",
		       f->rank, f->reads, f->writes, f->bytes_read, f->bytes_written,
		       text_esc(opstream_path(&lt->s, f->file), eb, sizeof eb));
	}

	if (r->nhosts) {
		printf("\nhosts\n");
		printf("  %-20s %6s %14s %14s  %s\n", "host", "ranks", "bytes_read", "bytes_written",
		       "rank indexes");
		for (uint32_t i = 0; i < r->nhosts; i++) {
			const struct stat_host *h = &r->hosts[i];
			printf("  %-20s %6" PRIu32 " %14" PRIu64 " %14" PRIu64 "  ", h->name[0] ? h->name :
			       "(unknown)", h->nranks, h->bytes_read, h->bytes_written);
			/* runs of consecutive indexes: 0-3,8,10-11 */
			for (uint32_t k = 0; k < h->nranks;) {
				uint32_t e2 = k;
				while (e2 + 1 < h->nranks && h->ranks[e2 + 1] == h->ranks[e2] + 1)
					e2++;
				printf("%s%" PRIu32, k ? "," : "", h->ranks[k]);
				if (e2 > k)
					printf("-%" PRIu32, h->ranks[e2]);
				k = e2 + 1;
			}
			printf("\n");
		}
	}
}

static void print_text(const struct loaded_trace *lt, const struct stat_report *r,
		       const struct filter *filt, char *const *args, int nargs)
{
	char b1[64], b2[64], lbl[256], fbuf[64];

	trace_label(lbl, sizeof(lbl), args, nargs);
	printf("%-24s %-14s %-14s %s\n", "trace", "read", "write", "r/w ratio");
	printf("%-24s %-14s %-14s %s\n\n", lbl, stat_pattern_name(r->rd.pattern),
	       stat_pattern_name(r->wr.pattern),
	       stat_fmt_ratio(b1, sizeof(b1), r->rd.bytes, r->wr.bytes));

	printf("%-14s %s\n", "format", stream_format(lt, fbuf, sizeof(fbuf)));
	{
		char inc[128];
		const char *iv = opstream_info(&lt->s, "incomplete", inc, sizeof(inc));
		if (iv && *iv)
			printf("%-14s yes: %s (DXT's buffer filled up: what follows is a time prefix"
			       " of the job)\n", "incomplete", iv);
	}
	printf("%-14s %" PRIu32, "ranks", r->nranks);
	/* as run counts them: the trace's ranks, those left with no op by
	 * the path rules (mpirun itself under strace -f) said apart */
	if (filt && (filt->ranks_empty || filt->ranks_unselected || filt->ranks_launcher)) {
		const char *sep = "";
		printf(" (of the trace's %" PRIu32 ":", lt->s.nranks);
		if (filt->ranks_unselected) {
			printf(" %" PRIu32 " not in --ranks", filt->ranks_unselected);
			sep = ",";
		}
		if (filt->ranks_launcher) {
			/* mpirun writing the job's output to a file (job.out) */
			printf("%s %" PRIu32 " launcher%s (", sep, filt->ranks_launcher,
			       filt->ranks_launcher == 1 ? "" : "s");
			for (uint32_t l = 0, n = 0; l < filt->nlaunchers; l++)
				if (filt->launchers[l].ops && n++ < 3)
					printf("%s%s", n > 1 ? ", " : "", filt->launchers[l].prog);
			printf("%s)", filt->ranks_launcher > 3 ? ", ..." : "");
			sep = ",";
		}
		if (filt->ranks_empty)
			printf("%s %" PRIu32 " with only filtered ops", sep, filt->ranks_empty);
		printf(")");
	}
	printf("\n");
	printf("%-14s %" PRIu32 " (%" PRIu32 " shared by several ranks, %" PRIu32 " private",
	       "files", r->nfiles, r->files_shared, r->nfiles - r->files_shared - r->files_failed);
	if (r->files_failed)
		printf(", %" PRIu32 " only in failed calls", r->files_failed);
	printf(")\n");
	printf("%-14s %" PRIu64 " (%" PRIu64 " failed)\n", "ops", r->nops, r->failed_ops);
	printf("%-14s %s (%" PRIu64 " ns)\n", "duration",
	       fmt_ns(b1, sizeof(b1), (double)r->duration_ns), r->duration_ns);
	printf("%-14s %" PRIu64 " B (%s) in %" PRIu64 " requests\n", "bytes read", r->rd.bytes,
	       fmt_bytes(b1, sizeof(b1), (double)r->rd.bytes), r->rd.requests);
	printf("%-14s %" PRIu64 " B (%s) in %" PRIu64 " requests\n", "bytes written", r->wr.bytes,
	       fmt_bytes(b2, sizeof(b2), (double)r->wr.bytes), r->wr.requests);
	report_filter_print(stdout, filt, 1);

	printf("\nop counts\n");
	for (unsigned k = 1; k < OP__COUNT; k++) {
		if (!r->kinds[k])
			continue;
		printf("  %-10s %" PRIu64, op_kind_name(k), r->kinds[k]);
		if (r->synth[k])
			printf(" (%" PRIu64 " synthesized: not in the trace)", r->synth[k]);
		printf("\n");
	}

	printf("\naccess patterns\n");
	print_dir_pattern("read", &r->rd);
	print_dir_pattern("write", &r->wr);

	printf("\nrequest sizes (bucket: up to the label inclusive)\n");
	printf("  %-8s %12s %12s\n", "size", "reads", "writes");
	for (unsigned i = 0; i < STAT_NBUCKETS; i++)
		printf("  %-8s %12" PRIu64 " %12" PRIu64 "\n", stat_bucket_label(i),
		       r->rd.hist[i], r->wr.hist[i]);

	printf("\nrequest sizes, Darshan's buckets (up to the bound inclusive; 1K = 1024)\n");
	printf("  %-8s %12s %12s\n", "size", "reads", "writes");
	for (unsigned i = 0; i < STAT_NDARSHAN; i++)
		printf("  %-8s %12" PRIu64 " %12" PRIu64 "\n", stat_darshan_bucket_label(i),
		       r->rd.dhist[i], r->wr.dhist[i]);

	printf("\nfiles\n");
	printf("  %-7s %5s %10s %14s %14s  %s\n", "sharing", "ranks", "ops", "bytes_read",
	       "bytes_written", "path");
	for (uint32_t i = 0; i < r->nfiles; i++) {
		const struct stat_file *f = &r->files[i];
		char eb[8192];
		printf("  %-7s %5" PRIu32 " %10" PRIu64 " %14" PRIu64 " %14" PRIu64 "  %s%s\n",
		       f->nranks > 1 ? "shared" : f->nranks ? "private" : "failed", f->nranks, f->ops, f->bytes_read,
		       f->bytes_written, text_esc(f->path, eb, sizeof eb),
		       f->truncated ? " (truncated name)" : "");
	}

	print_groups(lt, r);

	printf("\nper rank\n");
	printf("  %5s %-20s %10s %14s %14s %14s %12s %7s\n", "rank", "name", "ops", "bytes_read",
	       "bytes_written", "duration", "in ops", "think");
	for (uint32_t i = 0; i < r->nranks; i++) {
		const struct stat_rank *k = &r->ranks[i];
		uint64_t io = k->in_ops_ns < k->end_ns ? k->in_ops_ns : k->end_ns;
		char pct[16] = "-";
		if (k->timed && k->end_ns)
			snprintf(pct, sizeof(pct), "%.1f%%", 100.0 * (double)(k->end_ns - io) / (double)k->end_ns);
		const char *dur = fmt_ns(b1, sizeof(b1), (double)k->end_ns);
		const char *in = k->timed ? fmt_ns(b2, sizeof(b2), (double)io) : "-";
		printf("  %5" PRIu32 " %-*s %10" PRIu64 " %14" PRIu64 " %14" PRIu64 " %*s %*s %7s\n",
		       k->id, pad_width(20, k->name), k->name, k->ops, k->bytes_read, k->bytes_written,
		       pad_width(14, dur), dur, pad_width(12, in), in, pct);
	}

	printf("\nnotes\n");
	struct notes_text nt = { 0 };
	info_each(lt->s.info, note_skip_cb, &nt);
	if (nt.nskip)
		printf("  %-30s %.*s\n", "skipped non-I/O calls", (int)nt.len, nt.skipped);
	unsigned nsource = 0;
	info_each(lt->s.info, note_other_cb, &nsource);
	printf("  %-30s %" PRIu32 "\n", "truncated names made distinct", r->truncated_names);
	printf("  %-30s %" PRIu64 "\n", "data ops without a path", r->nofile_data_ops);
	if (strcmp(lt->res.format ? lt->res.format : "", "ops")) {
		char tmp[8];
		printf("  %-30s %" PRIu64 "\n", "lines read", lt->res.lines);
		if (!opstream_info(&lt->s, "bad_lines", tmp, sizeof(tmp)))
			printf("  %-30s %" PRIu64 "\n", "bad lines skipped", lt->res.bad_lines);
		if (lt->res.first_bad[0])
			printf("  %-30s %s\n", "first bad line", lt->res.first_bad);
	}
}

struct stat_cli {
	int json;
	struct filter_opts fo;
};

static int stat_option(void *ctx, int id, const char *arg)
{
	struct stat_cli *c = ctx;
	int f = filter_option(&c->fo, id, arg);
	if (f)
		return f < 0 ? -1 : 0;
	if (id == 'j')
		c->json = 1;
	return 0;
}

/* The trace through the filter into the accumulator, in one pass: from
 * the builder (nothing written), or from an .ops file given as the trace.
 * 0, or -1 with the reason printed. */
static int stat_stream(struct loaded_trace *lt, char **args, int nargs, const struct load_opts *lo,
		       struct filter *filt, const struct filter_opts *fo, struct stat_report *rep)
{
	struct stat_stream ss = { filt, NULL };
	struct ops_sink sink;
	struct rerr e = { { 0 } };
	int rc = filter_begin(filt, fo);

	if (!rc)
		rc = stat_acc_new(&ss.acc);
	if (rc < 0) {
		fprintf(stderr, "replay: out of memory\n");
		goto out;
	}
	stat_stream_sink(&ss, &sink);
	rc = cmd_stream_trace(lt, args, nargs, lo, &sink);
	if (rc == 1 && (rc = opstream_feed(&lt->s, &sink)) < 0)
		fprintf(stderr, "replay: cannot analyze '%s': %s\n", args[0], strerror(-rc));
	if (rc < 0)
		goto out;
	rc = filter_end(filt, lt->s.nranks, &e);
	if (rc < 0) {
		die_msg("%s", e.msg);
		goto out;
	}
	filter_note_rank_numbers(filt, &lt->s);
	rc = stat_acc_finish(ss.acc, &lt->s, filt, rep);
	if (rc < 0)
		fprintf(stderr, "replay: cannot analyze '%s': %s\n", args[0], strerror(-rc));
out:
	stat_acc_free(ss.acc);
	return rc < 0 ? -1 : 0;
}

int cmd_stat(int argc, char **argv)
{
	struct load_opts lo = { 0 };
	struct loaded_trace lt;
	struct stat_report rep;
	struct stat_cli cli = { 0 };
	struct filter filt = { 0 };
	struct rerr e = { { 0 } };
	int rc, ret = 1;

	memset(&lt, 0, sizeof(lt));
	memset(&rep, 0, sizeof(rep));
	rc = trace_cmd_args(CMD_STAT, argc, argv, &lo, stat_option, &cli);
	if (rc) {
		filter_opts_release(&cli.fo);
		return rc == 1 ? 0 : 2;
	}
	if (load_opts_check(&lo, &e) < 0) {
		die_msg("%s", e.msg);
		return 2;
	}

	if (stat_stream(&lt, argv + optind, argc - optind, &lo, &filt, &cli.fo, &rep) < 0)
		goto out;
	if (!lt.s.nranks) {
		char why[256];
		warn_msg("%s: the trace holds no ranks: run would have nothing to replay%s",
			 argv[optind], plan_no_ranks_why(&lt.s, why, sizeof why));
	}
	if (cli.json) {
		rc = print_json(&lt, &rep, &filt);
	} else {
		print_text(&lt, &rep, &filt, argv + optind, argc - optind);
		rc = 0;
	}
	if (fflush(stdout) == EOF || rc < 0) {
		fprintf(stderr, "replay: cannot write the report: %s\n", strerror(errno ? errno : EIO));
		goto out;
	}
	ret = 0;
out:
	stat_release(&rep);
	filter_release(&filt);
	filter_opts_release(&cli.fo);
	loaded_trace_close(&lt);
	return ret;
}
