/*
 * loaded.c - TRACE arguments to a mapped op stream, shared by the
 * stat, convert and dump subcommands; or (stat) to ops handed to a sink
 * with only the tables kept.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "trace/dxt.h"
#include "trace/trace.h"

int load_opts_check(const struct load_opts *o, struct rerr *e)
{
	enum dxt_layer dl;

	if (o->dxt_layer && dxt_layer_parse(o->dxt_layer, &dl) < 0)
		return rerr_set(e, -EINVAL, "unknown DXT layer '%s' (posix, mpiio)", o->dxt_layer);
	if (o->format && !trace_format_find(o->format))
		return rerr_set(e, -EINVAL, "unknown format '%s' (strace, lanl, sandia, dxt, fio-iolog)",
				o->format);
	return 0;
}

static void load_failed(int rc, char *const *args, int nargs, struct rerr *e)
{
	if (e && !e->msg[0])
		rerr_set(e, rc, "cannot load '%s': %s", nargs ? args[0] : "", strerror(-rc));
}

int trace_load_map(struct opstream *s, const struct load_result *res, const char **why)
{
	if (res->format && !strcmp(res->format, "ops"))
		return opstream_open(s, res->ops_path, why);
	return opstream_open_made(s, res->ops_path, why);
}

/* Map lt->res.ops_path (unlinked at once when temporary). */
static int map_loaded(struct loaded_trace *lt, struct rerr *e)
{
	const char *why = NULL;
	int rc = trace_load_map(&lt->s, &lt->res, &why);
	if (rc < 0) {
		if (rc == -EINVAL && why)
			rerr_set(e, rc, "%s: not a valid .ops file: %s", lt->res.ops_path, why);
		else
			rerr_set(e, rc, "cannot open '%s': %s", lt->res.ops_path, strerror(-rc));
		trace_load_opened(&lt->res);
		return rc;
	}
	lt->mapped = 1;
	trace_load_opened(&lt->res);
	return 0;
}

int loaded_trace_open(struct loaded_trace *lt, char *const *args, int nargs,
		      const struct load_opts *o, const char *out, struct rerr *e)
{
	uint64_t t0;
	int rc;

	memset(lt, 0, sizeof(*lt));
	t0 = now_ns();
	rc = trace_load(args, nargs, o, out, &lt->res, e);
	lt->load_ns = now_ns() - t0;
	if (rc < 0) {
		load_failed(rc, args, nargs, e);
		return rc;
	}
	return map_loaded(lt, e);
}

int loaded_trace_stream(struct loaded_trace *lt, char *const *args, int nargs,
			const struct load_opts *o, const struct ops_sink *sink, struct rerr *e)
{
	uint64_t t0;
	int rc;

	memset(lt, 0, sizeof(*lt));
	t0 = now_ns();
	rc = trace_load_sink(args, nargs, o, sink, &lt->s, &lt->res, e);
	lt->load_ns = now_ns() - t0;
	if (rc < 0) {
		load_failed(rc, args, nargs, e);
		return rc;
	}
	if (rc == 0) {
		lt->mapped = 1;         /* the tables, in memory */
		return 0;
	}
	rc = map_loaded(lt, e);
	return rc < 0 ? rc : 1;
}

void loaded_trace_close(struct loaded_trace *lt)
{
	if (lt->mapped)
		opstream_close(&lt->s);
	lt->mapped = 0;
	trace_load_opened(&lt->res);
}
