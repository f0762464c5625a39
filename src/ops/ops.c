/* ops.c - names of op kinds (used by dump, stat, reports). */
#include <stdio.h>
#include <string.h>

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


static const struct { uint32_t bit; const char *name; } falloc_names[] = {
	{ OP_FALLOC_KEEP_SIZE, "FALLOC_FL_KEEP_SIZE" },
	{ OP_FALLOC_PUNCH_HOLE, "FALLOC_FL_PUNCH_HOLE" },
	{ OP_FALLOC_NO_HIDE_STALE, "FALLOC_FL_NO_HIDE_STALE" },
	{ OP_FALLOC_COLLAPSE_RANGE, "FALLOC_FL_COLLAPSE_RANGE" },
	{ OP_FALLOC_ZERO_RANGE, "FALLOC_FL_ZERO_RANGE" },
	{ OP_FALLOC_INSERT_RANGE, "FALLOC_FL_INSERT_RANGE" },
	{ OP_FALLOC_UNSHARE_RANGE, "FALLOC_FL_UNSHARE_RANGE" },
	{ OP_FALLOC_WRITE_ZEROES, "FALLOC_FL_WRITE_ZEROES" },
};

const char *op_falloc_mode_str(uint32_t mode, char *buf, size_t n)
{
	size_t at = 0;
	uint32_t rest = mode;

	if (!n)
		return buf;
	buf[0] = 0;
	if (!mode) {
		snprintf(buf, n, "0");
		return buf;
	}
	for (size_t k = 0; k < sizeof(falloc_names) / sizeof(falloc_names[0]); k++) {
		if (!(mode & falloc_names[k].bit))
			continue;
		rest &= ~falloc_names[k].bit;
		int w = snprintf(buf + at, n - at, "%s%s", at ? "|" : "", falloc_names[k].name);
		if (w < 0 || (size_t)w >= n - at)
			return buf;
		at += (size_t)w;
	}
	if (rest)
		snprintf(buf + at, n - at, "%s%#x", at ? "|" : "", rest);
	return buf;
}
