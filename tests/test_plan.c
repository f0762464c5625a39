/* test_plan.c - path mapping beneath TARGET, target safety (hostile paths,
 * planted symlinks, bad targets), file preparation and cleanup, copies. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <linux/magic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "ops/opstream.h"
#include "plan/plan.h"

static char root[] = "/tmp/replay-test-planXXXXXX";
static char sentinel[PATH_MAX];   /* a directory next to every target */
static char sent_list0[8192];     /* its listing at the start          */

/* ---- helpers ----------------------------------------------------------- */

static void pathf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < len);
}

static void write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* Sorted listing of a tree: "rel type size [link]" lines (no timestamps). */
static char *list_buf;
static size_t list_len, list_cap, list_base;
static char **list_lines;
static size_t list_n, list_linecap;

static int list_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	char line[PATH_MAX + 128], link[PATH_MAX] = "";
	if (type == FTW_SL) {
		ssize_t n = readlink(path, link, sizeof link - 1);
		link[n > 0 ? n : 0] = '\0';
	}
	const char *rel = path + list_base;
	snprintf(line, sizeof line, "%s %c %lld %s", *rel ? rel : ".",
		 S_ISDIR(st->st_mode) ? 'd' : S_ISLNK(st->st_mode) ? 'l' : S_ISREG(st->st_mode) ? 'f' : '?',
		 S_ISREG(st->st_mode) ? (long long)st->st_size : 0LL, link);
	if (list_n == list_linecap) {
		list_linecap = list_linecap ? list_linecap * 2 : 64;
		list_lines = realloc(list_lines, list_linecap * sizeof *list_lines);
		assert_non_null(list_lines);
	}
	list_lines[list_n++] = strdup(line);
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Listing of dir into buf (overwritten). */
static void listing(const char *dir, char *buf, size_t len)
{
	list_n = 0;
	list_base = strlen(dir);
	assert_int_equal(nftw(dir, list_cb, 16, FTW_PHYS), 0);
	qsort(list_lines, list_n, sizeof *list_lines, cmp_line);
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < list_n; i++) {
		int n = snprintf(buf + o, len - o, "%s\n", list_lines[i]);
		assert_true(n > 0 && (size_t)n < len - o);
		o += (size_t)n;
		free(list_lines[i]);
	}
	(void)list_buf;
	(void)list_len;
	(void)list_cap;
}

static void assert_sentinel_untouched(void)
{
	char now[8192];
	listing(sentinel, now, sizeof now);
	assert_string_equal(now, sent_list0);
	char kp[PATH_MAX], buf[64] = "";
	pathf(kp, sizeof kp, "%s/keep", sentinel);
	int fd = open(kp, O_RDONLY);
	assert_true(fd >= 0);
	assert_true(read(fd, buf, sizeof buf - 1) >= 0);
	close(fd);
	assert_string_equal(buf, "sentinel data\n");
}

/* A fresh, empty target directory root/<name>. */
static void fresh_target(char *buf, size_t len, const char *name)
{
	pathf(buf, len, "%s/%s", root, name);
	assert_int_equal(mkdir(buf, 0755), 0);
}

/* ---- building .ops files ----------------------------------------------- */

struct tb {
	struct ops_writer *w;
	char path[PATH_MAX];
};

static void tb_open(struct tb *t, const char *name)
{
	pathf(t->path, sizeof t->path, "%s/%s.ops", root, name);
	assert_int_equal(opsw_open(&t->w, t->path), 0);
}

static uint32_t tb_rank(struct tb *t, const char *name)
{
	uint32_t r;
	assert_int_equal(opsw_rank(t->w, name, 100, &r), 0);
	return r;
}

static uint32_t tb_path(struct tb *t, const char *p)
{
	uint32_t id;
	assert_int_equal(opsw_path(t->w, p, 0, &id), 0);
	return id;
}

static void tb_add(struct tb *t, uint32_t rank, struct op op)
{
	if (!op.iovcnt)
		op.iovcnt = 1;
	assert_int_equal(opsw_append(t->w, rank, &op), 0);
}

static void tb_finish(struct tb *t, struct opstream *s)
{
	const char *why = NULL;
	assert_int_equal(opsw_finish(t->w, NULL), 0);
	t->w = NULL;
	assert_int_equal(opstream_open(s, t->path, &why), 0);
}

static struct op op_open(uint32_t f, uint32_t h, uint32_t flags, uint64_t t)
{
	return (struct op){ .kind = OP_OPEN, .file = f, .handle = h, .oflags = flags,
			    .aux = 0644, .result = 3, .t_ns = t };
}

static struct op op_rw(unsigned kind, uint32_t f, uint32_t h, uint64_t off, uint64_t len,
		       int64_t res, uint64_t t)
{
	return (struct op){ .kind = (uint8_t)kind, .file = f, .handle = h, .offset = off,
			    .len = len, .result = res, .t_ns = t };
}

static struct op op_path(unsigned kind, uint32_t f, uint32_t aux, uint64_t t)
{
	return (struct op){ .kind = (uint8_t)kind, .file = f, .handle = OP_NOHANDLE,
			    .aux = aux, .result = 0, .t_ns = t };
}

static const struct plan_file *pf(const struct plan *p, uint32_t id)
{
	assert_true(id < p->npaths);
	assert_int_not_equal(p->file_of[id], UINT32_MAX);
	return &p->files[p->file_of[id]];
}

/* ---- tests ------------------------------------------------------------- */

static void test_mapping(void **state)
{
	(void)state;
	struct tb t;
	struct opstream s;
	struct plan p;
	struct rerr e = { "" };
	char target[PATH_MAX];
	fresh_target(target, sizeof target, "map");
	tb_open(&t, "map");
	uint32_t r = tb_rank(&t, "pid 1");
	static const char *in[] = { "/a/b/c", "x/y", "/a/../b", "/a//b///c/", "./x/./y/",
				    "/../../etc/passwd", "a/b/../../c", "/", "/d/e/..", "z/" };
	static const char *out[] = { "a/b/c", "x/y", "b", "a/b/c", "x/y",
				     "etc/passwd", "c", "", "d", "z" };
	uint32_t ids[10];
	for (int i = 0; i < 10; i++) {
		ids[i] = tb_path(&t, in[i]);
		tb_add(&t, r, op_path(OP_STAT, ids[i], 0, (uint64_t)i));
	}
	tb_finish(&t, &s);
	assert_int_equal(plan_build(&p, &s, target, NULL, &e), 0);
	for (int i = 0; i < 10; i++)
		assert_string_equal(pf(&p, ids[i])->rel, out[i]);
	/* "/a/b/c" and "/a//b///c/" are one file; "x/y" and "./x/./y/" too */
	assert_int_equal(p.file_of[ids[0]], p.file_of[ids[3]]);
	assert_int_equal(p.file_of[ids[1]], p.file_of[ids[4]]);
	/* "/" is the root, a directory; "a/b" is a parent of a/b/c -> dir */
	assert_true(pf(&p, ids[7])->is_dir);
	assert_false(pf(&p, ids[0])->is_dir);
	/* the root itself is never removed, renamed or recreated */
	assert_int_equal(plan_rmdir(&p, 0, ids[7]), -EINVAL);
	assert_int_equal(plan_unlink(&p, 0, ids[7]), -EINVAL);
	assert_int_equal(plan_rename(&p, 0, ids[7], ids[1]), -EINVAL);
	assert_int_equal(plan_mkdir(&p, 0, ids[7], 0755), -EINVAL);
	assert_int_equal(plan_stat(&p, 0, ids[7]), 0);
	assert_int_equal(plan_stat(&p, 0, ids[0]), -ENOENT);
	assert_int_equal(p.ncopies, 1);
	assert_int_equal(p.nprocs, 1);
	plan_release(&p);
	opstream_close(&s);
}

static void test_climbing_refused(void **state)
{
	(void)state;
	char target[PATH_MAX], before[8192], after[8192];
	struct rerr e = { "" };
	struct tb t, t2;
	struct opstream s, s2;
	struct plan p;
	fresh_target(target, sizeof target, "climb");
	tb_open(&t, "climb");
	uint32_t r = tb_rank(&t, "pid 1");
	uint32_t a = tb_path(&t, "ok/file");
	uint32_t b = tb_path(&t, "../../sentinel/keep");
	tb_add(&t, r, op_open(a, 0, O_WRONLY | O_CREAT | O_TRUNC, 1));
	tb_add(&t, r, op_open(b, 1, O_WRONLY | O_TRUNC, 2));
	tb_add(&t, r, op_rw(OP_WRITE, b, 1, 0, 10, 10, 3));
	tb_finish(&t, &s);
	/* the reserved copy prefix cannot be used by a trace */
	tb_open(&t2, "reserved");
	r = tb_rank(&t2, "pid 1");
	a = tb_path(&t2, "/.replay-copy-1/x");
	tb_add(&t2, r, op_open(a, 0, O_WRONLY | O_CREAT, 1));
	tb_finish(&t2, &s2);

	listing(root, before, sizeof before);
	assert_int_equal(plan_build(&p, &s, target, NULL, &e), -EXDEV);
	assert_non_null(strstr(e.msg, "'../../sentinel/keep'"));
	assert_non_null(strstr(e.msg, "climbs above"));
	assert_int_equal(plan_build(&p, &s2, target, &(struct plan_opts){ .force = true }, &e), -EPERM);
	assert_non_null(strstr(e.msg, "reserved"));
	/* nothing was created or changed anywhere under the test root */
	listing(root, after, sizeof after);
	assert_string_equal(after, before);
	assert_sentinel_untouched();
	opstream_close(&s);
	opstream_close(&s2);
}

/* Hostile absolute paths: they all land beneath TARGET. */
static void hostile(const char *name)
{
	char target[PATH_MAX], before[8192], after[8192], buf[PATH_MAX];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	struct stat pw0, pw1;
	assert_int_equal(stat("/etc/passwd", &pw0), 0);
	fresh_target(target, sizeof target, name);
	listing(target, before, sizeof before);
	tb_open(&t, name);
	uint32_t r = tb_rank(&t, "pid 1");
	uint32_t pw = tb_path(&t, "/../../etc/passwd");
	uint32_t sk = tb_path(&t, "/../sentinel/../../keep");
	char abs_sent[PATH_MAX];
	pathf(abs_sent, sizeof abs_sent, "%s/keep", sentinel);
	uint32_t as = tb_path(&t, abs_sent);
	uint32_t gone = tb_path(&t, "/tmp/../victim");
	uint32_t moved = tb_path(&t, "/x/moved");
	tb_add(&t, r, op_open(pw, 0, O_WRONLY | O_CREAT | O_TRUNC, 1));
	tb_add(&t, r, op_rw(OP_WRITE, pw, 0, 0, 4096, 4096, 2));
	tb_add(&t, r, op_open(sk, 1, O_RDWR, 3));
	tb_add(&t, r, op_rw(OP_READ, sk, 1, 0, 100, 100, 4));
	tb_add(&t, r, op_open(as, 2, O_RDWR | O_TRUNC, 5));
	tb_add(&t, r, op_path(OP_UNLINK, gone, 0, 6));
	tb_add(&t, r, op_path(OP_RENAME, as, moved, 7));
	tb_finish(&t, &s);
	assert_int_equal(plan_build(&p, &s, target, NULL, &e), 0);
	assert_string_equal(pf(&p, pw)->rel, "etc/passwd");
	assert_string_equal(pf(&p, sk)->rel, "keep");
	assert_string_equal(pf(&p, as)->rel, abs_sent + 1);
	assert_string_equal(pf(&p, gone)->rel, "victim");
	assert_true(pf(&p, sk)->prepare);
	assert_int_equal(pf(&p, sk)->prep_size, 100);
	assert_true(pf(&p, gone)->prepare);      /* unlinked before created */
	assert_int_equal(pf(&p, gone)->prep_size, 0);
	assert_false(pf(&p, pw)->prepare);
	assert_int_equal(plan_prepare(&p, &e), 0);

	/* replay the ops the way the runner will */
	int fd = plan_openat(&p, 0, pw, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	char data[4096];
	memset(data, 'h', sizeof data);
	assert_int_equal(pwrite(fd, data, sizeof data, 0), (ssize_t)sizeof data);
	close(fd);
	fd = plan_openat(&p, 0, sk, O_RDWR, 0);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, data, 100, 0), 100);
	close(fd);
	fd = plan_openat(&p, 0, as, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "x", 1, 0), 1);
	close(fd);
	assert_int_equal(plan_unlink(&p, 0, gone), 0);
	assert_int_equal(plan_rename(&p, 0, as, moved), 0);

	pathf(buf, sizeof buf, "%s/etc/passwd", target);
	struct stat st;
	assert_int_equal(stat(buf, &st), 0);
	assert_int_equal(st.st_size, 4096);
	pathf(buf, sizeof buf, "%s/x/moved", target);
	assert_int_equal(stat(buf, &st), 0);
	assert_int_equal(st.st_size, 1);
	assert_int_equal(stat("/etc/passwd", &pw1), 0);
	assert_int_equal(pw0.st_size, pw1.st_size);
	assert_int_equal(pw0.st_mtim.tv_sec, pw1.st_mtim.tv_sec);
	assert_int_equal(pw0.st_mtim.tv_nsec, pw1.st_mtim.tv_nsec);
	assert_sentinel_untouched();

	assert_int_equal(plan_cleanup(&p, &e), 0);
	listing(target, after, sizeof after);
	assert_string_equal(after, before);
	assert_sentinel_untouched();
	plan_release(&p);
	opstream_close(&s);
}

static void test_hostile_openat2(void **state)
{
	(void)state;
	unsetenv("REPLAY_RESOLVE");
	hostile("hostile");
}

static void test_hostile_walk(void **state)
{
	(void)state;
	setenv("REPLAY_RESOLVE", "walk", 1);
	hostile("hostile-walk");
	unsetenv("REPLAY_RESOLVE");
}

/* Symlinks planted in the target that point outside. */
static void planted(const char *name, bool walk)
{
	char target[PATH_MAX], buf[PATH_MAX], rel_out[PATH_MAX];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	struct stat st0;
	if (walk)
		setenv("REPLAY_RESOLVE", "walk", 1);
	else
		unsetenv("REPLAY_RESOLVE");
	fresh_target(target, sizeof target, name);
	tb_open(&t, name);
	uint32_t r = tb_rank(&t, "pid 1");
	uint32_t da = tb_path(&t, "/absdir/f");     /* absdir -> sentinel (absolute) */
	uint32_t dr = tb_path(&t, "/reldir/f");     /* reldir -> ../sentinel        */
	uint32_t fa = tb_path(&t, "/fin");          /* fin -> sentinel/keep          */
	uint32_t nd = tb_path(&t, "/absdir/newdir");
	uint32_t ok = tb_path(&t, "/plain");
	uint32_t hl = tb_path(&t, "/hl"), ff = tb_path(&t, "/ff"), sl = tb_path(&t, "/sl");
	uint32_t nw = tb_path(&t, "/newf");
	tb_add(&t, r, op_open(hl, 4, O_WRONLY | O_CREAT | O_TRUNC, 6));
	tb_add(&t, r, op_open(ff, 5, O_RDONLY | O_CREAT, 7));
	tb_add(&t, r, op_open(sl, 6, O_WRONLY | O_CREAT | O_TRUNC, 8));
	tb_add(&t, r, op_open(nw, 7, O_WRONLY | O_CREAT | O_TRUNC, 9));
	tb_add(&t, r, op_open(da, 0, O_WRONLY | O_CREAT | O_TRUNC, 1));
	tb_add(&t, r, op_open(dr, 1, O_WRONLY | O_CREAT | O_TRUNC, 2));
	tb_add(&t, r, op_open(fa, 2, O_WRONLY | O_CREAT | O_TRUNC, 3));
	tb_add(&t, r, op_path(OP_MKDIR, nd, 0755, 4));
	tb_add(&t, r, op_open(ok, 3, O_WRONLY | O_CREAT | O_TRUNC, 5));
	tb_finish(&t, &s);
	assert_int_equal(plan_build(&p, &s, target, NULL, &e), 0);
	assert_int_equal(p.priv != NULL, 1);
	struct target_info ti;
	assert_int_equal(target_info_get(target, &ti), 0);
	assert_string_equal(ti.resolve, walk ? "walk" : "openat2");

	/* plant the links after the plan (the build refuses them, see below) */
	pathf(buf, sizeof buf, "%s/absdir", target);
	assert_int_equal(symlink(sentinel, buf), 0);
	pathf(buf, sizeof buf, "%s/reldir", target);
	pathf(rel_out, sizeof rel_out, "../%s", strrchr(sentinel, '/') + 1);
	assert_int_equal(symlink(rel_out, buf), 0);
	pathf(buf, sizeof buf, "%s/fin", target);
	pathf(rel_out, sizeof rel_out, "%s/keep", sentinel);
	assert_int_equal(symlink(rel_out, buf), 0);

	int fd = plan_openat(&p, 0, da, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd == -EXDEV || fd == -ELOOP);
	fd = plan_openat(&p, 0, dr, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd == -EXDEV || fd == -ELOOP);
	fd = plan_openat(&p, 0, fa, O_WRONLY | O_TRUNC, 0644);
	assert_true(fd == -EXDEV || fd == -ELOOP);
	fd = plan_openat(&p, 0, fa, O_RDONLY, 0);
	assert_true(fd == -EXDEV || fd == -ELOOP);
	int rc = plan_mkdir(&p, 0, nd, 0755);
	assert_true(rc == -EXDEV || rc == -ELOOP);
	rc = plan_unlink(&p, 0, da);
	assert_true(rc == -EXDEV || rc == -ELOOP);
	rc = plan_rename(&p, 0, ok, da);
	assert_true(rc == -EXDEV || rc == -ELOOP || rc == -ENOENT);
	/* the final-component link is removed as a link (unlinkat), not followed */
	fd = plan_openat(&p, 0, ok, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_sentinel_untouched();

	/* a worker's open (plan_open_run) of what is planted in the target
	 * during the run: a hard link to a file outside, a FIFO, a link to a
	 * file inside, none of which the trace makes */
	const char *why;
	pathf(buf, sizeof buf, "%s/hl", target);
	pathf(rel_out, sizeof rel_out, "%s/keep", sentinel);
	assert_int_equal(link(rel_out, buf), 0);
	assert_int_equal(plan_open_run(&p, 0, hl, O_WRONLY | O_CREAT | O_TRUNC, 0644, false, &why), -EMLINK);
	assert_non_null(why);
	assert_int_equal(plan_truncate(&p, 0, hl, 0, &why), -EMLINK);
	assert_non_null(why);
	fd = plan_open_run(&p, 0, hl, O_RDONLY, 0, false, &why);      /* read: nothing changes */
	assert_true(fd >= 0);
	assert_null(why);
	close(fd);
	assert_int_equal(unlink(buf), 0);
	assert_sentinel_untouched();
	pathf(buf, sizeof buf, "%s/ff", target);
	assert_int_equal(mkfifo(buf, 0644), 0);
	/* (O_TRUNC: checked before the open; O_RDWR: a FIFO's open does not
	 * block, and the file is looked at after it) */
	assert_int_equal(plan_open_run(&p, 0, ff, O_WRONLY | O_CREAT | O_TRUNC, 0644, false, &why), -EPERM);
	assert_non_null(strstr(why, "FIFO"));
	assert_int_equal(plan_open_run(&p, 0, ff, O_RDWR, 0, false, &why), -EPERM);
	assert_non_null(strstr(why, "FIFO"));
	pathf(buf, sizeof buf, "%s/sl", target);
	assert_int_equal(symlink("plain", buf), 0);
	assert_int_equal(plan_open_run(&p, 0, sl, O_WRONLY | O_CREAT | O_TRUNC, 0644, false, &why), -ELOOP);
	assert_non_null(strstr(why, "symbolic link"));
	fd = plan_open_run(&p, 0, sl, O_RDONLY, 0, false, &why);      /* read: followed, inside */
	if (walk) {
		assert_int_equal(fd, -ELOOP);   /* (the walk follows no link) */
	} else {
		assert_true(fd >= 0);
		close(fd);
	}
	/* a name not there: created; there: opened, O_TRUNC done */
	fd = plan_open_run(&p, 0, nw, O_WRONLY | O_CREAT | O_TRUNC, 0644, false, &why);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	fd = plan_open_run(&p, 0, nw, O_WRONLY | O_CREAT | O_TRUNC, 0644, false, &why);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st0), 0);
	assert_int_equal(st0.st_size, 0);
	close(fd);
	assert_sentinel_untouched();
	/* cleanup never follows links either */
	assert_int_equal(plan_cleanup(&p, &e), 0);
	assert_sentinel_untouched();
	pathf(buf, sizeof buf, "%s/plain", target);
	assert_int_equal(access(buf, F_OK), -1);
	plan_release(&p);

	/* a plan built on a target that already holds an escaping link: refused */
	pathf(buf, sizeof buf, "%s/absdir", target);
	struct stat st;
	assert_int_equal(lstat(buf, &st), 0);   /* the planted link is still there */
	assert_int_equal(plan_build(&p, &s, target, &(struct plan_opts){ .force = true }, &e), -EXDEV);
	assert_non_null(strstr(e.msg, "outside the target"));
	assert_sentinel_untouched();
	opstream_close(&s);
	unsetenv("REPLAY_RESOLVE");
}

static void test_planted_openat2(void **state)
{
	(void)state;
	planted("planted", false);
}

static void test_planted_walk(void **state)
{
	(void)state;
	planted("planted-walk", true);
}

static void test_bad_targets(void **state)
{
	(void)state;
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	char file[PATH_MAX], missing[PATH_MAX];
	tb_open(&t, "bad");
	uint32_t r = tb_rank(&t, "pid 1");
	uint32_t a = tb_path(&t, "/f");
	tb_add(&t, r, op_open(a, 0, O_WRONLY | O_CREAT, 1));
	tb_finish(&t, &s);

	pathf(file, sizeof file, "%s/regular", root);
	write_text(file, "x");
	assert_int_equal(plan_build(&p, &s, file, NULL, &e), -ENOTDIR);
	assert_non_null(strstr(e.msg, "is a regular file, not a directory"));
	assert_int_equal(p.target_fd, -1);

	pathf(missing, sizeof missing, "%s/no/such/dir", root);
	assert_int_equal(plan_build(&p, &s, missing, NULL, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "does not exist"));
	assert_non_null(strstr(e.msg, missing));
	opstream_close(&s);
}

/* The first of paths that is a device node of the type `type` (S_IFCHR,
 * S_IFBLK), or NULL: /dev/null is a plain file in some containers. */
static const char *device_node(const char *const *paths, size_t n, mode_t type)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (!stat(paths[i], &st) && (st.st_mode & S_IFMT) == type)
			return paths[i];
	}
	return NULL;
}

/* A device node as the target: refused, naming its type.  Device nodes are
 * only stat'ed (by the test and by replay), never opened. */
static void device_target(mode_t type, const char *const *paths, size_t n, const char *what)
{
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	char want[300];
	const char *dev = device_node(paths, n, type);
	if (!dev) {
		print_message("SKIP: no %s device node here (%s, ... are missing or not devices)\n",
			      what, paths[0]);
		skip();
	}
	tb_open(&t, what);
	uint32_t r = tb_rank(&t, "pid 1");
	tb_add(&t, r, op_open(tb_path(&t, "/f"), 0, O_WRONLY | O_CREAT, 1));
	tb_finish(&t, &s);
	assert_int_equal(plan_build(&p, &s, dev, NULL, &e), -ENOTDIR);
	snprintf(want, sizeof want, "'%s' is a %s device", dev, what);
	assert_non_null(strstr(e.msg, want));
	assert_int_equal(p.target_fd, -1);
	opstream_close(&s);
}

static void test_chardev_target(void **state)
{
	(void)state;
	static const char *const chr[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/urandom",
					   "/dev/random", "/dev/tty" };
	device_target(S_IFCHR, chr, sizeof chr / sizeof chr[0], "character");
}

static void test_blockdev_target(void **state)
{
	(void)state;
	static const char *const blk[] = { "/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/xvda",
					   "/dev/loop0" };
	device_target(S_IFBLK, blk, sizeof blk / sizeof blk[0], "block");
}

static void test_existing_force(void **state)
{
	(void)state;
	char target[PATH_MAX], buf[PATH_MAX], before[8192], after[8192];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	fresh_target(target, sizeof target, "existing");
	pathf(buf, sizeof buf, "%s/out", target);
	assert_int_equal(mkdir(buf, 0755), 0);
	pathf(buf, sizeof buf, "%s/out/a", target);
	write_text(buf, "user data a\n");
	pathf(buf, sizeof buf, "%s/in", target);
	write_text(buf, "user data in\n");
	pathf(buf, sizeof buf, "%s/ro", target);
	write_text(buf, "read-only use\n");
	pathf(buf, sizeof buf, "%s/unrelated", target);
	write_text(buf, "not in the trace\n");
	char bigtext[10001];
	memset(bigtext, 'B', 10000);
	bigtext[10000] = '\0';
	pathf(buf, sizeof buf, "%s/bigin", target);
	write_text(buf, bigtext);     /* an input already there, large enough */
	listing(target, before, sizeof before);

	tb_open(&t, "existing");
	uint32_t r = tb_rank(&t, "pid 1");
	uint32_t a = tb_path(&t, "/out/a");
	uint32_t in = tb_path(&t, "/in");
	uint32_t ro = tb_path(&t, "/ro");
	uint32_t nw = tb_path(&t, "/out/new");
	uint32_t bi = tb_path(&t, "/bigin");
	tb_add(&t, r, op_open(bi, 4, O_RDONLY, 8));
	tb_add(&t, r, op_rw(OP_READ, bi, 4, 1000, 9000, 9000, 9));
	tb_add(&t, r, op_open(a, 0, O_WRONLY | O_CREAT | O_TRUNC, 1));
	tb_add(&t, r, op_rw(OP_WRITE, a, 0, 0, 10, 10, 2));
	tb_add(&t, r, op_open(in, 1, O_RDONLY, 3));
	tb_add(&t, r, op_rw(OP_READ, in, 1, 0, 8192, 8192, 4));
	tb_add(&t, r, op_open(ro, 2, O_RDONLY | O_CREAT, 5));   /* created if missing, only read after a write */
	tb_add(&t, r, op_rw(OP_WRITE, ro, 2, 0, 1, 1, 6));
	tb_add(&t, r, op_open(nw, 3, O_WRONLY | O_CREAT | O_TRUNC, 7));
	tb_finish(&t, &s);

	assert_int_equal(plan_build(&p, &s, target, NULL, &e), -EEXIST);
	/* files sorted by mapped path: "in" comes first */
	assert_non_null(strstr(e.msg, "already holds '"));
	assert_non_null(strstr(e.msg, "already holds 'in' and"));
	assert_non_null(strstr(e.msg, "and 2 more"));
	assert_non_null(strstr(e.msg, "--force"));
	assert_int_equal(p.target_fd, -1);
	listing(target, after, sizeof after);
	assert_string_equal(after, before);

	assert_int_equal(plan_build(&p, &s, target, &(struct plan_opts){ .force = true }, &e), 0);
	assert_true(pf(&p, bi)->prepare);
	assert_int_equal(pf(&p, bi)->prep_size, 10000);
	assert_true(pf(&p, in)->prepare);
	assert_int_equal(pf(&p, in)->prep_size, 8192);
	assert_int_equal(plan_prepare(&p, &e), 0);
	struct stat st;
	pathf(buf, sizeof buf, "%s/in", target);
	assert_int_equal(stat(buf, &st), 0);
	assert_int_equal(st.st_size, 8192);   /* overwritten with force */
	int fd = plan_openat(&p, 0, nw, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(plan_cleanup(&p, &e), 0);
	/* files that existed stay; what the run created goes */
	pathf(buf, sizeof buf, "%s/out/new", target);
	assert_int_equal(access(buf, F_OK), -1);
	pathf(buf, sizeof buf, "%s/out/a", target);
	assert_int_equal(access(buf, F_OK), 0);
	pathf(buf, sizeof buf, "%s/unrelated", target);
	assert_int_equal(access(buf, F_OK), 0);
	/* the large-enough input was used as is: same content, still there */
	pathf(buf, sizeof buf, "%s/bigin", target);
	char got[10001] = "";
	int bfd = open(buf, O_RDONLY);
	assert_true(bfd >= 0);
	assert_int_equal(read(bfd, got, 10000), 10000);
	close(bfd);
	assert_string_equal(got, bigtext);
	plan_release(&p);
	opstream_close(&s);
}

static void check_real_data(const char *path, uint64_t size)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal((uint64_t)st.st_size, size);
	assert_true((uint64_t)st.st_blocks * 512 >= size);   /* not sparse */
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	static unsigned char buf[1 << 16];
	uint64_t got = 0;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		assert_true(n >= 0);
		if (n == 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			if (!buf[i])
				fail_msg("zero byte at %llu in %s", (unsigned long long)(got + (uint64_t)i), path);
		got += (uint64_t)n;
	}
	close(fd);
	assert_int_equal(got, size);
}

/* What is put in the target between the plan and its preparation: a hard
 * link to a file outside, a FIFO.  The preparation refused neither (a
 * file outside was filled with the pattern, a FIFO hung it: audit REG3);
 * it makes its files O_EXCL and looks at one that is there. */
static void test_prepare_planted(void **state)
{
	(void)state;
	char target[PATH_MAX], buf[PATH_MAX], kp[PATH_MAX];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	for (int what = 0; what < 2; what++) {
		fresh_target(target, sizeof target, what ? "prepfifo" : "preplink");
		tb_open(&t, "prepplant");
		uint32_t r = tb_rank(&t, "pid 1");
		uint32_t in = tb_path(&t, "/d/in.dat");
		tb_add(&t, r, op_open(in, 0, O_RDONLY, 1));
		tb_add(&t, r, op_rw(OP_READ, in, 0, 0, 4096, 4096, 2));
		tb_finish(&t, &s);
		assert_int_equal(plan_build(&p, &s, target, NULL, &e), 0);
		assert_true(pf(&p, in)->prepare);
		pathf(buf, sizeof buf, "%s/d", target);
		assert_int_equal(mkdir(buf, 0755), 0);
		pathf(buf, sizeof buf, "%s/d/in.dat", target);
		pathf(kp, sizeof kp, "%s/keep", sentinel);
		if (what)
			assert_int_equal(mkfifo(buf, 0644), 0);
		else
			assert_int_equal(link(kp, buf), 0);
		e.msg[0] = 0;
		assert_true(plan_prepare(&p, &e) < 0);
		assert_non_null(strstr(e.msg, what ? "a FIFO is there" : "other hard links"));
		assert_sentinel_untouched();
		unlink(buf);
		assert_int_equal(plan_cleanup(&p, &e), 0);
		plan_release(&p);
		opstream_close(&s);
	}
}

static void test_prepare(void **state)
{
	(void)state;
	char target[PATH_MAX], buf[PATH_MAX], before[8192], after[8192];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	fresh_target(target, sizeof target, "prep");
	listing(target, before, sizeof before);
	tb_open(&t, "prep");
	uint32_t r = tb_rank(&t, "pid 1");
	uint32_t in = tb_path(&t, "/d/in.dat");
	uint32_t out = tb_path(&t, "/d/sub/out.dat");
	uint32_t rw = tb_path(&t, "/d/rw.dat");
	uint32_t sh = tb_path(&t, "/d/short.dat");
	uint32_t wr = tb_path(&t, "/d/wthenr.dat");
	uint32_t big = tb_path(&t, "/big.dat");
	uint32_t fail = tb_path(&t, "/nope/missing");
	/* read-only input: 4 KiB at 0 and 64 KiB at 1 MiB */
	tb_add(&t, r, op_open(in, 0, O_RDONLY, 1));
	tb_add(&t, r, op_rw(OP_READ, in, 0, 0, 4096, 4096, 2));
	tb_add(&t, r, op_rw(OP_READ, in, 0, 1 << 20, 65536, 65536, 3));
	/* output only: not prepared, its parent is */
	tb_add(&t, r, op_open(out, 1, O_WRONLY | O_CREAT | O_TRUNC, 4));
	tb_add(&t, r, op_rw(OP_WRITE, out, 1, 0, 1 << 20, 1 << 20, 5));
	/* O_CREAT but read before written: existed */
	tb_add(&t, r, op_open(rw, 2, O_RDWR | O_CREAT, 6));
	tb_add(&t, r, op_rw(OP_READ, rw, 2, 0, 512, 512, 7));
	tb_add(&t, r, op_rw(OP_WRITE, rw, 2, 0, 8192, 8192, 8));
	tb_add(&t, r, op_rw(OP_READ, rw, 2, 0, 8192, 8192, 9));
	/* short read at EOF: the traced result decides the size */
	tb_add(&t, r, op_open(sh, 3, O_RDONLY, 10));
	tb_add(&t, r, op_rw(OP_READ, sh, 3, 8192, 4096, 100, 11));
	tb_add(&t, r, op_rw(OP_READ, sh, 3, 8292, 4096, 0, 12));
	/* created, written, then read: not prepared */
	tb_add(&t, r, op_open(wr, 4, O_RDWR | O_CREAT | O_TRUNC, 13));
	tb_add(&t, r, op_rw(OP_WRITE, wr, 4, 0, 4096, 4096, 14));
	tb_add(&t, r, op_rw(OP_READ, wr, 4, 0, 4096, 4096, 15));
	/* async read, several pattern chunks */
	tb_add(&t, r, op_open(big, 5, O_RDONLY, 16));
	tb_add(&t, r, op_rw(OP_AREAD, big, 5, 2 << 20, (1 << 20) + 4321, 7, 17));
	/* a failed open: no file, no parent */
	struct op fo = op_open(fail, 6, O_RDONLY, 18);
	fo.result = -ENOENT;
	tb_add(&t, r, fo);
	tb_finish(&t, &s);

	assert_int_equal(plan_build(&p, &s, target, NULL, &e), 0);
	assert_true(pf(&p, in)->prepare);
	assert_int_equal(pf(&p, in)->prep_size, (1 << 20) + 65536);
	assert_false(pf(&p, out)->prepare);
	assert_true(pf(&p, out)->written);
	/* it held the 512 bytes read before anything was written */
	assert_true(pf(&p, rw)->prepare);
	assert_int_equal(pf(&p, rw)->prep_size, 512);
	assert_true(pf(&p, sh)->prepare);
	assert_int_equal(pf(&p, sh)->prep_size, 8292);
	assert_false(pf(&p, wr)->prepare);
	assert_true(pf(&p, big)->prepare);
	assert_int_equal(pf(&p, big)->prep_size, (3 << 20) + 4321);
	assert_false(pf(&p, fail)->prepare);
	assert_false(pf(&p, in)->shared);

	assert_int_equal(plan_prepare(&p, &e), 0);
	pathf(buf, sizeof buf, "%s/d/in.dat", target);
	check_real_data(buf, (1 << 20) + 65536);
	pathf(buf, sizeof buf, "%s/d/rw.dat", target);
	check_real_data(buf, 512);
	pathf(buf, sizeof buf, "%s/d/short.dat", target);
	check_real_data(buf, 8292);
	pathf(buf, sizeof buf, "%s/big.dat", target);
	check_real_data(buf, (3 << 20) + 4321);
	struct stat st;
	pathf(buf, sizeof buf, "%s/d/sub", target);
	assert_int_equal(stat(buf, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	pathf(buf, sizeof buf, "%s/d/sub/out.dat", target);
	assert_int_equal(access(buf, F_OK), -1);
	pathf(buf, sizeof buf, "%s/d/wthenr.dat", target);
	assert_int_equal(access(buf, F_OK), -1);
	pathf(buf, sizeof buf, "%s/nope", target);
	assert_int_equal(access(buf, F_OK), -1);

	/* the run writes its outputs; cleanup leaves the target as before */
	int fd = plan_openat(&p, 0, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "abc", 3, 0), 3);
	close(fd);
	fd = plan_openat(&p, 0, wr, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(plan_openat(&p, 0, fail, O_RDONLY, 0), -ENOENT);
	assert_int_equal(plan_cleanup(&p, &e), 0);
	listing(target, after, sizeof after);
	assert_string_equal(after, before);
	/* cleanup twice is harmless */
	assert_int_equal(plan_cleanup(&p, &e), 0);
	plan_release(&p);
	opstream_close(&s);
}

static void test_dirs(void **state)
{
	(void)state;
	char target[PATH_MAX], buf[PATH_MAX], before[8192], after[8192];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	fresh_target(target, sizeof target, "dirs");
	pathf(buf, sizeof buf, "%s/keepdir", target);
	assert_int_equal(mkdir(buf, 0755), 0);
	listing(target, before, sizeof before);
	tb_open(&t, "dirs");
	uint32_t r = tb_rank(&t, "pid 1");
	uint32_t outd = tb_path(&t, "/w/out");
	uint32_t outf = tb_path(&t, "/w/out/f");
	uint32_t old = tb_path(&t, "/w/old");
	uint32_t kd = tb_path(&t, "/keepdir/x");
	tb_add(&t, r, op_path(OP_MKDIR, outd, 0755, 1));
	tb_add(&t, r, op_open(outf, 0, O_WRONLY | O_CREAT | O_TRUNC, 2));
	tb_add(&t, r, op_path(OP_RMDIR, old, 0, 3));
	tb_add(&t, r, op_open(kd, 1, O_WRONLY | O_CREAT, 4));
	tb_finish(&t, &s);
	assert_int_equal(plan_build(&p, &s, target, NULL, &e), 0);
	assert_true(pf(&p, outd)->is_dir);
	assert_false(pf(&p, outd)->prepare);
	assert_true(pf(&p, old)->is_dir);
	assert_true(pf(&p, old)->prepare);
	assert_int_equal(plan_prepare(&p, &e), 0);
	struct stat st;
	pathf(buf, sizeof buf, "%s/w/old", target);
	assert_int_equal(stat(buf, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	pathf(buf, sizeof buf, "%s/w/out", target);
	assert_int_equal(access(buf, F_OK), -1);   /* the run mkdirs it */
	assert_int_equal(plan_mkdir(&p, 0, outd, 0755), 0);
	int fd = plan_openat(&p, 0, outf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(plan_rmdir(&p, 0, old), 0);
	assert_int_equal(plan_stat(&p, 0, outf), 0);
	assert_int_equal(plan_stat(&p, 0, old), -ENOENT);
	fd = plan_openat(&p, 0, kd, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(plan_cleanup(&p, &e), 0);
	listing(target, after, sizeof after);
	assert_string_equal(after, before);   /* keepdir stays, w/ and below go */
	plan_release(&p);
	opstream_close(&s);
}

static void test_copies(void **state)
{
	(void)state;
	char target[PATH_MAX], buf[PATH_MAX], before[8192], after[8192];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	fresh_target(target, sizeof target, "copies");
	listing(target, before, sizeof before);
	tb_open(&t, "copies");
	uint32_t r0 = tb_rank(&t, "pid 10");
	uint32_t r1 = tb_rank(&t, "pid 11");
	uint32_t shared = tb_path(&t, "/shared.dat");
	uint32_t p0 = tb_path(&t, "/r0.dat");
	uint32_t p1 = tb_path(&t, "/r1.dat");
	tb_add(&t, r0, op_open(shared, 0, O_RDONLY, 1));
	tb_add(&t, r0, op_rw(OP_READ, shared, 0, 0, 1000, 1000, 2));
	tb_add(&t, r0, op_open(p0, 1, O_WRONLY | O_CREAT | O_TRUNC, 3));
	tb_add(&t, r1, op_open(shared, 0, O_RDONLY, 1));
	tb_add(&t, r1, op_rw(OP_READ, shared, 0, 1000, 1000, 1000, 2));
	tb_add(&t, r1, op_open(p1, 1, O_RDONLY, 3));
	tb_add(&t, r1, op_rw(OP_READ, p1, 1, 0, 300, 300, 4));
	tb_finish(&t, &s);

	/* 5 processes, 2 ranks: rank i % 2, copy i / 2 */
	assert_int_equal(plan_build(&p, &s, target, &(struct plan_opts){ .nprocs = 5 }, &e), 0);
	assert_int_equal(p.nprocs, 5);
	assert_int_equal(p.ncopies, 3);
	assert_true(p.reused);
	assert_int_equal(p.nranks_used, 2);
	static const uint32_t er[] = { 0, 1, 0, 1, 0 }, ec[] = { 0, 0, 1, 1, 2 };
	for (int i = 0; i < 5; i++) {
		assert_int_equal(p.procs[i].rank, er[i]);
		assert_int_equal(p.procs[i].copy, ec[i]);
	}
	assert_true(pf(&p, shared)->shared);
	assert_int_equal(pf(&p, shared)->prep_size, 2000);
	assert_false(pf(&p, p0)->shared);
	assert_false(pf(&p, p1)->shared);

	/* the dry-run text names it all */
	char *txt = NULL;
	size_t tlen = 0;
	FILE *mf = open_memstream(&txt, &tlen);
	assert_non_null(mf);
	plan_print(&p, &s, mf);
	fclose(mf);
	assert_non_null(strstr(txt, "3 copies"));
	assert_non_null(strstr(txt, "shared.dat"));
	assert_non_null(strstr(txt, "shared"));
	assert_non_null(strstr(txt, "private"));
	assert_non_null(strstr(txt, "(2000 bytes)"));
	assert_non_null(strstr(txt, "process 4: rank 0 (pid 10), copy 2"));
	assert_non_null(strstr(txt, "process 1: rank 1 (pid 11)\n"));
	free(txt);

	assert_int_equal(plan_prepare(&p, &e), 0);
	pathf(buf, sizeof buf, "%s/shared.dat", target);
	check_real_data(buf, 2000);
	pathf(buf, sizeof buf, "%s/.replay-copy-1/shared.dat", target);
	check_real_data(buf, 2000);
	pathf(buf, sizeof buf, "%s/.replay-copy-2/shared.dat", target);
	check_real_data(buf, 2000);
	pathf(buf, sizeof buf, "%s/.replay-copy-1/r1.dat", target);
	check_real_data(buf, 300);
	/* copy 2 replays rank 0 only: rank 1's private file is not there */
	pathf(buf, sizeof buf, "%s/.replay-copy-2/r1.dat", target);
	assert_int_equal(access(buf, F_OK), -1);

	int fd = plan_openat(&p, 2, p0, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
	pathf(buf, sizeof buf, "%s/.replay-copy-2/r0.dat", target);
	assert_int_equal(access(buf, F_OK), 0);
	assert_int_equal(plan_openat(&p, 3, p0, O_RDONLY, 0), -EINVAL);   /* no copy 3 */
	assert_int_equal(plan_cleanup(&p, &e), 0);
	listing(target, after, sizeof after);
	assert_string_equal(after, before);
	plan_release(&p);

	/* fewer processes than ranks: ranks 0..N-1, rank 1's files unplanned */
	assert_int_equal(plan_build(&p, &s, target, &(struct plan_opts){ .nprocs = 1 }, &e), 0);
	assert_int_equal(p.nprocs, 1);
	assert_int_equal(p.ncopies, 1);
	assert_false(p.reused);
	assert_int_equal(p.file_of[p1], UINT32_MAX);
	assert_false(pf(&p, shared)->shared);
	assert_int_equal(pf(&p, shared)->prep_size, 1000);
	plan_release(&p);

	/* an existing copy root counts as occupied */
	pathf(buf, sizeof buf, "%s/.replay-copy-1", target);
	assert_int_equal(mkdir(buf, 0755), 0);
	assert_int_equal(plan_build(&p, &s, target, &(struct plan_opts){ .nprocs = 4 }, &e), -EEXIST);
	assert_non_null(strstr(e.msg, ".replay-copy-1"));
	assert_int_equal(rmdir(buf), 0);
	opstream_close(&s);
}

static void test_hostile_size(void **state)
{
	(void)state;
	char target[PATH_MAX], before[8192], after[8192];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	fresh_target(target, sizeof target, "huge");
	listing(target, before, sizeof before);
	tb_open(&t, "huge");
	uint32_t r = tb_rank(&t, "pid 1");
	uint32_t f = tb_path(&t, "/huge");
	tb_add(&t, r, op_open(f, 0, O_RDONLY, 1));
	tb_add(&t, r, op_rw(OP_READ, f, 0, UINT64_MAX - 10, 4096, 4096, 2));
	tb_finish(&t, &s);
	assert_int_equal(plan_build(&p, &s, target, NULL, &e), -ENOSPC);
	assert_non_null(strstr(e.msg, "free"));
	listing(target, after, sizeof after);
	assert_string_equal(after, before);
	opstream_close(&s);
}

/* Trace time across ranks decides "read before written". */
static void test_time_order(void **state)
{
	(void)state;
	char target[PATH_MAX];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	fresh_target(target, sizeof target, "order");
	tb_open(&t, "order");
	uint32_t r0 = tb_rank(&t, "pid 1");
	uint32_t r1 = tb_rank(&t, "pid 2");
	uint32_t a = tb_path(&t, "/a");   /* r0 writes at 100, r1 reads at 200     */
	uint32_t b = tb_path(&t, "/b");   /* r1 reads at 50, r0 writes at 100      */
	uint32_t c = tb_path(&t, "/c");   /* r1 reads at t0 1000 + 50: after write */
	opsw_rank_t0(t.w, r0, 1000);
	opsw_rank_t0(t.w, r1, 1000);
	tb_add(&t, r0, op_open(a, 0, O_RDWR | O_CREAT, 10));
	tb_add(&t, r0, op_open(b, 1, O_RDWR | O_CREAT, 10));
	tb_add(&t, r0, op_rw(OP_WRITE, a, 0, 0, 4096, 4096, 100));
	tb_add(&t, r0, op_rw(OP_WRITE, b, 1, 0, 4096, 4096, 100));
	tb_add(&t, r1, op_open(a, 0, O_RDWR | O_CREAT, 20));
	tb_add(&t, r1, op_open(b, 1, O_RDWR | O_CREAT, 20));
	tb_add(&t, r1, op_rw(OP_READ, b, 1, 0, 4096, 4096, 50));
	tb_add(&t, r1, op_rw(OP_READ, a, 0, 0, 4096, 4096, 200));
	uint32_t r2 = tb_rank(&t, "pid 3");
	opsw_rank_t0(t.w, r2, 2000);
	tb_add(&t, r0, op_open(c, 2, O_WRONLY | O_CREAT | O_TRUNC, 300));
	tb_add(&t, r0, op_rw(OP_WRITE, c, 2, 0, 512, 512, 400));
	tb_add(&t, r2, op_open(c, 0, O_RDONLY, 10));
	tb_add(&t, r2, op_rw(OP_READ, c, 0, 0, 512, 512, 50));
	tb_finish(&t, &s);
	assert_int_equal(plan_build(&p, &s, target, NULL, &e), 0);
	/* b: read at 1050 before any write at 1100: prepared */
	assert_true(pf(&p, b)->prepare);
	assert_int_equal(pf(&p, b)->prep_size, 4096);
	/* a: rank 0 writes it at 1100 before rank 1 reads it at 1200: made by
	 * the run, and rank 1's read waits for rank 0's write (its 3rd op) */
	assert_false(pf(&p, a)->prepare);
	assert_true(p.ordered);
	bool waits_a = false, waits_c = false;
	for (uint64_t k = 0; k < p.ord.ndeps[1]; k++)
		waits_a |= p.ord.deps[1][k].op == 3 && p.ord.deps[1][k].rank == 0 &&
			   p.ord.deps[1][k].need >= 3;
	/* c: rank 2 opens it without O_CREAT at 2010, after rank 0 created it
	 * at 1300: not prepared, rank 2 waits for the create (op 5) */
	assert_false(pf(&p, c)->prepare);
	for (uint64_t k = 0; k < p.ord.ndeps[2]; k++)
		waits_c |= p.ord.deps[2][k].op == 0 && p.ord.deps[2][k].rank == 0 &&
			   p.ord.deps[2][k].need >= 5;
	assert_true(waits_a && waits_c);
	assert_true(pf(&p, a)->shared && pf(&p, b)->shared && pf(&p, c)->shared);
	plan_release(&p);
	/* each rank alone (sequential mode): rank 1 finds a and b, rank 2 c */
	struct plan_opts seq = { .sequential = true };
	assert_int_equal(plan_build(&p, &s, target, &seq, &e), 0);
	assert_true(pf(&p, a)->prepare && pf(&p, b)->prepare && pf(&p, c)->prepare);
	assert_int_equal(pf(&p, a)->prep_size, 4096);
	assert_int_equal(pf(&p, c)->prep_size, 512);
	assert_false(p.ordered);
	plan_release(&p);
	opstream_close(&s);
}

/* A directory the trace fills and then renames (a checkpoint written in
 * ckpt.tmp/, renamed to ckpt.1/ and read back): what it reads beneath the
 * new name was moved there by the rename, not there before (prepared, the
 * new directory was not empty and the replayed rename failed with
 * ENOTEMPTY).  A file beneath a renamed directory the trace never named
 * under the old name is still prepared under the new one. */
static void test_renamed_directory(void **state)
{
	(void)state;
	char target[PATH_MAX];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	fresh_target(target, sizeof target, "rendir");
	tb_open(&t, "rendir");
	uint32_t r0 = tb_rank(&t, "pid 1");
	uint32_t tmp = tb_path(&t, "/ckpt.tmp"), tf = tb_path(&t, "/ckpt.tmp/f");
	uint32_t c1 = tb_path(&t, "/ckpt.1"), cf = tb_path(&t, "/ckpt.1/f");
	uint32_t in = tb_path(&t, "/in"), in2 = tb_path(&t, "/in2"), ig = tb_path(&t, "/in2/g");
	struct op mk = op_path(OP_MKDIR, tmp, 0755, 10);
	tb_add(&t, r0, mk);
	tb_add(&t, r0, op_open(tf, 0, O_WRONLY | O_CREAT | O_TRUNC, 20));
	tb_add(&t, r0, op_rw(OP_WRITE, tf, 0, 0, 4096, 4096, 30));
	tb_add(&t, r0, op_path(OP_CLOSE, tf, 0, 40));
	tb_add(&t, r0, op_path(OP_RENAME, tmp, c1, 50));
	tb_add(&t, r0, op_open(cf, 1, O_RDONLY, 60));
	tb_add(&t, r0, op_rw(OP_READ, cf, 1, 0, 4096, 4096, 70));
	tb_add(&t, r0, op_path(OP_RENAME, in, in2, 80));
	tb_add(&t, r0, op_open(ig, 2, O_RDONLY, 90));
	tb_add(&t, r0, op_rw(OP_READ, ig, 2, 0, 512, 512, 100));
	tb_finish(&t, &s);
	for (int seq = 0; seq < 2; seq++) {
		struct plan_opts o = { .sequential = seq };
		assert_int_equal(plan_build(&p, &s, target, &o, &e), 0);
		assert_false(pf(&p, cf)->prepare);
		assert_false(pf(&p, tf)->prepare);
		assert_true(pf(&p, ig)->prepare);
		assert_int_equal(pf(&p, ig)->prep_size, 512);
		plan_release(&p);
	}
	opstream_close(&s);
}

/* A checkpoint directory with a subdirectory (ckpt.tmp/rank0/data written,
 * ckpt.tmp renamed to ckpt.1, ckpt.1/rank0/data read back): nothing is
 * made beneath the rename's target before the run.  Before, ckpt.1/ and
 * ckpt.1/rank0/ were "created if needed": the replayed rename found
 * ckpt.1 not empty (ENOTEMPTY) and the read's open failed (ENOENT).  Both
 * modes, and in sequential mode also when another rank reads the file:
 * the renamer, run alone, finds no ckpt.1 either (the reader, alone, finds
 * its file prepared under ckpt.1/rank0/). */
static void test_renamed_directory_subdir(void **state)
{
	(void)state;
	char target[PATH_MAX], buf[PATH_MAX];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	fresh_target(target, sizeof target, "rensub");
	tb_open(&t, "rensub");
	uint32_t r0 = tb_rank(&t, "pid 1"), r1 = tb_rank(&t, "pid 2");
	uint32_t tmp = tb_path(&t, "/w/ckpt.tmp"), tr = tb_path(&t, "/w/ckpt.tmp/rank0");
	uint32_t tf = tb_path(&t, "/w/ckpt.tmp/rank0/data");
	uint32_t c1 = tb_path(&t, "/w/ckpt.1"), cf = tb_path(&t, "/w/ckpt.1/rank0/data");
	uint32_t g = tb_path(&t, "/w/ckpt.1/rank0/more");
	tb_add(&t, r0, op_path(OP_MKDIR, tmp, 0755, 10));
	tb_add(&t, r0, op_path(OP_MKDIR, tr, 0755, 20));
	tb_add(&t, r0, op_open(tf, 0, O_WRONLY | O_CREAT | O_TRUNC, 30));
	tb_add(&t, r0, op_rw(OP_WRITE, tf, 0, 0, 100000, 100000, 40));
	tb_add(&t, r0, op_path(OP_CLOSE, tf, 0, 50));
	tb_add(&t, r0, op_path(OP_RENAME, tmp, c1, 60));
	tb_add(&t, r0, op_open(cf, 1, O_RDONLY, 70));
	tb_add(&t, r0, op_rw(OP_READ, cf, 1, 0, 100000, 100000, 80));
	/* rank 1, later: reads what rank 0 renamed, creates a file beside */
	tb_add(&t, r1, op_open(cf, 0, O_RDONLY, 100));
	tb_add(&t, r1, op_rw(OP_READ, cf, 0, 0, 4096, 4096, 110));
	tb_add(&t, r1, op_open(g, 1, O_WRONLY | O_CREAT | O_EXCL, 120));
	tb_finish(&t, &s);
	for (int seq = 0; seq < 2; seq++) {
		struct plan_opts o = { .sequential = seq };
		assert_int_equal(plan_build(&p, &s, target, &o, &e), 0);
		assert_true(pf(&p, c1)->is_dir);
		assert_false(pf(&p, c1)->prepare);
		assert_false(pf(&p, tf)->prepare);
		/* process 0 replays rank 0, the renamer */
		assert_int_equal(plan_prepare_proc(&p, 0, &e), 0);
		pathf(buf, sizeof buf, "%s/w/ckpt.1", target);
		assert_int_equal(access(buf, F_OK), -1);
		pathf(buf, sizeof buf, "%s/w", target);
		assert_int_equal(access(buf, F_OK), 0);
		assert_int_equal(plan_mkdir(&p, 0, tmp, 0755), 0);
		assert_int_equal(plan_mkdir(&p, 0, tr, 0755), 0);
		int fd = plan_openat(&p, 0, tf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(plan_rename(&p, 0, tmp, c1), 0);
		fd = plan_openat(&p, 0, cf, O_RDONLY, 0);
		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(plan_cleanup(&p, &e), 0);
		pathf(buf, sizeof buf, "%s/w/ckpt.1", target);
		assert_int_equal(access(buf, F_OK), -1);
		if (seq) {
			/* rank 1 alone: its file prepared, under ckpt.1/rank0/ */
			assert_true(pf(&p, cf)->prepare);
			assert_int_equal(plan_prepare_proc(&p, 1, &e), 0);
			pathf(buf, sizeof buf, "%s/w/ckpt.1/rank0/data", target);
			struct stat st;
			assert_int_equal(stat(buf, &st), 0);
			assert_int_equal(st.st_size, 4096);
			assert_int_equal(plan_cleanup(&p, &e), 0);
		} else {
			assert_false(pf(&p, cf)->prepare);
		}
		plan_release(&p);
	}
	assert_sentinel_untouched();
	opstream_close(&s);
}

/* A directory there before the trace, renamed (mv old new), a file beneath
 * it read under the new name, then a subdirectory renamed (mv new/x
 * new/x2): the file is prepared where it was when the trace began,
 * old/x/y/file, with the size the read shows; old is a directory, new is
 * not made (before: old a 0-byte file, the file prepared at new/x/y/file,
 * the renames failed EISDIR and ENOTEMPTY).  And a checkpoint directory
 * there before the trace, removed and replaced by a rename of ckpt.tmp
 * with subdirectories: nothing is made beneath ckpt but what was there
 * (before: ckpt/a made, the rmdir and the rename failed ENOTEMPTY). */
static void test_renamed_existing_dir(void **state)
{
	(void)state;
	char target[PATH_MAX], buf[PATH_MAX];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	struct stat st;
	fresh_target(target, sizeof target, "renold");
	tb_open(&t, "renold");
	uint32_t r0 = tb_rank(&t, "pid 1");
	uint32_t old = tb_path(&t, "/w/old"), nw = tb_path(&t, "/w/new");
	uint32_t f = tb_path(&t, "/w/new/x/y/file"), x = tb_path(&t, "/w/new/x");
	uint32_t x2 = tb_path(&t, "/w/new/x2");
	uint32_t ck = tb_path(&t, "/w/ckpt"), cko = tb_path(&t, "/w/ckpt/old");
	uint32_t ckf = tb_path(&t, "/w/ckpt/old/f"), tmp = tb_path(&t, "/w/ckpt.tmp");
	uint32_t ta = tb_path(&t, "/w/ckpt.tmp/a"), tf = tb_path(&t, "/w/ckpt.tmp/a/p");
	uint32_t cf = tb_path(&t, "/w/ckpt/a/p");
	tb_add(&t, r0, op_path(OP_RENAME, old, nw, 10));
	tb_add(&t, r0, op_open(f, 0, O_RDONLY, 20));
	tb_add(&t, r0, op_rw(OP_READ, f, 0, 0, 5000, 4444, 30));
	tb_add(&t, r0, op_path(OP_CLOSE, f, 0, 40));
	tb_add(&t, r0, op_path(OP_RENAME, x, x2, 50));
	tb_add(&t, r0, op_path(OP_MKDIR, tmp, 0755, 60));
	tb_add(&t, r0, op_path(OP_MKDIR, ta, 0755, 70));
	tb_add(&t, r0, op_open(tf, 1, O_WRONLY | O_CREAT | O_TRUNC, 80));
	tb_add(&t, r0, op_rw(OP_WRITE, tf, 1, 0, 3000, 3000, 90));
	tb_add(&t, r0, op_path(OP_CLOSE, tf, 1, 100));
	tb_add(&t, r0, op_path(OP_UNLINK, ckf, 0, 110));
	tb_add(&t, r0, op_path(OP_RMDIR, cko, 0, 120));
	tb_add(&t, r0, op_path(OP_RMDIR, ck, 0, 130));
	tb_add(&t, r0, op_path(OP_RENAME, tmp, ck, 140));
	tb_add(&t, r0, op_open(cf, 2, O_RDONLY, 150));
	tb_add(&t, r0, op_rw(OP_READ, cf, 2, 0, 3000, 3000, 160));
	tb_finish(&t, &s);
	for (int seq = 0; seq < 2; seq++) {
		struct plan_opts o = { .sequential = seq };
		assert_int_equal(plan_build(&p, &s, target, &o, &e), 0);
		assert_true(pf(&p, old)->is_dir);
		assert_true(pf(&p, old)->prepare);
		assert_false(pf(&p, nw)->prepare);
		assert_true(pf(&p, f)->prepare);
		assert_int_equal(pf(&p, f)->prep_size, 4444);
		assert_string_equal(pf(&p, f)->prep_rel, "w/old/x/y/file");
		assert_string_equal(pf(&p, x)->prep_rel, "w/old/x");
		assert_true(pf(&p, ck)->prepare);
		assert_false(pf(&p, cf)->prepare);
		assert_int_equal(plan_prepare_proc(&p, 0, &e), 0);
		pathf(buf, sizeof buf, "%s/w/old/x/y/file", target);
		assert_int_equal(stat(buf, &st), 0);
		assert_int_equal(st.st_size, 4444);
		pathf(buf, sizeof buf, "%s/w/new", target);
		assert_int_equal(access(buf, F_OK), -1);
		pathf(buf, sizeof buf, "%s/w/ckpt/old/f", target);
		assert_int_equal(access(buf, F_OK), 0);
		pathf(buf, sizeof buf, "%s/w/ckpt/a", target);
		assert_int_equal(access(buf, F_OK), -1);
		/* the run's metadata ops succeed */
		assert_int_equal(plan_rename(&p, 0, old, nw), 0);
		int fd = plan_openat(&p, 0, f, O_RDONLY, 0);
		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(plan_rename(&p, 0, x, x2), 0);
		assert_int_equal(plan_mkdir(&p, 0, tmp, 0755), 0);
		assert_int_equal(plan_mkdir(&p, 0, ta, 0755), 0);
		fd = plan_openat(&p, 0, tf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(plan_unlink(&p, 0, ckf), 0);
		assert_int_equal(plan_rmdir(&p, 0, cko), 0);
		assert_int_equal(plan_rmdir(&p, 0, ck), 0);
		assert_int_equal(plan_rename(&p, 0, tmp, ck), 0);
		fd = plan_openat(&p, 0, cf, O_RDONLY, 0);
		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(plan_cleanup(&p, &e), 0);
		pathf(buf, sizeof buf, "%s/w", target);
		assert_int_equal(access(buf, F_OK), -1);
		plan_release(&p);
	}
	assert_sentinel_untouched();
	opstream_close(&s);
}

/* Sequential mode, the rename in rank 0, the read beneath its new name in
 * rank 1: rank 0 alone finds the file under the old name, rank 1 alone
 * under the new one (it renames nothing itself); nothing is left. */
static void test_renamed_existing_dir_other_rank(void **state)
{
	(void)state;
	char target[PATH_MAX], buf[PATH_MAX];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	struct stat st;
	fresh_target(target, sizeof target, "renold2");
	tb_open(&t, "renold2");
	uint32_t r0 = tb_rank(&t, "pid 1"), r1 = tb_rank(&t, "pid 2");
	uint32_t old = tb_path(&t, "/w/old"), nw = tb_path(&t, "/w/new");
	uint32_t f = tb_path(&t, "/w/new/x/y/file"), g = tb_path(&t, "/w/new/g");
	tb_add(&t, r0, op_path(OP_RENAME, old, nw, 10));
	tb_add(&t, r0, op_open(f, 0, O_RDONLY, 20));
	tb_add(&t, r0, op_rw(OP_READ, f, 0, 0, 5000, 300, 30));
	tb_add(&t, r1, op_open(g, 0, O_RDONLY, 40));
	tb_add(&t, r1, op_rw(OP_READ, g, 0, 0, 5000, 200, 50));
	tb_finish(&t, &s);
	struct plan_opts o = { .sequential = true };
	assert_int_equal(plan_build(&p, &s, target, &o, &e), 0);
	assert_string_equal(pf(&p, g)->prep_rel, "w/old/g");
	assert_int_equal(plan_prepare_proc(&p, 0, &e), 0);
	pathf(buf, sizeof buf, "%s/w/old/x/y/file", target);
	assert_int_equal(stat(buf, &st), 0);
	assert_int_equal(st.st_size, 300);
	assert_int_equal(plan_rename(&p, 0, old, nw), 0);
	assert_int_equal(plan_cleanup(&p, &e), 0);
	pathf(buf, sizeof buf, "%s/w", target);
	assert_int_equal(access(buf, F_OK), -1);
	assert_int_equal(plan_prepare_proc(&p, 1, &e), 0);
	pathf(buf, sizeof buf, "%s/w/new/g", target);
	assert_int_equal(stat(buf, &st), 0);
	assert_int_equal(st.st_size, 200);
	assert_int_equal(plan_cleanup(&p, &e), 0);
	pathf(buf, sizeof buf, "%s/w", target);
	assert_int_equal(access(buf, F_OK), -1);
	plan_release(&p);
	assert_sentinel_untouched();
	opstream_close(&s);
}

/* An O_TMPFILE open (Python's tempfile.TemporaryFile) names a directory;
 * the file, "DIR/#INODE" as strace -y shows it, has no name.  It is not
 * prepared (before: a regular file of that name was, and the replayed
 * O_TMPFILE open of it failed with ENOTDIR); plan_openat opens a new
 * unnamed file in its directory each time, with no name left behind, and
 * plan_open_unnamed (what a file system without O_TMPFILE gets) likewise. */
static void test_tmpfile(void **state)
{
	(void)state;
	char target[PATH_MAX], buf[PATH_MAX], list[8192];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	fresh_target(target, sizeof target, "tmpf");
	tb_open(&t, "tmpf");
	uint32_t r0 = tb_rank(&t, "pid 1");
	uint32_t tf = tb_path(&t, "/w/v3/#12575779");
	const uint32_t fl = O_RDWR | O_EXCL | O_NOFOLLOW | O_TMPFILE;
	tb_add(&t, r0, op_open(tf, 0, fl, 10));
	tb_add(&t, r0, op_rw(OP_WRITE, tf, 0, 0, 70000, 70000, 20));
	tb_add(&t, r0, op_rw(OP_READ, tf, 0, 0, 70001, 70000, 30));
	tb_add(&t, r0, op_path(OP_CLOSE, tf, 0, 40));
	tb_add(&t, r0, op_open(tf, 1, O_WRONLY | O_TMPFILE, 50));     /* same name again */
	tb_add(&t, r0, op_rw(OP_WRITE, tf, 1, 0, 9999, 9999, 60));
	tb_finish(&t, &s);
	for (int seq = 0; seq < 2; seq++) {
		struct plan_opts o = { .sequential = seq };
		assert_int_equal(plan_build(&p, &s, target, &o, &e), 0);
		assert_false(pf(&p, tf)->is_dir);
		assert_false(pf(&p, tf)->prepare);
		assert_int_equal(plan_prepare(&p, &e), 0);
		pathf(buf, sizeof buf, "%s/w/v3", target);
		listing(buf, list, sizeof list);
		assert_string_equal(list, ". d 0 \n");      /* the directory, empty */
		bool named = true;
		int fd = plan_open_tmpfile(&p, 0, tf, (int)fl, 0600, &named);
		assert_true(fd >= 0);
		assert_false(named);
		int fd2 = plan_openat(&p, 0, tf, O_WRONLY | O_TMPFILE, 0644);
		assert_true(fd2 >= 0);
		int fd3 = plan_open_unnamed(&p, 0, tf, (int)fl, 0600);
		assert_true(fd3 >= 0);
		struct stat st, st2, st3;
		assert_int_equal(fstat(fd, &st), 0);
		assert_int_equal(fstat(fd2, &st2), 0);
		assert_int_equal(fstat(fd3, &st3), 0);
		assert_true(S_ISREG(st.st_mode) && S_ISREG(st3.st_mode));
		assert_int_equal(st.st_nlink, 0);
		assert_int_equal(st3.st_nlink, 0);
		assert_int_equal(st3.st_mode & 0777, 0600);
		assert_true(st.st_ino != st2.st_ino && st.st_ino != st3.st_ino);
		assert_int_equal(pwrite(fd, "abc", 3, 0), 3);
		assert_int_equal(pwrite(fd3, "abc", 3, 0), 3);
		listing(buf, list, sizeof list);
		assert_string_equal(list, ". d 0 \n");      /* nothing named in it */
		close(fd);
		close(fd2);
		close(fd3);
		assert_int_equal(plan_cleanup(&p, &e), 0);
		pathf(buf, sizeof buf, "%s/w", target);
		assert_int_equal(access(buf, F_OK), -1);
		plan_release(&p);
	}
	assert_sentinel_untouched();
	opstream_close(&s);
}

/* A directory the trace only stats (sh's test -d, a program probing its
 * output directory) is made as a directory, not an empty file; a stat
 * that found a regular file stays a file.  Before: /w/g was a 0-byte file. */
static void test_stat_directory(void **state)
{
	(void)state;
	char target[PATH_MAX], buf[PATH_MAX];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	struct stat st;
	fresh_target(target, sizeof target, "statdir");
	tb_open(&t, "statdir");
	uint32_t r0 = tb_rank(&t, "pid 1");
	uint32_t g = tb_path(&t, "/w/g"), f = tb_path(&t, "/w/f");
	struct op sd = op_path(OP_STAT, g, 0, 10);
	sd.flags = OPF_STAT_DIR;
	tb_add(&t, r0, sd);
	struct op sf = op_path(OP_STAT, f, 0, 20);
	sf.flags = OPF_STAT_SIZE;
	sf.len = 100;
	tb_add(&t, r0, sf);
	tb_finish(&t, &s);
	assert_int_equal(plan_build(&p, &s, target, NULL, &e), 0);
	assert_true(pf(&p, g)->is_dir);
	assert_true(pf(&p, g)->prepare);
	assert_false(pf(&p, f)->is_dir);
	assert_int_equal(pf(&p, f)->prep_size, 100);
	assert_int_equal(plan_prepare(&p, &e), 0);
	pathf(buf, sizeof buf, "%s/w/g", target);
	assert_int_equal(stat(buf, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	pathf(buf, sizeof buf, "%s/w/f", target);
	assert_int_equal(stat(buf, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 100);
	assert_int_equal(plan_cleanup(&p, &e), 0);
	plan_release(&p);
	opstream_close(&s);
}

/* plan_symlink_content: relative content kept, unless it climbs above the
 * traced root; absolute content (and such relative content) made relative
 * to the link's directory, pointing inside the link's copy. */
static void test_symlink_content(void **state)
{
	(void)state;
	static const struct { const char *link, *content, *want; } c[] = {
		{ "r/.git/tXY", "testing", "testing" },
		{ "a/b/l", "../x", "../x" },
		{ "a/b/l", "../../x", "../../x" },
		{ "a/b/l", "x/../../..", "x/../../.." },
		{ "a/b/l", "../../../etc/passwd", "../../etc/passwd" },
		{ "a/b/l", "../../../../..", "../.." },
		{ "a/b/l", "/a/b/c", "c" },
		{ "a/b/l", "/a/b/c/", "c" },
		{ "a/b/l", "/a/x/y", "../x/y" },
		{ "a/b/l", "/a/bc/d", "../bc/d" },
		{ "a/b/l", "/etc/passwd", "../../etc/passwd" },
		{ "a/b/l", "/", "../.." },
		{ "a/b/l", "/a/b", "." },
		{ "a/b/l", "/a", ".." },
		{ "a/b/l", "/a/./b/../b/c", "c" },
		{ "a/b/l", "//../..//a/z", "../z" },
		{ "l", "/etc/passwd", "etc/passwd" },
		{ "l", "..", "." },
		{ "l", "../x", "x" },
		{ "l", "x", "x" },
		{ "l", "/../../x", "x" },
		{ "l", "/", "." },
	};
	char out[PATH_MAX];
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		assert_int_equal(plan_symlink_content(c[i].link, c[i].content, out, sizeof out), 0);
		if (strcmp(out, c[i].want))
			fail_msg("link %s -> %s: made '%s', want '%s'", c[i].link, c[i].content, out,
				 c[i].want);
	}
	assert_int_equal(plan_symlink_content("a/l", "", out, sizeof out), -ENOENT);
	assert_int_equal(plan_symlink_content("a/b/l", "/etc/passwd", out, 8), -ENAMETOOLONG);
	assert_int_equal(plan_symlink_content("a/b/l", "testing", out, 7), -ENAMETOOLONG);
	char big[PATH_MAX + 8];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	assert_int_equal(plan_symlink_content("a/l", big, out, sizeof out), -ENAMETOOLONG);
}

/* The run's symbolic links: made where the trace made them (each copy its
 * own), with their content pointing inside the copy, never prepared as
 * files (a stat after the symlink needs nothing), removed by the cleanup;
 * and no path-based op follows a link out of the target. */
static void symlinks(const char *name, bool walk)
{
	char target[PATH_MAX], buf[PATH_MAX], lnk[PATH_MAX], before[8192], after[8192];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	struct stat st;
	if (walk)
		setenv("REPLAY_RESOLVE", "walk", 1);
	else
		unsetenv("REPLAY_RESOLVE");
	fresh_target(target, sizeof target, name);
	listing(target, before, sizeof before);
	tb_open(&t, name);
	uint32_t r = tb_rank(&t, "pid 1");
	uint32_t dat = tb_path(&t, "/w/data.txt");
	uint32_t rel = tb_path(&t, "/w/rel"), abs = tb_path(&t, "/w/abs");
	uint32_t esc = tb_path(&t, "/w/esc"), up = tb_path(&t, "/w/up");
	uint32_t up_keep = tb_path(&t, "/w/up/keep");
	uint32_t c_rel = tb_path(&t, "data.txt"), c_abs = tb_path(&t, "/w/data.txt");
	char sent_up[PATH_MAX];     /* /w/up -> ../../../<sentinel's name>: climbs out */
	pathf(sent_up, sizeof sent_up, "../../../%s", strrchr(sentinel, '/') + 1);
	uint32_t c_esc = tb_path(&t, sentinel), c_up = tb_path(&t, sent_up);
	tb_add(&t, r, op_open(dat, 0, O_WRONLY | O_CREAT | O_EXCL, 1));
	tb_add(&t, r, op_rw(OP_WRITE, dat, 0, 0, 10, 10, 2));
	tb_add(&t, r, op_path(OP_SYMLINK, rel, c_rel, 3));
	tb_add(&t, r, op_path(OP_STAT, rel, 0, 4));
	tb_add(&t, r, op_path(OP_SYMLINK, abs, c_abs, 5));
	tb_add(&t, r, op_path(OP_SYMLINK, esc, c_esc, 6));
	tb_add(&t, r, op_path(OP_SYMLINK, up, c_up, 7));
	struct op miss = op_path(OP_STAT, up_keep, 0, 8);   /* the trace found none */
	miss.result = -ENOENT;
	tb_add(&t, r, miss);
	tb_finish(&t, &s);
	/* 2 processes, 1 rank: two copies */
	assert_int_equal(plan_build(&p, &s, target, &(struct plan_opts){ .nprocs = 2 }, &e), 0);
	assert_int_equal(p.ncopies, 2);
	const uint32_t links[] = { rel, abs, esc, up };
	const uint32_t contents[] = { c_rel, c_abs, c_esc, c_up };
	for (size_t i = 0; i < 4; i++) {
		assert_false(pf(&p, links[i])->prepare);
		/* (up has a path beneath it: a directory to the plan) */
		assert_true(pf(&p, links[i])->is_dir == (links[i] == up));
	}
	assert_false(pf(&p, up_keep)->prepare);   /* beneath a link the run makes */
	/* the contents are not files of the plan */
	assert_int_equal(p.file_of[c_rel], UINT32_MAX);
	assert_int_equal(p.file_of[c_up], UINT32_MAX);

	char *txt = NULL;
	size_t tlen = 0;
	FILE *mf = open_memstream(&txt, &tlen);
	assert_non_null(mf);
	plan_print(&p, &s, mf);
	fclose(mf);
	assert_non_null(strstr(txt, "w/rel"));
	assert_non_null(strstr(txt, "-, a symbolic link the run makes   -> 'data.txt'"));
	char want[PATH_MAX + 64];
	pathf(want, sizeof want, "-> '..%s'", sentinel);
	assert_non_null(strstr(txt, want));
	free(txt);

	assert_int_equal(plan_prepare(&p, &e), 0);
	for (uint32_t k = 0; k < 2; k++) {
		const char *pre = k ? "/.replay-copy-1" : "";
		int fd = plan_openat(&p, k, dat, O_WRONLY | O_CREAT | O_EXCL, 0644);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, "0123456789", 10), 10);
		close(fd);
		for (size_t i = 0; i < 4; i++)
			assert_int_equal(plan_symlink(&p, k, links[i], opstream_path(&s, contents[i])), 0);
		/* a second time: the name is taken, as the kernel says */
		assert_int_equal(plan_symlink(&p, k, rel, "data.txt"), -EEXIST);
		/* the links hold their content as made */
		char m_esc[PATH_MAX], m_up[PATH_MAX];
		pathf(m_esc, sizeof m_esc, "..%s", sentinel);
		pathf(m_up, sizeof m_up, "../%s", strrchr(sentinel, '/') + 1);
		const char *const made[] = { "data.txt", "data.txt", m_esc, m_up };
		for (size_t i = 0; i < 4; i++) {
			pathf(lnk, sizeof lnk, "%s%s/%s", target, pre,
			      opstream_path(&s, links[i]) + 1);
			ssize_t n = readlink(lnk, buf, sizeof buf - 1);
			assert_true(n > 0);
			buf[n] = '\0';
			assert_string_equal(buf, made[i]);
		}
		/* lstat of each link: the link itself, whatever it points to */
		for (size_t i = 0; i < 4; i++)
			assert_int_equal(plan_stat(&p, k, links[i]), 0);
		/* through the links: inside the copy, never out of it */
		fd = plan_openat(&p, k, abs, O_RDONLY, 0);
		if (walk) {
			assert_int_equal(fd, -ELOOP);
		} else {
			assert_true(fd >= 0);
			assert_int_equal(read(fd, buf, sizeof buf), 10);
			close(fd);
		}
		fd = plan_openat(&p, k, esc, O_RDONLY, 0);
		assert_true(fd == -ENOENT || fd == -ELOOP);  /* TARGET/<sentinel path>: none */
		fd = plan_openat(&p, k, esc, O_WRONLY | O_CREAT, 0644);
		assert_true(fd == -ENOENT || fd == -ELOOP);
		int rc = plan_stat(&p, k, up_keep);      /* the sentinel's "keep": not found */
		assert_true(rc == -ENOENT || rc == -ELOOP);
		rc = plan_truncate(&p, k, up_keep, 0, NULL);
		assert_true(rc == -ENOENT || rc == -ELOOP);
		rc = plan_unlink(&p, k, up_keep);
		assert_true(rc == -ENOENT || rc == -ELOOP);
		/* the link, made in the copy's w/, points to its own data.txt */
		pathf(lnk, sizeof lnk, "%s%s/w/abs", target, pre);
		assert_int_equal(stat(lnk, &st), 0);
		pathf(buf, sizeof buf, "%s%s/w/data.txt", target, pre);
		struct stat dst;
		assert_int_equal(stat(buf, &dst), 0);
		assert_true(st.st_ino == dst.st_ino && st.st_dev == dst.st_dev);
	}
	assert_sentinel_untouched();
	/* links planted pointing out (absolute, relative): every path op on
	 * what is beneath them refused, the sentinel untouched */
	pathf(lnk, sizeof lnk, "%s/w/up", target);
	assert_int_equal(unlink(lnk), 0);
	assert_int_equal(symlink(sentinel, lnk), 0);
	int rc = plan_stat(&p, 0, up_keep);
	assert_true(rc == -EXDEV || rc == -ELOOP);
	rc = plan_truncate(&p, 0, up_keep, 0, NULL);
	assert_true(rc == -EXDEV || rc == -ELOOP);
	rc = plan_unlink(&p, 0, up_keep);
	assert_true(rc == -EXDEV || rc == -ELOOP);
	rc = plan_rename(&p, 0, up_keep, dat);
	assert_true(rc == -EXDEV || rc == -ELOOP);
	rc = plan_symlink(&p, 0, up_keep, "x");
	assert_true(rc == -EXDEV || rc == -ELOOP);
	assert_int_equal(plan_stat(&p, 0, up), 0);   /* the link itself */
	assert_sentinel_untouched();
	pathf(buf, sizeof buf, "../../%s", strrchr(sentinel, '/') + 1);
	assert_int_equal(unlink(lnk), 0);
	assert_int_equal(symlink(buf, lnk), 0);
	rc = plan_stat(&p, 0, up_keep);
	assert_true(rc == -EXDEV || rc == -ELOOP);
	rc = plan_unlink(&p, 0, up_keep);
	assert_true(rc == -EXDEV || rc == -ELOOP);
	assert_sentinel_untouched();

	/* the cleanup removes the links (as links), and nothing else */
	assert_int_equal(plan_cleanup(&p, &e), 0);
	listing(target, after, sizeof after);
	assert_string_equal(before, after);
	assert_sentinel_untouched();
	plan_release(&p);
	opstream_close(&s);
	unsetenv("REPLAY_RESOLVE");
}

static void test_symlinks_openat2(void **state)
{
	(void)state;
	symlinks("symlinks", false);
}

static void test_symlinks_walk(void **state)
{
	(void)state;
	symlinks("symlinks-walk", true);
}

/* The walk refuses every symlink; openat2 follows those that stay inside. */
static void test_inside_links(void **state)
{
	(void)state;
	char target[PATH_MAX], buf[PATH_MAX];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	fresh_target(target, sizeof target, "inlinks");
	pathf(buf, sizeof buf, "%s/real", target);
	assert_int_equal(mkdir(buf, 0755), 0);
	pathf(buf, sizeof buf, "%s/inlink", target);
	assert_int_equal(symlink("real", buf), 0);
	tb_open(&t, "inlinks");
	uint32_t r = tb_rank(&t, "pid 1");
	uint32_t f = tb_path(&t, "/inlink/f");
	tb_add(&t, r, op_open(f, 0, O_WRONLY | O_CREAT | O_TRUNC, 1));
	tb_finish(&t, &s);

	unsetenv("REPLAY_RESOLVE");
	assert_int_equal(plan_build(&p, &s, target, NULL, &e), 0);
	int fd = plan_openat(&p, 0, f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
	pathf(buf, sizeof buf, "%s/real/f", target);
	assert_int_equal(access(buf, F_OK), 0);
	assert_int_equal(plan_cleanup(&p, &e), 0);
	assert_int_equal(access(buf, F_OK), -1);
	plan_release(&p);

	setenv("REPLAY_RESOLVE", "walk", 1);
	assert_int_equal(plan_build(&p, &s, target, NULL, &e), -EXDEV);
	assert_non_null(strstr(e.msg, "inlink/f' leads outside the target"));
	unsetenv("REPLAY_RESOLVE");
	opstream_close(&s);
}

/* The root directory is refused as a target, however it is spelt, --force
 * or not: a traced /etc/cron.d/x would land on the system's own file. */
static void test_root_target(void **state)
{
	(void)state;
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	char link[PATH_MAX];
	struct plan_opts force = { .force = true };
	tb_open(&t, "roottgt");
	uint32_t r = tb_rank(&t, "pid 1");
	uint32_t a = tb_path(&t, "/etc/cron.d/replay-test-never");
	tb_add(&t, r, op_open(a, 0, O_WRONLY | O_CREAT, 1));
	tb_finish(&t, &s);

	pathf(link, sizeof link, "%s/rootlink", root);
	assert_int_equal(symlink("/", link), 0);
	const char *spell[] = { "/", "//", "/..", "/etc/..", link };
	for (size_t i = 0; i < sizeof spell / sizeof spell[0]; i++) {
		for (int f = 0; f < 2; f++) {
			e.msg[0] = '\0';
			assert_int_equal(plan_build(&p, &s, spell[i], f ? &force : NULL, &e), -EPERM);
			assert_non_null(strstr(e.msg, "is the root directory"));
			assert_int_equal(p.target_fd, -1);
		}
	}
	assert_int_equal(access("/etc/cron.d/replay-test-never", F_OK), -1);
	/* a directory beneath the root is fine */
	char target[PATH_MAX];
	fresh_target(target, sizeof target, "notroot");
	assert_int_equal(plan_build(&p, &s, target, NULL, &e), 0);
	plan_release(&p);
	opstream_close(&s);
}

/* A final symbolic link in the target: only read through -> judged by the
 * file it leads to (used as it is when large enough); written, created,
 * prepared or removed through -> refused even with --force (a dangling
 * link would make the run create a file the cleanup never knew). */
static void test_final_links(void **state)
{
	(void)state;
	char target[PATH_MAX], buf[PATH_MAX], before[8192], after[8192];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	struct plan_opts force = { .force = true };
	fresh_target(target, sizeof target, "finallinks");
	pathf(buf, sizeof buf, "%s/real", target);
	write_text(buf, "0123456789");
	pathf(buf, sizeof buf, "%s/in", target);
	assert_int_equal(symlink("real", buf), 0);
	pathf(buf, sizeof buf, "%s/dang", target);
	assert_int_equal(symlink("nowhere", buf), 0);
	pathf(buf, sizeof buf, "%s/out", target);
	assert_int_equal(symlink("../../", buf), 0);

	/* 1. read 10 bytes through "in": used as it is, nothing written */
	tb_open(&t, "fl1");
	uint32_t r = tb_rank(&t, "pid 1");
	uint32_t in = tb_path(&t, "/in");
	tb_add(&t, r, op_open(in, 0, O_RDONLY, 1));
	tb_add(&t, r, op_rw(OP_READ, OP_NOFILE, 0, 0, 10, 10, 2));
	tb_finish(&t, &s);
	listing(target, before, sizeof before);
	assert_int_equal(plan_build(&p, &s, target, NULL, &e), 0);
	assert_int_equal(plan_prepare(&p, &e), 0);
	assert_int_equal(plan_cleanup(&p, &e), 0);
	plan_release(&p);
	listing(target, after, sizeof after);
	assert_string_equal(before, after);
	opstream_close(&s);

	/* 2. reading 11 bytes needs a larger file: refused even with --force */
	tb_open(&t, "fl2");
	r = tb_rank(&t, "pid 1");
	in = tb_path(&t, "/in");
	tb_add(&t, r, op_open(in, 0, O_RDONLY, 1));
	tb_add(&t, r, op_rw(OP_READ, OP_NOFILE, 0, 0, 11, 11, 2));
	tb_finish(&t, &s);
	assert_int_equal(plan_build(&p, &s, target, &force, &e), -ELOOP);
	assert_non_null(strstr(e.msg, "in' is a symbolic link the run would write"));
	opstream_close(&s);

	/* 3. create and write through a dangling link: refused with --force */
	tb_open(&t, "fl3");
	r = tb_rank(&t, "pid 1");
	uint32_t d = tb_path(&t, "/dang");
	tb_add(&t, r, op_open(d, 0, O_WRONLY | O_CREAT, 1));
	tb_add(&t, r, op_rw(OP_WRITE, OP_NOFILE, 0, 0, 3, 3, 2));
	tb_finish(&t, &s);
	assert_int_equal(plan_build(&p, &s, target, &force, &e), -ELOOP);
	assert_non_null(strstr(e.msg, "dang' is a symbolic link the run would write"));
	opstream_close(&s);

	/* 4. read through a link that leaves the target: refused */
	tb_open(&t, "fl4");
	r = tb_rank(&t, "pid 1");
	uint32_t o = tb_path(&t, "/out");
	tb_add(&t, r, op_open(o, 0, O_RDONLY | O_DIRECTORY, 1));
	tb_finish(&t, &s);
	assert_int_equal(plan_build(&p, &s, target, &force, &e), -EXDEV);
	assert_non_null(strstr(e.msg, "out' leads outside the target"));
	opstream_close(&s);

	listing(target, after, sizeof after);
	assert_string_equal(before, after);
	assert_sentinel_untouched();
}

/* A component longer than NAME_MAX: the op fails (ENAMETOOLONG) and the
 * cleanup does not report it as a file it could not remove. */
static void test_name_max_cleanup(void **state)
{
	(void)state;
	char target[PATH_MAX], before[8192], after[8192], name[NAME_MAX + 40];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	fresh_target(target, sizeof target, "namemax");
	memset(name, 'n', sizeof name);
	memcpy(name, "/d/", 3);
	name[sizeof name - 1] = '\0';
	tb_open(&t, "namemax");
	uint32_t r = tb_rank(&t, "pid 1");
	uint32_t f = tb_path(&t, name);
	tb_add(&t, r, op_open(f, 0, O_WRONLY | O_CREAT, 1));
	tb_finish(&t, &s);
	listing(target, before, sizeof before);
	assert_int_equal(plan_build(&p, &s, target, NULL, &e), 0);
	assert_int_equal(plan_prepare(&p, &e), 0);
	assert_int_equal(plan_openat(&p, 0, f, O_WRONLY | O_CREAT, 0644), -ENAMETOOLONG);
	e.msg[0] = '\0';
	assert_int_equal(plan_cleanup(&p, &e), 0);
	assert_string_equal(e.msg, "");
	plan_release(&p);
	listing(target, after, sizeof after);
	assert_string_equal(before, after);
	opstream_close(&s);
}

/* A directory the run made and filled under names the plan does not know
 * (renames): removed with its contents, without following a symbolic link
 * to the sentinel; with --force it is left (it may hold the user's files). */
static void test_cleanup_tree(void **state)
{
	(void)state;
	char target[PATH_MAX], buf[PATH_MAX], before[8192], after[8192];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	fresh_target(target, sizeof target, "cleantree");
	tb_open(&t, "cleantree");
	uint32_t r = tb_rank(&t, "pid 1");
	uint32_t a = tb_path(&t, "/a");
	tb_add(&t, r, op_path(OP_MKDIR, a, 0755, 1));
	tb_finish(&t, &s);
	listing(target, before, sizeof before);
	for (int force = 0; force < 2; force++) {
		struct plan_opts o = { .force = force != 0 };
		assert_int_equal(plan_build(&p, &s, target, &o, &e), 0);
		assert_int_equal(plan_prepare(&p, &e), 0);
		/* what the run would leave: a/f, a/sub/g, a/sub/deep/..., links out */
		assert_int_equal(plan_mkdir(&p, 0, a, 0755), 0);
		pathf(buf, sizeof buf, "%s/a/f", target);
		write_text(buf, "f");
		pathf(buf, sizeof buf, "%s/a/sub", target);
		assert_int_equal(mkdir(buf, 0755), 0);
		pathf(buf, sizeof buf, "%s/a/sub/g", target);
		write_text(buf, "g");
		pathf(buf, sizeof buf, "%s/a/sub/out", target);
		assert_int_equal(symlink(sentinel, buf), 0);
		pathf(buf, sizeof buf, "%s/a/keeplink", target);
		char kp[PATH_MAX];
		pathf(kp, sizeof kp, "%s/keep", sentinel);
		assert_int_equal(symlink(kp, buf), 0);
		e.msg[0] = '\0';
		int rc = plan_cleanup(&p, &e);
		plan_release(&p);
		assert_sentinel_untouched();
		if (!force) {
			assert_int_equal(rc, 0);
			listing(target, after, sizeof after);
			assert_string_equal(before, after);
		} else {
			assert_int_equal(rc, -ENOTEMPTY);
			assert_non_null(strstr(e.msg, "Directory not empty"));
			pathf(buf, sizeof buf, "%s/a/sub/g", target);
			assert_int_equal(access(buf, F_OK), 0);
		}
	}
	opstream_close(&s);
}

/* Many copies (-n 20 over one rank): plan_prepare and plan_cleanup work on
 * them side by side (threads), and still say what a walk in copy order
 * says: preparing, the failure of the lowest copy; cleaning, the first
 * failure in the highest copy, and how many more.  The background
 * cleanup (plan_cleanup_start/wait) returns the same. */
static void test_many_copies(void **state)
{
	(void)state;
	char target[PATH_MAX], buf[PATH_MAX], want[PATH_MAX + 128], before[8192], after[8192];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	fresh_target(target, sizeof target, "manycopies");
	listing(target, before, sizeof before);
	tb_open(&t, "manycopies");
	uint32_t r = tb_rank(&t, "pid 1");
	uint32_t in = tb_path(&t, "/in.dat");
	uint32_t a = tb_path(&t, "/a");
	tb_add(&t, r, op_open(in, 0, O_RDONLY, 1));
	tb_add(&t, r, op_rw(OP_READ, in, 0, 0, 700, 700, 2));
	tb_add(&t, r, op_path(OP_MKDIR, a, 0755, 3));
	tb_finish(&t, &s);

	/* preparing: copies 11 and 6 blocked by a file; copy 6 is named */
	assert_int_equal(plan_build(&p, &s, target, &(struct plan_opts){ .nprocs = 20 }, &e), 0);
	assert_int_equal(p.ncopies, 20);
	pathf(buf, sizeof buf, "%s/.replay-copy-11", target);
	write_text(buf, "x");
	pathf(buf, sizeof buf, "%s/.replay-copy-6", target);
	write_text(buf, "x");
	assert_int_equal(plan_prepare(&p, &e), -ENOTDIR);
	pathf(want, sizeof want, "cannot create '%s/.replay-copy-6': Not a directory", target);
	assert_string_equal(e.msg, want);
	assert_int_equal(plan_cleanup(&p, &e), 0);
	assert_int_equal(unlink(buf), 0);
	pathf(buf, sizeof buf, "%s/.replay-copy-11", target);
	assert_int_equal(unlink(buf), 0);
	listing(target, after, sizeof after);
	assert_string_equal(after, before);
	plan_release(&p);

	for (int bg = 0; bg < 2; bg++) {
		struct plan_opts o = { .nprocs = 20, .force = true };
		assert_int_equal(plan_build(&p, &s, target, &o, &e), 0);
		assert_int_equal(plan_prepare(&p, &e), 0);
		for (uint32_t k = 0; k < 20; k++) {
			if (k == 0)
				pathf(buf, sizeof buf, "%s/in.dat", target);
			else
				pathf(buf, sizeof buf, "%s/.replay-copy-%u/in.dat", target, k);
			check_real_data(buf, 700);
			assert_int_equal(plan_mkdir(&p, k, a, 0755), 0);
		}
		/* copies 6 and 13 (other threads): a file in the run's directory, which --force
		 * leaves (2 failures each: the directory, the copy root) */
		pathf(buf, sizeof buf, "%s/.replay-copy-6/a/left", target);
		write_text(buf, "l");
		pathf(buf, sizeof buf, "%s/.replay-copy-13/a/left", target);
		write_text(buf, "l");
		e.msg[0] = '\0';
		int rc;
		if (bg) {
			plan_cleanup_start(&p);
			rc = plan_cleanup_wait(&p, &e);
		} else {
			rc = plan_cleanup(&p, &e);
		}
		assert_int_equal(rc, -ENOTEMPTY);
		pathf(want, sizeof want, "cannot remove '%s/.replay-copy-13/a' (Directory not empty)"
		      " and 3 more", target);
		assert_string_equal(e.msg, want);
		for (uint32_t k = 1; k < 20; k++) {
			pathf(buf, sizeof buf, "%s/.replay-copy-%u", target, k);
			assert_int_equal(access(buf, F_OK) == 0, k == 6 || k == 13);
		}
		pathf(buf, sizeof buf, "%s/a", target);
		assert_int_equal(access(buf, F_OK), -1);
		plan_release(&p);
		for (int k = 6; k <= 13; k += 7) {
			pathf(buf, sizeof buf, "%s/.replay-copy-%d/a/left", target, k);
			assert_int_equal(unlink(buf), 0);
			pathf(buf, sizeof buf, "%s/.replay-copy-%d/a", target, k);
			assert_int_equal(rmdir(buf), 0);
			pathf(buf, sizeof buf, "%s/.replay-copy-%d", target, k);
			assert_int_equal(rmdir(buf), 0);
		}
		listing(target, after, sizeof after);
		assert_string_equal(after, before);
	}

	/* the background cleanup of a clean run: all gone, 0 */
	assert_int_equal(plan_build(&p, &s, target, &(struct plan_opts){ .nprocs = 20 }, &e), 0);
	assert_int_equal(plan_prepare(&p, &e), 0);
	plan_cleanup_start(&p);
	assert_int_equal(plan_cleanup_wait(&p, &e), 0);
	listing(target, after, sizeof after);
	assert_string_equal(after, before);
	/* started and never waited for: plan_release waits */
	assert_int_equal(plan_prepare(&p, &e), 0);
	plan_cleanup_start(&p);
	plan_release(&p);
	listing(target, after, sizeof after);
	assert_string_equal(after, before);
	opstream_close(&s);
}

/* A trace with no rank: said plainly, and when calls were dropped on
 * descriptors nothing named (strace -P, -e trace=read,... without -y),
 * with how many and what to capture with. */
static void test_no_ranks(void **state)
{
	(void)state;
	char target[PATH_MAX];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	fresh_target(target, sizeof target, "noranks");
	for (int dropped = 0; dropped < 2; dropped++) {
		tb_open(&t, "noranks");
		if (dropped)
			assert_int_equal(opsw_info(t.w, "unknown_fd_ops", "61"), 0);
		tb_finish(&t, &s);
		assert_int_equal(plan_build(&p, &s, target, &(struct plan_opts){ 0 }, &e), -EINVAL);
		assert_non_null(strstr(e.msg, "the trace holds no ranks: nothing to replay"));
		assert_int_equal(strstr(e.msg, "61 calls were on descriptors") != NULL, dropped);
		assert_int_equal(strstr(e.msg, "capture with -y") != NULL, dropped);
		plan_release(&p);
		opstream_close(&s);
	}
}

/* A corrupt .ops: path ids beyond the path table are reported. */
static void test_bad_ids(void **state)
{
	(void)state;
	char target[PATH_MAX];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	fresh_target(target, sizeof target, "badids");
	tb_open(&t, "badids");
	uint32_t r = tb_rank(&t, "pid 1");
	uint32_t a = tb_path(&t, "/a");
	tb_add(&t, r, op_open(a, 0, O_RDONLY, 1));
	tb_add(&t, r, op_path(OP_RENAME, a, 77, 2));
	/* out-of-range ids are refused before any plan is built from them:
	 * by the writer, and by opstream_open in a file made otherwise
	 * (test_opstream's test_records_validated) */
	const char *why = NULL;
	assert_int_equal(opsw_finish(t.w, &why), -EINVAL);
	t.w = NULL;
	assert_string_equal(why, "corrupt .ops file (rename target out of range)");
	assert_int_equal(access(t.path, F_OK), -1);
	tb_open(&t, "badids2");
	r = tb_rank(&t, "pid 1");
	tb_add(&t, r, op_path(OP_UNLINK, 5, 0, 1));
	assert_int_equal(opsw_finish(t.w, &why), -EINVAL);
	t.w = NULL;
	assert_string_equal(why, "corrupt .ops file (path id out of range)");
	/* and an empty trace */
	tb_open(&t, "empty");
	tb_finish(&t, &s);
	assert_int_equal(plan_build(&p, &s, target, NULL, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "no ranks"));
	opstream_close(&s);
}

/* Mount points beneath the target are not crossed.  Runs in a child in its
 * own mount namespace, so nothing leaks into the host's mount table.  The
 * exit codes from CHILD_SKIP on say what the machine cannot do (see
 * skip_reasons); the others, which check failed. */
#define CHILD_SKIP 77
static const char *const skip_reasons[] = {
	("cannot make a private mount namespace here (unshare(CLONE_NEWNS) or "
	 "making / private failed: not root, or a container without CAP_SYS_ADMIN)"),
	"cannot mount a tmpfs in the private mount namespace",
	"cannot bind-mount a file in the private mount namespace",
};
static int mount_child(struct plan *p, const struct opstream *s, uint32_t f_tmp,
		       uint32_t f_bind, bool walk, const char *target)
{
	char buf[PATH_MAX + 16];
	struct rerr e = { "" };
	struct plan q;
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return CHILD_SKIP;
	snprintf(buf, sizeof buf, "%s/tmpfs", target);
	if (mount("none", buf, "tmpfs", 0, "size=1m"))
		return CHILD_SKIP + 1;
	snprintf(buf, sizeof buf, "%s/bind", target);
	if (mount(sentinel, buf, NULL, MS_BIND, NULL))
		return CHILD_SKIP + 2;
	/* a plan made now refuses the target */
	if (plan_build(&q, s, target, &(struct plan_opts){ .force = true }, &e) != -EXDEV ||
	    !strstr(e.msg, "mount point"))
		return 5;
	/* the plan made before: its target fd must see this namespace's mounts */
	close(p->target_fd);
	p->target_fd = open(target, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (p->target_fd < 0)
		return 6;
	int fd = plan_openat(p, 0, f_tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd != -EXDEV)
		return 1;
	/* a bind mount of the same file system (same device, another mount) */
	fd = plan_openat(p, 0, f_bind, O_WRONLY | O_TRUNC, 0);
	if (fd != -EXDEV)
		return 2;
	if (plan_unlink(p, 0, f_bind) != -EXDEV)
		return 3;
	(void)walk;
	snprintf(buf, sizeof buf, "%s/tmpfs/f", target);
	if (access(buf, F_OK) == 0)
		return 4;
	return 0;
}

static void mounts(const char *name, bool walk)
{
	char target[PATH_MAX], buf[PATH_MAX];
	struct rerr e = { "" };
	struct tb t;
	struct opstream s;
	struct plan p;
	if (walk)
		setenv("REPLAY_RESOLVE", "walk", 1);
	else
		unsetenv("REPLAY_RESOLVE");
	fresh_target(target, sizeof target, name);
	pathf(buf, sizeof buf, "%s/tmpfs", target);
	assert_int_equal(mkdir(buf, 0755), 0);
	pathf(buf, sizeof buf, "%s/bind", target);
	assert_int_equal(mkdir(buf, 0755), 0);
	tb_open(&t, name);
	uint32_t r = tb_rank(&t, "pid 1");
	uint32_t ft = tb_path(&t, "/tmpfs/f");
	uint32_t fb = tb_path(&t, "/bind/keep");
	tb_add(&t, r, op_open(ft, 0, O_WRONLY | O_CREAT | O_TRUNC, 1));
	tb_add(&t, r, op_open(fb, 1, O_WRONLY | O_CREAT | O_TRUNC, 2));
	tb_finish(&t, &s);
	assert_int_equal(plan_build(&p, &s, target, NULL, &e), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(mount_child(&p, &s, ft, fb, walk, target));
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_sentinel_untouched();
	plan_release(&p);
	opstream_close(&s);
	unsetenv("REPLAY_RESOLVE");
	unsigned k = (unsigned)WEXITSTATUS(st) - CHILD_SKIP;
	if (k < sizeof skip_reasons / sizeof skip_reasons[0]) {
		/* the mount crossing is not checked here: a skip, not a pass */
		print_message("SKIP %s: %s\n", name, skip_reasons[k]);
		skip();
	}
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_mounts_openat2(void **state)
{
	(void)state;
	mounts("mounts", false);
}

static void test_mounts_walk(void **state)
{
	(void)state;
	mounts("mounts-walk", true);
}

static void test_target_info(void **state)
{
	(void)state;
	struct target_info ti;
	struct statfs sfs;
	struct stat st;
	unsetenv("REPLAY_RESOLVE");
	assert_int_equal(target_info_get(root, &ti), 0);
	assert_int_equal(statfs(root, &sfs), 0);
	assert_int_equal(stat(root, &st), 0);
	assert_string_equal(ti.resolve, "openat2");
	if (sfs.f_type == EXT4_SUPER_MAGIC)
		assert_true(!strcmp(ti.fstype, "ext4") || !strcmp(ti.fstype, "ext3") ||
			    !strcmp(ti.fstype, "ext2"));
	if (major(st.st_dev) != 0) {
		/* independently: the disk behind the device via sysfs uevent */
		char path[128], link[PATH_MAX], disk[64], val[64] = "";
		snprintf(path, sizeof path, "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
		ssize_t n = readlink(path, link, sizeof link - 1);
		assert_true(n > 0);
		link[n] = '\0';
		char *base = strrchr(link, '/') + 1;
		char part[160];
		snprintf(part, sizeof part, "%s/partition", path);
		if (access(part, F_OK) == 0) {
			base[-1] = '\0';
			base = strrchr(link, '/') + 1;
		}
		snprintf(disk, sizeof disk, "/dev/%s", base);
		assert_string_equal(ti.device, disk);
		snprintf(path, sizeof path, "/sys/block/%s/queue/rotational", base);
		FILE *f = fopen(path, "r");
		if (f) {
			assert_non_null(fgets(val, sizeof val, f));
			fclose(f);
			assert_int_equal(ti.rotational, atoi(val));
		}
		snprintf(path, sizeof path, "/sys/block/%s/queue/scheduler", base);
		f = fopen(path, "r");
		if (f) {
			assert_non_null(fgets(val, sizeof val, f));
			fclose(f);
			if (strchr(val, '['))
				assert_non_null(strstr(val, ti.scheduler));
			assert_null(strchr(ti.scheduler, '['));
		}
		assert_true(ti.logical_block >= 512 && (ti.logical_block & (ti.logical_block - 1)) == 0);
	}
	/* tmpfs */
	if (!statfs("/dev/shm", &sfs) && sfs.f_type == TMPFS_MAGIC) {
		assert_int_equal(target_info_get("/dev/shm", &ti), 0);
		assert_string_equal(ti.fstype, "tmpfs");
		assert_string_equal(ti.device, "tmpfs");
		assert_int_equal(ti.rotational, -1);
		assert_int_equal(ti.logical_block, 512);
	}
	setenv("REPLAY_RESOLVE", "walk", 1);
	assert_int_equal(target_info_get(root, &ti), 0);
	assert_string_equal(ti.resolve, "walk");
	unsetenv("REPLAY_RESOLVE");
	assert_int_equal(target_info_get("/nonexistent-replay-dir", &ti), -ENOENT);
}

/* ---- fixture ------------------------------------------------------------ */

static int rm_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(root))
		return -1;
	pathf(sentinel, sizeof sentinel, "%s/sentinel", root);
	if (mkdir(sentinel, 0755))
		return -1;
	char kp[PATH_MAX];
	pathf(kp, sizeof kp, "%s/keep", sentinel);
	write_text(kp, "sentinel data\n");
	listing(sentinel, sent_list0, sizeof sent_list0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	nftw(root, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(list_lines);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mapping),
		cmocka_unit_test(test_climbing_refused),
		cmocka_unit_test(test_hostile_openat2),
		cmocka_unit_test(test_hostile_walk),
		cmocka_unit_test(test_planted_openat2),
		cmocka_unit_test(test_planted_walk),
		cmocka_unit_test(test_bad_targets),
		cmocka_unit_test(test_chardev_target),
		cmocka_unit_test(test_blockdev_target),
		cmocka_unit_test(test_existing_force),
		cmocka_unit_test(test_prepare),
		cmocka_unit_test(test_prepare_planted),
		cmocka_unit_test(test_dirs),
		cmocka_unit_test(test_copies),
		cmocka_unit_test(test_hostile_size),
		cmocka_unit_test(test_time_order),
		cmocka_unit_test(test_renamed_directory),
		cmocka_unit_test(test_stat_directory),
		cmocka_unit_test(test_inside_links),
		cmocka_unit_test(test_symlink_content),
		cmocka_unit_test(test_symlinks_openat2),
		cmocka_unit_test(test_symlinks_walk),
		cmocka_unit_test(test_bad_ids),
		cmocka_unit_test(test_root_target),
		cmocka_unit_test(test_final_links),
		cmocka_unit_test(test_name_max_cleanup),
		cmocka_unit_test(test_cleanup_tree),
		cmocka_unit_test(test_many_copies),
		cmocka_unit_test(test_renamed_directory_subdir),
		cmocka_unit_test(test_renamed_existing_dir),
		cmocka_unit_test(test_renamed_existing_dir_other_rank),
		cmocka_unit_test(test_tmpfile),
		cmocka_unit_test(test_no_ranks),
		cmocka_unit_test(test_mounts_openat2),
		cmocka_unit_test(test_mounts_walk),
		cmocka_unit_test(test_target_info),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
