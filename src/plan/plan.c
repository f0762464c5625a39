/*
 * plan.c - traced paths mapped beneath TARGET, the file set to prepare,
 * ranks -> processes, and everything that touches the target.
 *
 * Why it is built this way:
 *
 * - Safety.  Every name is resolved relative to an O_PATH fd of TARGET with
 *   openat2(RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS|RESOLVE_NO_XDEV): the
 *   kernel refuses absolute symlinks, symlinks and ".." that leave the
 *   target (EXDEV), /proc magic links (ELOOP), and mount points beneath the
 *   target (EXDEV: a bind mount of / in the target would otherwise lead
 *   out, and the I/O must hit the file system under test anyway).  Without openat2 (ENOSYS, or EPERM from a
 *   seccomp filter) we walk the path one component at a time with
 *   O_NOFOLLOW and refuse every symlink.  Path-based metadata calls open the
 *   parent directory that way and then act on the last component with the
 *   *at() call, so no path string is ever handed to the kernel relative to
 *   the cwd.  On top of that, traced paths are normalized lexically before
 *   anything happens ("/.." stays "/", a relative path climbing above its
 *   start is refused), so the kernel checks are a second wall, not the only
 *   one.
 *
 * - Copies.  Copy 0 lives at TARGET/<path>, copy k > 0 at
 *   TARGET/.replay-copy-<k>/<path>.  Traced paths whose first component
 *   starts with ".replay-" are refused, so a copy root can never collide
 *   with a traced path.
 *
 * - Which files to prepare (read before written).  Per mapped file, over
 *   the replayed ranks, with absolute trace times (rank t0 + op time):
 *     need   = first successful open without O_CREAT, stat by path,
 *              unlink, rename-from, link-from or rmdir  (the file existed)
 *     create = first successful open with O_CREAT, rename-to, mkdir, symlink
 *              (a symlink's link is made by the run, its content made to
 *              point inside the link's copy: plan_symlink_content)
 *     read   = first read;  write = first write/ftruncate/fallocate,
 *              open with O_TRUNC, rename-to
 *   The file is prepared when need <= create, or read <= write (ties count
 *   as "read first": preparing is the safe side), over all ranks or within
 *   any one rank: ranks replay unordered (alone, in sequential mode), so a
 *   rank that reads or opens a file another rank made finds it prepared.  Its size is the largest
 *   offset + bytes read (the traced result; the request for async reads and
 *   unknown results), so each replayed read finds at least the data it
 *   found in the trace, and at least a size the trace shows before writing
 *   it (plan/order.h: stat, lseek SEEK_END, appends' bases).  Files only written are created by the run; their
 *   parent directories are created by plan_prepare, except below a
 *   directory the trace itself mkdirs.  An input that already exists in
 *   the target, is at least that large and is never changed by the trace is
 *   used as it is (users may bring their real data set).
 *
 * - Cleanup removes files that did not exist when the plan was built (the
 *   run created them, or plan_prepare did) and directories plan_prepare or
 *   the run's mkdir created, deepest first.  A file that existed (allowed
 *   only with force) is never removed.  Such a directory left non-empty
 *   (the trace renamed into it) is removed with what is in it, without
 *   --force only: then nothing that existed can have moved in.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ops/ops.h"
#include "plan/plan.h"

#define COPY_PREFIX     ".replay-copy-"
#define RESERVED_PREFIX ".replay-"
#define TIME_NONE       UINT64_MAX
#define RESULT_UNKNOWN  INT64_MIN       /* builder: result not traced */
#define HANDLE_MAX      (1u << 24)      /* larger ids mapped only up to the rank's op count */
#define PATTERN_SIZE    (1u << 20)

/* per-(copy, file) and per-(copy, dir) state bits */
#define ST_EXISTED 0x1u   /* was there when the plan was built        */
#define ST_MADE    0x2u   /* created by plan_prepare                  */
#define ST_REUSE   0x4u   /* existing input, big enough: used as is   */

struct plan_dir {
	char *rel;              /* copy-relative directory                */
	uint32_t min_rank;      /* lowest rank whose files need it        */
};

struct plan_priv {
	/* parallel mode, -n not a multiple of the ranks: the last copy runs
	 * the first ranks only (copy_limit), and needs what the others would
	 * have written in a whole copy: per file, its initial size for those
	 * ranks alone (-1: not prepared), from an order pass over them */
	int64_t *part_size;
	uint32_t part_copy;     /* that copy (part_size != NULL)          */
	char space_note[1024];  /* --dry-run: check_space's refusal, told */
	bool names_change;      /* the trace records unlink, rename, mkdir...  */
	size_t file_dir;        /* a file written as one and the directory of
	                         * others, the trace showing nothing that
	                         * turns one into the other: index + 1, 0 none */
	bool walk;              /* O_NOFOLLOW walk instead of openat2     */
	bool force;             /* --force: existing files may be moved   */
	bool links;             /* the trace makes hard links (link)      */
	bool symlinks;          /* the trace makes symbolic links         */
	uint32_t nranks;        /* ranks the filter keeps (of ntraced), -n's cut not counted */
	uint32_t ntraced;       /* ranks in the trace                     */
	uint32_t *file_rank;    /* per file: lowest rank using it         */
	uint32_t *file_maker;   /* per file: facc.maker                   */
	uint16_t *file_acc;     /* per file: A_* bits                     */
	uint32_t *file_link;    /* per file: facc.link (--dry-run shows it) */
	struct plan_dir *dirs;  /* sorted by rel: parents before children */
	size_t ndirs;
	uint8_t *fstate;        /* [copy * nfiles + i]                    */
	uint8_t *dstate;        /* [copy * ndirs + j]                     */
	uint8_t *rstate;        /* [copy]: copy root                      */
	pthread_t bg;           /* plan_cleanup_start's thread            */
	bool bg_on;             /* it runs (joined by plan_cleanup_wait)  */
	bool bg_todo;           /* it could not start: the wait cleans    */
	int bg_ret;             /* its plan_cleanup() result, and message */
	struct rerr bg_e;
};

/* accumulator bits */
#define A_USED     0x001u
#define A_SHARED   0x002u
#define A_DIRHINT  0x004u   /* mkdir, rmdir, open O_DIRECTORY           */
#define A_FILEHINT 0x008u   /* data ops, plain opens, unlink            */
#define A_OK       0x010u   /* some op on it succeeded                  */
#define A_WRITTEN  0x020u
#define A_MODIFIES 0x040u   /* written, truncated, created, unlinked    */
#define A_RMDIR    0x080u   /* the trace removes it (rmdir)             */
#define A_MKDIR    0x100u   /* the trace creates it with mkdir          */
#define A_RNEED    0x200u   /* some rank needs it before it creates it itself */
#define A_RREAD    0x400u   /* some rank reads it before it writes it itself  */
#define A_RENTO    0x800u   /* the trace renames something to it        */
#define A_TMPFILE  0x1000u  /* an anonymous file: opened O_TMPFILE in its directory */
#define A_SYMLINK  0x2000u  /* the trace makes it a symbolic link (symlink) */
#define A_FRESH    0x4000u  /* opened O_TRUNC or O_CREAT|O_EXCL, or a rename's or link's
                             * target: earlier content gone */
#define A_LINK     0x8000u  /* a hard link's name (link, linkat)        */

struct facc {
	uint64_t t_need, t_create, t_read, t_write;
	uint64_t extent;
	uint32_t first_rank;
	uint16_t bits;
	uint32_t maker;         /* the rank whose mkdir or rename makes it:
	                         * MAKER_NONE, MAKER_MANY */
	uint32_t link;          /* its first symlink's content: path id + 1, 0 none */
};

#define MAKER_NONE UINT32_MAX
#define MAKER_MANY (UINT32_MAX - 1)

/* ---- small helpers ---------------------------------------------------- */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static int cmp_dir(const void *a, const void *b)
{
	return strcmp(((const struct plan_dir *)a)->rel, ((const struct plan_dir *)b)->rel);
}

static size_t depth_of(const char *rel)
{
	size_t d = *rel ? 1 : 0;
	for (; *rel; rel++)
		d += *rel == '/';
	return d;
}

/* The copy root prefix ("" or ".replay-copy-K/") into buf. */
static void copy_prefix(uint32_t copy, char *buf, size_t len)
{
	if (copy == 0)
		buf[0] = '\0';
	else
		snprintf(buf, len, COPY_PREFIX "%" PRIu32 "/", copy);
}

/* Target-relative path of rel in copy `copy`. -ENAMETOOLONG. */
static int copy_path(uint32_t copy, const char *rel, char *buf, size_t len)
{
	char pre[32];
	copy_prefix(copy, pre, sizeof pre);
	int n = snprintf(buf, len, "%s%s", pre, rel);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	if (!buf[0])
		strcpy(buf, ".");
	else if (buf[n - 1] == '/')
		buf[n - 1] = '\0';
	return 0;
}

/* For messages: "TARGET/rel" of copy `copy`. */
static const char *show(const struct plan *p, uint32_t copy, const char *rel, char *buf, size_t len)
{
	char pre[32];
	copy_prefix(copy, pre, sizeof pre);
	size_t tl = strlen(p->target);
	while (tl > 1 && p->target[tl - 1] == '/')
		tl--;
	snprintf(buf, len, "%.*s/%s%s", (int)tl, p->target, pre, rel);
	size_t n = strlen(buf);
	if (n > 1 && buf[n - 1] == '/')
		buf[n - 1] = '\0';
	return buf;
}

/*
 * Normalize `in` lexically into o (len bytes) as a relative path: no
 * empty, "." or ".." components, no leading or trailing '/'; "/" and ""
 * give "".  A ".." at the top is dropped when clamp ("/.." is "/", as for
 * the kernel), else -EXDEV (a relative path climbing above its start).
 * 0, -EXDEV or -ENAMETOOLONG.
 */
static int norm_lexical(const char *in, char *o, size_t len, bool clamp)
{
	size_t ol = 0;
	for (const char *c = in; *c;) {
		while (*c == '/')
			c++;
		if (!*c)
			break;
		const char *end = strchrnul(c, '/');
		size_t cl = (size_t)(end - c);
		if (cl == 2 && c[0] == '.' && c[1] == '.') {
			if (ol == 0 && !clamp)
				return -EXDEV;
			while (ol > 0 && o[ol - 1] != '/')
				ol--;
			if (ol > 0)
				ol--;   /* the '/' before the dropped component */
		} else if (!(cl == 1 && c[0] == '.')) {
			if (ol + cl + 2 > len)
				return -ENAMETOOLONG;
			if (ol)
				o[ol++] = '/';
			memcpy(o + ol, c, cl);
			ol += cl;
		}
		c = end;
	}
	o[ol] = '\0';
	return 0;
}

/*
 * Map a traced path to a normalized relative path (norm_lexical; an
 * absolute path's ".." stop at "/").  -EXDEV when a relative path climbs
 * above its start, -EPERM for the reserved ".replay-" prefix,
 * -ENAMETOOLONG, -ENOMEM.
 */
static int map_path(const char *in, char **out)
{
	size_t n = strlen(in);
	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	char *o = malloc(n + 2);
	if (!o)
		return -ENOMEM;
	int rc = norm_lexical(in, o, n + 2, in[0] == '/');
	if (!rc && !strncmp(o, RESERVED_PREFIX, strlen(RESERVED_PREFIX)))
		rc = -EPERM;
	if (rc) {
		free(o);
		return rc;
	}
	*out = o;
	return 0;
}

/* ---- resolution beneath the target ------------------------------------ */

/* Should we walk instead of using openat2?  REPLAY_RESOLVE=walk forces the
 * walk (tests, and kernels where openat2 misbehaves). */
static bool resolve_walk(int dirfd)
{
	const char *env = getenv("REPLAY_RESOLVE");
	if (env && !strcmp(env, "walk"))
		return true;
#ifdef SYS_openat2
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
					   RESOLVE_NO_XDEV };
	long fd = syscall(SYS_openat2, dirfd, ".", &how, sizeof how);
	if (fd >= 0) {
		close((int)fd);
		return false;
	}
	return errno == ENOSYS || errno == EPERM;
#else
	(void)dirfd;
	return true;
#endif
}

/* Flags openat2 accepts; anything else in a traced flag word is dropped
 * (openat2 would fail with EINVAL where open(2) ignored it). */
#define OPEN_VALID (O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND | \
		    O_NONBLOCK | O_DSYNC | O_SYNC | O_DIRECT | O_LARGEFILE |       \
		    O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC | O_PATH |    \
		    O_TMPFILE | FASYNC)

/* Which mount an fd is on: the mount ID (name_to_handle_at, any kernel
 * since 2.6.39, when the file system exports handles) and the device. */
struct mnt_key {
	dev_t dev;
	int mnt_id;             /* -1 unknown */
};

static int mnt_key_of(int fd, struct mnt_key *k)
{
	union {
		struct file_handle h;
		char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} u;
	struct stat st;
	if (fstat(fd, &st))
		return -errno;
	k->dev = st.st_dev;
	u.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", &u.h, &k->mnt_id, AT_EMPTY_PATH))
		k->mnt_id = -1;
	return 0;
}

static bool same_mount(const struct mnt_key *a, const struct mnt_key *b)
{
	if (a->dev != b->dev)
		return false;
	return a->mnt_id < 0 || b->mnt_id < 0 || a->mnt_id == b->mnt_id;
}

/* Is the O_PATH fd `fd` on the mount `root`? 0, -EXDEV, -errno. */
static int check_mount(int fd, const struct mnt_key *root)
{
	struct mnt_key k;
	int rc = mnt_key_of(fd, &k);
	if (rc)
		return rc;
	return same_mount(&k, root) ? 0 : -EXDEV;
}

/*
 * Component walk, for kernels without openat2: every component opened with
 * O_NOFOLLOW, so any symlink -> ELOOP; every directory and an existing last
 * component must be on dirfd's mount (mount ID where the file system gives
 * one, else the device), else EXDEV.  (The last component is checked just
 * before it is opened: a mount made in between by root is not seen.)
 */
static int walk_open(int dirfd, const char *path, int flags, mode_t mode)
{
	char buf[PATH_MAX];
	struct mnt_key root;
	struct stat st;
	size_t n = strlen(path);
	int cur = dirfd, rc;
	if (n >= sizeof buf)
		return -ENAMETOOLONG;
	rc = mnt_key_of(dirfd, &root);
	if (rc)
		return rc;
	memcpy(buf, path, n + 1);
	char *c = buf;
	for (;;) {
		while (*c == '/')
			c++;
		char *slash = strchr(c, '/');
		if (slash)
			*slash = '\0';
		bool last = !slash;
		if (!strcmp(c, "..")) {
			rc = -EXDEV;
			goto out;
		}
		if (last) {
			const char *name = *c ? c : ".";
			if (!strcmp(name, ".")) {
				rc = openat(cur, ".", (flags & ~(O_CREAT | O_EXCL)) | O_CLOEXEC);
				if (rc < 0)
					rc = -errno;
				goto out;
			}
			int pfd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
			if (pfd >= 0) {
				rc = check_mount(pfd, &root);
				close(pfd);
				if (rc)
					goto out;
			}
			rc = openat(cur, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
			if (rc < 0) {
				rc = -errno;
				/* O_NOFOLLOW on a symlink with O_DIRECTORY says ENOTDIR */
				if (rc == -ENOTDIR && !fstatat(cur, name, &st, AT_SYMLINK_NOFOLLOW) &&
				    S_ISLNK(st.st_mode))
					rc = -ELOOP;
			}
			/* (O_PATH|O_NOFOLLOW yields the link itself, as with openat2) */
			goto out;
		}
		if (!*c || !strcmp(c, ".")) {
			c = slash + 1;
			continue;
		}
		int nfd = openat(cur, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0) {
			rc = -errno;
			if (rc == -ENOTDIR && !fstatat(cur, c, &st, AT_SYMLINK_NOFOLLOW) &&
			    S_ISLNK(st.st_mode))
				rc = -ELOOP;
			goto out;
		}
		if (cur != dirfd)
			close(cur);
		cur = nfd;
		rc = check_mount(cur, &root);
		if (rc)
			goto out;
		c = slash + 1;
	}
out:
	if (cur != dirfd)
		close(cur);
	return rc;
}

static int open_beneath(bool walk, int dirfd, const char *path, int flags, mode_t mode)
{
	flags &= OPEN_VALID;
	/* (O_TMPFILE holds O_DIRECTORY's bit: a plain directory open takes
	 * no mode, openat2 refuses one) */
	if (!(flags & O_CREAT) && (flags & O_TMPFILE) != O_TMPFILE)
		mode = 0;
	if (walk)
		return walk_open(dirfd, path, flags, mode);
#ifdef SYS_openat2
	struct open_how how = { .flags = (uint64_t)(flags | O_CLOEXEC), .mode = mode,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
					   RESOLVE_NO_XDEV };
	for (int tries = 0;; tries++) {
		long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
		if (fd >= 0)
			return (int)fd;
		/* EAGAIN: a concurrent rename/mount raced the lookup; retry */
		if ((errno == EINTR || errno == EAGAIN) && tries < 16)
			continue;
		return -errno;
	}
#else
	return walk_open(dirfd, path, flags, mode);
#endif
}

/* Open the parent directory of copy/rel beneath the target; *last is the
 * final component (inside `buf`). -EINVAL for the root, "." or "..". */
static int open_parent(const struct plan *p, uint32_t copy, const char *rel,
		       char *buf, size_t len, const char **last)
{
	if (!rel[0])
		return -EINVAL;   /* the copy root itself is never unlinked, renamed, ... */
	int rc = copy_path(copy, rel, buf, len);
	if (rc)
		return rc;
	char *slash = strrchr(buf, '/');
	const char *parent;
	if (slash) {
		*slash = '\0';
		*last = slash + 1;
		parent = buf;
	} else {
		*last = buf;
		parent = ".";
	}
	if (!**last || !strcmp(*last, ".") || !strcmp(*last, ".."))
		return -EINVAL;
	return open_beneath(p->priv->walk, p->target_fd, parent, O_PATH | O_DIRECTORY, 0);
}

static const struct plan_file *file_by_id(const struct plan *p, uint32_t path_id)
{
	if (!p || !p->priv || path_id >= p->npaths || p->file_of[path_id] == UINT32_MAX)
		return NULL;
	return &p->files[p->file_of[path_id]];
}

int plan_open_tmpfile(const struct plan *p, uint32_t copy, uint32_t path_id, int flags,
		      mode_t mode, bool *named)
{
	const struct plan_file *f = file_by_id(p, path_id);
	char buf[PATH_MAX];
	const char *last;
	if (named)
		*named = false;
	if (!f || copy >= p->ncopies)
		return -EINVAL;
	int pfd = open_parent(p, copy, f->rel, buf, sizeof buf, &last);
	if (pfd < 0)
		return pfd;
	/* "." of an O_PATH descriptor of the directory: nothing to resolve */
	int fd = openat(pfd, ".", (flags & OPEN_VALID) | O_TMPFILE | O_CLOEXEC, mode);
	int rc = fd >= 0 ? fd : -errno;
	close(pfd);
	if (rc == -EOPNOTSUPP) {
		rc = plan_open_unnamed(p, copy, path_id, flags, mode);
		if (named && rc >= 0)
			*named = true;
	}
	return rc;
}

int plan_open_unnamed(const struct plan *p, uint32_t copy, uint32_t path_id, int flags,
		      mode_t mode)
{
	static unsigned long seq;
	const struct plan_file *f = file_by_id(p, path_id);
	char buf[PATH_MAX], name[64];
	const char *last;
	if (!f || copy >= p->ncopies)
		return -EINVAL;
	int pfd = open_parent(p, copy, f->rel, buf, sizeof buf, &last);
	if (pfd < 0)
		return pfd;
	flags = (flags & OPEN_VALID & ~(O_TMPFILE | O_DIRECTORY | O_TRUNC)) |
		O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	sigset_t all, old;
	sigfillset(&all);
	int rc;
	for (int tries = 0;; tries++) {
		/* the reserved prefix: no traced path has it */
		snprintf(name, sizeof name, RESERVED_PREFIX "tmpfile-%ld-%lu", (long)getpid(), seq++);
		/* signals held until the name is gone again: nothing left behind */
		pthread_sigmask(SIG_BLOCK, &all, &old);
		int fd = openat(pfd, name, flags, mode & 07777);
		rc = fd >= 0 ? fd : -errno;
		if (fd >= 0 && unlinkat(pfd, name, 0)) {
			rc = -errno;
			close(fd);
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (rc != -EEXIST || tries >= 16)
			break;
	}
	close(pfd);
	return rc;
}

int plan_openat(const struct plan *p, uint32_t copy, uint32_t path_id, int flags, mode_t mode)
{
	const struct plan_file *f = file_by_id(p, path_id);
	char buf[PATH_MAX];
	if ((flags & O_TMPFILE) == O_TMPFILE)
		return plan_open_tmpfile(p, copy, path_id, flags, mode, NULL);
	if (!f || copy >= p->ncopies)
		return -EINVAL;
	int rc = copy_path(copy, f->rel, buf, sizeof buf);
	if (rc)
		return rc;
	return open_beneath(p->priv->walk, p->target_fd, buf, flags, mode);
}

/*
 * A worker's open of a traced file.  The plan checked the target before
 * the run; what is put in it while the run goes (by a user, another job)
 * is checked here, before any I/O goes through the name:
 *  - a FIFO, socket or device node is refused: EPERM (a device would be
 *    written);
 *  - a file with other hard links, opened to be written, when the trace
 *    makes no hard link itself: EMLINK (one to a file outside the target
 *    would be written);
 *  - a symbolic link as the last component of a name opened to be
 *    written, when the trace makes none itself: ELOOP, not followed.
 * The name is opened as traced and, when the open may change a file the
 * trace changes (a read, or an O_RDWR open of a file the trace only
 * reads, changes nothing: no cost), the file it gave is looked at
 * (fstat); but for O_TRUNC, which acts in the open: then the name is opened O_PATH
 * (no side effect), the file looked at, and that same file opened as
 * traced through /proc/self/fd, so the file truncated is the one checked
 * (a name not there is created O_EXCL: a new file).  *why says what was
 * refused, for the run's message.  (A FIFO put there blocks the open, as
 * it would have blocked the application.)
 */
static const char *special_why(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO is there (put there during the run?): refused" :
	       S_ISSOCK(m) ? "a socket is there (put there during the run?): refused" :
			     "a device node is there (put there during the run?): refused";
}

#define WHY_SYMLINK "a symbolic link is there, which the trace never made (put there during" \
		    " the run?): not followed"

/* fd's file, opened (or O_PATH) at copy/rel, may be written through by
 * the run: 0, or -errno with *why.  ours: the O_NOFOLLOW was replay's,
 * not the trace's.  The link count is read twice, on the file and on the
 * name looked up again, and must be 1 both times for the same file: a
 * link to a file outside the target made before the open and removed
 * before the fstat leaves the file with one name, outside, which the
 * name no longer holds (a file unlinked since, with no name at all, is
 * the run's own: the trace's unlink of it). */
static int opened_ok(const struct plan *p, uint32_t copy, const char *rel, int fd, bool writes,
		     int nofollow, bool ours, const char **why)
{
	const struct plan_priv *pv = p->priv;
	struct stat st, ns;
	char buf[PATH_MAX];
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode)) {      /* (an O_PATH|O_NOFOLLOW open of a link) */
		*why = ours ? WHY_SYMLINK : NULL;
		return -ELOOP;
	}
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		*why = special_why(st.st_mode);
		return -EPERM;
	}
	if (!S_ISREG(st.st_mode) || pv->links || !writes || st.st_nlink == 0)
		return 0;
	if (st.st_nlink > 1 || copy_path(copy, rel, buf, sizeof buf) ||
	    fstatat(p->target_fd, buf, &ns, nofollow ? AT_SYMLINK_NOFOLLOW : 0) ||
	    ns.st_ino != st.st_ino ||
	    ns.st_dev != st.st_dev || ns.st_nlink > 1) {
		*why = "the file has other hard links, which the trace never made, or had while it"
		       " was opened (one put there during the run would let its writes change a"
		       " file elsewhere): refused";
		return -EMLINK;
	}
	return 0;
}

/* fd when opened_ok passes it (or fd < 0 as it is), else closed: -errno. */
static int kept_if_ok(const struct plan *p, uint32_t copy, const char *rel, int fd, bool writes,
		      int nofollow, bool ours, const char **why)
{
	int rc = fd >= 0 ? opened_ok(p, copy, rel, fd, writes, nofollow, ours, why) : 0;
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

int plan_open_run(const struct plan *p, uint32_t copy, uint32_t path_id, int flags, mode_t mode,
		  bool there, const char **why)
{
	const struct plan_priv *pv = p->priv;
	*why = NULL;
	/* a new unnamed file, a new file (O_EXCL never opens one that is
	 * there, nor follows a link), or no file at all */
	if ((flags & O_TMPFILE) == O_TMPFILE || (flags & O_PATH) ||
	    (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		return plan_openat(p, copy, path_id, flags, mode);
	/* written through: opened so, of a file the trace changes (one it
	 * only reads, opened O_RDWR, the plan took as it is, hard links and
	 * links included) */
	const struct plan_file *f = file_by_id(p, path_id);
	const char *rel = f ? f->rel : "";
	bool changed = !f || !pv->file_acc || (pv->file_acc[f - p->files] & A_MODIFIES);
	bool writes = changed && ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_TRUNC | O_CREAT)));
	int nofollow = (flags & O_NOFOLLOW) || (writes && !pv->symlinks) ? O_NOFOLLOW : 0;
	bool ours = nofollow && !(flags & O_NOFOLLOW);
	int fd, rc;
	if (!(flags & O_TRUNC)) {
		fd = plan_openat(p, copy, path_id, flags | nofollow, mode);
		if (fd == -ELOOP && ours)
			*why = WHY_SYMLINK;
		if (fd == -ENXIO && (flags & O_NONBLOCK)) {
			/* a FIFO without a reader (truncate by path opens so) */
			int pfd = plan_openat(p, copy, path_id, O_PATH | O_CLOEXEC | nofollow, 0);
			struct stat st;
			if (pfd >= 0 && !fstat(pfd, &st) && S_ISFIFO(st.st_mode))
				*why = special_why(st.st_mode), fd = -EPERM;
			if (pfd >= 0)
				close(pfd);
		}
		return writes ? kept_if_ok(p, copy, rel, fd, writes, nofollow, ours, why) : fd;
	}
	/* (a file prepared, or opened before by this process, is likely
	 * there: looked at first, not made) */
	there = there || (f && f->prepare);
	for (int tries = 0;; tries++) {
		if ((flags & O_CREAT) && (!there || tries)) {
			fd = plan_openat(p, copy, path_id, flags | O_EXCL, mode);
			if (fd != -EEXIST || tries >= 8)
				return fd;      /* a new file, or no room for one */
		}
		int pfd = plan_openat(p, copy, path_id, O_PATH | O_CLOEXEC | nofollow, 0);
		/* a link followed to nothing (the trace's own, dangling): the
		 * open makes the file it names; looked at, as any, before it
		 * is truncated (a name put there since is no new file) */
		if (pfd == -ENOENT && (flags & O_CREAT) && !nofollow) {
			struct stat st;
			fd = kept_if_ok(p, copy, rel, plan_openat(p, copy, path_id, flags & ~O_TRUNC, mode),
					writes, nofollow, ours, why);
			if (fd >= 0 && !fstat(fd, &st) && st.st_size > 0 && ftruncate(fd, 0) < 0) {
				rc = -errno;
				close(fd);
				return rc;
			}
			return fd;
		}
		if (pfd == -ENOENT && (flags & O_CREAT))
			continue;       /* removed since: make it */
		if (pfd < 0)
			return pfd;
		if ((pfd = kept_if_ok(p, copy, rel, pfd, writes, nofollow, ours, why)) < 0)
			return pfd;
		char proc[64];
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", pfd);
		fd = open(proc, (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW)) | O_CLOEXEC);
		rc = fd >= 0 ? fd : -errno;
		close(pfd);
		if (rc == -ENOENT && access("/proc/self/fd", X_OK))
			rc = plan_openat(p, copy, path_id, flags | nofollow, mode);   /* no /proc */
		return rc;
	}
}

/* The *at() calls made on the last component of a path, in its parent
 * (PARENT_REMOVE: rmdir, or remove what the run left inside, remove_dir). */
enum parent_op { PARENT_UNLINK, PARENT_MKDIR, PARENT_RMDIR, PARENT_REMOVE };

static int remove_dir(const struct plan *p, int pfd, const char *last);

/* Open the parent of copy/rel beneath the target and run op on the last
 * component: 0 or -errno. */
static int at_rel(const struct plan *p, uint32_t copy, const char *rel, enum parent_op op,
		  mode_t mode)
{
	char buf[PATH_MAX];
	const char *last;
	int rc = -EINVAL;
	int pfd = open_parent(p, copy, rel, buf, sizeof buf, &last);
	if (pfd < 0)
		return pfd;
	switch (op) {
	case PARENT_UNLINK:
		rc = unlinkat(pfd, last, 0) ? -errno : 0;
		break;
	case PARENT_MKDIR:
		rc = mkdirat(pfd, last, mode) ? -errno : 0;
		break;
	case PARENT_RMDIR:
		rc = unlinkat(pfd, last, AT_REMOVEDIR) ? -errno : 0;
		break;
	case PARENT_REMOVE:
		rc = remove_dir(p, pfd, last);
		break;
	}
	close(pfd);
	return rc;
}

/* at_rel() on the traced path path_id. */
static int at_parent(const struct plan *p, uint32_t copy, uint32_t path_id,
		     enum parent_op op, mode_t mode)
{
	const struct plan_file *f = file_by_id(p, path_id);
	if (!f || copy >= p->ncopies)
		return -EINVAL;
	return at_rel(p, copy, f->rel, op, mode);
}

int plan_unlink(const struct plan *p, uint32_t copy, uint32_t path_id)
{
	return at_parent(p, copy, path_id, PARENT_UNLINK, 0);
}

/* rename, or link: from_id -> to_id, each by its parent directory. */
static int two_paths(const struct plan *p, uint32_t copy, uint32_t from_id, uint32_t to_id,
		     bool link)
{
	const struct plan_file *f = file_by_id(p, from_id), *t = file_by_id(p, to_id);
	char b1[PATH_MAX], b2[PATH_MAX];
	const char *l1, *l2;
	int rc, fd1 = -1, fd2 = -1;
	if (!f || !t || copy >= p->ncopies)
		return -EINVAL;
	fd1 = open_parent(p, copy, f->rel, b1, sizeof b1, &l1);
	if (fd1 < 0) {
		rc = fd1;
		fd1 = -1;
		goto out;
	}
	fd2 = open_parent(p, copy, t->rel, b2, sizeof b2, &l2);
	if (fd2 < 0) {
		rc = fd2;
		fd2 = -1;
		goto out;
	}
	/* linkat without AT_SYMLINK_FOLLOW links a symlink itself, never
	 * what it points to */
	rc = (link ? linkat(fd1, l1, fd2, l2, 0) : renameat(fd1, l1, fd2, l2)) ? -errno : 0;
out:
	if (fd1 >= 0)
		close(fd1);
	if (fd2 >= 0)
		close(fd2);
	return rc;
}

int plan_rename(const struct plan *p, uint32_t copy, uint32_t from_id, uint32_t to_id)
{
	return two_paths(p, copy, from_id, to_id, false);
}

int plan_link(const struct plan *p, uint32_t copy, uint32_t from_id, uint32_t to_id)
{
	return two_paths(p, copy, from_id, to_id, true);
}

int plan_symlink_content(const char *link_rel, const char *content, char *out, size_t len)
{
	size_t cn = strlen(content);
	if (!cn)
		return -ENOENT;         /* what symlink(2) says of "" */
	if (cn >= PATH_MAX || strlen(link_rel) >= PATH_MAX)
		return -ENAMETOOLONG;
	/* the link's directory: link_rel up to its last '/', depth components */
	const char *ls = strrchr(link_rel, '/');
	size_t dlen = ls ? (size_t)(ls - link_rel) : 0, depth = 0;
	for (size_t i = 0; i < dlen; i++)
		depth += link_rel[i] == '/';
	depth += dlen > 0;
	char joined[2 * PATH_MAX + 2], t[2 * PATH_MAX + 2];
	if (content[0] != '/') {
		/* relative: kept as it is unless its ".." climb above the
		 * traced root (where the kernel stays at "/", the copy would
		 * be left): the link's directory and the content, walked
		 * without clamping, climb out (-EXDEV) */
		snprintf(joined, sizeof joined, "%.*s%s%s", (int)dlen, link_rel, dlen ? "/" : "",
			 content);
		if (norm_lexical(joined, t, sizeof t, false) != -EXDEV) {
			if (cn >= len)
				return -ENAMETOOLONG;
			memcpy(out, content, cn + 1);
			return 0;
		}
	}
	/* Where it points, lexically, as a copy-relative path: an absolute
	 * content from the root, a relative one from the link's directory;
	 * then the way there from the link's directory, inside the copy. */
	if (content[0] == '/')
		snprintf(joined, sizeof joined, "%s", content);
	else
		snprintf(joined, sizeof joined, "/%.*s/%s", (int)dlen, link_rel, content);
	if (norm_lexical(joined, t, sizeof t, true))
		return -ENAMETOOLONG;
	/* the leading components the directory and the target share */
	size_t common = 0, di = 0, ti = 0;
	while (common < depth) {
		size_t dl = strcspn(link_rel + di, "/"), tl = strcspn(t + ti, "/");
		if (!tl || dl != tl || memcmp(link_rel + di, t + ti, dl))
			break;
		common++;
		di += dl + 1;
		ti += tl + (t[ti + tl] == '/');
	}
	size_t o = 0, rest = strlen(t + ti);
	if ((depth - common) * 3 + rest + 2 > len || (depth - common) * 3 + rest >= PATH_MAX)
		return -ENAMETOOLONG;
	for (size_t k = common; k < depth; k++, o += 3)
		memcpy(out + o, "../", 3);
	memcpy(out + o, t + ti, rest + 1);
	o += rest;
	if (!o)
		strcpy(out, ".");
	else if (out[o - 1] == '/')
		out[o - 1] = '\0';
	return 0;
}

int plan_symlink(const struct plan *p, uint32_t copy, uint32_t path_id, const char *content)
{
	const struct plan_file *f = file_by_id(p, path_id);
	char buf[PATH_MAX], made[PATH_MAX];
	const char *last;
	if (!f || !content || copy >= p->ncopies)
		return -EINVAL;
	int rc = plan_symlink_content(f->rel, content, made, sizeof made);
	if (rc)
		return rc;
	int pfd = open_parent(p, copy, f->rel, buf, sizeof buf, &last);
	if (pfd < 0)
		return pfd;
	rc = symlinkat(made, pfd, last) ? -errno : 0;
	close(pfd);
	return rc;
}

int plan_mkdir(const struct plan *p, uint32_t copy, uint32_t path_id, mode_t mode)
{
	return at_parent(p, copy, path_id, PARENT_MKDIR, mode);
}

int plan_rmdir(const struct plan *p, uint32_t copy, uint32_t path_id)
{
	return at_parent(p, copy, path_id, PARENT_RMDIR, 0);
}

/* lstat of copy/rel beneath the target: 0, -ENOENT (or -ENOTDIR) absent,
 * -EXDEV/-ELOOP unsafe, other -errno.  The whole path goes through O_PATH:
 * it never follows a final symlink. */
static int stat_beneath(const struct plan *p, uint32_t copy, const char *rel, struct stat *st)
{
	char buf[PATH_MAX];
	int rc = copy_path(copy, rel, buf, sizeof buf);
	if (rc)
		return rc;
	int fd = open_beneath(p->priv->walk, p->target_fd, buf, O_PATH | O_NOFOLLOW, 0);
	if (fd < 0)
		return fd;
	rc = fstat(fd, st) ? -errno : 0;
	close(fd);
	return rc;
}

int plan_stat(const struct plan *p, uint32_t copy, uint32_t path_id)
{
	const struct plan_file *f = file_by_id(p, path_id);
	struct stat st;
	if (!f || copy >= p->ncopies)
		return -EINVAL;
	return stat_beneath(p, copy, f->rel, &st);
}

int plan_truncate(const struct plan *p, uint32_t copy, uint32_t path_id, uint64_t len,
		  const char **why)
{
	const char *ignored;
	if (!why)
		why = &ignored;
	*why = NULL;
	if (len > (uint64_t)INT64_MAX)
		return -EINVAL;
	/* (checked as a worker's open: what was put there during the run) */
	/* (O_NONBLOCK: a FIFO there fails ENXIO, never blocks) */
	int fd = plan_open_run(p, copy, path_id, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0,
			       true, why);
	if (fd < 0)
		return fd;
	int rc = ftruncate(fd, (off_t)len) < 0 ? -errno : 0;
	close(fd);
	return rc;
}

/* ---- building --------------------------------------------------------- */

static void acc_touch(struct facc *a, uint32_t rank)
{
	if (!(a->bits & A_USED)) {
		a->bits |= A_USED;
		a->first_rank = rank;
	} else if (a->first_rank != rank) {
		a->bits |= A_SHARED;
	}
}

static bool res_ok(int64_t r)
{
	return r >= 0 || r == RESULT_UNKNOWN;
}

static void acc_merge(struct facc *d, const struct facc *s)
{
	if (!(s->bits & A_USED))
		return;
	if (!(d->bits & A_USED)) {
		*d = *s;
		return;
	}
	if (d->first_rank != s->first_rank)
		d->bits |= A_SHARED;
	if (!d->link)
		d->link = s->link;
	if (d->maker == MAKER_NONE)
		d->maker = s->maker;
	else if (s->maker != MAKER_NONE && s->maker != d->maker)
		d->maker = MAKER_MANY;
	d->bits |= s->bits;
	d->first_rank = d->first_rank < s->first_rank ? d->first_rank : s->first_rank;
	d->t_need = min_u64(d->t_need, s->t_need);
	d->t_create = min_u64(d->t_create, s->t_create);
	d->t_read = min_u64(d->t_read, s->t_read);
	d->t_write = min_u64(d->t_write, s->t_write);
	if (s->extent > d->extent)
		d->extent = s->extent;
}

#define FACC_NONE ((struct facc){ TIME_NONE, TIME_NONE, TIME_NONE, TIME_NONE, 0, 0, 0, MAKER_NONE, 0 })

/* Fold one rank's view of a path into the run's: the rank's own order
 * decides what it needs before it makes it itself (ranks replay unordered,
 * and alone in sequential mode, so another rank's create does not count). */
static void fold_rank(struct facc *run, struct facc *rk)
{
	if (rk->t_need != TIME_NONE && rk->t_need <= rk->t_create)
		rk->bits |= A_RNEED;
	if (rk->t_read != TIME_NONE && rk->t_read <= rk->t_write)
		rk->bits |= A_RREAD;
	acc_merge(run, rk);
	*rk = FACC_NONE;
}

/* gather()'s state: the current rank's view of the paths it used, and its
 * handle -> path map (opens name the path, later ops only the handle). */
struct gather {
	const struct opstream *s;
	struct facc *acc;            /* per path: over the ranks so far     */
	struct facc *racc;           /* per path: this rank's view          */
	uint32_t *touched;           /* paths this rank used                */
	size_t ntouched;
	uint32_t *hmap;              /* handle -> path id, OP_NOFILE none   */
	size_t hcap;
};

/* This rank's accumulator of path f, marked as used by rank r. */
static struct facc *g_touch(struct gather *g, uint32_t f, uint32_t r)
{
	struct facc *a = &g->racc[f];

	if (!(a->bits & A_USED))
		g->touched[g->ntouched++] = f;
	acc_touch(a, r);
	return a;
}

/* Fold the rank's view of every path it touched into the run's. */
static void g_fold(struct gather *g)
{
	for (size_t i = 0; i < g->ntouched; i++)
		fold_rank(&g->acc[g->touched[i]], &g->racc[g->touched[i]]);
	g->ntouched = 0;
}

static int hmap_set(struct gather *g, uint32_t h, uint32_t f)
{
	if (h >= g->hcap) {
		size_t nc = g->hcap ? g->hcap : 64;
		while (nc <= h)
			nc *= 2;
		uint32_t *nm = realloc(g->hmap, nc * sizeof *nm);
		if (!nm)
			return -ENOMEM;
		memset(nm + g->hcap, 0xff, (nc - g->hcap) * sizeof *nm);
		g->hmap = nm;
		g->hcap = nc;
	}
	g->hmap[h] = f;
	return 0;
}

static void acc_open(struct facc *a, const struct op *op, uint64_t t)
{
	a->bits |= A_OK;
	if (op_oflags_tmpfile(op->oflags)) {
		/* an unnamed file made in its directory: created, empty */
		a->bits |= A_FILEHINT | A_TMPFILE | A_MODIFIES;
		a->t_create = min_u64(a->t_create, t);
		a->t_write = min_u64(a->t_write, t);
		return;
	}
	a->bits |= (op->oflags & O_DIRECTORY) ? A_DIRHINT : A_FILEHINT;
	if (op->oflags & O_CREAT) {
		a->t_create = min_u64(a->t_create, t);
		a->bits |= A_MODIFIES;
	} else {
		a->t_need = min_u64(a->t_need, t);
	}
	if (op->oflags & O_TRUNC) {
		a->t_write = min_u64(a->t_write, t);
		a->bits |= A_MODIFIES;
	}
	if ((op->oflags & O_TRUNC) || (op->oflags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		a->bits |= A_FRESH;
}

/* A successful read: the file must hold what it returned. */
static void acc_read(struct facc *a, const struct op *op, uint64_t t)
{
	uint64_t got = op->len, ext;

	a->bits |= A_OK;
	a->t_read = min_u64(a->t_read, t);
	if (op->kind == OP_READ && op->result != RESULT_UNKNOWN && (uint64_t)op->result < got)
		got = (uint64_t)op->result;
	ext = sat_add(op->offset, got);
	if (ext > (uint64_t)INT64_MAX)
		ext = (uint64_t)INT64_MAX;
	if (ext > a->extent)
		a->extent = ext;
}

/* What op, done at trace time t, tells about its own path (a rename's
 * target aside): hints, what it needs, creates, reads and writes. */
static void acc_op(struct facc *a, const struct op *op, uint64_t t)
{
	bool ok = res_ok(op->result);

	switch (op->kind) {
	case OP_READ: case OP_AREAD:
	case OP_WRITE: case OP_AWRITE: case OP_FTRUNCATE: case OP_FALLOCATE:
	case OP_UNLINK:
		a->bits |= A_FILEHINT;
		break;
	case OP_MKDIR: case OP_RMDIR:
		a->bits |= A_DIRHINT;
		break;
	case OP_STAT:           /* a stat that found a directory */
		if (op->flags & OPF_STAT_DIR)
			a->bits |= A_DIRHINT;
		break;
	default:
		break;
	}
	if (!ok)
		return;
	switch (op->kind) {
	case OP_OPEN:
		acc_open(a, op, t);
		break;
	case OP_READ: case OP_AREAD:
		acc_read(a, op, t);
		break;
	case OP_WRITE: case OP_AWRITE: case OP_FTRUNCATE: case OP_FALLOCATE:
		a->bits |= A_OK | A_WRITTEN | A_MODIFIES;
		a->t_write = min_u64(a->t_write, t);
		/* truncate by path: no open said the file is there */
		if (op->kind == OP_FTRUNCATE && op->handle == OP_NOHANDLE)
			a->t_need = min_u64(a->t_need, t);
		break;
	case OP_UNLINK: case OP_RENAME:
		a->bits |= A_OK | A_MODIFIES;
		a->t_need = min_u64(a->t_need, t);
		break;
	case OP_LINK:
		/* the new name is the same data: what is written through it
		 * changes this file too (judged so when it was already there) */
		a->bits |= A_OK | A_MODIFIES | A_LINK;
		a->t_need = min_u64(a->t_need, t);
		break;
	case OP_MKDIR:
		a->bits |= A_OK | A_MKDIR | A_MODIFIES;
		a->t_create = min_u64(a->t_create, t);
		break;
	case OP_SYMLINK:
		/* made by the run, as mkdir makes a directory: never prepared
		 * (a later stat or open of it comes after this create) */
		a->bits |= A_OK | A_SYMLINK | A_MODIFIES;
		a->t_create = min_u64(a->t_create, t);
		if (!a->link)
			a->link = op->aux + 1;
		break;
	case OP_RMDIR:
		a->bits |= A_OK | A_RMDIR | A_MODIFIES;
		a->t_need = min_u64(a->t_need, t);
		break;
	case OP_STAT:
		if (op->handle != OP_NOHANDLE)
			break;  /* fstat: the open said it all */
		a->bits |= A_OK;
		a->t_need = min_u64(a->t_need, t);
		break;
	default:
		break;
	}
}

/* Op i of rank r at trace time t into the rank's view. */
static int gather_op(struct gather *g, uint32_t r, uint64_t i, uint64_t n, const struct op *op,
		     uint64_t t, struct rerr *e)
{
	const struct opstream *s = g->s;
	uint32_t f = op->file;

	if (f != OP_NOFILE && f >= s->npaths)
		return rerr_set(e, -EINVAL, "rank %" PRIu32 " op %" PRIu64
				": path id %" PRIu32 " out of range (%" PRIu32 " paths)",
				r, i, f, s->npaths);
	/* (a valid .ops keeps handles below max(ops, 2^20): all mapped) */
	if (op->kind == OP_OPEN && op->handle != OP_NOHANDLE &&
	    (op->handle < HANDLE_MAX || op->handle <= n) && hmap_set(g, op->handle, f))
		return rerr_set(e, -ENOMEM, "out of memory");
	if (f == OP_NOFILE && op->handle != OP_NOHANDLE && op->handle < g->hcap)
		f = g->hmap[op->handle];
	if (f == OP_NOFILE)
		return 0;
	struct facc *a = g_touch(g, f, r);
	acc_op(a, op, t);
	if ((op->kind == OP_MKDIR || op->kind == OP_SYMLINK) && res_ok(op->result))
		a->maker = r;
	if (!op_has_path2(op->kind) || !res_ok(op->result))
		return 0;
	uint32_t to = op->aux;
	if (to >= s->npaths)
		return rerr_set(e, -EINVAL, "rank %" PRIu32 " op %" PRIu64
				": rename target path id %" PRIu32
				" out of range (%" PRIu32 " paths)", r, i, to, s->npaths);
	struct facc *b = g_touch(g, to, r);
	/* (what was at the name is replaced whole: no earlier size matters) */
	b->bits |= A_OK | A_MODIFIES | A_WRITTEN | A_FRESH;
	if (op->kind == OP_RENAME) {
		b->bits |= A_RENTO;
		b->maker = r;
	}
	b->t_create = min_u64(b->t_create, t);
	b->t_write = min_u64(b->t_write, t);
	return 0;
}

/* Walk the ops of the replayed ranks into per-path accumulators. */
static int gather(const struct plan *p, const struct opstream *s, struct facc *acc, struct rerr *e)
{
	size_t np = s->npaths ? s->npaths : 1;
	struct gather g = { .s = s, .acc = acc };
	int rc = 0;

	g.racc = malloc(np * sizeof *g.racc);
	g.touched = malloc(np * sizeof *g.touched);
	if (!g.racc || !g.touched) {
		rc = rerr_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < np; i++)
		g.racc[i] = FACC_NONE;
	for (uint32_t r = 0; r < p->nranks_used && !rc; r++) {
		uint64_t n;
		const struct op *ops = opstream_rank_ops(s, p->ranks[r], &n);
		uint64_t t0 = s->ranks[p->ranks[r]].t0_ns;

		if (g.hmap)
			memset(g.hmap, 0xff, g.hcap * sizeof *g.hmap);
		for (uint64_t i = 0; i < n && !rc; i++)
			if (filter_op_kept(p->filter, &ops[i]))
				rc = gather_op(&g, r, i, n, &ops[i], sat_add(t0, ops[i].t_ns), e);
		if (!rc)
			g_fold(&g);
	}
out:
	free(g.hmap);
	free(g.racc);
	free(g.touched);
	return rc;
}

/* The ancestor of rel that ends before its '/' at sep, into buf; false
 * when it does not fit. */
static bool ancestor_of(const char *rel, const char *sep, char *buf, size_t size)
{
	size_t len = (size_t)(sep - rel);
	if (len >= size)
		return false;
	memcpy(buf, rel, len);
	buf[len] = '\0';
	return true;
}

/* Growable array of plan_dir (used for ancestors and directory set). */
struct dirvec {
	struct plan_dir *v;
	size_t n, cap;
};

static int dv_add(struct dirvec *d, const char *rel, size_t len, uint32_t rank)
{
	if (d->n == d->cap) {
		size_t nc = d->cap ? d->cap * 2 : 64;
		struct plan_dir *nv = realloc(d->v, nc * sizeof *nv);
		if (!nv)
			return -ENOMEM;
		d->v = nv;
		d->cap = nc;
	}
	char *s = strndup(rel, len);
	if (!s)
		return -ENOMEM;
	d->v[d->n++] = (struct plan_dir){ s, rank };
	return 0;
}

/* Sort and merge duplicates (keeping the lowest rank). */
static void dv_unique(struct dirvec *d)
{
	if (!d->n)
		return;
	qsort(d->v, d->n, sizeof *d->v, cmp_dir);
	size_t w = 0;
	for (size_t i = 1; i < d->n; i++) {
		if (!strcmp(d->v[w].rel, d->v[i].rel)) {
			if (d->v[i].min_rank < d->v[w].min_rank)
				d->v[w].min_rank = d->v[i].min_rank;
			free(d->v[i].rel);
		} else {
			d->v[++w] = d->v[i];
		}
	}
	d->n = w + 1;
}

static void dv_free(struct dirvec *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].rel);
	free(d->v);
	*d = (struct dirvec){ 0 };
}

/* Index of the element whose `char *rel` member (at offset off) is rel,
 * in n elements of sz bytes sorted by rel; -1 when there is none. */
static ssize_t find_rel(const void *base, size_t n, size_t sz, size_t off, const char *rel)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *r = *(const char *const *)((const char *)base + mid * sz + off);
		int c = strcmp(r, rel);
		if (!c)
			return (ssize_t)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static ssize_t dv_find(const struct dirvec *d, const char *rel)
{
	return find_rel(d->v, d->n, sizeof *d->v, offsetof(struct plan_dir, rel), rel);
}

/* Index of the plan file whose rel is `rel` (files are sorted by rel). */
static ssize_t file_find(const struct plan *p, const char *rel)
{
	return find_rel(p->files, p->nfiles, sizeof *p->files, offsetof(struct plan_file, rel), rel);
}

struct relent {
	char *rel;
	uint32_t path_id;
};

static int cmp_relent(const void *a, const void *b)
{
	const struct relent *x = a, *y = b;
	int c = strcmp(x->rel, y->rel);
	if (c)
		return c;
	return x->path_id < y->path_id ? -1 : x->path_id > y->path_id;
}

/* Ranks of copy k: r < copy_limit(k). */
static uint32_t copy_limit(const struct plan *p, uint32_t k)
{
	uint32_t R = p->nranks_used;
	uint64_t start = (uint64_t)k * R;
	if (start >= p->nprocs)
		return 0;
	uint64_t left = p->nprocs - start;
	return left < R ? (uint32_t)left : R;
}

static bool file_in_copy(const struct plan *p, size_t i, uint32_t k)
{
	return p->priv->file_rank[i] < copy_limit(p, k);
}

static bool dir_in_copy(const struct plan *p, size_t j, uint32_t k)
{
	return p->priv->dirs[j].min_rank < copy_limit(p, k);
}

static int check_target(struct plan *p, const char *target, struct rerr *e)
{
	struct stat st;
	if (stat(target, &st)) {
		int err = errno;
		if (err == ENOENT)
			return rerr_set(e, -ENOENT, "target directory '%s' does not exist", target);
		return rerr_set(e, -err, "cannot access target '%s': %s", target, strerror(err));
	}
	if (S_ISBLK(st.st_mode))
		return rerr_set(e, -ENOTDIR, "target '%s' is a block device, not a directory: "
				"give a directory on a mounted file system (replay never writes "
				"to raw devices)", target);
	if (S_ISCHR(st.st_mode))
		return rerr_set(e, -ENOTDIR, "target '%s' is a character device, not a directory",
				target);
	if (S_ISREG(st.st_mode))
		return rerr_set(e, -ENOTDIR, "target '%s' is a regular file, not a directory",
				target);
	if (!S_ISDIR(st.st_mode))
		return rerr_set(e, -ENOTDIR, "target '%s' is not a directory", target);
	if (access(target, W_OK | X_OK))
		return rerr_set(e, -errno, "target directory '%s' is not writable: %s",
				target, strerror(errno));
	p->target_fd = open(target, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (p->target_fd < 0) {
		int err = errno;
		p->target_fd = -1;
		return rerr_set(e, -err, "cannot open target '%s': %s", target, strerror(err));
	}
	/* The root directory (also as "/..", "//" or a symlink to it): traced
	 * absolute paths would land on the live system's own files (a new
	 * /etc/cron.d/x needs no --force).  Refused, --force or not. */
	struct stat rst;
	if (!fstat(p->target_fd, &st) && !stat("/", &rst) &&
	    st.st_dev == rst.st_dev && st.st_ino == rst.st_ino)
		return rerr_set(e, -EPERM, "target '%s' is the root directory: traced paths "
				"would be replayed onto the system's own files; give a "
				"directory beneath it (e.g. /var/tmp/replay)", target);
	return 0;
}

/* "FILE:LINE: " (or "rank R, line N: " for a trace of several files) of
 * the first replayed op naming path id, for a message; "" if none says. */
static const char *path_first_use(const struct plan *p, const struct opstream *s, uint32_t id,
			     char *buf, size_t n)
{
	char src[PATH_MAX];
	const char *file = opstream_source_file(s, src, sizeof src);
	buf[0] = 0;
	for (uint32_t r = 0; r < p->nranks_used; r++) {
		uint64_t nops;
		const struct op *ops = opstream_rank_ops(s, p->ranks[r], &nops);
		for (uint64_t i = 0; i < nops; i++) {
			const struct op *op = &ops[i];
			if (op->file != id && !(op_aux_is_path(op->kind) && op->aux == id))
				continue;
			if (!op->line)
				return buf;
			if (file)
				snprintf(buf, n, "%s:%" PRIu32 ": ", file, op->line);
			else
				snprintf(buf, n, "rank %" PRIu32 " (%s), line %" PRIu32 ": ",
					 p->ranks[r], opstream_rank_name(s, p->ranks[r]), op->line);
			return buf;
		}
	}
	return buf;
}

/* Map the used paths, merge paths that map to the same name, fill
 * p->files (sorted by rel) and p->file_of. */
static int build_files(struct plan *p, const struct opstream *s, struct facc *acc,
		       struct facc **macc, struct rerr *e)
{
	struct relent *re = NULL;
	size_t nre = 0;
	int rc = 0;
	for (uint32_t id = 0; id < s->npaths; id++)
		nre += (acc[id].bits & A_USED) != 0;
	re = calloc(nre ? nre : 1, sizeof *re);
	if (!re)
		return rerr_set(e, -ENOMEM, "out of memory");
	size_t k = 0;
	for (uint32_t id = 0; id < s->npaths; id++) {
		if (!(acc[id].bits & A_USED))
			continue;
		const char *traced = opstream_path(s, id);
		rc = map_path(traced, &re[k].rel);
		char at[PATH_MAX + 48];
		if (rc == -EXDEV) {
			/* (strace -y is the cure only for strace) */
			char fmt[32];
			bool st = opstream_info(s, "format", fmt, sizeof fmt) && !strcmp(fmt, "strace");
			rc = rerr_set(e, rc, "%strace path '%s' climbs above its starting directory "
				      "with '..': refusing to map it beneath the target (a relative path"
				      " the trace cannot place: %sleave it out with --exclude '%s')",
				      path_first_use(p, s, id, at, sizeof at), traced,
				      st ? "capture with strace -y, which shows each descriptor's"
					   " absolute path, or " : "", traced);
			goto out;
		}
		if (rc == -EPERM) {
			rc = rerr_set(e, rc, "%strace path '%s' starts with the reserved name '"
				      RESERVED_PREFIX "' (used for copies beneath the target)",
				      path_first_use(p, s, id, at, sizeof at), traced);
			goto out;
		}
		if (rc == -ENAMETOOLONG) {
			rc = rerr_set(e, rc, "%strace path '%.64s...' is too long",
				      path_first_use(p, s, id, at, sizeof at), traced);
			goto out;
		}
		if (rc) {
			rc = rerr_set(e, rc, "out of memory");
			goto out;
		}
		re[k++].path_id = id;
	}
	qsort(re, nre, sizeof *re, cmp_relent);
	size_t nf = 0;
	for (size_t i = 0; i < nre; i++)
		nf += i == 0 || strcmp(re[i].rel, re[i - 1].rel) != 0;
	p->files = calloc(nf ? nf : 1, sizeof *p->files);
	*macc = calloc(nf ? nf : 1, sizeof **macc);
	if (!p->files || !*macc) {
		rc = rerr_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	size_t fi = 0;
	for (size_t i = 0; i < nre; i++) {
		if (i == 0 || strcmp(re[i].rel, p->files[fi].rel)) {
			fi = p->nfiles++;
			p->files[fi].path_id = re[i].path_id;
			p->files[fi].rel = re[i].rel;
			re[i].rel = NULL;
		}
		p->file_of[re[i].path_id] = (uint32_t)fi;
		acc_merge(&(*macc)[fi], &acc[re[i].path_id]);
	}
out:
	for (size_t i = 0; i < nre; i++)
		free(re[i].rel);
	free(re);
	return rc;
}

/* Every path id mapped to file i (several spellings of one name). */
#define FOR_PATHS_OF(p, i, id) \
	for (uint32_t id = 0; id < (p)->npaths; id++) if ((p)->file_of[id] == (i))

/*
 * Prepare file i?  From the whole-trace pass: what existed before the
 * trace, with its initial size.  Sequential mode prepares for each rank
 * alone what it needs (plan_prepare_proc); here the union, for the checks
 * of the target and the space.  A directory the trace itself makes is
 * left to the run, where the ranks are ordered (parallel mode with
 * dependencies); without that order, one rank makes it, another uses it:
 * it is made beforehand and the maker's mkdir finds it (EEXIST is done).
 */
/* What an order pass says of file i (over all its spellings): whether it
 * existed before the trace, with *size raised to its initial size;
 * *created (may be NULL) whether a replayed rank created it. */
static bool file_existed(const struct plan *p, const struct order *ord, size_t i,
			 uint64_t *size, bool *created)
{
	bool existed = false;
	FOR_PATHS_OF(p, i, id) {
		const struct pstate *ps = &ord->paths[id];
		if (created && (ps->bits & PS_CREATED))
			*created = true;
		if (!(ps->bits & PS_EXISTED))
			continue;
		existed = true;
		if (ps->size0 > *size)
			*size = ps->size0;
	}
	return existed;
}

static void decide_prepare(struct plan *p, size_t i, const struct facc *a)
{
	struct plan_file *f = &p->files[i];
	bool created = false;
	uint64_t size = 0;
	bool existed = file_existed(p, &p->ord, i, &size, &created);
	if (p->sequential) {
		for (uint32_t r = 0; r < p->nranks_used; r++) {
			const struct rank_prep *rp = &p->ord.alone[r];
			for (uint32_t k = 0; k < rp->n; k++)
				if (p->file_of[rp->path[k]] == i) {
					existed = true;
					if (rp->size[k] > size)
						size = rp->size[k];
				}
		}
	}
	if (f->is_dir && !p->ordered && created && (a->bits & A_SHARED))
		existed = true;
	f->prepare = existed;
	f->prep_size = existed && !f->is_dir ? size : 0;
}

/* Where file i is prepared: its name when the run starts. */
static const char *prep_name(const struct plan_file *f)
{
	return f->prep_rel ? f->prep_rel : f->rel;
}

/* The first time the trace uses file i (its accumulator a). */
static uint64_t first_use(const struct facc *a)
{
	return min_u64(min_u64(a->t_need, a->t_create), min_u64(a->t_read, a->t_write));
}

/* File i, there before the trace, was first named beneath a directory the
 * trace renamed before (order pass, pstate.start): it is prepared under its
 * name beneath the rename's source, and the traced rename moves it. */
static int start_names(struct plan *p)
{
	for (size_t i = 0; i < p->nfiles; i++) {
		struct plan_file *f = &p->files[i];
		FOR_PATHS_OF(p, i, id) {
			const struct pstate *ps = &p->ord.paths[id];
			if (!ps->start || !(ps->bits & PS_EXISTED) || f->prep_rel)
				continue;
			char *r = NULL;
			int rc = map_path(ps->start, &r);
			if (rc == -ENOMEM)
				return rc;
			if (!rc && strcmp(r, f->rel) && r[0])
				f->prep_rel = r;
			else
				free(r);
		}
	}
	return 0;
}

/* Whether the trace records any call that changes names (unlink, rename,
 * mkdir, rmdir, link, symlink): a DXT trace records none, so a path it
 * writes as a file and uses as a directory has nothing between. */
static bool names_changed(const struct opstream *s)
{
	for (uint32_t r = 0; r < s->nranks; r++) {
		uint64_t n;
		const struct op *ops = opstream_rank_ops(s, r, &n);
		for (uint64_t i = 0; i < n; i++)
			switch (ops[i].kind) {
			case OP_UNLINK: case OP_RENAME: case OP_MKDIR: case OP_RMDIR:
			case OP_LINK: case OP_SYMLINK:
				return true;
			default:
				break;
			}
	}
	return false;
}

/* Decide dir/file, prepare and sizes; build the directory set. */
static int classify(struct plan *p, const struct facc *m, struct rerr *e)
{
	struct dirvec anc = { 0 }, dirs = { 0 };
	struct plan_priv *pv = p->priv;
	int rc = 0;

	if ((rc = start_names(p)))
		goto nomem;
	/* every proper ancestor of a used path is a directory, and so is
	 * every one of the name it is prepared under */
	for (size_t i = 0; i < p->nfiles; i++) {
		for (int w = 0; w < 2; w++) {
			const char *rel = w ? p->files[i].prep_rel : p->files[i].rel;
			for (const char *c = rel; c && (c = strchr(c, '/')); c++)
				if ((rc = dv_add(&anc, rel, (size_t)(c - rel), 0)))
					goto nomem;
		}
	}
	dv_unique(&anc);

	for (size_t i = 0; i < p->nfiles; i++) {
		struct plan_file *f = &p->files[i];
		const struct facc *a = &m[i];
		pv->file_rank[i] = a->first_rank;
		pv->file_maker[i] = a->maker;
		pv->file_acc[i] = a->bits;
		pv->file_link[i] = a->link;
		pv->links |= (a->bits & A_LINK) != 0;
		pv->symlinks |= (a->bits & A_SYMLINK) != 0;
		f->shared = (a->bits & A_SHARED) != 0;
		f->written = (a->bits & A_WRITTEN) != 0;
		f->is_dir = !f->rel[0] || dv_find(&anc, f->rel) >= 0 ||
			    ((a->bits & A_DIRHINT) && !(a->bits & A_FILEHINT));
		if (!pv->file_dir && f->rel[0] && (a->bits & A_WRITTEN) && dv_find(&anc, f->rel) >= 0 &&
		    !(a->bits & (A_MKDIR | A_RMDIR | A_RENTO | A_SYMLINK)) && !pv->names_change)
			pv->file_dir = i + 1;
		if (!f->rel[0])
			f->prepare = false;
		else
			decide_prepare(p, i, a);
	}

	/* directories plan_prepare creates */
	for (size_t i = 0; i < p->nfiles; i++) {
		const struct plan_file *f = &p->files[i];
		const char *rel = f->prepare ? prep_name(f) : f->rel;
		uint32_t rank = pv->file_rank[i];
		if (!rel[0])
			continue;
		if (!f->prepare && !(pv->file_acc[i] & A_OK))
			continue;       /* only failed ops: the run fails alike */
		for (const char *c = rel; (c = strchr(c, '/')); c++) {
			char anc_rel[PATH_MAX];
			if (!ancestor_of(rel, c, anc_rel, sizeof anc_rel))
				break;
			ssize_t j = file_find(p, anc_rel);
			/* The trace mkdirs it, renames a directory to it or makes
			 * it a symbolic link: leave
			 * it and below to the run, when one rank alone makes it and
			 * uses what is below (its ops keep their order).  Ranks are
			 * not ordered against each other, so a directory one rank
			 * makes and another uses is created beforehand; the maker's
			 * mkdir then finds it.  (A rename's target made beforehand
			 * with a subdirectory is not empty: the rename fails.)  One
			 * there before the trace, which the trace replaces (removes,
			 * then makes again or renames a directory to) before it
			 * first uses this path: what is beneath is the run's too. */
			if (!f->prepare && j >= 0 &&
			    (pv->file_acc[j] & (A_MKDIR | A_RENTO | A_SYMLINK)) &&
			    (!p->files[j].prepare || first_use(&m[i]) > m[j].t_create) &&
			    (p->ordered || (!(pv->file_acc[j] & A_SHARED) &&
					    !(pv->file_acc[i] & A_SHARED) && pv->file_rank[j] == rank)))
				break;
			if ((rc = dv_add(&dirs, rel, (size_t)(c - rel), rank)))
				goto nomem;
		}
		if (f->is_dir && f->prepare && (rc = dv_add(&dirs, rel, strlen(rel), rank)))
			goto nomem;
	}
	dv_unique(&dirs);
	pv->dirs = dirs.v;
	pv->ndirs = dirs.n;
	dirs = (struct dirvec){ 0 };
	dv_free(&anc);
	return 0;
nomem:
	dv_free(&anc);
	dv_free(&dirs);
	return rerr_set(e, -ENOMEM, "out of memory");
}

/* Paths in the way (check_existing) or that could not be removed
 * (plan_cleanup): how many, and the first one, named in the message. */
struct tally {
	size_t n;
	const char *first;          /* copy-relative path                    */
	uint32_t first_copy;
	int err;                    /* its -errno                            */
};

static void tally_add(struct tally *t, const char *rel, uint32_t k, int err)
{
	if (!t->n++) {
		t->first = rel;
		t->first_copy = k;
		t->err = err;
	}
}

static int outside_error(const struct plan *p, uint32_t k, const char *rel, const char *why,
			 struct rerr *e)
{
	char b[PATH_MAX];

	return rerr_set(e, -EXDEV, "'%s' leads outside the target (%s): refusing to use it",
			show(p, k, rel, b, sizeof b), why);
}

/* The root of copy k > 0: there already (0), absent (1: nothing of the
 * copy can be there), or unsafe (-errno). */
static int check_copy_root(struct plan *p, uint32_t k, struct tally *cf, struct rerr *e)
{
	char pre[32], b[PATH_MAX];
	struct stat st;

	copy_prefix(k, pre, sizeof pre);
	pre[strlen(pre) - 1] = '\0';
	int rc = stat_beneath(p, 0, pre, &st);
	if (rc == 0) {
		p->priv->rstate[k] |= ST_EXISTED;
		tally_add(cf, "", k, -EEXIST);
		return 0;
	}
	if (rc == -ENOENT)
		return 1;
	if (rc == -EXDEV || rc == -ELOOP)
		return outside_error(p, k, "", "a symbolic link or a mount point?", e);
	return rerr_set(e, rc, "cannot check '%s': %s", show(p, k, "", b, sizeof b), strerror(-rc));
}

/* A link only read through: judge the file it leads to (beneath the
 * target, as the run will open it) into *st. */
static int follow_link(const struct plan *p, uint32_t k, const char *rel, struct stat *st,
		       struct rerr *e)
{
	char lb[PATH_MAX];
	struct stat lst;
	int lfd = copy_path(k, rel, lb, sizeof lb) ? -1 :
		  open_beneath(p->priv->walk, p->target_fd, lb, O_PATH, 0);

	if (lfd >= 0) {
		if (!fstat(lfd, &lst) && S_ISREG(lst.st_mode))
			*st = lst;
		close(lfd);
	} else if (lfd == -EXDEV || lfd == -ELOOP) {
		return outside_error(p, k, rel, "a symbolic link", e);
	}
	return 0;
}

/* Does what is at file i of copy k stand in the run's way?  Links and
 * hard-linked files the run would change are refused even with force. */
static int judge_existing(struct plan *p, uint32_t k, size_t i, const struct stat *st,
			  bool is_link, struct tally *cf, struct rerr *e)
{
	struct plan_priv *pv = p->priv;
	const struct plan_file *f = &p->files[i];
	const char *rel = f->prepare ? prep_name(f) : f->rel;
	uint16_t acc = pv->file_acc[i];
	char b[PATH_MAX];
	bool conflict;

	if (!f->is_dir && f->prepare && !(acc & A_MODIFIES) && S_ISREG(st->st_mode) &&
	    (uint64_t)st->st_size >= f->prep_size) {
		/* an input already there, large enough, only read: use it */
		pv->fstate[(size_t)k * p->nfiles + i] |= ST_REUSE;
		return 0;
	}
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode) && !is_link)
		/* a device, FIFO or socket: opening it may block for ever, and
		 * writing it writes a device (data perhaps outside the target) */
		return rerr_set(e, -EPERM, "'%s' is a %s: the run makes and uses only regular"
				" files and directories: refusing it, even with --force (remove it,"
				" or choose another target)", show(p, k, rel, b, sizeof b),
				S_ISFIFO(st->st_mode) ? "FIFO" : S_ISSOCK(st->st_mode) ? "socket" :
				S_ISBLK(st->st_mode) ? "block device" :
				S_ISCHR(st->st_mode) ? "character device" : "special file");
	if (f->is_dir)
		conflict = S_ISDIR(st->st_mode) ? (acc & A_RMDIR) != 0 : true;
	else
		conflict = S_ISDIR(st->st_mode) || f->prepare || (acc & A_MODIFIES);
	if (!conflict)
		return 0;
	if (is_link)
		/* the run would create, write or remove through the link: a name
		 * the plan does not know, which cleanup could not find */
		return rerr_set(e, -ELOOP, "'%s' is a symbolic link the run would "
				"write, create or remove through: refusing it, even "
				"with --force (remove the link or replace it by the file)",
				show(p, k, rel, b, sizeof b));
	if (!S_ISDIR(st->st_mode) && st->st_nlink > 1)
		/* another name of the same data, perhaps outside the target */
		return rerr_set(e, -EMLINK, "'%s' has %ju hard links: the run would "
				"change data also reachable by another name (perhaps "
				"outside the target): refusing it, even with --force",
				show(p, k, rel, b, sizeof b), (uintmax_t)st->st_nlink);
	tally_add(cf, rel, k, -EEXIST);
	return 0;
}

/* File i of copy k: absent, usable as it is, in the way, or unsafe. */
static int check_file(struct plan *p, uint32_t k, size_t i, struct tally *cf, struct rerr *e)
{
	struct plan_priv *pv = p->priv;
	const struct plan_file *f = &p->files[i];
	/* (one prepared under its name at the start: that name) */
	const char *rel = f->prepare ? prep_name(f) : f->rel;
	char b[PATH_MAX];
	struct stat st;
	int rc;

	rc = stat_beneath(p, k, rel, &st);
	if (rc == -ENOENT || rc == -ENOTDIR)
		return 0;
	if (rc == -EXDEV || rc == -ELOOP)
		return outside_error(p, k, rel, "a symbolic link or a mount point on the way?", e);
	if (rc)
		return rerr_set(e, rc, "cannot check '%s': %s", show(p, k, rel, b, sizeof b),
				strerror(-rc));
	pv->fstate[(size_t)k * p->nfiles + i] |= ST_EXISTED;
	bool is_link = S_ISLNK(st.st_mode);
	if (is_link && !(pv->file_acc[i] & A_MODIFIES)) {
		rc = follow_link(p, k, rel, &st, e);
		if (rc)
			return rc;
	}
	return judge_existing(p, k, i, &st, is_link, cf, e);
}

/* Record what already exists; refuse unsafe or (without force) occupied targets. */
static int check_existing(struct plan *p, bool force, struct rerr *e)
{
	struct tally cf = { 0 };
	char b[PATH_MAX], pre[32];
	int rc;

	for (uint32_t k = 0; k < p->ncopies; k++) {
		rc = k > 0 ? check_copy_root(p, k, &cf, e) : 0;
		if (rc < 0)
			return rc;
		if (rc == 1)
			continue;       /* nothing of this copy exists */
		for (size_t i = 0; i < p->nfiles; i++) {
			if (!p->files[i].rel[0] || !file_in_copy(p, i, k))
				continue;
			if ((rc = check_file(p, k, i, &cf, e)))
				return rc;
		}
	}
	if (!cf.n || force)
		return 0;
	/* name it relative to the target, as the user sees it */
	copy_prefix(cf.first_copy, pre, sizeof pre);
	snprintf(b, sizeof b, "%s%s", pre, cf.first ? cf.first : "");
	if (b[0] && b[strlen(b) - 1] == '/')
		b[strlen(b) - 1] = '\0';
	if (cf.n == 1)
		return rerr_set(e, -EEXIST, "target '%s' already holds '%s', which the run "
				"would overwrite or remove (use --force to allow it, or "
				"choose an empty directory)", p->target, b);
	return rerr_set(e, -EEXIST, "target '%s' already holds '%s' and %zu more "
			"name%s (files or directories) the run would overwrite or remove (use"
			" --force to allow it, or choose an empty directory)", p->target, b,
			cf.n - 1, cf.n == 2 ? "" : "s");
}

static bool copy_prepares(const struct plan *p, uint32_t k, size_t i, uint64_t *size);

static int check_space(struct plan *p, struct rerr *e)
{
	uint64_t total = 0, size;
	for (uint32_t k = 0; k < p->ncopies; k++)
		for (size_t i = 0; i < p->nfiles; i++)
			if (copy_prepares(p, k, i, &size) &&
			    !(p->priv->fstate[(size_t)k * p->nfiles + i] & ST_REUSE))
				total = sat_add(total, size);
	struct statvfs sv;
	int fd = openat(p->target_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;       /* cannot tell: let the writes say it */
	int rc = fstatvfs(fd, &sv);
	close(fd);
	if (rc)
		return 0;
	uint64_t avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	if (total > avail) {
		char need[32], have[32];
		return rerr_set(e, -ENOSPC, "preparing the files read by the trace needs %s "
				"(%" PRIu64 " bytes) but '%s' has only %s free",
				fmt_bytes(need, sizeof need, (double)total), total, p->target,
				fmt_bytes(have, sizeof have, (double)avail));
	}
	return 0;
}

/* The replayed ranks (the filter's, in order; the first N with -n) and
 * processes -> (rank, position, copy). */
const char *plan_no_ranks_why(const struct opstream *s, char *buf, size_t n)
{
	/* every call was on a descriptor whose open the trace does not
	 * show and no -y decoration named (strace -P, -e trace=read,...) */
	char v[32], u[32];
	buf[0] = 0;
	if (!opstream_info(s, "unknown_fd_ops", v, sizeof v) || !strcmp(v, "0")) {
		/* or on /proc, /sys, /dev/null...: no storage I/O */
		if (opstream_info(s, "special_file_ops", v, sizeof v) && strcmp(v, "0"))
			snprintf(buf, n, " (its %s calls on files were on /proc, /sys and devices such"
				 " as /dev/null: no storage I/O, never replayed)", v);
		return buf;
	}
	/* (an .ops file of before undecorated_fd_ops: taken as all) */
	if (!opstream_info(s, "undecorated_fd_ops", u, sizeof u))
		snprintf(u, sizeof u, "%s", v);
	if (strcmp(u, "0"))
		snprintf(buf, n, " (%s calls were on descriptors whose file the trace never names:"
			 " their open is not in it and strace -y did not decorate them; capture"
			 " with -y)", u);
	else
		snprintf(buf, n, " (its %s calls on descriptors were on pipes, sockets or other"
			 " descriptors that are no files, as strace -y names them)", v);
	return buf;
}

static int plan_ranks(struct plan *p, const struct opstream *s, const struct plan_opts *o,
		      struct rerr *e)
{
	const struct filter *f = o ? o->filter : NULL;
	uint32_t R = f ? f->nkept : s->nranks;
	p->filter = f;
	p->priv->nranks = R + (f ? f->ranks_beyond : 0);   /* -n's cut is not a left-out rank */
	p->priv->ntraced = s->nranks;
	if (R == 0 && f && s->nranks) {
		char sum[512], sp[32], why[160] = "";
		/* ranks whose calls were all on /proc, /sys, /dev/null...: the
		 * reader made no op of them, which no option changes */
		if (opstream_info(s, "special_file_ops", sp, sizeof sp) && strcmp(sp, "0"))
			snprintf(why, sizeof why, "; the trace's %s calls on /proc, /sys and devices"
				 " such as /dev/null are no storage I/O, never replayed", sp);
		/* (the options help only where the filter left ops out) */
		bool opts = f->ops_removed || f->ranks_unselected || f->ranks_launcher || !why[0];
		return rerr_set(e, -EINVAL, "nothing left to replay: %s%s%s",
				filter_summary(f, sum, sizeof(sum)), why,
				opts ? " (see --include and --no-default-excludes)" : "");
	}
	if (R == 0) {
		char why[256];
		return rerr_set(e, -EINVAL, "the trace holds no ranks: nothing to replay%s",
				plan_no_ranks_why(s, why, sizeof why));
	}
	uint64_t np = (o && o->nprocs) ? o->nprocs : R;
	p->nprocs = (size_t)np;
	p->nranks_used = np < R ? (uint32_t)np : R;
	p->reused = np > R;
	p->ncopies = (uint32_t)((np + R - 1) / R);
	p->procs = calloc(p->nprocs, sizeof *p->procs);
	p->ranks = calloc(p->nranks_used, sizeof *p->ranks);
	if (!p->procs || !p->ranks)
		return rerr_set(e, -ENOMEM, "out of memory");
	for (uint32_t r = 0; r < p->nranks_used; r++)
		p->ranks[r] = f ? f->kept[r] : r;
	for (size_t i = 0; i < p->nprocs; i++) {
		uint32_t pos = (uint32_t)(i % p->nranks_used);
		p->procs[i] = (struct plan_proc){ p->ranks[pos], pos, (uint32_t)(i / p->nranks_used) };
	}
	return 0;
}

/* Traced barriers honoured: how many replayed ranks take part in each. */
static int plan_barriers(struct plan *p, const struct opstream *s, struct rerr *e)
{
	uint32_t maxb = 0;
	for (uint32_t r = 0; r < p->nranks_used; r++) {
		uint64_t n, nb = 0;
		const struct op *ops = opstream_rank_ops(s, p->ranks[r], &n);
		for (uint64_t i = 0; i < n; i++)
			nb += ops[i].kind == OP_BARRIER;
		if (nb > maxb)
			maxb = (uint32_t)(nb > UINT32_MAX ? UINT32_MAX : nb);
	}
	if (!maxb)
		return 0;
	p->bar_parts = calloc(maxb, sizeof *p->bar_parts);
	if (!p->bar_parts)
		return rerr_set(e, -ENOMEM, "out of memory");
	p->nbars = maxb;
	/* a partial last copy (see plan_partial) holds the first L ranks:
	 * its barriers wait for those only, or they would wait for ever */
	uint32_t L = p->nprocs > p->nranks_used ? (uint32_t)(p->nprocs % p->nranks_used) : 0;
	if (L && !(p->bar_parts_last = calloc(maxb, sizeof *p->bar_parts_last)))
		return rerr_set(e, -ENOMEM, "out of memory");
	for (uint32_t r = 0; r < p->nranks_used; r++) {
		uint64_t n, k = 0;
		const struct op *ops = opstream_rank_ops(s, p->ranks[r], &n);
		for (uint64_t i = 0; i < n; i++)
			if (ops[i].kind == OP_BARRIER && k < maxb) {
				if (r < L)
					p->bar_parts_last[k]++;
				p->bar_parts[k++]++;
			}
	}
	return 0;
}

/* Parallel mode with -n not a multiple of the ranks: the last copy holds
 * only the first L ranks, so what the others write there before those
 * read it (a neighbour's block of a shared file) must be prepared in that
 * copy.  An order pass over those L ranks gives each file's initial size
 * for them (part_size; at least what a whole copy prepares). */
static int plan_partial(struct plan *p, const struct opstream *s, struct rerr *e)
{
	uint32_t R = p->nranks_used, L;
	struct order ord;
	if (p->sequential || !R || p->nprocs <= R || !(L = (uint32_t)(p->nprocs % R)))
		return 0;
	struct order_opts oo = { .ranks = p->ranks, .nranks = L, .filter = p->filter };
	int rc = order_build(&ord, s, &oo, e);
	if (rc)
		return rc;
	p->priv->part_size = malloc((p->nfiles ? p->nfiles : 1) * sizeof(int64_t));
	if (!p->priv->part_size) {
		order_release(&ord);
		return rerr_set(e, -ENOMEM, "out of memory");
	}
	p->priv->part_copy = p->ncopies - 1;
	for (size_t i = 0; i < p->nfiles; i++) {
		const struct plan_file *f = &p->files[i];
		uint64_t size = f->prepare ? f->prep_size : 0;
		bool existed = file_existed(p, &ord, i, &size, NULL) || f->prepare;
		p->priv->part_size[i] = existed && !f->is_dir ? (int64_t)size : -1;
	}
	order_release(&ord);
	return 0;
}

/* The whole-trace pass: initial states, dependencies (parallel), each
 * rank's own needs (sequential). */
static int plan_order(struct plan *p, const struct opstream *s, const struct plan_opts *o,
		      struct rerr *e)
{
	p->sequential = o && o->sequential;
	struct order_opts oo = { .ranks = p->ranks, .nranks = p->nranks_used, .filter = p->filter,
				 .deps = !p->sequential && !(o && o->no_order),
				 .alone = p->sequential };
	int rc = order_build(&p->ord, s, &oo, e);
	if (rc)
		return rc;
	p->ordered = oo.deps;
	if (!p->sequential && !(o && o->no_barriers))
		rc = plan_barriers(p, s, e);
	return rc;
}

/* A run where some ranks' ops are absent while a rank runs (sequential
 * mode: each alone; ranks the filter left out): p->alone, and per path
 * the last writes of the absent ranks (p->writes: in sequential mode any
 * rank's, the reader's own told apart by plan_absent_write), for the
 * reads that then find less (alone_missing() in runner.c). */
static int plan_writers(struct plan *p, const struct opstream *s, struct rerr *e)
{
	p->alone = p->sequential || (p->filter && p->filter->nkept < s->nranks);
	if (!p->alone)
		return 0;
	p->writes = calloc(s->npaths ? s->npaths : 1, sizeof *p->writes);
	if (!p->writes)
		return rerr_set(e, -ENOMEM, "out of memory");
	uint32_t *hpath = NULL;
	size_t hcap = 0;
	for (uint32_t r = 0; r < s->nranks; r++) {
		uint64_t n;
		if (!p->sequential && p->filter && p->filter->rank_kept && p->filter->rank_kept[r])
			continue;       /* it runs with the others */
		const struct op *ops = opstream_rank_ops(s, r, &n);
		for (uint64_t i = 0; i < n; i++) {
			const struct op *op = &ops[i];
			uint32_t f = op->file;
			if (op->kind == OP_OPEN && op->handle != OP_NOHANDLE && op->handle < (1u << 24)) {
				if (op->handle >= hcap) {
					size_t nc = hcap ? hcap : 64;
					while (nc <= op->handle)
						nc *= 2;
					uint32_t *nh = realloc(hpath, nc * sizeof *nh);
					if (!nh) {
						free(hpath);
						return rerr_set(e, -ENOMEM, "out of memory");
					}
					memset(nh + hcap, 0xff, (nc - hcap) * sizeof *nh);
					hpath = nh;
					hcap = nc;
				}
				hpath[op->handle] = op->file;
			}
			if (op->kind != OP_WRITE && op->kind != OP_AWRITE && op->kind != OP_FTRUNCATE &&
			    op->kind != OP_FALLOCATE)
				continue;
			if (f == OP_NOFILE && op->handle < hcap)
				f = hpath[op->handle];
			if (f >= s->npaths || op->result < 0)
				continue;
			struct plan_writes *w = &p->writes[f];
			uint64_t t = s->ranks[r].t0_ns + op->t_ns + op->dur_ns;
			if (w->r1 == r + 1) {
				if (t > w->t1)
					w->t1 = t;
			} else if (!w->r1 || t > w->t1) {
				if (w->r1) {            /* the last of another rank */
					w->r2 = w->r1;
					w->t2 = w->t1;
				}
				w->r1 = r + 1;
				w->t1 = t;
			} else if (t > w->t2 || !w->r2) {
				w->r2 = r + 1;
				w->t2 = t;
			}
		}
		if (hpath)
			memset(hpath, 0xff, hcap * sizeof *hpath);   /* handles are per rank */
	}
	free(hpath);
	return 0;
}

int plan_build(struct plan *p, const struct opstream *s, const char *target,
	       const struct plan_opts *o, struct rerr *e)
{
	struct facc *acc = NULL, *macc = NULL;
	int rc;

	memset(p, 0, sizeof *p);
	p->target_fd = -1;
	p->target = strdup(target);
	p->priv = calloc(1, sizeof *p->priv);
	if (!p->target || !p->priv) {
		rc = rerr_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	rc = check_target(p, target, e);
	if (rc)
		goto out;
	p->priv->walk = resolve_walk(p->target_fd);
	p->priv->force = o && o->force;

	rc = plan_ranks(p, s, o, e);
	if (rc)
		goto out;

	p->npaths = s->npaths;
	p->file_of = malloc((s->npaths ? s->npaths : 1) * sizeof *p->file_of);
	acc = calloc(s->npaths ? s->npaths : 1, sizeof *acc);
	if (!p->file_of || !acc) {
		rc = rerr_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	memset(p->file_of, 0xff, s->npaths * sizeof *p->file_of);
	for (uint32_t i = 0; i < s->npaths; i++)
		acc[i] = FACC_NONE;

	rc = plan_order(p, s, o, e);
	if (!rc)
		rc = gather(p, s, acc, e);
	if (rc)
		goto out;
	rc = build_files(p, s, acc, &macc, e);
	if (rc)
		goto out;
	struct plan_priv *pv = p->priv;
	size_t nf = p->nfiles ? p->nfiles : 1;
	pv->file_rank = calloc(nf, sizeof *pv->file_rank);
	pv->file_maker = calloc(nf, sizeof *pv->file_maker);
	pv->file_acc = calloc(nf, sizeof *pv->file_acc);
	pv->file_link = calloc(nf, sizeof *pv->file_link);
	pv->fstate = calloc((size_t)p->ncopies * nf, 1);
	pv->rstate = calloc(p->ncopies, 1);
	if (!pv->file_rank || !pv->file_maker || !pv->file_acc || !pv->file_link || !pv->fstate ||
	    !pv->rstate) {
		rc = rerr_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	pv->names_change = names_changed(s);
	rc = classify(p, macc, e);
	if (rc)
		goto out;
	pv->dstate = calloc((size_t)p->ncopies * (pv->ndirs ? pv->ndirs : 1), 1);
	if (!pv->dstate) {
		rc = rerr_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	rc = plan_partial(p, s, e);
	if (rc)
		goto out;
	rc = plan_writers(p, s, e);
	if (rc)
		goto out;
	rc = check_existing(p, o && o->force, e);
	if (rc)
		goto out;
	rc = check_space(p, e);
	if (rc == -ENOSPC && o && o->dry) {     /* the dry run shows the plan, and this */
		snprintf(p->priv->space_note, sizeof(p->priv->space_note), "%s", e->msg);
		rc = 0;
	}
out:
	free(acc);
	free(macc);
	if (rc)
		plan_release(p);
	return rc;
}

/* ---- preparing and cleaning up ----------------------------------------- */

static void fill_pattern(unsigned char *buf, size_t len)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		unsigned char c = (unsigned char)(x >> 24);
		buf[i] = c ? c : 0xa5;
	}
}

/* mkdir beneath the target: 1 made, 0 already a directory, -errno. */
static int mkdir_beneath(const struct plan *p, uint32_t copy, const char *rel)
{
	char buf[PATH_MAX];
	const char *last;
	int pfd = open_parent(p, copy, rel, buf, sizeof buf, &last);
	if (pfd < 0)
		return pfd;
	int rc = 1;
	if (mkdirat(pfd, last, 0755)) {
		rc = -errno;
		struct stat st;
		if (rc == -EEXIST && !fstatat(pfd, last, &st, AT_SYMLINK_NOFOLLOW))
			rc = S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	}
	close(pfd);
	return rc;
}

static int write_file(const struct plan *p, uint32_t copy, const struct plan_file *f,
		      const unsigned char *pat, struct rerr *e)
{
	char buf[PATH_MAX], shown[PATH_MAX + 64];
	const char *rel = prep_name(f);
	int rc = copy_path(copy, rel, buf, sizeof buf);
	if (rc)
		return rerr_set(e, rc, "cannot prepare '%s': %s",
				show(p, copy, rel, shown, sizeof shown), strerror(-rc));
	/* a new file, as the plan found none; one there (the plan found one,
	 * or something put it there since) is looked at first, as a worker's
	 * open does: a FIFO would hang the open, a hard link to a file outside
	 * the target be filled, a device written */
	int fd = open_beneath(p->priv->walk, p->target_fd, buf,
			      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
	if (fd == -EEXIST) {
		const char *why = NULL;
		fd = open_beneath(p->priv->walk, p->target_fd, buf,
				  O_WRONLY | O_NOFOLLOW | O_NONBLOCK, 0);
		if (fd == -ENXIO)
			why = special_why(S_IFIFO);
		fd = kept_if_ok(p, copy, rel, fd, true, O_NOFOLLOW, true, &why);
		if (fd >= 0 && ftruncate(fd, 0) < 0) {
			rc = -errno;
			close(fd);
			fd = rc;
		}
		if (why)
			return rerr_set(e, fd < 0 ? fd : -EPERM, "cannot prepare '%s': %s",
					show(p, copy, rel, shown, sizeof shown), why);
	}
	if (fd < 0)
		return rerr_set(e, fd, "cannot prepare '%s': %s",
				show(p, copy, rel, shown, sizeof shown), strerror(-fd));
	uint64_t done = 0;
	while (done < f->prep_size) {
		uint64_t left = f->prep_size - done;
		size_t n = left < PATTERN_SIZE ? (size_t)left : PATTERN_SIZE;
		ssize_t w = pwrite(fd, pat, n, (off_t)done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = w < 0 ? -errno : -EIO;
			goto fail;
		}
		done += (uint64_t)w;
	}
	/* no fsync here: prepare() ends with one syncfs of the target, which
	 * makes every prepared file durable at once (an fsync per file cost
	 * ~0.6 ms each: 0.6 s for -n 1024 copies) and reports write-back
	 * errors */
	close(fd);
	return 0;
fail:
	close(fd);
	return rerr_set(e, rc, "cannot prepare '%s' (%" PRIu64 " of %" PRIu64 " bytes written): %s",
			show(p, copy, rel, shown, sizeof shown), done, f->prep_size,
			strerror(-rc));
}

/* Copies are disjoint trees, each with its own state bytes: with many
 * of them (-n above the ranks), COPY_THREADS threads make or remove them
 * side by side, so that the waits of the file system (a journal commit,
 * an online discard per freed extent, a metadata server's reply) overlap.
 * Part t takes copies t, t + nparts, ...; each part keeps its own
 * outcome, and the caller picks what the serial walk would have said. */
#define COPY_THREADS 4
#define COPY_THREADS_MIN_COPIES 8

struct copy_part {
	struct plan *p;
	uint32_t part, nparts;
	/* prepare */
	const unsigned char *pat;
	int rc;
	uint32_t k_err;         /* the copy rc is about                   */
	struct rerr e;
	/* cleanup */
	struct tally fails;
	bool nomem;
};

static uint32_t copy_nparts(const struct plan *p)
{
	struct statfs sf;

	if (p->ncopies < COPY_THREADS_MIN_COPIES)
		return 1;
	/* in memory there are no waits to overlap, only the parent
	 * directory's lock to contend for (tmpfs: 3 % slower, -n 1024) */
	if (!fstatfs(p->target_fd, &sf) &&
	    (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC))
		return 1;
	return COPY_THREADS;
}

/* fn on every part: part 0 here, the others in threads with every signal
 * blocked (signals stay with the calling thread); a part whose thread
 * could not start runs here too. */
static void run_parts(struct copy_part *parts, uint32_t n, void *(*fn)(void *))
{
	pthread_t tid[COPY_THREADS];
	bool started[COPY_THREADS] = { false };

	if (n > 1) {
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		for (uint32_t t = 1; t < n; t++)
			started[t] = !pthread_create(&tid[t], NULL, fn, &parts[t]);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	fn(&parts[0]);
	for (uint32_t t = 1; t < n; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
		else
			fn(&parts[t]);
	}
}

/* Sequential mode, the process replaying rank position r: file i's size
 * for it alone; -1 when it needs none. */
static int64_t alone_size(const struct plan *p, uint32_t r, size_t i)
{
	const struct rank_prep *rp = &p->ord.alone[r];
	int64_t size = -1;
	for (uint32_t k = 0; k < rp->n; k++)
		if (p->file_of[rp->path[k]] == i && (int64_t)rp->size[k] > size)
			size = (int64_t)rp->size[k];
	return size;
}

/* Does rank position r, run alone, meet file i first beneath a directory
 * it renamed itself?  Else it finds the file under the name it uses. */
static bool alone_moved(const struct plan *p, uint32_t r, size_t i)
{
	const struct rank_prep *rp = &p->ord.alone[r];
	for (uint32_t k = 0; k < rp->n; k++)
		if (p->file_of[rp->path[k]] == i && rp->moved[k])
			return true;
	return false;
}

/* Is file i prepared in copy k, and how large (*size)?  The whole-trace
 * pass's answer, but in a partial last copy its ranks' own. */
static bool copy_prepares(const struct plan *p, uint32_t k, size_t i, uint64_t *size)
{
	const struct plan_file *f = &p->files[i];
	const struct plan_priv *pv = p->priv;
	if (f->is_dir || !file_in_copy(p, i, k))
		return false;
	if (pv->part_size && k == pv->part_copy) {
		*size = pv->part_size[i] > 0 ? (uint64_t)pv->part_size[i] : 0;
		return pv->part_size[i] >= 0;
	}
	*size = f->prep_size;
	return f->prepare;
}

/* Sequential mode: is directory rel (or one above it) made by rank r
 * itself, with a mkdir or a rename of a directory to it, and nothing r
 * alone needs prepared beneath it?  Then r, run alone, makes it as the
 * trace did: made beforehand (for another rank's sake) it would turn the
 * mkdir into EEXIST and a rename with subdirectories into ENOTEMPTY. */
static bool made_alone(const struct plan *p, uint32_t r, const char *rel)
{
	const struct plan_priv *pv = p->priv;
	char buf[PATH_MAX];
	size_t len = strlen(rel);
	if (len >= sizeof buf)
		return false;
	memcpy(buf, rel, len + 1);
	for (;;) {
		ssize_t j = file_find(p, buf);
		if (j >= 0 && pv->file_maker[j] == r) {
			/* nothing r alone prepares at or beneath it (the files
			 * named buf... follow file j in their sorted order) */
			size_t bl = strlen(buf);
			for (size_t i = (size_t)j; i < p->nfiles; i++) {
				const char *fr = p->files[i].rel;
				if (strncmp(fr, buf, bl))
					break;
				if ((!fr[bl] || fr[bl] == '/') && alone_size(p, r, i) >= 0)
					return false;
			}
			return true;
		}
		char *sl = strrchr(buf, '/');
		if (!sl)
			return false;
		*sl = '\0';
	}
}

/* Directories and prepared files of copy k; only_rank >= 0: only what
 * that rank position alone needs (sequential mode). */
static int prepare_copy(struct plan *p, uint32_t k, int64_t only_rank,
			const unsigned char *pat, struct rerr *e)
{
	struct plan_priv *pv = p->priv;
	char shown[PATH_MAX + 64], pre[32];
	int rc;
	if (k > 0) {
		copy_prefix(k, pre, sizeof pre);
		pre[strlen(pre) - 1] = '\0';
		rc = mkdir_beneath(p, 0, pre);
		if (rc < 0)
			return rerr_set(e, rc, "cannot create '%s': %s",
					show(p, k, "", shown, sizeof shown), strerror(-rc));
		if (rc == 1)
			pv->rstate[k] |= ST_MADE;
	}
	for (size_t j = 0; j < pv->ndirs; j++) {
		if (!dir_in_copy(p, j, k) ||
		    (only_rank >= 0 && made_alone(p, (uint32_t)only_rank, pv->dirs[j].rel)))
			continue;
		rc = mkdir_beneath(p, k, pv->dirs[j].rel);
		if (rc < 0)
			return rerr_set(e, rc, "cannot create directory '%s': %s",
					show(p, k, pv->dirs[j].rel, shown, sizeof shown),
					rc == -ENOTDIR ? "a file is in the way" : strerror(-rc));
		if (rc == 1)
			pv->dstate[(size_t)k * pv->ndirs + j] |= ST_MADE;
	}
	for (size_t i = 0; i < p->nfiles; i++) {
		struct plan_file f = p->files[i];
		if (only_rank >= 0) {
			int64_t size = alone_size(p, (uint32_t)only_rank, i);
			f.prepare = size >= 0;
			f.prep_size = size > 0 ? (uint64_t)size : 0;
			/* renamed by another rank: this one alone uses its name */
			if (f.prep_rel && !alone_moved(p, (uint32_t)only_rank, i))
				f.prep_rel = NULL;
		} else {
			f.prepare = copy_prepares(p, k, i, &f.prep_size);
		}
		if (!f.prepare || f.is_dir || !file_in_copy(p, i, k) ||
		    (pv->fstate[(size_t)k * p->nfiles + i] & ST_REUSE))
			continue;
		/* a partial last copy prepares what a rank outside it made in a
		 * directory that rank made too, and a rank alone a file another
		 * rank renamed into place, under the name it uses: the
		 * directories come first */
		if ((pv->part_size && k == pv->part_copy && !p->files[i].prepare) ||
		    (p->files[i].prep_rel && !f.prep_rel)) {
			const char *fr = prep_name(&f);
			for (const char *c = fr; (c = strchr(c, '/')); c++) {
				char anc[PATH_MAX];
				if (!ancestor_of(fr, c, anc, sizeof anc))
					break;
				rc = mkdir_beneath(p, k, anc);
				if (rc < 0)
					return rerr_set(e, rc, "cannot create directory '%s': %s",
							show(p, k, anc, shown, sizeof shown),
							rc == -ENOTDIR ? "a file is in the way" : strerror(-rc));
			}
		}
		rc = write_file(p, k, &f, pat, e);
		if (rc)
			return rc;
	}
	return 0;
}

static void *prepare_part(void *arg)
{
	struct copy_part *c = arg;

	for (uint32_t k = c->part; k < c->p->ncopies && !c->rc; k += c->nparts) {
		c->rc = prepare_copy(c->p, k, -1, c->pat, &c->e);
		c->k_err = k;
	}
	return NULL;
}

static int prepare(struct plan *p, int64_t only_proc, struct rerr *e)
{
	struct copy_part parts[COPY_THREADS];
	unsigned char *pat = NULL;
	uint32_t n = copy_nparts(p);
	int rc = 0;

	if (!p->priv)
		return rerr_set(e, -EINVAL, "no plan");
	pat = malloc(PATTERN_SIZE);
	if (!pat)
		return rerr_set(e, -ENOMEM, "out of memory");
	fill_pattern(pat, PATTERN_SIZE);
	if (only_proc >= 0) {
		const struct plan_proc *pp = &p->procs[only_proc];
		rc = prepare_copy(p, pp->copy, (int64_t)pp->pos, pat, e);
	} else {
		for (uint32_t t = 0; t < n; t++)
			parts[t] = (struct copy_part){ .p = p, .part = t, .nparts = n, .pat = pat };
		run_parts(parts, n, prepare_part);
		/* the failure of the lowest copy, as a walk in copy order says */
		const struct copy_part *first = NULL;
		for (uint32_t t = 0; t < n; t++)
			if (parts[t].rc && (!first || parts[t].k_err < first->k_err))
				first = &parts[t];
		if (first) {
			rc = first->rc;
			if (e)
				*e = first->e;
		}
	}
	if (rc)
		goto out;
	int fd = openat(p->target_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		if (syncfs(fd))
			rc = rerr_set(e, -errno, "cannot sync '%s': %s", p->target, strerror(errno));
		close(fd);
	}
out:
	free(pat);
	return rc;
}

int plan_prepare(struct plan *p, struct rerr *e)
{
	return prepare(p, -1, e);
}

int plan_prepare_proc(struct plan *p, size_t proc, struct rerr *e)
{
	if (!p->sequential || proc >= p->nprocs)
		return prepare(p, -1, e);
	return prepare(p, (int64_t)proc, e);
}


#define RMTREE_DEPTH 64

/*
 * Remove the directory `name` in pfd and everything in it: only for
 * directories that did not exist when the plan was built, without --force,
 * so whatever is inside was made by the run (a renamed directory carries
 * its files under a name no traced path has).  Never follows a symbolic
 * link (unlinked as a name) and never enters another mount.  0 or -errno.
 */
static int rm_tree(int pfd, const char *name, const struct mnt_key *root, int depth)
{
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = check_mount(fd, root);
	if (rc) {
		close(fd);
		return rc;
	}
	DIR *d = fdopendir(fd);
	if (!d) {
		rc = -errno;
		close(fd);
		return rc;
	}
	for (int pass = 0; pass < 2; pass++) {
		struct dirent *de;
		rewinddir(d);
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (!unlinkat(dirfd(d), de->d_name, 0))
				continue;
			int r = -errno;
			if (r == -EISDIR || r == -EPERM)
				r = depth + 1 >= RMTREE_DEPTH ? -ELOOP
							      : rm_tree(dirfd(d), de->d_name, root, depth + 1);
			if (r && r != -ENOENT && !rc)
				rc = r;
		}
		if (rc)
			break;
	}
	closedir(d);
	if (rc)
		return rc;
	return unlinkat(pfd, name, AT_REMOVEDIR) ? -errno : 0;
}

/* rmdir `last` in pfd; a directory left non-empty by the run (something
 * renamed into it or it renamed) is removed with its contents unless
 * --force (then it may hold the user's files, moved by the trace). */
static int remove_dir(const struct plan *p, int pfd, const char *last)
{
	if (!unlinkat(pfd, last, AT_REMOVEDIR))
		return 0;
	int r = -errno;
	struct mnt_key root;
	if (r != -ENOTEMPTY || p->priv->force || mnt_key_of(p->target_fd, &root))
		return r;
	return rm_tree(pfd, last, &root, 0);
}

struct rmdir_ent {
	const char *rel;
	size_t depth;
	uint8_t *state;   /* bits to clear on removal, or NULL */
};

static int cmp_rmdir(const void *a, const void *b)
{
	const struct rmdir_ent *x = a, *y = b;
	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	return strcmp(y->rel, x->rel);
}

/* Errors a cleanup may meet and pass over: ENOENT, the trace removed it;
 * EXDEV/ELOOP, a link now on the way, so nothing of ours can be there;
 * ENAMETOOLONG, a name the file system never accepted, so never created. */
static bool gone_anyway(int r)
{
	return r == -ENOENT || r == -ENOTDIR || r == -EXDEV || r == -ELOOP || r == -ENAMETOOLONG;
}

/* Unlink the files of copy k that were not there before; directories
 * (traced, or made of a file by the run) go to rl for later. */
static void cleanup_files(struct plan *p, uint32_t k, struct rmdir_ent *rl, size_t *nrl,
			  struct tally *fails)
{
	const uint8_t *fs = p->priv->fstate + (size_t)k * p->nfiles;

	for (size_t i = 0; i < p->nfiles; i++) {
		const struct plan_file *f = &p->files[i];
		if (!f->rel[0] || !file_in_copy(p, i, k) || (fs[i] & ST_EXISTED))
			continue;
		/* (a symbolic link the run made is unlinked, even where paths
		 * beneath it, through it, made it look like a directory) */
		int r = f->is_dir && !(p->priv->file_acc[i] & A_SYMLINK) ? -EISDIR :
			at_rel(p, k, f->rel, PARENT_UNLINK, 0);
		if (r == -EISDIR)   /* a traced directory, or the run made one of it */
			rl[(*nrl)++] = (struct rmdir_ent){ f->rel, depth_of(f->rel), NULL };
		else if (r && !gone_anyway(r))
			tally_add(fails, f->rel, k, r);
		/* prepared under its name at the start, which a failed rename
		 * may have left (the directories there are pv->dirs) */
		if (f->prep_rel && !f->is_dir && (r = at_rel(p, k, f->prep_rel, PARENT_UNLINK, 0)) &&
		    !gone_anyway(r) && r != -EISDIR)
			tally_add(fails, f->prep_rel, k, r);
	}
}

/* Remove the directories of rl (plus those plan_prepare made in copy k),
 * deepest first. */
static void cleanup_dirs(struct plan *p, uint32_t k, struct rmdir_ent *rl, size_t nrl,
			 struct tally *fails)
{
	struct plan_priv *pv = p->priv;
	uint8_t *ds = pv->dstate + (size_t)k * pv->ndirs;

	for (size_t j = 0; j < pv->ndirs; j++)
		if (ds[j] & ST_MADE)
			rl[nrl++] = (struct rmdir_ent){ pv->dirs[j].rel, depth_of(pv->dirs[j].rel), &ds[j] };
	qsort(rl, nrl, sizeof *rl, cmp_rmdir);
	for (size_t j = 0; j < nrl; j++) {
		if (j > 0 && !strcmp(rl[j].rel, rl[j - 1].rel))
			continue;
		int r = at_rel(p, k, rl[j].rel, PARENT_REMOVE, 0);
		if (!r || gone_anyway(r)) {
			if (rl[j].state)
				*rl[j].state &= (uint8_t)~ST_MADE;
			continue;
		}
		tally_add(fails, rl[j].rel, k, r);
	}
}

/* Remove the root of copy k > 0 when plan_prepare made it. */
static void cleanup_root(struct plan *p, uint32_t k, struct tally *fails)
{
	char pre[32];

	if (!(p->priv->rstate[k] & ST_MADE))
		return;
	copy_prefix(k, pre, sizeof pre);
	pre[strlen(pre) - 1] = '\0';
	int r = at_rel(p, 0, pre, PARENT_REMOVE, 0);
	if (!r || r == -ENOENT)
		p->priv->rstate[k] &= (uint8_t)~ST_MADE;
	else
		tally_add(fails, "", k, r);
}

/* Copies part, part + nparts, ... counted down from the last one, as the
 * serial walk visits them. */
static void *cleanup_part(void *arg)
{
	struct copy_part *c = arg;
	struct plan *p = c->p;
	struct rmdir_ent *rl = calloc(p->priv->ndirs + p->nfiles + 1, sizeof *rl);

	if (!rl) {
		c->nomem = true;
		return NULL;
	}
	for (int64_t k = (int64_t)p->ncopies - 1 - c->part; k >= 0; k -= c->nparts) {
		size_t nrl = 0;

		cleanup_files(p, (uint32_t)k, rl, &nrl, &c->fails);
		cleanup_dirs(p, (uint32_t)k, rl, nrl, &c->fails);
		if (k > 0)
			cleanup_root(p, (uint32_t)k, &c->fails);
	}
	free(rl);
	return NULL;
}

int plan_cleanup(struct plan *p, struct rerr *e)
{
	struct copy_part parts[COPY_THREADS];
	struct tally fails = { 0 };
	char shown[PATH_MAX + 64];
	uint32_t n = copy_nparts(p);
	bool nomem = false;

	if (!p->priv)
		return 0;
	for (uint32_t t = 0; t < n; t++)
		parts[t] = (struct copy_part){ .p = p, .part = t, .nparts = n };
	run_parts(parts, n, cleanup_part);
	/* the serial walk's message: the first failure in the highest copy */
	for (uint32_t t = 0; t < n; t++) {
		const struct tally *f = &parts[t].fails;
		nomem |= parts[t].nomem;
		if (!f->n)
			continue;
		if (!fails.n || f->first_copy > fails.first_copy) {
			fails.first = f->first;
			fails.first_copy = f->first_copy;
			fails.err = f->err;
		}
		fails.n += f->n;
	}
	if (nomem)
		return rerr_set(e, -ENOMEM, "out of memory");
	if (!fails.n)
		return 0;
	show(p, fails.first_copy, fails.first, shown, sizeof shown);
	if (fails.n == 1)
		return rerr_set(e, fails.err, "cannot remove '%s': %s", shown, strerror(-fails.err));
	return rerr_set(e, fails.err, "cannot remove '%s' (%s) and %zu more", shown,
			strerror(-fails.err), fails.n - 1);
}

static void *cleanup_bg(void *arg)
{
	struct plan *p = arg;

	p->priv->bg_ret = plan_cleanup(p, &p->priv->bg_e);
	return NULL;
}

void plan_cleanup_start(struct plan *p)
{
	sigset_t all, old;

	if (!p->priv || p->priv->bg_on)
		return;
	p->priv->bg_ret = 0;
	p->priv->bg_e.msg[0] = '\0';
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	p->priv->bg_on = !pthread_create(&p->priv->bg, NULL, cleanup_bg, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	p->priv->bg_todo = !p->priv->bg_on;
}

int plan_cleanup_wait(struct plan *p, struct rerr *e)
{
	struct plan_priv *pv = p->priv;

	if (!pv)
		return 0;
	if (pv->bg_todo) {
		pv->bg_todo = false;
		return plan_cleanup(p, e);
	}
	if (!pv->bg_on)
		return 0;
	pthread_join(pv->bg, NULL);
	pv->bg_on = false;
	if (pv->bg_ret < 0 && e)
		*e = pv->bg_e;
	return pv->bg_ret;
}

/* ---- printing --------------------------------------------------------- */

void plan_print(const struct plan *p, const struct opstream *s, FILE *f)
{
	char b1[32], b2[32];
	size_t nshared = 0, nprep = 0, ndirs = 0, nfiles = 0;
	uint64_t prep_bytes = 0, all_bytes = 0;
	int w = 4;

	if (!p->priv)
		return;
	for (size_t i = 0; i < p->nfiles; i++) {
		const struct plan_file *pf = &p->files[i];
		int l = (int)text_width(pf->rel);
		if (l > w && l < 60)
			w = l;
		if (pf->is_dir) {
			ndirs += pf->rel[0] != 0;
			continue;
		}
		nfiles++;
		nshared += pf->shared;
		if (pf->prepare) {
			nprep++;
			prep_bytes = sat_add(prep_bytes, pf->prep_size);
		}
		for (uint32_t k = 0; k < p->ncopies; k++) {
			uint64_t size;
			if (copy_prepares(p, k, i, &size))
				all_bytes = sat_add(all_bytes, size);
		}
	}
	fprintf(f, "plan for target '%s' (paths resolved %s)\n", p->target,
		p->priv->walk ? "by an O_NOFOLLOW walk, symlinks refused"
			      : "with openat2 RESOLVE_BENEATH");
	fprintf(f, "  %u traced rank%s", p->priv->ntraced, p->priv->ntraced == 1 ? "" : "s");
	if (p->priv->nranks != p->priv->ntraced)     /* some left out entirely */
		fprintf(f, " (%u left out: not in --ranks, a launcher's, or no op the path filter keeps)",
			p->priv->ntraced - p->priv->nranks);
	fprintf(f, ", %u replayed by %zu process%s", p->nranks_used, p->nprocs,
		p->nprocs == 1 ? "" : "es");
	if (p->reused)
		fprintf(f, ": ranks reused round-robin, %u copies of the file set "
			"(copy k>0 under TARGET/" COPY_PREFIX "k/)", p->ncopies);
	if (p->priv->part_size) {
		uint32_t k = p->priv->part_copy, nmore = 0;
		uint64_t more = 0, size;
		for (size_t i = 0; i < p->nfiles; i++)
			if (copy_prepares(p, k, i, &size) &&
			    (!p->files[i].prepare || size > p->files[i].prep_size)) {
				nmore++;
				more = sat_add(more, size);
			}
		fprintf(f, "\n  copy %u replays the first %u of the %u ranks only: it prepares %u more"
			" file%s (%s) the others would have written", k, copy_limit(p, k),
			p->nranks_used, nmore, nmore == 1 ? "" : "s",
			fmt_bytes(b1, sizeof b1, (double)more));
	}
	if (p->priv->space_note[0])
		fprintf(f, "\n  the run would stop here: %s", p->priv->space_note);
	fprintf(f, "\n\nfiles (relative to TARGET%s):\n", p->ncopies > 1 ? " and each copy root" : "");
	fprintf(f, "  %-*s  %-8s %s\n", w, "path", "use", "before the run");
	for (size_t i = 0; i < p->nfiles; i++) {
		const struct plan_file *pf = &p->files[i];
		const char *traced = s ? opstream_path(s, pf->path_id) : "";
		const char *use = pf->is_dir ? "dir" : pf->shared ? "shared" : "private";
		char what[96];
		if (pf->is_dir && !pf->rel[0])
			snprintf(what, sizeof what, "(the target itself)");
		else if (pf->is_dir)
			snprintf(what, sizeof what, "%s", pf->prepare ? "created" :
				 find_rel(p->priv->dirs, p->priv->ndirs, sizeof *p->priv->dirs,
					  offsetof(struct plan_dir, rel), pf->rel) >= 0 ?
				 "created if needed" :
				 (p->priv->file_acc[i] & A_MKDIR) ? "-, the run mkdirs it" :
				 (p->priv->file_acc[i] & A_RENTO) ? "-, a traced rename makes it" :
				 (p->priv->file_acc[i] & A_SYMLINK) ? "-, the run makes it a symbolic link" :
				 "-, not made before the run");
		else if (pf->prepare && (p->priv->fstate[i] & ST_REUSE))
			snprintf(what, sizeof what, "present, used as is (needs %" PRIu64 " bytes)",
				 pf->prep_size);
		else if (pf->prepare)
			snprintf(what, sizeof what, "prepare %s (%" PRIu64 " bytes)",
				 fmt_bytes(b1, sizeof b1, (double)pf->prep_size), pf->prep_size);
		else if (p->priv->file_acc[i] & A_TMPFILE)
			snprintf(what, sizeof what, "-, unnamed: the run opens O_TMPFILE in its directory");
		else if (p->priv->file_acc[i] & A_SYMLINK)
			snprintf(what, sizeof what, "-, a symbolic link the run makes");
		else if (pf->written && (p->priv->file_acc[i] & (A_FRESH | A_TMPFILE)))
			snprintf(what, sizeof what, "-, created by the run");
		else if (pf->written)   /* (O_CREAT alone, or by a rename or link) */
			snprintf(what, sizeof what, "-, created by the run (never truncated: any earlier"
				 " size unknown)");
		else if (!(p->priv->file_acc[i] & A_OK))
			snprintf(what, sizeof what, "-, only failed calls");
		else
			snprintf(what, sizeof what, "-");
		/* names as one line each, control bytes escaped */
		char eb[PATH_MAX * 2];
		const char *rel = text_esc(pf->rel[0] ? pf->rel : ".", eb, sizeof eb);
		fprintf(f, "  %-*s  %-8s %s", pad_width(w, rel), rel, use, what);
		if (traced && traced[0] && strcmp(traced + (traced[0] == '/'), pf->rel))
			fprintf(f, "   <- '%s'", text_esc(traced, eb, sizeof eb));
		if (pf->prepare && pf->prep_rel)
			fprintf(f, "   as '%s' (its name before the trace's renames)",
				text_esc(pf->prep_rel, eb, sizeof eb));
		/* the content it is made with (the first symlink's), as made */
		uint32_t li = p->priv->file_link[i];
		char made[PATH_MAX];
		if ((p->priv->file_acc[i] & A_SYMLINK) && s && li && li - 1 < s->npaths &&
		    !plan_symlink_content(pf->rel, opstream_path(s, li - 1), made, sizeof made))
			fprintf(f, "   -> '%s'", text_esc(made, eb, sizeof eb));
		fputc('\n', f);
	}
	fprintf(f, "\ntotals: %zu file%s (%zu shared, %zu private), %zu traced director%s, "
		"%zu director%s made before the run; %zu prepared: %s (%" PRIu64 " bytes) per copy",
		nfiles, nfiles == 1 ? "" : "s", nshared, nfiles - nshared,
		ndirs, ndirs == 1 ? "y" : "ies", p->priv->ndirs, p->priv->ndirs == 1 ? "y" : "ies",
		nprep, fmt_bytes(b1, sizeof b1, (double)prep_bytes), prep_bytes);
	if (p->ncopies > 1)
		fprintf(f, ", %s (%" PRIu64 " bytes) in all (%u copies)",
			fmt_bytes(b2, sizeof b2, (double)all_bytes), all_bytes, p->ncopies);
	if (p->ordered)
		fprintf(f, "\norder: %" PRIu64 " cross-rank waits (an op waits for another rank's)",
			p->ord.total_deps);
	else if (p->sequential)
		fprintf(f, "\norder: each rank alone, what it reads of others prepared for it");
	else
		fprintf(f, "\norder: none (--order none): ranks run free");
	if (p->nbars)
		fprintf(f, "; %u traced barriers honoured", p->nbars);
	fprintf(f, "\n\nprocesses:\n");
	for (size_t i = 0; i < p->nprocs; i++) {
		const struct plan_proc *pp = &p->procs[i];
		const char *name = s ? opstream_rank_name(s, pp->rank) : NULL;
		fprintf(f, "  process %zu: rank %u", i, pp->rank);
		if (name && name[0])
			fprintf(f, " (%s)", name);
		if (pp->copy)
			fprintf(f, ", copy %u (TARGET/" COPY_PREFIX "%u/)", pp->copy, pp->copy);
		fputc('\n', f);
	}
}

const char *plan_file_dir_conflict(const struct plan *p, char *buf, size_t n)
{
	if (!p->priv || !p->priv->file_dir)
		return NULL;
	const struct plan_file *f = &p->files[p->priv->file_dir - 1];
	size_t l = strlen(f->rel);
	const char *below = "?";
	for (size_t i = 0; i < p->nfiles; i++)
		if (!strncmp(p->files[i].rel, f->rel, l) && p->files[i].rel[l] == '/') {
			below = p->files[i].rel;
			break;
		}
	snprintf(buf, n, "'/%s' is written as a file and is the directory of '/%s', and the trace"
		 " records no unlink, mkdir or rename at all that could turn one into the other (a DXT"
		 " trace records none): it is made a directory, and its opens and writes as a file"
		 " fail (EISDIR)", f->rel, below);
	return buf;
}

void plan_release(struct plan *p)
{
	if (!p)
		return;
	if (p->priv && (p->priv->bg_on || p->priv->bg_todo))
		plan_cleanup_wait(p, NULL);   /* started, never waited for */
	if (p->target_fd >= 0)
		close(p->target_fd);
	for (size_t i = 0; i < p->nfiles; i++) {
		free(p->files[i].rel);
		free(p->files[i].prep_rel);
	}
	free(p->files);
	free(p->file_of);
	free(p->writes);
	free(p->procs);
	free(p->ranks);
	free(p->bar_parts);
	free(p->bar_parts_last);
	order_release(&p->ord);
	free(p->target);
	if (p->priv) {
		for (size_t j = 0; j < p->priv->ndirs; j++)
			free(p->priv->dirs[j].rel);
		free(p->priv->dirs);
		free(p->priv->file_rank);
		free(p->priv->file_maker);
		free(p->priv->file_link);
		free(p->priv->part_size);
		free(p->priv->file_acc);
		free(p->priv->fstate);
		free(p->priv->dstate);
		free(p->priv->rstate);
		free(p->priv);
	}
	memset(p, 0, sizeof *p);
	p->target_fd = -1;
}

/* ---- target description ------------------------------------------------ */

/* statfs(2) f_type values (linux/magic.h and the file systems' sources);
 * shared: a network or parallel file system, seen alike from every node */
static const struct { unsigned long magic; const char *name; int shared; } fs_magics[] = {
	{ EXT4_SUPER_MAGIC, "ext4", 0 }, { XFS_SUPER_MAGIC, "xfs", 0 },
	{ BTRFS_SUPER_MAGIC, "btrfs", 0 }, { TMPFS_MAGIC, "tmpfs", 0 },
	{ OVERLAYFS_SUPER_MAGIC, "overlay", 0 }, { 0x2fc12fc1, "zfs", 0 },
	{ 0x65735546, "fuse", 0 }, { 0x4d44, "vfat", 0 }, { 0x5346544e, "ntfs", 0 },
	{ 0xf2f52010, "f2fs", 0 }, { 0x858458f6, "ramfs", 0 },
	{ NFS_SUPER_MAGIC, "nfs", 1 }, { 0x0bd00bd0, "lustre", 1 }, { 0x19830326, "beegfs", 1 },
	{ 0x47504653, "gpfs", 1 }, { 0x00c36400, "ceph", 1 }, { 0xff534d42, "cifs", 1 },
	{ 0xfe534d42, "smb2", 1 }, { 0x20030528, "orangefs", 1 }, { 0x5346414f, "afs", 1 },
	{ 0x6b414653, "afs", 1 }, { 0xaad7aaea, "panfs", 1 }, { 0x01161970, "gfs2", 1 },
};

int fs_magic_shared(unsigned long magic, const char **name)
{
	magic &= 0xFFFFFFFFul;      /* f_type is a signed long on some ABIs */
	for (size_t i = 0; i < sizeof fs_magics / sizeof fs_magics[0]; i++)
		if (fs_magics[i].magic == magic) {
			if (name)
				*name = fs_magics[i].name;
			return fs_magics[i].shared;
		}
	if (name)
		*name = NULL;
	return 0;
}

/* Undo mountinfo's octal escapes (\040 for space) in place. */
static void unescape(char *s)
{
	char *o = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

static bool path_under(const char *path, const char *mnt)
{
	size_t n = strlen(mnt);
	if (!strcmp(mnt, "/"))
		return true;
	return !strncmp(path, mnt, n) && (path[n] == '/' || path[n] == '\0');
}

/* Find the mount of `real` with device `dev`: fstype and source. */
static void find_mount(const char *real, dev_t dev, char *fstype, size_t flen,
		       char *source, size_t slen)
{
	FILE *mi = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	size_t best = 0;
	bool found = false;
	if (!mi)
		return;
	while (getline(&line, &cap, mi) > 0) {
		char *save = NULL, *fields[12] = { 0 };
		int nf = 0;
		line[strcspn(line, "\n")] = '\0';
		for (char *t = strtok_r(line, " ", &save); t && nf < 12; t = strtok_r(NULL, " ", &save)) {
			if (!strcmp(t, "-") && nf >= 6) {
				/* optional fields end here: fstype and source follow */
				char *fs = strtok_r(NULL, " ", &save);
				char *src = strtok_r(NULL, " ", &save);
				fields[10] = fs;
				fields[11] = src;
				break;
			}
			if (nf < 10)
				fields[nf] = t;
			nf++;
		}
		unsigned ma, mi2;
		if (nf < 5 || !fields[10] || sscanf(fields[2], "%u:%u", &ma, &mi2) != 2)
			continue;
		if (makedev(ma, mi2) != dev)
			continue;
		unescape(fields[4]);
		size_t len = strlen(fields[4]);
		if (path_under(real, fields[4]) && (!found || len >= best)) {
			found = true;
			best = len;
			snprintf(fstype, flen, "%s", fields[10]);
			snprintf(source, slen, "%s", fields[11] ? fields[11] : "");
			unescape(source);
		} else if (!found && !fstype[0]) {
			snprintf(fstype, flen, "%s", fields[10]);
			snprintf(source, slen, "%s", fields[11] ? fields[11] : "");
			unescape(source);
		}
	}
	free(line);
	fclose(mi);
}

static int read_sys(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Whole-disk name of block device `dev` into name ("vda" for vda1). */
static int block_disk(dev_t dev, char *name, size_t len)
{
	char path[128], link[PATH_MAX], tmp[16];
	snprintf(path, sizeof path, "/sys/dev/block/%u:%u", major(dev), minor(dev));
	ssize_t n = readlink(path, link, sizeof link - 1);
	if (n < 0)
		return -errno;
	link[n] = '\0';
	char *base = strrchr(link, '/');
	if (!base)
		return -EINVAL;
	char pfile[160];
	snprintf(pfile, sizeof pfile, "%s/partition", path);
	if (!read_sys(pfile, tmp, sizeof tmp)) {
		*base = '\0';
		char *pb = strrchr(link, '/');
		if (!pb)
			return -EINVAL;
		base = pb;
	}
	snprintf(name, len, "%s", base + 1);
	return 0;
}

/* The blk-mq hardware queues of a disk: the numbered entries of
 * /sys/block/DISK/mq; -1 when there is no such directory. */
static int count_hw_queues(const char *disk)
{
	char path[160];
	snprintf(path, sizeof path, "/sys/block/%s/mq", disk);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += de->d_name[0] >= '0' && de->d_name[0] <= '9';
	closedir(d);
	return n;
}

int target_info_get(const char *dir, struct target_info *ti)
{
	struct stat st;
	struct statfs sfs;
	char real[PATH_MAX], source[PATH_MAX] = "";

	memset(ti, 0, sizeof *ti);
	ti->rotational = -1;
	ti->hw_queues = -1;
	ti->logical_block = 512;
	if (stat(dir, &st))
		return -errno;
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(ti->resolve, sizeof ti->resolve, "%s", resolve_walk(fd) ? "walk" : "openat2");
	close(fd);
	if (!realpath(dir, real))
		snprintf(real, sizeof real, "%s", dir);
	find_mount(real, st.st_dev, ti->fstype, sizeof ti->fstype, source, sizeof source);
	if (!ti->fstype[0] && !statfs(dir, &sfs)) {
		const char *name;
		fs_magic_shared((unsigned long)sfs.f_type, &name);
		if (name)
			snprintf(ti->fstype, sizeof ti->fstype, "%s", name);
		else
			snprintf(ti->fstype, sizeof ti->fstype, "0x%lx", (unsigned long)sfs.f_type);
	}

	dev_t bdev = 0;
	if (major(st.st_dev) != 0) {
		bdev = st.st_dev;
	} else if (!strncmp(source, "/dev/", 5)) {
		/* btrfs and friends report an anonymous st_dev: use the source */
		struct stat bs;
		if (!stat(source, &bs) && S_ISBLK(bs.st_mode))
			bdev = bs.st_rdev;
	}
	char disk[64];
	if (bdev && !block_disk(bdev, disk, sizeof disk)) {
		char path[160], val[64];
		snprintf(ti->disk, sizeof ti->disk, "%s", disk);
		snprintf(ti->device, sizeof ti->device, "/dev/%s", disk);
		snprintf(path, sizeof path, "/sys/block/%s/queue/rotational", disk);
		if (!read_sys(path, val, sizeof val))
			ti->rotational = atoi(val) ? 1 : 0;
		snprintf(path, sizeof path, "/sys/block/%s/queue/scheduler", disk);
		if (!read_sys(path, val, sizeof val)) {
			char *l = strchr(val, '['), *r = l ? strchr(l, ']') : NULL;
			if (l && r)
				snprintf(ti->scheduler, sizeof ti->scheduler, "%.*s",
					 (int)(r - l - 1), l + 1);
			else
				snprintf(ti->scheduler, sizeof ti->scheduler, "%.31s", val);
		}
		snprintf(path, sizeof path, "/sys/block/%s/queue/logical_block_size", disk);
		if (!read_sys(path, val, sizeof val) && atoi(val) >= 512)
			ti->logical_block = (uint32_t)atoi(val);
		ti->hw_queues = count_hw_queues(disk);
	} else if (!strcmp(ti->fstype, "tmpfs")) {
		snprintf(ti->device, sizeof ti->device, "tmpfs");
	} else if (source[0] == '/' || strchr(source, ':')) {
		/* network file systems: "server:/export" says where the data lives */
		snprintf(ti->device, sizeof ti->device, "%.127s", source);
	} else {
		snprintf(ti->device, sizeof ti->device, "none");
	}
	return 0;
}
