/*
 * ops.h - the normalized op model shared by every stage.
 *
 * One `struct op` per traced operation of one rank (a traced process or
 * thread).  Within a rank, ops are in trace order (non-decreasing t_ns).
 * Every read and write carries an explicit offset (the builder tracks file
 * positions), so any engine can issue positioned I/O.
 */
#ifndef REPLAY_OPS_H
#define REPLAY_OPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

enum op_kind {
	OP_NONE = 0,
	OP_OPEN,      /* file, handle, flags (Linux x86_64 O_*), aux = mode      */
	OP_CLOSE,     /* handle                                                  */
	OP_READ,      /* handle, offset, len, iovcnt (1 for read/pread)          */
	OP_WRITE,     /* handle, offset, len, iovcnt                             */
	OP_SEEK,      /* handle, offset = resulting position (kept for counts)   */
	OP_FSYNC,     /* handle                                                  */
	OP_FDATASYNC, /* handle                                                  */
	OP_FTRUNCATE, /* handle, len = new size                                  */
	OP_FALLOCATE, /* handle, offset, len                                     */
	OP_UNLINK,    /* file                                                    */
	OP_RENAME,    /* file -> aux (second path id)                            */
	OP_MKDIR,     /* file, aux = mode                                        */
	OP_RMDIR,     /* file                                                    */
	OP_STAT,      /* file (stat family by path) or handle (fstat)            */
	OP_AREAD,     /* async read submit: handle, offset, len; aux = async id  */
	OP_AWRITE,    /* async write submit: as OP_AREAD                         */
	OP_AWAIT,     /* wait for async id aux; result = bytes                   */
	OP_BARRIER,   /* traced MPI barrier (aux = barrier sequence number)      */
	OP_MMAP,      /* file mapped by the application: flagged, not replayable */
	OP_LINK,      /* hard link: file -> aux (second path id)                 */
	OP_SETFL,     /* fcntl(F_SETFL): handle, oflags = its flags from now on  */
	OP_SYMLINK,   /* symbolic link: file = the link; aux = path id of its
	               * content, as traced (not resolved: a relative one is
	               * relative to the link's directory); not a file        */
	OP__COUNT
};

#define OP_NOFILE   UINT32_MAX  /* op has no path                       */
/* Linux MAX_RW_COUNT (INT_MAX rounded down to a page): one read or write
 * call never moves more, so no data op is longer */
#define OP_MAX_DATA_LEN 0x7ffff000ull
#define OP_NOHANDLE UINT32_MAX  /* op has no handle                     */

/* op.flags bits (not the open flags: those live in op.oflags) */
#define OPF_IMPLICIT_OPEN 0x1u /* open synthesized for an fd opened before tracing (path known from -y) */
#define OPF_APPEND        0x2u /* write on an O_APPEND handle (offset = tracked end)    */
#define OPF_ASYNC_BYTES   0x4u /* async length taken from iovecs, wait carried none    */
#define OPF_SYNTH         0x8u /* open/close the trace does not record, synthesized by
                                * the reader (DXT: around a file's segments; fio iolog:
                                * I/O before an open, files left open at the end)     */
#define OPF_STAT_SIZE    0x10u /* OP_STAT, OP_SEEK: len is the file size the traced call
                                * showed (a stat's st_size; a SEEK_END's result minus
                                * its offset)                                          */
#define OPF_STAT_DIR     0x20u /* OP_STAT: the traced stat found a directory            */
#define OPF_PIECE        0x20u /* read, write: a later piece of one traced call longer
                                * than one call can move (DXT), replayed as several */
#define OPF_RWF_DSYNC    0x40u /* write: per-call RWF_DSYNC (pwritev2 flags, an iocb's
                                * aio_rw_flags): replayed with that flag            */
#define OPF_RWF_SYNC     0x80u /* write: per-call RWF_SYNC, as OPF_RWF_DSYNC           */
#define OPF_RWF (OPF_RWF_DSYNC | OPF_RWF_SYNC)

/* Fixed-size, 64 bytes, little-endian host order: the on-disk record. */
struct op {
	uint64_t t_ns;     /* trace time since the rank's first op            */
	uint64_t dur_ns;   /* traced duration (0 when not traced)             */
	uint64_t offset;   /* explicit file offset                            */
	uint64_t len;      /* bytes requested / new size / 0                  */
	int64_t  result;   /* traced result: bytes, fd, 0, or -errno          */
	uint32_t file;     /* path table id or OP_NOFILE                      */
	uint32_t handle;   /* dense per-rank handle id or OP_NOHANDLE         */
	uint32_t oflags;   /* open flags, normalized to Linux x86_64 values   */
	uint32_t aux;      /* mode / second path / async id / barrier seq     */
	uint8_t  kind;     /* enum op_kind                                    */
	uint8_t  flags;    /* OPF_*                                           */
	uint16_t iovcnt;   /* iovec count for readv/writev (1 otherwise)      */
	uint32_t line;     /* source line in the trace (low 32 bits), 0 unknown */
};

_Static_assert(sizeof(struct op) == 64, "struct op is the 64-byte on-disk record");

const char *op_kind_name(enum op_kind k);      /* "read", "write", ... */
static inline int op_is_data(unsigned k)
{
	return k == OP_READ || k == OP_WRITE || k == OP_AREAD || k == OP_AWRITE;
}
/* rename and link name a second path in aux */
static inline int op_has_path2(unsigned k) { return k == OP_RENAME || k == OP_LINK; }
/* aux is a path table id: a second path, or a symlink's content (a string
 * kept in the path table, which names no file: never mapped, filtered,
 * prepared or counted as one) */
static inline int op_aux_is_path(unsigned k) { return op_has_path2(k) || k == OP_SYMLINK; }
static inline int op_is_read(unsigned k) { return k == OP_READ || k == OP_AREAD; }
static inline int op_is_write(unsigned k) { return k == OP_WRITE || k == OP_AWRITE; }

/* An mmap op's aux: what the trace showed of the mapping (0: nothing) */
#define OP_MMAP_READ    0x001u  /* PROT_READ                               */
#define OP_MMAP_WRITE   0x002u  /* PROT_WRITE                              */
#define OP_MMAP_EXEC    0x004u  /* PROT_EXEC                               */
#define OP_MMAP_SHARED  0x100u  /* MAP_SHARED: stores reach the file        */
#define OP_MMAP_LOADER  0x200u  /* MAP_DENYWRITE: the dynamic loader's      */
#define OP_MMAP_KNOWN   0x8000u /* the protection was read                 */

/* A mapping through which the application may read or write the file's
 * data (not code the loader or a program mapped to run) */
static inline bool op_mmap_data(uint32_t aux)
{
	return !(aux & (OP_MMAP_EXEC | OP_MMAP_LOADER));
}

/* fallocate(2) mode bits (linux/falloc.h), the op's aux for OP_FALLOCATE:
 * the traced mode, replayed as is (bits no name is known for included). */
#define OP_FALLOC_KEEP_SIZE      0x01u
#define OP_FALLOC_PUNCH_HOLE     0x02u
#define OP_FALLOC_NO_HIDE_STALE  0x04u
#define OP_FALLOC_COLLAPSE_RANGE 0x08u
#define OP_FALLOC_ZERO_RANGE     0x10u
#define OP_FALLOC_INSERT_RANGE   0x20u
#define OP_FALLOC_UNSHARE_RANGE  0x40u
#define OP_FALLOC_WRITE_ZEROES   0x80u
/* The mode as strace prints it: "0", or names joined by '|', bits without
 * a name as one hex number last ("FALLOC_FL_KEEP_SIZE|0x100").  buf. */
const char *op_falloc_mode_str(uint32_t mode, char *buf, size_t n);
/* Does a successful fallocate of this mode change the file's size, or
 * move its data (COLLAPSE_RANGE, INSERT_RANGE)?  Plain and ZERO_RANGE
 * without KEEP_SIZE may extend it; every other mode leaves the size. */
static inline int op_falloc_shifts(uint32_t mode)
{
	return (mode & (OP_FALLOC_COLLAPSE_RANGE | OP_FALLOC_INSERT_RANGE)) != 0;
}
static inline int op_falloc_may_extend(uint32_t mode)
{
	return !(mode & (OP_FALLOC_KEEP_SIZE | OP_FALLOC_PUNCH_HOLE | OP_FALLOC_COLLAPSE_RANGE |
			 OP_FALLOC_INSERT_RANGE | OP_FALLOC_UNSHARE_RANGE));
}

/* Linux O_TMPFILE (__O_TMPFILE | O_DIRECTORY), in oflags' x86_64 values:
 * the open names a directory and makes an unnamed file in it; the op's
 * path is that file's (strace -y: "DIR/#INODE"), beneath the directory. */
#define OP_O_TMPFILE 020200000u
static inline int op_oflags_tmpfile(uint32_t oflags)
{
	return (oflags & OP_O_TMPFILE) == OP_O_TMPFILE;
}

#endif
