/*
 * cmd_dump.c - `replay dump`: an op stream as text, one op per line, in
 * stable whitespace-separated columns (documented in the man page):
 *
 *   rank t_ns dur_ns kind handle offset len result extra path
 *
 * Absent values print as "-"; `extra` is "-" or comma-separated
 * key=value items (oflags, mode, iov, id, flags); the path comes last so
 * that a path with spaces does not shift the other columns.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cmds.h"
#include "cmd/common.h"
#include "cmd/options.h"
#include "report/stat.h"
#include "trace/trace.h"


static const char *u32col(char *buf, size_t len, uint32_t v, uint32_t none)
{
	if (v == none)
		return "-";
	snprintf(buf, len, "%" PRIu32, v);
	return buf;
}

/* Offset and len only mean something for some kinds. */
static int has_offset(unsigned k)
{
	return op_is_data(k) || k == OP_SEEK || k == OP_FALLOCATE;
}

static int has_len(unsigned k)
{
	return op_is_data(k) || k == OP_FTRUNCATE || k == OP_FALLOCATE;
}

static void extra(char *buf, size_t len, const struct op *op)
{
	size_t n = 0;
	unsigned k = op->kind;

#define ADD(...)                                                                   \
	do {                                                                       \
		if (n < len) {                                                     \
			int w_ = snprintf(buf + n, len - n, "%s", n ? "," : "");   \
			if (w_ > 0)                                                \
				n += (size_t)w_;                                   \
		}                                                                  \
		if (n < len) {                                                     \
			int w_ = snprintf(buf + n, len - n, __VA_ARGS__);          \
			if (w_ > 0)                                                \
				n += (size_t)w_;                                   \
		}                                                                  \
	} while (0)

	buf[0] = 0;
	if (k == OP_OPEN || k == OP_SETFL)
		ADD("oflags=0x%" PRIx32, op->oflags);
	if (k == OP_OPEN) {
		ADD("mode=0%" PRIo32, op->aux);
	} else if (k == OP_MKDIR) {
		ADD("mode=0%" PRIo32, op->aux);
	} else if (k == OP_AREAD || k == OP_AWRITE || k == OP_AWAIT) {
		ADD("id=%" PRIu32, op->aux);
	} else if (k == OP_BARRIER) {
		ADD("seq=%" PRIu32, op->aux);
	} else if (k == OP_FALLOCATE) {
		char mb[256];
		ADD("mode=%s", op_falloc_mode_str(op->aux, mb, sizeof(mb)));
	}
	if (op_is_data(k) && (op->oflags & O_DIRECT))
		ADD("direct");
	if ((k == OP_READ || k == OP_WRITE || k == OP_AREAD || k == OP_AWRITE) && op->iovcnt != 1)
		ADD("iov=%u", (unsigned)op->iovcnt);
	if (op->flags & OPF_IMPLICIT_OPEN)
		ADD("implicit");
	if (op->flags & OPF_APPEND)
		ADD("append");
	if (op->flags & OPF_ASYNC_BYTES)
		ADD("iovbytes");
	if (op->flags & OPF_SYNTH)
		ADD("synth");
	if ((k == OP_STAT || k == OP_SEEK) && (op->flags & OPF_STAT_SIZE))
		ADD("size=%" PRIu64, op->len);
	if (k == OP_STAT && (op->flags & OPF_STAT_DIR))
		ADD("dir");
	if (op_is_data(k) && (op->flags & OPF_PIECE))
		ADD("piece");
	if ((k == OP_WRITE || k == OP_AWRITE) && (op->flags & OPF_RWF_DSYNC))
		ADD("dsync");
	if ((k == OP_WRITE || k == OP_AWRITE) && (op->flags & OPF_RWF_SYNC))
		ADD("sync");
	if (op->line)
		ADD("line=%" PRIu32, op->line);
#undef ADD
	if (!buf[0])
		snprintf(buf, len, "-");
}

/* A path as one field of one line: a control byte (a newline in a file
 * name) as \n, \t, \r or \xHH, and then, in such a path only, a
 * backslash doubled, as strace writes them; any other path as it is. */
static void put_path(const char *p)
{
	const char *c = p;

	while (*c && (unsigned char)*c >= 0x20 && *c != 0x7f)
		c++;
	if (!*c) {
		fputs(p, stdout);
		return;
	}
	for (c = p; *c; c++) {
		unsigned char b = (unsigned char)*c;
		if (b == '\n')
			fputs("\\n", stdout);
		else if (b == '\t')
			fputs("\\t", stdout);
		else if (b == '\r')
			fputs("\\r", stdout);
		else if (b == '\\')
			fputs("\\\\", stdout);
		else if (b < 0x20 || b == 0x7f)
			printf("\\x%02x", b);
		else
			putchar(b);
	}
}

static int dump_rank(const struct opstream *s, uint32_t r)
{
	uint64_t n;
	const struct op *ops = opstream_rank_ops(s, r, &n);
	char hb[16], ob[24], lb[24], xb[384];

	for (uint64_t i = 0; i < n; i++) {
		const struct op *op = &ops[i];
		unsigned k = op->kind;
		const char *path = op->file < s->npaths ? opstream_path(s, op->file) : "-";

		if (has_offset(k))
			snprintf(ob, sizeof(ob), "%" PRIu64, op->offset);
		else
			snprintf(ob, sizeof(ob), "-");
		if (has_len(k))
			snprintf(lb, sizeof(lb), "%" PRIu64, op->len);
		else
			snprintf(lb, sizeof(lb), "-");
		extra(xb, sizeof(xb), op);
		if (printf("%" PRIu32 " %" PRIu64 " %" PRIu64 " %s %s %s %s %" PRId64 " %s ",
			   r, op->t_ns, op->dur_ns, op_kind_name(k),
			   u32col(hb, sizeof(hb), op->handle, OP_NOHANDLE), ob, lb, op->result,
			   xb) < 0)
			return -EIO;
		put_path(path[0] ? path : "-");
		if (op_aux_is_path(k) && op->aux < s->npaths) {   /* (a symlink: its content) */
			fputs(" -> ", stdout);
			put_path(opstream_path(s, op->aux));
		}
		if (putchar('\n') == EOF)
			return -EIO;
	}
	return 0;
}

static int dump_option(void *ctx, int id, const char *arg)
{
	struct ranklist *ranks = ctx;
	if (id != OPT_RANKS)
		return 0;
	ranklist_free(ranks);
	if (ranklist_parse(arg, ranks)) {
		die_msg("dump: bad rank list '%s' (expected e.g. 3 or 0-3,7)", arg);
		return -1;
	}
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	struct load_opts lo = { 0 };
	struct loaded_trace lt;
	struct ranklist ranks = { 0 };
	struct rerr e = { { 0 } };
	int rc, ret = 1;

	memset(&lt, 0, sizeof(lt));
	rc = trace_cmd_args(CMD_DUMP, argc, argv, &lo, dump_option, &ranks);
	if (rc) {
		ranklist_free(&ranks);
		return rc == 1 ? 0 : 2;
	}
	if (load_opts_check(&lo, &e) < 0) {
		die_msg("%s", e.msg);
		return 2;
	}
	rc = cmd_load_trace(&lt, argv + optind, argc - optind, &lo, NULL);
	if (rc < 0)
		goto out;
	if (ranks.n && ranklist_max(&ranks) >= lt.s.nranks) {
		fprintf(stderr, "replay: dump: no rank %" PRIu32 " (the trace has %" PRIu32 " rank%s)\n",
			ranklist_max(&ranks), lt.s.nranks, lt.s.nranks == 1 ? "" : "s");
		goto out;
	}
	printf("# rank t_ns dur_ns kind handle offset len result extra path\n");
	for (uint32_t r = 0; r < lt.s.nranks; r++) {
		if (!ranklist_has(&ranks, r))
			continue;
		rc = dump_rank(&lt.s, r);
		if (rc < 0)
			break;
	}
	if (fflush(stdout) == EOF || rc < 0) {
		fprintf(stderr, "replay: cannot write the dump: %s\n", strerror(errno ? errno : EIO));
		goto out;
	}
	ret = 0;
out:
	ranklist_free(&ranks);
	loaded_trace_close(&lt);
	return ret;
}
