/*
 * fioiolog.c - fio iologs: export an op stream as "version 2" (or 3)
 * iologs, one per rank, and read v2/v3 iologs as a trace format.
 *
 *   fio version 2 iolog
 *   FILE add                      (each file the rank uses, first)
 *   FILE open
 *   FILE read|write OFFSET LENGTH
 *   FILE sync|datasync 0 0
 *   FILE close
 *
 * Version 3 puts the time before every line: microseconds since the rank's
 * first op (fio 3.31 to 3.38 write and read microseconds: their write_iolog
 * prints utime_since_now(), checked with a thinktime job).
 *
 * FILE is the traced path mapped beneath the target exactly as the runner
 * maps it (plan.h): "/a/b" -> TARGET/a/b, "x/y" -> TARGET/x/y, "." and
 * empty components dropped, ".." that would climb above the root refused.
 * fio reads the names with whitespace-separated fields, so a path with
 * blanks cannot be expressed and is refused too (never silently changed).
 *
 * A file opened through several handles at once is opened once in the log
 * (first open) and closed once (last close): fio tracks files, not fds.
 * Ops fio cannot replay (metadata, ftruncate, fallocate, barriers, mmap)
 * are left out (fallocates counted: fallocate_ops); async submits become
 * plain reads/writes (fio's iodepth gives the overlap).  Zero-length transfers are left out (fio rejects them), and so
 * are calls the trace shows failing (replay run skips them too).  Opens
 * fio cannot do (O_DIRECTORY, O_PATH, the root itself: glibc and Open MPI
 * open "/" so) and every call on the descriptors they return are left out
 * and counted (unfit_ops); an O_TMPFILE file is a file of its traced name
 * ("DIR/#INODE") for fio.  With a filter (filter.h, as `replay run`
 * builds it), only its kept ranks are exported and only the ops
 * filter_op_kept keeps: the logs hold what run would replay.
 *
 * The logs go to hidden temporary files in DIR (the trace reader skips
 * dot files), renamed into place once every one is complete.
 */
#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/fioiolog.h"

/* Map a traced path beneath `target` into out.  -EINVAL when it climbs
 * above the root or holds characters fio's parser splits on; -EISDIR when
 * it names the root itself ("/", "."). */
static int map_path(const char *target, const char *path, char *out, size_t outlen)
{
	size_t tl = strlen(target), n;
	const char *p = path;
	size_t depth = 0;
	size_t marks[512];

	if (!*path)
		return -EINVAL;
	for (const char *c = path; *c; c++)
		if (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r')
			return -EINVAL;
	if (tl + 1 >= outlen)
		return -ENAMETOOLONG;
	memcpy(out, target, tl);
	while (tl > 1 && out[tl - 1] == '/')
		tl--;
	if (tl == 1 && out[0] == '/')
		tl = 0;         /* the root: "/x", not "//x" */
	n = tl;
	while (*p) {
		const char *s;
		size_t cl;

		while (*p == '/')
			p++;
		s = p;
		while (*p && *p != '/')
			p++;
		cl = (size_t)(p - s);
		if (!cl || (cl == 1 && s[0] == '.'))
			continue;
		if (cl == 2 && s[0] == '.' && s[1] == '.') {
			if (!depth)
				return -EINVAL;
			n = marks[--depth];
			continue;
		}
		if (depth >= sizeof(marks) / sizeof(marks[0]))
			return -ENAMETOOLONG;
		if (n + 1 + cl + 1 > outlen)
			return -ENAMETOOLONG;
		marks[depth++] = n;
		out[n++] = '/';
		memcpy(out + n, s, cl);
		n += cl;
	}
	if (!depth)
		return -EISDIR; /* the root itself is no file */
	out[n] = '\0';
	return 0;
}

/* the longest file name fio reads from an iolog line (its "%256s") */
#define FIO_NAME_MAX 256
/* the latest time (and longest wait) in an iolog: (2^63 - 1) ns, in us */
#define IOLOG_MAX_US ((uint64_t)INT64_MAX / 1000)
/* Open flags as the op stream normalizes them (Linux x86_64 values). */
#define LX_O_DIRECTORY 0200000u
#define LX_O_PATH      010000000u

/* A handle whose open fio cannot replay (a directory, O_PATH): the calls
 * on it are left out too, and counted. */
#define H_UNFIT (OP_NOFILE - 1)

struct rank_state {
	uint32_t *handle_file;  /* handle -> path id, OP_NOFILE unknown, H_UNFIT */
	uint32_t nhandles;
	uint32_t *opens;        /* path id -> open handles              */
	char **names;           /* path id -> mapped name (lazily)      */
	uint8_t *root;          /* path id -> 1: names the target itself */
};

/* One export: what every rank shares. */
struct xport {
	const struct opstream *s;
	const char *target;
	const struct filter *filt;
	unsigned version;
	FILE *f;
	uint64_t lines, data;   /* the rank's action lines, its reads and writes */
	struct rank_state st;
	struct fio_export_stats *stats;
	struct rerr *e;
	uint8_t *isdir;         /* per path: the trace shows it is a directory */
};

static int handle_set(struct rank_state *st, uint32_t h, uint32_t file)
{
	if (h >= st->nhandles) {
		uint32_t n = st->nhandles ? st->nhandles : 16;
		uint32_t *nh;

		while (n <= h) {
			if (n > UINT32_MAX / 2)
				return -ENOMEM;
			n *= 2;
		}
		nh = realloc(st->handle_file, n * sizeof(*nh));
		if (!nh)
			return -ENOMEM;
		for (uint32_t i = st->nhandles; i < n; i++)
			nh[i] = OP_NOFILE;
		st->handle_file = nh;
		st->nhandles = n;
	}
	st->handle_file[h] = file;
	return 0;
}

static uint32_t handle_get(const struct rank_state *st, uint32_t h)
{
	return h < st->nhandles ? st->handle_file[h] : OP_NOFILE;
}

/* The mapped name of path `file` in *name: 0; 1 when the path names the
 * target itself (a directory: no file fio could open); -errno + e when it
 * cannot be written in an iolog. */
static int name_of(struct xport *x, uint32_t file, const char **name)
{
	const struct opstream *s = x->s;
	struct rank_state *st = &x->st;
	char buf[4096];
	int ret;

	if (file >= s->npaths)
		return rerr_set(x->e, -EINVAL, "op names path id %u, beyond the path table (%u)",
				file, s->npaths);
	if (st->root[file])
		return 1;
	if (!st->names[file]) {
		ret = map_path(x->target, opstream_path(s, file), buf, sizeof(buf));
		if (ret == -EISDIR) {
			st->root[file] = 1;
			return 1;
		}
		if (ret == -EINVAL)
			return rerr_set(x->e, ret, "cannot export '%s' to a fio iolog: %s",
					opstream_path(s, file),
					strpbrk(opstream_path(s, file), " \t\r\n")
						? "fio iologs cannot name files with blanks"
						: "the path climbs above the target");
		if (ret < 0)
			return rerr_set(x->e, ret, "cannot export '%s' to a fio iolog: %s",
					opstream_path(s, file), strerror(-ret));
		/* fio reads an iolog's file name into 256 bytes ("%256s"):
		 * a longer one it would read cut, and refuse the line */
		if (strlen(buf) > FIO_NAME_MAX)
			return rerr_set(x->e, -ENAMETOOLONG, "cannot export '%s' to a fio iolog: "
					"its name beneath the target, %zu bytes, is longer than "
					"the %d fio reads (use a shorter --target)",
					opstream_path(s, file), strlen(buf), FIO_NAME_MAX);
		st->names[file] = strdup(buf);
		if (!st->names[file])
			return rerr_set(x->e, -ENOMEM, "out of memory");
	}
	*name = st->names[file];
	return 0;
}

/* Version 3: the line's time (us since the rank's first op) first. */
static void stamp(struct xport *x, uint64_t t_ns)
{
	if (x->version == 3)
		fprintf(x->f, "%llu ", (unsigned long long)(t_ns / 1000));
	x->lines++;
}

/* An open of a path the filter keeps that fio can replay: 0 and its name;
 * 1 fio cannot (a directory or O_PATH open); -errno + e.  An O_TMPFILE
 * open (its bits hold O_DIRECTORY's) is its unnamed file's, which fio
 * replays as a file of that name ("DIR/#INODE"). */
static int open_name(struct xport *x, const struct op *o, const char **name)
{
	if ((o->oflags & LX_O_PATH) ||
	    ((o->oflags & LX_O_DIRECTORY) && !op_oflags_tmpfile(o->oflags)))
		return 1;
	if (o->file < x->s->npaths && x->isdir[o->file])
		return 1;       /* opened without O_DIRECTORY (sqlite fsyncs its dir so) */
	return name_of(x, o->file, name);
}

/* Pass 1 of a rank: every file it opens (successfully), added up front. */
static int add_files(struct xport *x, const struct op *ops, uint64_t n, uint8_t *used)
{
	const char *name;

	for (uint64_t i = 0; i < n; i++) {
		if (ops[i].kind != OP_OPEN || ops[i].file == OP_NOFILE ||
		    ops[i].file >= x->s->npaths || ops[i].result < 0)
			continue; /* a failed open names no file fio should add */
		if (used[ops[i].file] || !filter_op_kept(x->filt, &ops[i]))
			continue;
		int ret = open_name(x, &ops[i], &name);
		if (ret < 0)
			return ret;
		if (ret)
			continue;
		used[ops[i].file] = 1;
		stamp(x, 0);
		fprintf(x->f, "%s add\n", name);
	}
	return 0;
}

/* The handle's file is closed once more: the log's close at the last. */
static void file_closed(struct xport *x, uint32_t file, uint64_t t_ns)
{
	struct rank_state *st = &x->st;

	if (file < x->s->npaths && st->opens[file] && --st->opens[file] == 0) {
		stamp(x, t_ns);
		fprintf(x->f, "%s close\n", st->names[file]);
	}
}

static int export_rank(struct xport *x, uint32_t r)
{
	const struct opstream *s = x->s;
	struct rank_state *st = &x->st;
	uint64_t n, t_last = 0;
	const struct op *ops = opstream_rank_ops(s, r, &n);
	const char *name;
	uint8_t *used = calloc(s->npaths ? s->npaths : 1, 1);
	int ret = 0;

	if (!used)
		return rerr_set(x->e, -ENOMEM, "out of memory");
	fprintf(x->f, "fio version %u iolog\n", x->version);
	ret = add_files(x, ops, n, used);
	if (ret < 0)
		goto out;
	/* pass 2: the actions, in trace order */
	for (uint64_t i = 0; i < n; i++) {
		const struct op *o = &ops[i];
		uint32_t file;
		const char *act = NULL;

		t_last = o->t_ns;
		if (o->kind == OP_OPEN) {
			if (o->file == OP_NOFILE || o->file >= s->npaths || o->handle == OP_NOHANDLE)
				continue;
			if (o->result < 0)
				continue; /* the traced open failed: no handle */
			/* the handle is taken anew: what it named is closed */
			file_closed(x, handle_get(st, o->handle), o->t_ns);
			if (!filter_op_kept(x->filt, o)) {
				ret = handle_set(st, o->handle, OP_NOFILE);
				if (ret < 0)
					goto out;
				continue;
			}
			ret = open_name(x, o, &name);
			if (ret < 0)
				goto out;
			if (ret) {
				x->stats->unfit_ops++;
				ret = handle_set(st, o->handle, H_UNFIT);
				if (ret < 0)
					goto out;
				continue;
			}
			ret = handle_set(st, o->handle, o->file);
			if (ret < 0)
				goto out;
			if (st->opens[o->file]++ == 0) {
				stamp(x, o->t_ns);
				fprintf(x->f, "%s open\n", name);
			}
			continue;
		}
		if (!filter_op_kept(x->filt, o))
			continue;
		file = handle_get(st, o->handle);
		if (file == H_UNFIT) {
			/* a call on a directory or O_PATH descriptor */
			x->stats->unfit_ops++;
			if (o->kind == OP_CLOSE)
				handle_set(st, o->handle, OP_NOFILE);
			continue;
		}
		switch (o->kind) {
		case OP_CLOSE:
			if (file == OP_NOFILE)
				continue;
			handle_set(st, o->handle, OP_NOFILE);
			file_closed(x, file, o->t_ns);
			continue;
		case OP_READ:
		case OP_AREAD:
			act = "read";
			break;
		case OP_WRITE:
		case OP_AWRITE:
			act = "write";
			break;
		case OP_FSYNC:
			act = "sync";
			break;
		case OP_FDATASYNC:
			act = "datasync";
			break;
		case OP_FALLOCATE:
			/* no fallocate in an iolog: counted, for the summary */
			if (file != OP_NOFILE && st->opens[file] && o->result >= 0)
				x->stats->fallocate_ops++;
			continue;
		default:
			continue;
		}
		if (file == OP_NOFILE || !st->opens[file])
			continue; /* handle never opened in the trace (or filtered) */
		if (o->result < 0)
			continue; /* the traced call failed: replay skips it too */
		if (op_is_data(o->kind)) {
			uint64_t len = o->len;
			/* a read or write the trace shows short moved what it
			 * returned: fio counts a short transfer as an error (a
			 * read at the end of the file moved nothing) */
			if ((o->kind == OP_READ || o->kind == OP_WRITE) && (uint64_t)o->result < len)
				len = (uint64_t)o->result;
			if (!len)
				continue;
			x->data++;
			stamp(x, o->t_ns);
			fprintf(x->f, "%s %s %llu %llu\n", st->names[file], act,
				(unsigned long long)o->offset, (unsigned long long)len);
		} else {
			stamp(x, o->t_ns);
			fprintf(x->f, "%s %s 0 0\n", st->names[file], act);
		}
	}
	/* what the trace left open is closed, as at process exit */
	for (uint32_t p = 0; p < s->npaths; p++)
		if (st->opens[p]) {
			stamp(x, t_last);
			fprintf(x->f, "%s close\n", st->names[p]);
			st->opens[p] = 0;
		}
out:
	free(used);
	return ret;
}

/* Write rank r's log to a new temporary file in dir; its name in *tmp
 * (NULL, the file removed, when the log holds no read or write: fio
 * refuses such a log, "failed initializing iolog"). */
static int write_rank(struct xport *x, const char *dir, uint32_t r, char **tmp)
{
	char path[4096];
	int fd, ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/.rank-%u.iolog.XXXXXX", dir, r) >= sizeof(path))
		return rerr_set(x->e, -ENAMETOOLONG, "cannot create '%s/rank-%u.iolog': %s", dir, r,
				strerror(ENAMETOOLONG));
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return rerr_set(x->e, -errno, "cannot create a temporary file in '%s': %s", dir,
				strerror(errno));
	*tmp = strdup(path);
	if (!*tmp) {
		close(fd);
		unlink(path);
		return rerr_set(x->e, -ENOMEM, "out of memory");
	}
	if (fchmod(fd, 0644) < 0 || !(x->f = fdopen(fd, "w"))) {
		ret = rerr_set(x->e, -errno, "cannot write '%s': %s", path, strerror(errno));
		close(fd);
		return ret;
	}
	for (uint32_t h = 0; h < x->st.nhandles; h++)
		x->st.handle_file[h] = OP_NOFILE;
	x->lines = x->data = 0;
	ret = export_rank(x, r);
	if (!ret && ferror(x->f))
		ret = rerr_set(x->e, -EIO, "cannot write '%s': %s", path, strerror(EIO));
	if (fclose(x->f) && !ret)
		ret = rerr_set(x->e, -errno, "cannot write '%s': %s", path, strerror(errno));
	x->f = NULL;
	if (!ret && !x->data) {
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
		x->stats->ranks_no_io++;
	} else if (!ret) {
		x->stats->ranks++;
		x->stats->lines += x->lines;
	}
	return ret;
}

static int cmp_path_idx(const void *a, const void *b, void *arg)
{
	const struct opstream *s = arg;
	return strcmp(opstream_path(s, *(const uint32_t *)a), opstream_path(s, *(const uint32_t *)b));
}

/* The paths the trace shows are directories, whatever flags they were
 * opened with: one that another path lies beneath, one made by mkdir, one
 * a traced stat found to be a directory.  0 or -ENOMEM. */
static int known_dirs(const struct opstream *s, uint8_t *isdir)
{
	uint32_t n = s->npaths, *v = malloc((n ? n : 1) * sizeof(*v));
	char pre[PATH_MAX + 1];

	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		v[i] = i;
	qsort_r(v, n, sizeof(*v), cmp_path_idx, (void *)s);
	for (uint32_t i = 0; i < n; i++) {
		const char *p = opstream_path(s, v[i]);
		size_t l = strlen(p);
		if (!l || l >= PATH_MAX)
			continue;
		memcpy(pre, p, l);
		pre[l] = '/';
		pre[l + 1] = 0;
		/* the first path not below pre+"/": its own descendants sort
		 * right after pre+"/", so a binary search finds one */
		uint32_t lo = i + 1, hi = n;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (strcmp(opstream_path(s, v[mid]), pre) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n && !strncmp(opstream_path(s, v[lo]), pre, l + 1))
			isdir[v[i]] = 1;
	}
	free(v);
	for (uint32_t r = 0; r < s->nranks; r++) {
		uint64_t m;
		const struct op *ops = opstream_rank_ops(s, r, &m);
		for (uint64_t i = 0; i < m; i++)
			if (ops[i].file < n && ops[i].result >= 0 &&
			    (ops[i].kind == OP_MKDIR ||
			     (ops[i].kind == OP_STAT && (ops[i].flags & OPF_STAT_DIR))))
				isdir[ops[i].file] = 1;
	}
	return 0;
}

/* After an export into dir: the rank-<N>.iolog files it did not write
 * (an earlier export's, of another trace or of ranks with no read or
 * write now) are removed, so DIR/rank-*.iolog is this export's logs and no
 * others.  Other names are left alone. */
static int remove_stale(const char *dir, uint32_t nstream, char **tmp, const struct filter *filt,
			uint32_t nranks, struct fio_export_stats *st, struct rerr *e)
{
	uint8_t *mine = calloc(nstream ? nstream : 1, 1);
	DIR *d = opendir(dir);
	struct dirent *de;
	int ret = 0;

	if (!mine || !d) {
		ret = !mine ? rerr_set(e, -ENOMEM, "out of memory")
			    : rerr_set(e, -errno, "cannot read '%s': %s", dir, strerror(errno));
		goto out;
	}
	for (uint32_t i = 0; i < nranks; i++)
		if (tmp[i])
			mine[filt ? filt->kept[i] : i] = 1;
	while ((de = readdir(d))) {
		const char *nm = de->d_name, *q = nm + 5;
		char *end;
		if (strncmp(nm, "rank-", 5) || !isdigit((unsigned char)*q))
			continue;
		unsigned long long r = strtoull(q, &end, 10);
		if (strcmp(end, ".iolog") || (r < nstream && mine[r]))
			continue;
		char path[4096];
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, nm) >= sizeof(path))
			continue;
		if (unlink(path) < 0) {
			ret = rerr_set(e, -errno, "cannot remove '%s' (a log of an earlier export): %s",
				       path, strerror(errno));
			break;
		}
		st->stale_removed++;
	}
out:
	if (d)
		closedir(d);
	free(mine);
	return ret;
}

int fio_iolog_export(const struct opstream *s, const char *dir, const struct fio_export_opts *o,
		     struct fio_export_stats *stats, struct rerr *e)
{
	const struct filter *filt = o ? o->filter : NULL;
	uint32_t avail = filt ? filt->nkept : s->nranks;
	uint32_t nranks = o && o->nranks && o->nranks < avail ? o->nranks : avail;
	struct fio_export_stats dummy;
	struct xport x = { .s = s, .target = o && o->target ? o->target : ".", .filt = filt,
			   .version = o && o->version ? o->version : 2,
			   .stats = stats ? stats : &dummy, .e = e };
	struct rank_state *st = &x.st;
	char **tmp = NULL, path[4096];
	uint32_t done = 0;
	bool made = false;
	int ret = 0;

	memset(x.stats, 0, sizeof(*x.stats));
	if (x.version != 2 && x.version != 3)
		return rerr_set(e, -EINVAL, "fio iolog version %u: expected 2 or 3", x.version);
	if (!nranks)
		return rerr_set(e, -EINVAL, "no rank to export");
	if (mkdir(dir, 0777) == 0)
		made = true;
	else if (errno != EEXIST)
		return rerr_set(e, -errno, "cannot create '%s': %s", dir, strerror(errno));
	st->opens = calloc(s->npaths ? s->npaths : 1, sizeof(*st->opens));
	st->names = calloc(s->npaths ? s->npaths : 1, sizeof(*st->names));
	st->root = calloc(s->npaths ? s->npaths : 1, 1);
	x.isdir = calloc(s->npaths ? s->npaths : 1, 1);
	tmp = calloc(nranks, sizeof(*tmp));
	if (!st->opens || !st->names || !st->root || !x.isdir || !tmp ||
	    known_dirs(s, x.isdir) < 0) {
		ret = rerr_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < nranks && !ret; i++)
		ret = write_rank(&x, dir, filt ? filt->kept[i] : i, &tmp[i]);
	if (!ret && !x.stats->ranks)
		ret = rerr_set(e, -EINVAL, "nothing fio can replay: no exported rank has a read or"
			       " write left (fio refuses an iolog without one)");
	/* every log complete: into place */
	for (uint32_t i = 0; i < nranks && !ret; i++) {
		uint32_t r = filt ? filt->kept[i] : i;
		if (!tmp[i])
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/rank-%u.iolog", dir, r) >= sizeof(path))
			ret = rerr_set(e, -ENAMETOOLONG, "cannot create '%s/rank-%u.iolog': %s", dir, r,
				       strerror(ENAMETOOLONG));
		else if (rename(tmp[i], path) < 0)
			ret = rerr_set(e, -errno, "cannot rename '%s' to '%s': %s", tmp[i], path,
				       strerror(errno));
		else
			done = i + 1;
	}
	if (!ret)
		ret = remove_stale(dir, s->nranks, tmp, filt, nranks, x.stats, e);
out:
	if (tmp) {
		for (uint32_t i = done; i < nranks; i++)
			if (tmp[i])
				unlink(tmp[i]);
		for (uint32_t i = 0; i < nranks; i++)
			free(tmp[i]);
		free(tmp);
	}
	if (ret < 0 && made)
		rmdir(dir);     /* empty unless a log was renamed into it */
	if (st->names)
		for (uint32_t p = 0; p < s->npaths; p++)
			free(st->names[p]);
	free(st->names);
	free(st->root);
	free(st->opens);
	free(st->handle_file);
	free(x.isdir);
	return ret;
}

/* ======================================================================
 * Reading iologs (trace format "fio-iolog")
 *
 * One rank per file (files in natural order: rank-2 before rank-10).  Two
 * passes over each file: the first only learns which files the log writes
 * (their opens get O_RDWR, the others O_RDONLY: an iolog records no flags;
 * never O_CREAT, since fio creates and lays out every added file before
 * its job starts, so replay prepares them): it reads the action of each
 * line and parses just the add and write lines.  The second checks every
 * line, reports the bad ones and feeds the builder with the others.
 * The first runs ahead of the second only as far as it must: once every
 * file known is written, nothing but an add line of a new file can teach
 * it more, and the second pass calls it on when it meets one (in most
 * logs, never: the first pass reads a few lines, not the file twice).
 *
 *   add          declares FILE (no op)
 *   open, close  an open (mode 0644 when created) and a close
 *   read, write  positioned at OFFSET, LENGTH bytes, traced result LENGTH
 *   sync         fsync; datasync: fdatasync (OFFSET and LENGTH ignored)
 *   trim         not replayed: counted as a skipped call
 *   wait (v2)    the clock moves on by OFFSET microseconds
 *
 * I/O on a file that was added but is not open gets an open first, and
 * what is still open at the end is closed; both are flagged OPF_SYNTH
 * (fio opens its files itself and closes them when the job ends).
 * ====================================================================== */

#include <fcntl.h>
#include "trace/trace.h"
#include "parse_common.h"
#include "util/scan.h"
#include "util/util.h"

struct ifile {
	char *name;
	size_t len;              /* strlen(name) */
	int written;             /* pass 1: a valid write line names it */
	int open;                /* pass 2: open in the op stream (also synthesized) */
	int added;               /* pass 2: its add line was read */
	int xopen;               /* pass 2: opened by an open line, not closed since */
};

struct iolog {
	struct trace_input *in;
	struct builder *b;
	struct rerr *e;
	const char *src;
	unsigned version;
	struct ifile *f;
	size_t nf, capf;
	size_t nwritten;         /* pass 1: files marked written */
	struct linereader p1;    /* pass 1's reader, while p1_live          */
	bool p1_live;            /* pass 1 stopped short of the file's end  */
	char *p1_at, *p1_end;    /* the lines of its block not learnt yet
	                          * (p1_at NULL: none), p1_end the last '\n' */
	uint32_t *hash;          /* file index + 1, open addressing */
	size_t hcap;
	size_t last;             /* the file the last line named (nf: none) */
	int64_t pid;
	uint64_t clock_ns;       /* v2: sum of waits */
	uint64_t last_ns;        /* time of the last line fed */
	uint64_t synth_opens, synth_closes, close_not_open;
	uint32_t recent[16];     /* pass 2: file index + 1 by name_key, 0 none */
	struct sc_event ev;      /* pass 2: read/write/sync events (src, pid set) */
};

/* Whether a[0..n) and b[0..n) match, the last 8 bytes first (names of
 * one job's files differ at their ends: "job0.file0", "job0.file1"). */
static inline bool same_name(const char *a, const char *b, size_t n)
{
	uint64_t x, y;

	if (n < 8)
		return !memcmp(a, b, n);
	memcpy(&x, a + n - 8, 8);
	memcpy(&y, b + n - 8, 8);
	for (size_t i = 0; x == y && i + 8 < n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
	}
	return x == y;
}

/* Index of the file named (s, n); -1 absent (or, with add, created). */
static int64_t file_find(struct iolog *L, const char *s, size_t n, int add)
{
	if (L->nf * 2 >= L->hcap) {
		size_t cap = L->hcap ? L->hcap * 2 : 64;
		uint32_t *h = calloc(cap, sizeof(*h));

		if (!h)
			return -ENOMEM;
		for (size_t i = 0; i < L->nf; i++) {
			size_t j = hash_bytes(L->f[i].name, L->f[i].len) & (cap - 1);
			while (h[j])
				j = (j + 1) & (cap - 1);
			h[j] = (uint32_t)i + 1;
		}
		free(L->hash);
		L->hash = h;
		L->hcap = cap;
	}
	if (L->last < L->nf && L->f[L->last].len == n && same_name(L->f[L->last].name, s, n))
		return (int64_t)L->last;
	size_t j = hash_bytes(s, n) & (L->hcap - 1);
	while (L->hash[j]) {
		struct ifile *f = &L->f[L->hash[j] - 1];
		if (f->len == n && same_name(f->name, s, n))
			return L->last = L->hash[j] - 1;
		j = (j + 1) & (L->hcap - 1);
	}
	if (!add)
		return -1;
	int rc = trace_grow((void **)&L->f, &L->capf, L->nf + 1, sizeof(*L->f), 16);
	if (rc)
		return rc;
	struct ifile *f = &L->f[L->nf];
	memset(f, 0, sizeof(*f));
	f->name = strndup(s, n);
	if (!f->name)
		return -ENOMEM;
	f->len = n;
	L->hash[j] = (uint32_t)L->nf + 1;
	return (int64_t)L->nf++;
}

/* A slot of L->recent for a name of n >= 8 bytes, from its last 8 (the
 * bytes one job's files differ in) and its length. */
static inline size_t name_key(const char *s, size_t n)
{
	uint64_t w;

	memcpy(&w, s + n - 8, 8);
	return hash_fib(w ^ n, 60);
}

/* file_find(L, s, n, 0) for pass 2, the files named lately first: a
 * name's slot in L->recent holds the last file found there. */
static inline __attribute__((always_inline)) int64_t
file_find_recent(struct iolog *L, const char *s, size_t n)
{
	if (n < 8)
		return file_find(L, s, n, 0);
	size_t k = name_key(s, n);
	uint32_t r = L->recent[k];
	if (r && L->f[r - 1].len == n) {
		/* n <= 24 (most names): 3 words each, compared at once */
		const char *f = L->f[r - 1].name;
		uint64_t x0, y0, x1, y1, x2, y2;
		if (n > 24) {
			if (same_name(f, s, n))
				return r - 1;
		} else {
			memcpy(&x0, f, 8);
			memcpy(&y0, s, 8);
			memcpy(&x1, f + (n > 16 ? 8 : 0), 8);
			memcpy(&y1, s + (n > 16 ? 8 : 0), 8);
			memcpy(&x2, f + n - 8, 8);
			memcpy(&y2, s + n - 8, 8);
			if (!((x0 ^ y0) | (x1 ^ y1) | (x2 ^ y2)))
				return r - 1;
		}
	}
	int64_t fi = file_find(L, s, n, 0);
	if (fi >= 0)
		L->recent[k] = (uint32_t)fi + 1;
	return fi;
}

enum iact { A_ADD, A_OPEN, A_CLOSE, A_READ, A_WRITE, A_SYNC, A_DATASYNC, A_TRIM, A_WAIT };
static const char *const act_names[] = { "add", "open", "close", "read", "write", "sync",
					 "datasync", "trim", "wait" };

struct iline {
	uint64_t t_us;
	const char *file;
	size_t flen;
	enum iact act;
	uint64_t off, len;
};

/* The action's index in act_names, or the table's size: read and write
 * (almost every line) first. */
static size_t act_find(const char *s, size_t n)
{
	size_t i, nact = sizeof(act_names) / sizeof(act_names[0]);

	if (n == 4 && !memcmp(s, "read", 4))
		return A_READ;
	if (n == 5 && !memcmp(s, "write", 5))
		return A_WRITE;
	for (i = 0; i < nact; i++)
		if (strlen(act_names[i]) == n && !memcmp(act_names[i], s, n))
			break;
	return i;
}

/*
 * All of s[0..n) decimal digits, any number of them, the value in 64 bits:
 * up to 16 digits by scan_dec16 (s lies in a line from lr_next), longer
 * runs (or a bad byte) 8 digits a step.
 */
static int __attribute__((noinline, cold)) u64_long(const char *s, size_t n, uint64_t *v)
{
	bool ovf;

	return n && scan_decn(s, n, v, &ovf) == n && !ovf ? 0 : -EINVAL;
}

static inline int u64_tok(const char *s, size_t n, uint64_t *v)
{
	return scan_dec16(s, n, v) ? 0 : u64_long(s, n, v);
}

#if REPLAY_SSE2
/* Bits of the 16 bytes at s: blanks (space, tab, CR) in *b, NULs returned. */
static inline unsigned blanks16(const char *s, unsigned *b)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i e = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(' ')),
				 _mm_cmpeq_epi8(x, _mm_set1_epi8('\t')));
	*b = (unsigned)_mm_movemask_epi8(_mm_or_si128(e, _mm_cmpeq_epi8(x, _mm_set1_epi8('\r'))));
	return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128()));
}
#endif

/* The first `max` fields of the line l[0..n) from lr_next (split on
 * blanks, tabs and CRs; a NUL ends the line) into tok/tl; how many there
 * are, up to max.  A line shorter than 64 bytes (almost every one) is read
 * 16 bytes at a time into bit masks, its fields found from their edges. */
static size_t iolog_tokens(const char *l, size_t n, const char **tok, size_t *tl, size_t max)
{
	size_t cnt = 0, i = 0;

#if REPLAY_SSE2
	if (n < 64) {
		uint64_t blank = 0, nul = 0;
		for (size_t j = 0; j <= n; j += 16) {   /* l[n] is the NUL */
			unsigned b, z = blanks16(l + j, &b);
			blank |= (uint64_t)b << j;
			nul |= (uint64_t)z << j;
		}
		/* the line ends at its first NUL, at bit n or before */
		uint64_t field = ~blank & ((1ull << __builtin_ctzll(nul)) - 1);
		/* a field's first byte, and the byte after its last (a field
		 * ends before the NUL, at bit 63 at the latest) */
		uint64_t starts = field & ~(field << 1), ends = ~field & (field << 1);
		for (; starts && cnt < max; starts &= starts - 1, ends &= ends - 1) {
			unsigned s = (unsigned)__builtin_ctzll(starts);
			tok[cnt] = l + s;
			tl[cnt++] = (unsigned)__builtin_ctzll(ends) - s;
		}
		return cnt;
	}
#endif
	n = strnlen(l, n);
	while (cnt < max) {
		while (i < n && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r'))
			i++;
		if (i == n)
			break;
		size_t j = scan_any3(l, n, i, ' ', '\t', '\r');
		tok[cnt] = l + i;
		tl[cnt++] = j - i;
		i = j;
	}
	return cnt;
}

/* Split and check one line; *why on failure.  0, 1 (blank), -EINVAL. */
static int iolog_line(const struct iolog *L, const char *l, size_t len, struct iline *out,
		      const char **why)
{
	const char *tok[7];
	size_t tl[7], n = iolog_tokens(l, len, tok, tl, 7), i;

	if (n == 7) {
		*why = "too many fields";
		return -EINVAL;
	}
	if (!n)
		return 1;
	size_t k = 0;
	memset(out, 0, sizeof(*out));
	if (L->version == 3) {
		if (u64_tok(tok[0], tl[0], &out->t_us) < 0) {
			*why = "expected a time in microseconds first (version 3 iolog)";
			return -EINVAL;
		}
		k = 1;
	}
	if (n - k != 2 && n - k != 4) {
		*why = L->version == 3 ? "expected 'TIME FILE ACTION' or 'TIME FILE ACTION OFFSET LENGTH'"
				       : "expected 'FILE ACTION' or 'FILE ACTION OFFSET LENGTH'";
		return -EINVAL;
	}
	out->file = tok[k];
	out->flen = tl[k];
	i = act_find(tok[k + 1], tl[k + 1]);
	if (i == sizeof(act_names) / sizeof(act_names[0])) {
		*why = "unknown action (add, open, close, read, write, sync, datasync, trim, wait)";
		return -EINVAL;
	}
	out->act = (enum iact)i;
	int file_act = out->act <= A_CLOSE;
	if (file_act != (n - k == 2)) {
		*why = file_act ? "add/open/close take no offset and length"
				: "expected OFFSET and LENGTH after the action";
		return -EINVAL;
	}
	if (out->act == A_WAIT && L->version == 3) {
		*why = "'wait' is not allowed in a version 3 iolog (lines carry times)";
		return -EINVAL;
	}
	if (!file_act && (u64_tok(tok[k + 2], tl[k + 2], &out->off) < 0 ||
			  u64_tok(tok[k + 3], tl[k + 3], &out->len) < 0)) {
		*why = "expected OFFSET and LENGTH as unsigned decimal numbers";
		return -EINVAL;
	}
	if ((out->act == A_READ || out->act == A_WRITE) && out->len > OP_MAX_DATA_LEN) {
		*why = "LENGTH longer than one read or write can move";
		return -EINVAL;
	}
	/* (an offset past 2^63 - 1 read as a signed one is no offset at all:
	 * the op went to the descriptor's position) */
	if (!file_act && out->act != A_WAIT && out->act != A_SYNC && out->act != A_DATASYNC &&
	    (out->off > (uint64_t)INT64_MAX || out->len > (uint64_t)INT64_MAX - out->off)) {
		*why = "expected OFFSET plus LENGTH within 2^63-1 bytes (a file's largest offset)";
		return -EINVAL;
	}
	if ((L->version == 3 ? out->t_us : out->act == A_WAIT ? out->off : 0) > IOLOG_MAX_US) {
		*why = L->version == 3 ? "a time past 2^63-1 ns (292 years)"
				       : "a wait past 2^63-1 ns (292 years)";
		return -EINVAL;
	}
	return 0;
}

static int iolog_header(struct iolog *L, const char *l, unsigned long line)
{
	size_t n = strlen(l);

	while (n && (l[n - 1] == ' ' || l[n - 1] == '\r'))
		n--;
	if (n == 19 && !strncmp(l, "fio version 2 iolog", 19))
		L->version = 2;
	else if (n == 19 && !strncmp(l, "fio version 3 iolog", 19))
		L->version = 3;
	else
		return rerr_at(L->e, -EINVAL, L->src, line,
			       "expected 'fio version 2 iolog' or 'fio version 3 iolog'");
	return 0;
}

static int feed_ev(struct iolog *L, struct sc_event *ev, unsigned long line)
{
	ev->src = L->src;
	ev->line = line;
	ev->pid = L->pid;
	return builder_event(L->b, ev, L->e);
}

static int io_open(struct iolog *L, size_t fi, uint64_t ts, unsigned long line, uint8_t flags)
{
	struct sc_event ev;

	sc_event_init(&ev);
	ev.call = SC_OPEN;
	ev.name = "open";
	ev.path = L->f[fi].name;
	/* fio lays every added file out before the job starts: the files
	 * exist when the log opens them (no O_CREAT; the plan prepares them) */
	ev.flags = L->f[fi].written ? O_RDWR : O_RDONLY;
	ev.ret = (int64_t)fi + 3;
	ev.ts_ns = ts;
	ev.opflags = flags;
	L->f[fi].open = 1;
	if (flags)
		L->synth_opens++;
	return feed_ev(L, &ev, line);
}

static int io_close(struct iolog *L, size_t fi, uint64_t ts, unsigned long line, uint8_t flags)
{
	struct sc_event ev;

	sc_event_init(&ev);
	ev.call = SC_CLOSE;
	ev.name = "close";
	ev.fd = (int64_t)fi + 3;
	ev.ret = 0;
	ev.ts_ns = ts;
	ev.opflags = flags;
	L->f[fi].open = 0;
	if (flags)
		L->synth_closes++;
	return feed_ev(L, &ev, line);
}

/* The event of a read, write, sync or datasync line on open file fi.
 * L->ev is sc_event_init's with src and pid set, and builder_event leaves
 * it be: only what such an event sets changes (all of it, each time). */
static inline int emit_io(struct iolog *L, const struct iline *il, size_t fi, uint64_t ts,
			  unsigned long line)
{
	struct sc_event *io = &L->ev;

	io->line = line;
	io->fd = (int64_t)fi + 3;
	io->ts_ns = ts;
	if (il->act == A_SYNC || il->act == A_DATASYNC) {
		io->call = il->act == A_SYNC ? SC_FSYNC : SC_FDATASYNC;
		io->name = il->act == A_SYNC ? "sync" : "datasync";
		io->offset = SC_NOOFF;
		io->len = 0;
		io->ret = 0;
	} else {
		io->call = il->act == A_READ ? SC_READ : SC_WRITE;
		io->name = il->act == A_READ ? "read" : "write";
		io->offset = (int64_t)il->off;
		io->len = il->len;
		io->ret = (int64_t)il->len;
	}
	return builder_event(L->b, io, L->e);
}

/* Pass 2's work for one checked line. */
static int iolog_emit(struct iolog *L, const struct iline *il, size_t fi, unsigned long line)
{
	uint64_t ts = L->version == 3 ? il->t_us * 1000 : L->clock_ns;
	struct sc_event ev;

	L->last_ns = ts;
	switch (il->act) {
	case A_ADD:
		return 0;
	case A_OPEN:
		return io_open(L, fi, ts, line, 0);
	case A_CLOSE:
		if (!L->f[fi].open) {
			L->close_not_open++;
			return 0;
		}
		return io_close(L, fi, ts, line, 0);
	case A_WAIT:
		if (il->off * 1000 > (uint64_t)INT64_MAX - L->clock_ns)
			return rerr_at(L->e, -EINVAL, L->src, line,
				       "the waits add up past 2^63-1 ns (292 years)");
		L->clock_ns += il->off * 1000;
		return 0;
	case A_TRIM:
		sc_event_init(&ev);
		ev.call = SC_SKIP;
		ev.name = "trim";
		ev.ts_ns = ts;
		return feed_ev(L, &ev, line);
	default:
		break;
	}
	if (!L->f[fi].open) {
		int rc = io_open(L, fi, ts, line, OPF_SYNTH);
		if (rc)
			return rc;
	}
	return emit_io(L, il, fi, ts, line);
}

/* Pass 1's work for a line: an add line makes its file known, a write line
 * marks its file written, both when the line is valid and, for a write,
 * the file added before it (as pass 2 will find).  Every other line is
 * left to pass 2 after reading its action.  0 or -ENOMEM. */
static int iolog_learn(struct iolog *L, const char *l, size_t len)
{
	const char *tok[3];
	size_t tl[3], k = L->version == 3 ? 2 : 1;
	struct iline il;
	const char *why;

	if (iolog_tokens(l, len, tok, tl, k + 1) <= k)
		return 0;
	size_t a = act_find(tok[k], tl[k]);
	if (a != A_ADD && a != A_WRITE)
		return 0;
	if (a == A_WRITE) {
		/* a file already known written stays so whatever this line holds */
		int64_t fi = file_find(L, tok[k - 1], tl[k - 1], 0);
		if (fi >= 0 && L->f[fi].written)
			return 0;
		if (fi < -1)
			return (int)fi;
	}
	if (iolog_line(L, l, len, &il, &why))
		return 0;
	int64_t fi = file_find(L, il.file, il.flen, il.act == A_ADD);
	if (fi < -1)
		return (int)fi;
	if (fi >= 0 && il.act == A_WRITE && !L->f[fi].written) {
		L->f[fi].written = 1;
		L->nwritten++;
	}
	return 0;
}

/* Open L's file for a pass; 0 or the error, told in L->e. */
static int iolog_open(struct iolog *L, struct linereader *lr)
{
	int rc = lr_open(lr, L->src);

	return rc < 0 ? rerr_set(L->e, rc, "cannot open '%s': %s", L->src, strerror(-rc)) : 0;
}

static int read_error(struct iolog *L, int rc)
{
	return rerr_set(L->e, rc, "cannot read '%s': %s", L->src, strerror(-rc));
}

/*
 * Pass 1 on from where it stopped, a buffer of whole lines at a time, until
 * every file known so far is written or the file ends (then L->p1_live
 * goes); with new_file, not before it knows one more file.  Past such a
 * point only an add line naming a new file could change what it knows:
 * pass 2 calls it on (new_file) when it meets one.  Over-long lines are
 * passed over (pass 2 reports them).  0, or the error told in L->e.
 */
static int iolog_learn_more(struct iolog *L, bool new_file)
{
	size_t nf = new_file ? L->nf : SIZE_MAX;
	char *l;
	size_t n;
	int rc;

	while (L->nwritten != L->nf || L->nf == nf) {
		if (!L->p1_at) {
			rc = lr_next_block(&L->p1, &l, &n);
			if (rc == -E2BIG)
				continue;
			if (rc <= 0 || L->p1.nonl) {
				/* the end of the file (or a cut last line, which
				 * pass 2 drops), or a read error */
				lr_close(&L->p1);
				L->p1_live = false;
				return rc < 0 ? read_error(L, rc) : 0;
			}
			L->p1_at = l;
			L->p1_end = l + n;
		}
		char *p = L->p1_at, *nl = memchr(p, '\n', (size_t)(L->p1_end - p));

		if (!nl)
			nl = L->p1_end;
		*nl = '\0';
		L->p1_at = nl == L->p1_end ? NULL : nl + 1;
		rc = iolog_learn(L, p, (size_t)(nl - p));   /* 0 or -ENOMEM */
		if (rc)
			return rerr_set(L->e, rc, "out of memory");
	}
	return 0;
}

/* Pass 1 begins: the header, then iolog_learn_more. */
static int iolog_pass1(struct iolog *L)
{
	char *l;
	size_t n;
	int rc;

	rc = iolog_open(L, &L->p1);
	if (rc)
		return rc;
	L->p1_live = true;
	L->p1_at = NULL;
	rc = lr_next(&L->p1, &l, &n);
	if (rc == 0)
		rc = rerr_set(L->e, -EINVAL, "%s: empty iolog", L->src);
	else if (rc > 0)
		rc = iolog_header(L, l, L->p1.lineno);
	else if (rc == -E2BIG)
		rc = 0;
	else if (rc < 0)
		rc = read_error(L, rc);
	if (rc) {
		lr_close(&L->p1);
		L->p1_live = false;
		return rc;
	}
	return iolog_learn_more(L, false);
}

/* Pass 2's work for a line iolog_line found good naming file fi (as
 * file_find found it): the file's checks, then its events.  0, or the
 * error (told in L->e, but -ENOMEM). */
static int pass2_fi(struct iolog *L, const struct iline *il, int64_t fi, unsigned long lineno)
{
	const char *why;

	if (fi == -1 && il->act == A_ADD && L->p1_live) {
		/* a file pass 1 has not come to yet */
		int rc = iolog_learn_more(L, true);
		if (rc)
			return rc;
		fi = file_find(L, il->file, il->flen, 0);
	}
	if (fi < -1)
		return (int)fi;
	if (fi < 0 || (il->act != A_ADD && !L->f[fi].added))
		why = "file not added (no 'FILE add' line before)";
	else if (il->act == A_OPEN && L->f[fi].xopen)
		why = "file opened again without a close";
	else {
		if (il->act == A_ADD)
			L->f[fi].added = 1;
		else if (il->act == A_OPEN)
			L->f[fi].xopen = 1;
		else if (il->act == A_CLOSE)
			L->f[fi].xopen = 0;
		return iolog_emit(L, il, (size_t)fi, lineno);
	}
	return trace_bad_line(L->in, L->e, L->src, lineno, why);
}

/* Pass 2's work for line number lineno, l[0..n) NUL-terminated with
 * LR_PAD readable bytes after (the general way, any line; the caller
 * counts it in L->in). */
static int pass2_line(struct iolog *L, char *l, size_t n, unsigned long lineno)
{
	struct iline il;
	const char *why = NULL;
	int rc;

	if (lineno == 1)
		return iolog_header(L, l, lineno);
	rc = iolog_line(L, l, n, &il, &why);
	if (rc == 1)
		return 0;
	if (rc)
		return trace_bad_line(L->in, L->e, L->src, lineno, why);
	return pass2_fi(L, &il, file_find_recent(L, il.file, il.flen), lineno);
}

#if REPLAY_SSE2
/* Bits of the 16 bytes at s: the spaces in *sp; the bytes up to 0x20
 * (spaces, NUL, tab, CR, '\n', any control) returned. */
static inline uint64_t low16(const char *s, uint64_t *sp)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i spc = _mm_cmpeq_epi8(x, _mm_set1_epi8(' '));
	__m128i low = _mm_cmpeq_epi8(_mm_subs_epu8(x, _mm_set1_epi8(0x20)), _mm_setzero_si128());

	*sp = (unsigned)_mm_movemask_epi8(spc);
	return (unsigned)_mm_movemask_epi8(low);
}
#endif

/*
 * iolog_line for the usual line of a version `version` iolog, p[0..len)
 * (len < 64) with spaces at the bits of sp and no other byte up to 0x20:
 * fields one space apart, none at either end, numbers of 1 to 16 digits,
 * good throughout.  true with *il as iolog_line makes it; false for any
 * other line (iolog_line then reads it).  8 bytes are readable after
 * p[len].  A blank first, last or after another leaves a field empty,
 * which no field may be: a number has a digit, an action a name, and the
 * file is looked at here.
 */
static inline __attribute__((always_inline)) bool
iolog_line_fast(const char *p, size_t len, uint64_t sp, struct iline *il, const unsigned version)
{
	size_t pos = 0, fe, ae, oe;

	if (version == 3) {
		if (!sp)
			return false;
		pos = (size_t)__builtin_ctzll(sp);
		sp &= sp - 1;
		if (!scan_dec16(p, pos, &il->t_us) || il->t_us > IOLOG_MAX_US)
			return false;
		pos++;
	} else {
		il->t_us = 0;
	}
	if (!sp)
		return false;   /* no action */
	fe = (size_t)__builtin_ctzll(sp);
	if (fe == pos)
		return false;   /* no file name */
	sp &= sp - 1;
	il->file = p + pos;
	il->flen = fe - pos;
	const char *a = p + fe + 1;
	if (!sp) {
		ae = len;
	} else {
		ae = (size_t)__builtin_ctzll(sp);
		sp &= sp - 1;
	}
	size_t al = (size_t)(p + ae - a), act;
	if (al == 4 && !memcmp(a, "read", 4))
		act = A_READ;
	else if (al == 5 && !memcmp(a, "write", 5))
		act = A_WRITE;
	else
		act = act_find(a, al);
	if (act >= sizeof(act_names) / sizeof(act_names[0]))
		return false;
	il->act = (enum iact)act;
	if (ae == len) {
		if (act > A_CLOSE)
			return false;
		il->off = il->len = 0;
		return true;
	}
	if (act <= A_CLOSE || !sp || (act == A_WAIT && version == 3))
		return false;
	oe = (size_t)__builtin_ctzll(sp);
	if (sp & (sp - 1))
		return false;   /* too many fields */
	if (!scan_dec16(p + ae + 1, oe - ae - 1, &il->off) ||
	    !scan_dec16(p + oe + 1, len - oe - 1, &il->len))
		return false;
	if ((act == A_READ || act == A_WRITE) && il->len > OP_MAX_DATA_LEN)
		return false;
	return true;
}

/*
 * Pass 2 over a block of whole lines from lr_next_block, of a version
 * `version` iolog (a constant where it is inlined, so no line tests it):
 * blk[0..n), the last line's '\n' at blk[n], LR_PAD readable bytes after
 * it; *lineno the number of the line before the block, counted on.  A line
 * with 64 readable bytes from its start is looked at 16 bytes at a time
 * (in a version 2 iolog 48, and 16 more when its end is not in them), its
 * end and blanks from the masks, and read by iolog_line_fast when it has
 * the usual shape; any other line goes to pass2_line, its '\n' a NUL.
 */
static inline __attribute__((always_inline)) int
pass2_block_v(struct iolog *L, char *blk, size_t n, unsigned long *lineno, const unsigned version)
{
	char *p = blk, *end = blk + n;
	unsigned long line = *lineno;
#if REPLAY_SSE2
	/* lines starting up to fast_end have 64 readable bytes (up to end +
	 * LR_PAD, inside lr's buffer); line 1 is never in a block (the header
	 * goes the general way all the same) */
	uintptr_t fast_end = line ? (uintptr_t)(end + 1 + LR_PAD) - 64 : 0;
#endif
	int rc = 0;

	while (p <= end) {
#if REPLAY_SSE2
		if ((uintptr_t)p <= fast_end) {
			uint64_t s0, s1, s2, s3;
			uint64_t low = low16(p, &s0) | low16(p + 16, &s1) << 16 |
				       low16(p + 32, &s2) << 32;
			uint64_t sp = s0 | s1 << 16 | s2 << 32;
			uint64_t c = low & ~sp; /* the line's end, or a control byte */
			/* not in the first 48 bytes; or a version 3 line, which
			 * its time makes longer: most go beyond them */
			if (version == 3 || !c) {
				low |= low16(p + 48, &s3) << 48;
				sp |= s3 << 48;
				c = low & ~sp;
			}
			if (c) {
				size_t len = (size_t)__builtin_ctzll(c);
				struct iline il;
				sp &= (1ull << len) - 1;
				if (p[len] == '\n' && iolog_line_fast(p, len, sp, &il, version)) {
					line++;
					p += len + 1;
					int64_t fi = file_find_recent(L, il.file, il.flen);
					/* open: added too (only an added file is opened) */
					if (fi < 0 || il.act < A_READ || il.act > A_DATASYNC ||
					    !L->f[fi].open) {
						rc = pass2_fi(L, &il, fi, line);
					} else {
						/* I/O on a file added and open: pass2_fi's
						 * iolog_emit comes down to this */
						uint64_t ts = version == 3 ? il.t_us * 1000 : L->clock_ns;
						L->last_ns = ts;
						rc = emit_io(L, &il, (size_t)fi, ts, line);
					}
					if (rc)
						break;
					continue;
				}
			}
		}
#endif
		char *nl = memchr(p, '\n', (size_t)(end - p) + 1);
		*nl = '\0';
		rc = pass2_line(L, p, (size_t)(nl - p), ++line);
		p = nl + 1;
		if (rc)
			break;
	}
	/* each line is counted with its '\n', the one it stopped at too */
	L->in->lines += line - *lineno;
	L->in->bytes += (uint64_t)(p - blk);
	*lineno = line;
	return rc;
}

static int pass2_block(struct iolog *L, char *blk, size_t n, unsigned long *lineno)
{
	return L->version == 3 ? pass2_block_v(L, blk, n, lineno, 3)
			       : pass2_block_v(L, blk, n, lineno, 2);
}

/* The last line of the log, number lineno, has no '\n' (the header
 * aside, read as pass2_line reads it): fio ends every
 * line it writes with one, so the log was cut while fio wrote it (fio
 * killed, as at a batch job's time limit), whether or not what is there
 * reads as a line ("read 512000 40" of "read 512000 4096" does).  It is
 * dropped and counted in cut_lines, as strace's reader does, whatever
 * --skip-bad says.  0. */
static __attribute__((noinline, cold)) int pass2_last(struct iolog *L, const char *l, size_t n,
							unsigned long lineno)
{
	if (lineno == 1)
		return iolog_header(L, l, lineno);      /* as pass2_line reads it */
	if (!L->in->cut_lines++)
		snprintf(L->in->first_cut, sizeof(L->in->first_cut), "%s:%lu", L->src, lineno);
	return 0;       /* the end of the file: lr_next_block says so next */
}

/* Pass 2: check every line and emit its events, a block of whole lines
 * at a time (lineno: lr.lineno counts only the lines lr_next gave). */
static int iolog_pass2(struct iolog *L)
{
	struct linereader lr;
	unsigned long lineno = 0;
	char *l;
	size_t n;
	int rc;

	rc = iolog_open(L, &lr);
	if (rc)
		return rc;
	sc_event_init(&L->ev);
	L->ev.src = L->src;
	L->ev.pid = L->pid;
	for (;;) {
		unsigned long before = lr.lineno;

		rc = lr_next_block(&lr, &l, &n);
		if (!rc)
			break;
		if (rc == -E2BIG) {     /* a line all the same (n: its length) */
			L->in->lines++, L->in->bytes += n + 1;
			rc = trace_bad_line(L->in, L->e, L->src, ++lineno, "line too long");
			if (rc)
				break;
			continue;
		}
		if (rc < 0) {
			rc = read_error(L, rc);
			break;
		}
		if (lr.lineno != before) {
			/* one line from lr_next */
			L->in->lines++, L->in->bytes += n + 1;
			rc = lr.nonl ? pass2_last(L, l, n, ++lineno) : pass2_line(L, l, n, ++lineno);
		} else {
			rc = pass2_block(L, l, n, &lineno);
		}
		if (rc)
			break;
	}
	if (!rc && lineno == 0)
		rc = rerr_set(L->e, -EINVAL, "%s: empty iolog", L->src);
	if (!rc) {
		/* what is still open is closed, as fio does when the job ends */
		for (size_t i = 0; i < L->nf && !rc; i++)
			if (L->f[i].open)
				rc = io_close(L, i, L->last_ns, lineno, OPF_SYNTH);
	}
	lr_close(&lr);
	return rc;
}

/* "rank-2" before "rank-10": digit runs compare as numbers. */
static int natural_cmp(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;

	while (*x && *y) {
		if (*x >= '0' && *x <= '9' && *y >= '0' && *y <= '9') {
			const char *xs = x, *ys = y;
			while (*xs == '0')
				xs++;
			while (*ys == '0')
				ys++;
			const char *xe = xs, *ye = ys;
			while (*xe >= '0' && *xe <= '9')
				xe++;
			while (*ye >= '0' && *ye <= '9')
				ye++;
			if (xe - xs != ye - ys)
				return xe - xs < ye - ys ? -1 : 1;
			int c = strncmp(xs, ys, (size_t)(xe - xs));
			if (c)
				return c;
			x = xe;
			y = ye;
			continue;
		}
		if (*x != *y)
			return (unsigned char)*x < (unsigned char)*y ? -1 : 1;
		x++;
		y++;
	}
	return (unsigned char)*x - (unsigned char)*y;
}

static void iolog_release(struct iolog *L)
{
	if (L->p1_live)
		lr_close(&L->p1);
	L->p1_live = false;
	for (size_t i = 0; i < L->nf; i++)
		free(L->f[i].name);
	free(L->f);
	free(L->hash);
	L->f = NULL;
	L->hash = NULL;
	L->nf = L->capf = L->hcap = L->nwritten = 0;
}

static int info_count(struct builder *b, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return builder_info(b, key, buf);
}

static int fioiolog_parse(struct trace_input *in, struct builder *b, struct rerr *e)
{
	char **files = malloc((in->nfiles ? in->nfiles : 1) * sizeof(*files));
	uint64_t so = 0, sc = 0, cno = 0;
	int rc = 0;

	if (!files)
		return rerr_set(e, -ENOMEM, "out of memory");
	memcpy(files, in->files, in->nfiles * sizeof(*files));
	qsort(files, in->nfiles, sizeof(*files), natural_cmp);
	for (size_t i = 0; i < in->nfiles && !rc; i++) {
		struct iolog L = { .in = in, .b = b, .e = e, .src = files[i], .pid = (int64_t)i };
		const char *base = strrchr(files[i], '/');
		uint32_t rank;

		if (file_is_stream(files[i])) {
			rc = rerr_set(e, -EINVAL, "a fio iolog is read twice: give a file, not"
				      " standard input or a pipe ('%s')", files[i]);
			break;
		}
		rc = builder_rank(b, L.pid, base ? base + 1 : files[i], &rank);
		if (rc) {
			rc = rerr_set(e, rc, "out of memory");
			break;
		}
		rc = iolog_pass1(&L);
		for (size_t k = 0; k < L.nf; k++)
			L.f[k].open = 0;
		L.clock_ns = L.last_ns = 0;
		if (!rc)
			rc = iolog_pass2(&L);
		so += L.synth_opens;
		sc += L.synth_closes;
		cno += L.close_not_open;
		iolog_release(&L);
	}
	if (!rc)
		rc = info_count(b, "synthesized_opens", so);
	if (!rc)
		rc = info_count(b, "synthesized_closes", sc);
	if (!rc)
		rc = info_count(b, "fio_close_without_open", cno);
	/* fio makes and lays out every file before the job: the plan
	 * prepares each at least as long as any op on it reaches */
	if (!rc)
		rc = builder_info(b, "files_laid_out", "1");
	free(files);
	return rc;
}

static int fioiolog_probe(const char *head, size_t len)
{
	if (len >= 19 && (!strncmp(head, "fio version 2 iolog", 19) ||
			  !strncmp(head, "fio version 3 iolog", 19)) &&
	    (len == 19 || head[19] == '\n' || head[19] == '\r'))
		return 100;
	return 0;
}

const struct trace_format trace_fioiolog = {
	.name = "fio-iolog",
	.desc = "fio iolog, version 2 or 3 (read_iolog/write_iolog), one rank per file",
	.probe = fioiolog_probe,
	.parse = fioiolog_parse,
};
