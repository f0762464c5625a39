/* ops.c - names of op kinds (used by dump, stat, reports). */
#include "ops/ops.h"

static const char *const kind_names[OP__COUNT] = {
	[OP_NONE] = "none",       [OP_OPEN] = "open",         [OP_CLOSE] = "close",
	[OP_READ] = "read",       [OP_WRITE] = "write",       [OP_SEEK] = "seek",
	[OP_FSYNC] = "fsync",     [OP_FDATASYNC] = "fdatasync", [OP_FTRUNCATE] = "ftruncate",
	[OP_FALLOCATE] = "fallocate", [OP_UNLINK] = "unlink", [OP_RENAME] = "rename",
	[OP_MKDIR] = "mkdir",     [OP_RMDIR] = "rmdir",       [OP_STAT] = "stat",
	[OP_AREAD] = "aread",     [OP_AWRITE] = "awrite",     [OP_AWAIT] = "await",
	[OP_BARRIER] = "barrier", [OP_MMAP] = "mmap",         [OP_LINK] = "link",
	[OP_SETFL] = "setfl",     [OP_SYMLINK] = "symlink",
};

const char *op_kind_name(enum op_kind k)
{
	return (unsigned)k < OP__COUNT && kind_names[k] ? kind_names[k] : "?";
}

