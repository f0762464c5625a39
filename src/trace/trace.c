/*
 * trace.c - the loader: TRACE arguments -> an .ops file (see trace.h).
 *
 * Expansion rules, in order, per argument:
 *   a directory          -> its regular files (not dot files), sorted by name
 *   an existing file     -> itself
 *   glob metacharacters  -> glob(3) matches, sorted (no match: error)
 *   PREFIX of strace -ff -> PREFIX.<digits> files, by pid
 *   "-"                  -> standard input (needs --format)
 *   otherwise            -> "cannot open 'x': No such file or directory"
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ops/builder.h"
#include "ops/opstream.h"
#include "trace/dxt.h"
#include "trace/trace.h"

const struct trace_format *const trace_formats[] = {
	&trace_strace, &trace_lanl, &trace_sandia, &trace_dxt, &trace_fioiolog, NULL
};

const struct trace_format *trace_format_find(const char *name)
{
	for (size_t i = 0; trace_formats[i]; i++)
		if (!strcmp(trace_formats[i]->name, name))
			return trace_formats[i];
	return NULL;
}

struct flist {
	char **v;
	size_t n, cap;
};

static int flist_add(struct flist *l, const char *s)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 16;
		char **n = realloc(l->v, nc * sizeof(*n));
		if (!n)
			return -ENOMEM;
		l->v = n;
		l->cap = nc;
	}
	l->v[l->n] = strdup(s);
	if (!l->v[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* PREFIX.<digits>: compare by the number so pids sort naturally */
static int cmp_pidsuffix(const void *a, const void *b)
{
	const char *x = strrchr(*(char *const *)a, '.'), *y = strrchr(*(char *const *)b, '.');
	long long u = atoll(x + 1), v = atoll(y + 1);
	return (u > v) - (u < v);
}

static int is_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static int expand_dir(const char *dir, struct flist *l, struct rerr *e)
{
	DIR *d = opendir(dir);
	struct flist tmp = { 0 };
	int rc = 0;
	if (!d)
		return rerr_set(e, -errno, "cannot open '%s': %s", dir, strerror(errno));
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[4096];
		struct stat st;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
			continue;
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		rc = flist_add(&tmp, path);
		if (rc)
			goto out;
	}
	if (!tmp.n) {
		rc = rerr_set(e, -ENOENT, "'%s': directory holds no trace files", dir);
		goto out;
	}
	qsort(tmp.v, tmp.n, sizeof(*tmp.v), cmp_str);
	for (size_t i = 0; i < tmp.n && !rc; i++)
		rc = flist_add(l, tmp.v[i]);
out:
	for (size_t i = 0; i < tmp.n; i++)
		free(tmp.v[i]);
	free(tmp.v);
	closedir(d);
	return rc;
}

static int expand_ff(const char *prefix, struct flist *l, int *found)
{
	char *dir = NULL, *pat = NULL;
	glob_t g = { 0 };
	struct flist tmp = { 0 };
	int rc = 0;
	*found = 0;
	/* escape glob metacharacters of the prefix itself */
	size_t n = strlen(prefix);
	pat = malloc(2 * n + 4);
	if (!pat)
		return -ENOMEM;
	char *o = pat;
	for (size_t i = 0; i < n; i++) {
		if (strchr("*?[\\", prefix[i]))
			*o++ = '\\';
		*o++ = prefix[i];
	}
	strcpy(o, ".*");
	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			const char *s = g.gl_pathv[i] + n + 1;
			struct stat st;
			if (!is_digits(s) || stat(g.gl_pathv[i], &st) || !S_ISREG(st.st_mode))
				continue;
			rc = flist_add(&tmp, g.gl_pathv[i]);
			if (rc)
				goto out;
		}
	}
	if (tmp.n) {
		qsort(tmp.v, tmp.n, sizeof(*tmp.v), cmp_pidsuffix);
		for (size_t i = 0; i < tmp.n && !rc; i++)
			rc = flist_add(l, tmp.v[i]);
		*found = 1;
	}
out:
	for (size_t i = 0; i < tmp.n; i++)
		free(tmp.v[i]);
	free(tmp.v);
	globfree(&g);
	free(pat);
	free(dir);
	return rc;
}

int trace_expand(char *const *args, int nargs, char ***files, size_t *nfiles, struct rerr *e)
{
	struct flist l = { 0 };
	int rc = 0;
	*files = NULL;
	*nfiles = 0;
	if (nargs <= 0) {
		rc = rerr_set(e, -EINVAL, "no trace given");
		goto out;
	}
	for (int i = 0; i < nargs; i++) {
		const char *a = args[i];
		struct stat st;
		if (!strcmp(a, "-")) {             /* standard input */
			rc = flist_add(&l, a);
			if (rc)
				goto out;
			continue;
		}
		if (!stat(a, &st)) {
			if (S_ISDIR(st.st_mode))
				rc = expand_dir(a, &l, e);
			else
				rc = flist_add(&l, a);
			if (rc)
				goto out;
			continue;
		}
		int err = errno;
		if (strpbrk(a, "*?[")) {
			glob_t g = { 0 };
			int gr = glob(a, 0, NULL, &g);
			if (gr == 0) {
				for (size_t k = 0; k < g.gl_pathc && !rc; k++)
					rc = flist_add(&l, g.gl_pathv[k]);
				globfree(&g);
				if (rc)
					goto out;
				continue;
			}
			globfree(&g);
			rc = rerr_set(e, -ENOENT, "no file matches '%s'", a);
			goto out;
		}
		int found;
		rc = expand_ff(a, &l, &found);
		if (rc)
			goto out;
		if (found)
			continue;
		rc = rerr_set(e, -err, "cannot open '%s': %s", a, strerror(err));
		goto out;
	}
	*files = l.v;
	*nfiles = l.n;
	return 0;
out:
	trace_files_free(l.v, l.n);
	if (rc == -ENOMEM)
		rerr_set(e, rc, "out of memory expanding trace arguments");
	return rc;
}

void trace_files_free(char **files, size_t n)
{
	if (!files)
		return;
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
}

static int supported(char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (size_t i = 0; trace_formats[i]; i++)
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", i ? ", " : "",
				      trace_formats[i]->name);
	return 0;
}

/* A file compressed by a tool whose output replay does not read. */
static int compressed_error(const char *file, const char *z, struct rerr *e)
{
	return rerr_set(e, -EINVAL, "'%s' is %s-compressed: replay reads traces uncompressed (and"
			" a DXT dump gzip-compressed too); decompress it first (%s -dk '%s')", file,
			z, z, file);
}

/* Pick the format whose probe is surest about the head of `file`.
 * *untold (when given) is set when the file could be read but is no
 * trace any probe knows (or empty). */
static int detect(const char *file, const struct trace_format **fmt, struct rerr *e,
		  bool *untold)
{
	if (untold)
		*untold = false;
	char head[65536];
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rerr_set(e, -errno, "cannot open '%s': %s", file, strerror(errno));
	ssize_t n = 0, r;
	while ((size_t)n < sizeof(head) && (r = read(fd, head + n, sizeof(head) - (size_t)n)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int err = errno;
			close(fd);
			return rerr_set(e, -err, "cannot read '%s': %s", file, strerror(err));
		}
		n += r;
	}
	close(fd);
	if (n == 0) {
		if (untold)
			*untold = true;
		return rerr_set(e, -EINVAL, "%s: empty file (0 bytes): no trace in it", file);
	}
	const char *z = compressed_magic(head, (size_t)n);
	if (z && strcmp(z, "gzip"))
		return compressed_error(file, z, e);
	if (z) {
		/* probe what it holds (dxt_input.c); only a TRACE_F_GZIP format
		 * may then take it (trace_load checks) */
		size_t dn = 0;
		int rc = trace_gunzip_head(file, head, sizeof(head), &dn, e);
		if (rc < 0)
			return rc;
		n = (ssize_t)dn;
	}
	/* a UTF-8 byte order mark: the readers skip it (lr_fill) */
	size_t off = n >= 3 && !memcmp(head, UTF8_BOM, 3) ? 3 : 0;
	int best = 0;
	*fmt = NULL;
	for (size_t i = 0; trace_formats[i]; i++) {
		int s = trace_formats[i]->probe ?
			trace_formats[i]->probe(head + off, (size_t)n - off) : 0;
		if (s > best) {
			best = s;
			*fmt = trace_formats[i];
		}
	}
	if (best < 20) {
		char list[256];
		supported(list, sizeof(list));
		if (untold)
			*untold = true;
		const char *nul = memchr(head, 0, (size_t)n);
		if (nul && n >= 2 && ((unsigned char)head[0] == 0xff || (unsigned char)head[0] == 0xfe) &&
		    (unsigned char)head[1] == ((unsigned char)head[0] ^ 1))
			return rerr_set(e, -EINVAL, "'%s' is UTF-16 text (it begins with a UTF-16 byte"
					" order mark): the readers take UTF-8 or ASCII text; convert it"
					" first (iconv -f UTF-16 -t UTF-8 '%s' > FILE)", file, file);
		if (nul) {
			unsigned long line = 1;
			for (const char *c = head; (c = memchr(c, '\n', (size_t)(nul - c))); c++)
				line++;
			return rerr_at(e, -EINVAL, file, line,
				       "a NUL byte (byte %zu of the %sfile): it holds binary bytes, so"
				       " it is no text trace, nor a binary one replay reads (a .darshan"
				       " log, an .ops file); cannot tell its trace format (supported:"
				       " %s)", (size_t)(nul - head) + 1, z ? "decompressed " : "", list);
		}
		return rerr_set(e, -EINVAL,
				"cannot tell the trace format of '%s' (supported: %s; use --format)",
				file, list);
	}
	return 0;
}

/* The name of the format `path` probes as, NULL when none (or it cannot
 * be read): trace_skipped_file's question, whether a file the reader
 * leaves out is a trace of another format. */
static const char *probe_name(const char *path)
{
	const struct trace_format *f = NULL;
	struct rerr ignored;
	return detect(path, &f, &ignored, NULL) == 0 && f ? f->name : NULL;
}

/* An .ops file given as the trace: used as it is.  1 when it is one. */
static int load_ops_file(char *const *args, int nargs, const struct load_opts *o,
			 struct load_result *res, struct rerr *e)
{
	if (nargs != 1 || ops_file_is(args[0]) != 1)
		return 0;
	if (o && o->format && strcmp(o->format, "ops"))
		return rerr_set(e, -EINVAL, "'%s' is an .ops file, not %s", args[0], o->format);
	if (strlen(args[0]) >= sizeof(res->ops_path))
		return rerr_set(e, -ENAMETOOLONG, "path too long: '%s'", args[0]);
	strcpy(res->ops_path, args[0]);
	res->format = "ops";
	return 1;
}

/* The format forced with --format, or detected from the first file
 * whose format can be told (a README or other non-trace file sorting
 * first in a directory is passed over: the reader then leaves it out and
 * says so); *chooser its index. */
static int choose_format(const struct load_opts *o, char **files, size_t nfiles,
			 const struct trace_format **fmt, size_t *chooser, struct rerr *e)
{
	*chooser = 0;
	char list[256];
	supported(list, sizeof(list));
	if (o && o->format) {
		*fmt = trace_format_find(o->format);
		if (!*fmt)
			return rerr_set(e, -EINVAL, "unknown trace format '%s' (supported: %s)",
					o->format, list);
		return 0;
	}
	if (!strcmp(files[0], "-"))
		return rerr_set(e, -EINVAL, "reading a trace from standard input needs --format (%s)",
				list);
	if (file_is_stream(files[0])) {
		struct stat st;
		const char *kind = stat(files[0], &st) ? "a stream"
				 : S_ISCHR(st.st_mode) ? "a character device"
				 : S_ISSOCK(st.st_mode) ? "a socket" : "a pipe";
		return rerr_set(e, -EINVAL, "'%s' is %s: its format cannot be probed without"
				" taking bytes from the reader; give --format (%s)", files[0], kind,
				list);
	}
	bool untold;
	int rc = detect(files[0], fmt, e, &untold);
	if (!rc || !untold)
		return rc;
	struct rerr first = *e;
	for (size_t i = 1; i < nfiles; i++) {
		struct rerr ignored;
		bool u;
		if (!strcmp(files[i], "-") || file_is_stream(files[i]))
			break;
		if (!detect(files[i], fmt, &ignored, &u)) {
			*chooser = i;
			return 0;
		}
		if (!u)
			break;          /* unreadable: the first file's message */
	}
	*e = first;
	return rc;
}

/* Compressed files among the given ones: bzip2, xz and zstd are refused
 * whatever the format (before it is chosen: a README passed over must not
 * give its message instead); the first gzip file in *gz, SIZE_MAX none
 * (gzip_check). */
static int compressed_check(char **files, size_t nfiles, size_t *gz, struct rerr *e)
{
	*gz = SIZE_MAX;
	for (size_t i = 0; i < nfiles; i++) {
		unsigned char m[16];
		ssize_t n;
		if (!strcmp(files[i], "-") || file_is_stream(files[i]))
			continue;       /* not probed: the reader gets every byte */
		int fd = open(files[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;       /* the reader says why */
		do
			n = read(fd, m, sizeof(m));
		while (n < 0 && errno == EINTR);
		close(fd);
		const char *z = n > 0 ? compressed_magic(m, (size_t)n) : NULL;
		if (z && strcmp(z, "gzip"))
			return compressed_error(files[i], z, e);
		if (z && *gz == SIZE_MAX)
			*gz = i;
	}
	return 0;
}

/* A file given twice (one argument repeated, a glob overlapping another,
 * a directory and a file in it): its ranks would be read, and replayed,
 * twice, the workload doubled without a word. */
struct fid { dev_t dev; ino_t ino; size_t i; };

static int cmp_fid(const void *a, const void *b)
{
	const struct fid *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static int duplicate_check(char **files, size_t n, struct rerr *e)
{
	struct fid *v = malloc((n ? n : 1) * sizeof(*v));
	size_t k = 0;
	int rc = 0;
	if (!v)
		return rerr_set(e, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		/* (standard input and pipes: nothing to compare) */
		if (strcmp(files[i], "-") && !stat(files[i], &st) && S_ISREG(st.st_mode))
			v[k++] = (struct fid){ st.st_dev, st.st_ino, i };
	}
	qsort(v, k, sizeof(*v), cmp_fid);
	for (size_t j = 1; j < k && !rc; j++)
		if (v[j].dev == v[j - 1].dev && v[j].ino == v[j - 1].ino)
			rc = rerr_set(e, -EINVAL, "'%s' and '%s' are one file, given twice: its ranks"
				      " would be replayed twice (for more processes than ranks, use -n)",
				      files[v[j - 1].i], files[v[j].i]);
	free(v);
	return rc;
}

/* Only a format that reads gzip itself (TRACE_F_GZIP) takes a gzip file. */
static int gzip_check(const struct trace_format *fmt, char **files, size_t gz, struct rerr *e)
{
	if ((fmt->flags & TRACE_F_GZIP) || gz == SIZE_MAX)
		return 0;
	return rerr_set(e, -EINVAL, "'%s' is gzip-compressed: the %s reader takes it"
			" uncompressed (gunzip it first)", files[gz], fmt->name);
}

/* After a temporary directory's name in a message: where it came from. */
static const char *tmpdir_from(void)
{
	const char *td = getenv("TMPDIR");
	return td && *td ? " ($TMPDIR)" : "";
}

/* res->ops_path: `out`, or a new temporary file in $TMPDIR: an unnamed
 * one (O_TMPFILE, *fd open on it: a SIGKILL while the trace is read, an
 * MPI_Abort's, leaves nothing) where the file system and /proc allow,
 * else a named one, unlinked as soon as it is mapped. */
static int output_path(const char *out, struct load_result *res, int *fd, struct rerr *e)
{
	*fd = -1;
	if (out) {
		if (strlen(out) >= sizeof(res->ops_path))
			return rerr_set(e, -ENAMETOOLONG, "path too long: '%s'", out);
		strcpy(res->ops_path, out);
		return 0;
	}
	const char *td = getenv("TMPDIR");
	if (!td || !*td)
		td = "/tmp";
	snprintf(res->tmpdir, sizeof(res->tmpdir), "%s", td);
	if (!access("/proc/self/fd", X_OK)) {
		*fd = open(td, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (*fd >= 0) {
			res->temporary = res->unnamed = true;
			res->unnamed_fd = -1;
			return 0;
		}
		/* other errors are the named file's too: it says them */
	}
	snprintf(res->ops_path, sizeof(res->ops_path), "%s/replay-XXXXXX.ops", td);
	int nfd = tmpfile_make(res->ops_path, 4, true);
	if (nfd < 0) {
		int err = errno;
		res->ops_path[0] = 0;
		return rerr_set(e, -err, "cannot create a temporary file in '%s'%s: %s", td,
				tmpdir_from(), strerror(err));
	}
	close(nfd);
	res->temporary = true;
	return 0;
}

/* The info blob: format, sources, bad lines, the parser's remarks. */
static int record_info(struct ops_writer *w, const struct trace_format *fmt,
		       struct trace_input *in)
{
	char num[32];
	int rc = opsw_info(w, "format", fmt->name);
	for (size_t i = 0; i < in->nfiles && i < 16 && !rc; i++)
		rc = opsw_info(w, "source", in->files[i]);
	snprintf(num, sizeof(num), "%zu", in->nfiles);
	if (!rc)
		rc = opsw_info(w, "source_files", num);
	snprintf(num, sizeof(num), "%" PRIu64, in->bad_lines);
	if (!rc)
		rc = opsw_info(w, "bad_lines", num);
	if (!rc && in->cut_lines) {
		snprintf(num, sizeof(num), "%" PRIu64, in->cut_lines);
		rc = opsw_info(w, "cut_lines", num);
		if (!rc)
			rc = opsw_info(w, "cut_line", in->first_cut);
	}
	if (!rc && in->skipped_files) {
		snprintf(num, sizeof(num), "%" PRIu64, in->skipped_files);
		rc = opsw_info(w, "skipped_files", num);
		if (!rc)
			rc = opsw_info(w, "skipped_file_names", in->skipped_names);
	}
	if (!rc && in->unfinished) {
		snprintf(num, sizeof(num), "%" PRIu64, in->unfinished);
		rc = opsw_info(w, "unfinished_at_end", num);
		if (!rc)
			rc = opsw_info(w, "unfinished_first", in->first_unfinished);
	}
	if (!rc && in->no_clock)
		rc = opsw_info(w, "no_common_clock", in->no_clock);
	if (!rc && in->note[0]) {
		/* the parser's remarks (rank assignment, names made distinct, ...):
		 * one info line, so newlines become "; " */
		for (char *c = in->note; *c; c++)
			if (*c == '\n')
				*c = (c[1] ? ';' : '\0');
		rc = opsw_info(w, "parser_note", in->note);
	}
	return rc;
}

/* Parse every file through the builder into w. */
static int parse_into(struct ops_writer *w, const struct trace_format *fmt,
		      struct trace_input *in, struct load_result *res, struct rerr *e)
{
	struct builder *b = NULL;
	int rc = builder_new(&b, w);
	if (rc)
		return rerr_set(e, rc, "out of memory");
	lr_saw_compressed = NULL;
	rc = fmt->parse(in, b, e);
	const char *z = lr_saw_compressed;
	if (z && ((rc < 0 && rc != -ENOMEM && rc != -EINTR) ||
		  (!rc && !builder_stats(b)->events))) {
		const char *f = in->nfiles ? in->files[0] : "-";
		bool gz = !strcmp(z, "gzip");
		rc = rerr_set(e, -EINVAL, "%s%s%s is %s-compressed: the %s reader takes text"
			      " (pipe it through '%s -dc'%s)", strcmp(f, "-") ? "'" : "",
			      strcmp(f, "-") ? f : "standard input", strcmp(f, "-") ? "'" : "",
			      z, fmt->name, z, gz && (fmt->flags & TRACE_F_GZIP) ?
			      ", or give the .gz file itself: it is decompressed then" : "");
	}
	res->bad_lines = in->bad_lines;
	res->lines = in->lines;
	res->bytes = in->bytes;
	memcpy(res->first_bad, in->first_bad, sizeof(res->first_bad));
	if (!rc && !builder_stats(b)->events)
		rc = rerr_set(e, -EINVAL, "%s: no %s calls found (an empty trace%s)",
			      in->nfiles ? in->files[0] : "(no files)", fmt->name,
			      in->bad_lines ? ", every line malformed" : "");
	if (!rc)
		rc = builder_finish(b, e);
	if (!rc && (rc = record_info(w, fmt, in)))
		rc = rerr_set(e, rc, "cannot record trace info: %s", strerror(-rc));
	if (!rc)
		res->stats = *builder_stats(b);
	builder_free(b);
	return rc;
}

/* The writer: a file at res->ops_path, or the sink. */
static int writer_open(struct ops_writer **w, const char *out, const struct ops_sink *sink,
		       struct load_result *res, struct rerr *e)
{
	int rc;

	if (sink) {
		rc = opsw_open_sink(w, sink);
		return rc ? rerr_set(e, rc, "out of memory") : 0;
	}
	int fd;
	rc = output_path(out, res, &fd, e);
	if (!rc && res->unnamed && (rc = opsw_open_unnamed(w, res->tmpdir, fd)))
		rc = rerr_set(e, rc, "cannot create a temporary file in '%s'%s: %s", res->tmpdir,
			      tmpdir_from(), strerror(-rc));
	else if (!rc && !res->unnamed && (rc = opsw_open(w, res->ops_path)))
		rc = rerr_set(e, rc, "cannot create '%s': %s", res->ops_path, strerror(-rc));
	return rc;
}

/* Finish the writer: the file, or the sink's tables into s. */
static int writer_finish(struct ops_writer *w, const struct ops_sink *sink, struct opstream *s,
			 struct load_result *res, struct rerr *e)
{
	const char *why = NULL;
	int rc;

	if (!sink) {
		int fd = -1;
		rc = res->unnamed ? opsw_finish_unnamed(w, &why, &fd) : opsw_finish(w, &why);
		if (rc == -EINVAL && why)
			return rerr_set(e, rc, "%s: the ops made are not valid: %s", res->files0, why);
		if (rc && res->unnamed)
			return rerr_set(e, rc, "cannot write a temporary file in '%s': %s",
					res->tmpdir, strerror(-rc));
		if (rc)
			return rerr_set(e, rc, "cannot write '%s': %s", res->ops_path, strerror(-rc));
		if (res->unnamed) {
			res->unnamed_fd = fd;
			snprintf(res->ops_path, sizeof(res->ops_path), "/proc/self/fd/%d", fd);
		}
		return 0;
	}
	rc = opsw_finish_tables(w, s, &why);
	if (rc == -EINVAL && why)
		return rerr_set(e, rc, "%s: the ops made are not valid: %s", res->files0, why);
	return rc ? rerr_set(e, rc, "out of memory") : 0;
}

/* A parse error in a file other than the first, whose format was taken
 * from the first: when that file looks like another format, say so (a
 * strace capture given with a LANL directory failed "expected a duration"
 * on a LANL line, nothing more). */
static void mixed_formats_hint(char **files, size_t nfiles, size_t chooser,
			       const struct trace_format *fmt, struct rerr *e)
{
	if (e && strstr(e->msg, "give traces of one format at a time"))
		return;         /* trace_skipped_file said it */
	for (size_t i = 0; e && i < nfiles; i++) {
		size_t n = strlen(files[i]);
		const struct trace_format *other = NULL;
		struct rerr ignored;
		char quoted[4200];
		/* FILE:LINE: ..., or a message naming 'FILE' (LANL's "cannot
		 * match 'FILE' to a rank of the timing file") */
		snprintf(quoted, sizeof(quoted), "'%s'", files[i]);
		if (i == chooser || ((strncmp(e->msg, files[i], n) || e->msg[n] != ':') &&
				     !strstr(e->msg, quoted)))
			continue;
		if (detect(files[i], &other, &ignored, NULL) == 0 && other && other != fmt) {
			size_t l = strlen(e->msg);
			snprintf(e->msg + l, sizeof(e->msg) - l,
				 " ('%s' looks like a %s trace, '%s' like %s, which chose the reader:"
				 " give traces of one format at a time)", files[i], other->name,
				 files[chooser], fmt->name);
		}
		return;
	}
}

/* trace_load(), or with a sink trace_load_sink(). */
static int load(char *const *args, int nargs, const struct load_opts *o, const char *out,
		const struct ops_sink *sink, struct opstream *s, struct load_result *res,
		struct rerr *e)
{
	char **files = NULL;
	size_t nfiles = 0;
	struct ops_writer *w = NULL;
	const struct trace_format *fmt = NULL;
	memset(res, 0, sizeof(*res));
	int rc = load_ops_file(args, nargs, o, res, e);
	if (rc)
		return rc > 0 ? (sink ? 1 : 0) : rc;
	rc = trace_expand(args, nargs, &files, &nfiles, e);
	if (!rc)
		rc = duplicate_check(files, nfiles, e);
	if (rc) {
		trace_files_free(files, nfiles);
		return rc;
	}
	snprintf(res->files0, sizeof(res->files0), "%s", files[0]);
	size_t chooser = 0, gz = SIZE_MAX;
	rc = compressed_check(files, nfiles, &gz, e);
	if (!rc)
		rc = choose_format(o, files, nfiles, &fmt, &chooser, e);
	if (!rc)
		rc = gzip_check(fmt, files, gz, e);
	if (!rc)
		rc = writer_open(&w, out, sink, res, e);
	if (!rc) {
		struct trace_input in = { .files = files, .nfiles = nfiles,
					  .skip_bad = o ? o->skip_bad : false,
					  .dxt_layer = o ? o->dxt_layer : NULL,
					  .format = fmt->name, .probe_name = probe_name };
		rc = parse_into(w, fmt, &in, res, e);
		if (rc < 0 && !(o && o->format))
			mixed_formats_hint(files, nfiles, chooser, fmt, e);
	}
	if (!rc) {
		res->format = fmt->name;
		rc = writer_finish(w, sink, s, res, e);
		w = NULL;
	}
	if (w)
		opsw_abort(w);
	trace_files_free(files, nfiles);
	if (rc)
		trace_load_opened(res);
	return rc;
}

int trace_load(char *const *args, int nargs, const struct load_opts *o, const char *out,
	       struct load_result *res, struct rerr *e)
{
	return load(args, nargs, o, out, NULL, NULL, res, e);
}

int trace_load_sink(char *const *args, int nargs, const struct load_opts *o,
		    const struct ops_sink *sink, struct opstream *s, struct load_result *res,
		    struct rerr *e)
{
	return load(args, nargs, o, NULL, sink, s, res, e);
}

void trace_load_opened(struct load_result *res)
{
	if (!res->temporary)
		return;
	if (res->unnamed && res->unnamed_fd >= 0)
		close(res->unnamed_fd);
	else if (!res->unnamed && res->ops_path[0]) {
		unlink(res->ops_path);
		tmpfile_untrack(res->ops_path);
	}
	res->temporary = res->unnamed = false;
}
