/*
 * fioiolog.c - export an op stream as fio "version 2" iologs, one per rank.
 *
 *   fio version 2 iolog
 *   FILE add                      (each file the rank uses, first)
 *   FILE open
 *   FILE read|write OFFSET LENGTH
 *   FILE sync|datasync 0 0
 *   FILE close
 *
 * FILE is the traced path mapped beneath the target exactly as the runner
 * maps it (plan.h): "/a/b" -> TARGET/a/b, "x/y" -> TARGET/x/y, "." and
 * empty components dropped, ".." that would climb above the root refused.
 * fio reads the names with whitespace-separated fields, so a path with
 * blanks cannot be expressed and is refused too (never silently changed).
 *
 * A file opened through several handles at once is opened once in the log
 * (first open) and closed once (last close): fio tracks files, not fds.
 * Ops fio cannot replay (metadata, ftruncate, barriers, mmap) are left
 * out; async submits become plain reads/writes (fio's iodepth gives the
 * overlap).  Zero-length transfers are left out (fio rejects them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace/fioiolog.h"

/* Map a traced path beneath `target` into out.  -EINVAL when it climbs
 * above the root or holds characters fio's parser splits on. */
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
		return -EINVAL; /* the root itself is no file */
	out[n] = '\0';
	return 0;
}

struct rank_state {
	uint32_t *handle_file;  /* handle -> path id, OP_NOFILE unknown */
	uint32_t nhandles;
	uint32_t *opens;        /* path id -> open handles              */
	char **names;           /* path id -> mapped name (lazily)      */
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

static int name_of(const struct opstream *s, struct rank_state *st, const char *target,
		   uint32_t file, const char **name, struct rerr *e)
{
	char buf[4096];
	int ret;

	if (file >= s->npaths)
		return rerr_set(e, -EINVAL, "op names path id %u, beyond the path table (%u)",
				file, s->npaths);
	if (!st->names[file]) {
		ret = map_path(target, opstream_path(s, file), buf, sizeof(buf));
		if (ret == -EINVAL)
			return rerr_set(e, ret, "cannot export '%s' to a fio iolog: %s",
					opstream_path(s, file),
					strpbrk(opstream_path(s, file), " \t\r\n")
						? "fio iologs cannot name files with blanks"
						: "the path does not name a file beneath the target");
		if (ret < 0)
			return rerr_set(e, ret, "cannot export '%s' to a fio iolog: %s",
					opstream_path(s, file), strerror(-ret));
		st->names[file] = strdup(buf);
		if (!st->names[file])
			return rerr_set(e, -ENOMEM, "out of memory");
	}
	*name = st->names[file];
	return 0;
}

static int export_rank(const struct opstream *s, uint32_t r, const char *target, FILE *f,
		       struct rank_state *st, struct rerr *e)
{
	uint64_t n;
	const struct op *ops = opstream_rank_ops(s, r, &n);
	const char *name;
	uint8_t *used = calloc(s->npaths ? s->npaths : 1, 1);
	int ret = 0;

	if (!used)
		return rerr_set(e, -ENOMEM, "out of memory");
	fputs("fio version 2 iolog\n", f);
	/* pass 1: every file this rank opens, added up front */
	for (uint64_t i = 0; i < n; i++) {
		if (ops[i].kind != OP_OPEN || ops[i].file == OP_NOFILE || ops[i].file >= s->npaths)
			continue;
		if (used[ops[i].file])
			continue;
		used[ops[i].file] = 1;
		ret = name_of(s, st, target, ops[i].file, &name, e);
		if (ret < 0)
			goto out;
		fprintf(f, "%s add\n", name);
	}
	/* pass 2: the actions, in trace order */
	for (uint64_t i = 0; i < n; i++) {
		const struct op *o = &ops[i];
		uint32_t file;
		const char *act = NULL;

		switch (o->kind) {
		case OP_OPEN:
			if (o->file == OP_NOFILE || o->file >= s->npaths || o->handle == OP_NOHANDLE)
				continue;
			if (o->result < 0)
				continue; /* the traced open failed: no handle */
			file = handle_get(st, o->handle);
			if (file != OP_NOFILE && st->opens[file] && --st->opens[file] == 0)
				fprintf(f, "%s close\n", st->names[file]); /* handle reused */
			ret = handle_set(st, o->handle, o->file);
			if (ret < 0)
				goto out;
			if (st->opens[o->file]++ == 0) {
				ret = name_of(s, st, target, o->file, &name, e);
				if (ret < 0)
					goto out;
				fprintf(f, "%s open\n", name);
			}
			continue;
		case OP_CLOSE:
			file = handle_get(st, o->handle);
			if (file == OP_NOFILE)
				continue;
			handle_set(st, o->handle, OP_NOFILE);
			if (st->opens[file] && --st->opens[file] == 0)
				fprintf(f, "%s close\n", st->names[file]);
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
		default:
			continue;
		}
		file = handle_get(st, o->handle);
		if (file == OP_NOFILE || !st->opens[file])
			continue; /* handle never opened in the trace */
		if (op_is_data(o->kind)) {
			if (!o->len)
				continue;
			fprintf(f, "%s %s %llu %llu\n", st->names[file], act,
				(unsigned long long)o->offset, (unsigned long long)o->len);
		} else {
			fprintf(f, "%s %s 0 0\n", st->names[file], act);
		}
	}
	/* what the trace left open is closed, as at process exit */
	for (uint32_t p = 0; p < s->npaths; p++)
		if (st->opens[p]) {
			fprintf(f, "%s close\n", st->names[p]);
			st->opens[p] = 0;
		}
out:
	free(used);
	return ret;
}

int fio_iolog_export(const struct opstream *s, const char *dir, const struct fio_export_opts *o,
		     struct rerr *e)
{
	const char *target = o && o->target ? o->target : ".";
	uint32_t nranks = o && o->nranks && o->nranks < s->nranks ? o->nranks : s->nranks;
	struct rank_state st = { 0 };
	char path[4096];
	FILE *f = NULL;
	int ret = 0;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return rerr_set(e, -errno, "cannot create '%s': %s", dir, strerror(errno));
	st.opens = calloc(s->npaths ? s->npaths : 1, sizeof(*st.opens));
	st.names = calloc(s->npaths ? s->npaths : 1, sizeof(*st.names));
	if (!st.opens || !st.names) {
		ret = rerr_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t r = 0; r < nranks; r++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/rank-%u.iolog", dir, r) >= sizeof(path)) {
			ret = rerr_set(e, -ENAMETOOLONG, "cannot create '%s/rank-%u.iolog': %s", dir, r,
				       strerror(ENAMETOOLONG));
			goto out;
		}
		f = fopen(path, "w");
		if (!f) {
			ret = rerr_set(e, -errno, "cannot create '%s': %s", path, strerror(errno));
			goto out;
		}
		for (uint32_t h = 0; h < st.nhandles; h++)
			st.handle_file[h] = OP_NOFILE;
		ret = export_rank(s, r, target, f, &st, e);
		if (ret < 0)
			goto out;
		if (ferror(f)) {
			ret = rerr_set(e, -EIO, "cannot write '%s': %s", path, strerror(EIO));
			goto out;
		}
		ret = fclose(f);
		f = NULL;
		if (ret) {
			ret = rerr_set(e, -errno, "cannot write '%s': %s", path, strerror(errno));
			goto out;
		}
	}
out:
	if (f)
		fclose(f);
	if (st.names)
		for (uint32_t p = 0; p < s->npaths; p++)
			free(st.names[p]);
	free(st.names);
	free(st.opens);
	free(st.handle_file);
	return ret;
}
