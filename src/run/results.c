/* results.c - report classes of the shared results (results.h). */
#include "ops/ops.h"
#include "run/results.h"

static const char *const rclass_names[RC__COUNT] = {
	[RC_READ] = "read", [RC_WRITE] = "write", [RC_SYNC] = "sync",
	[RC_OPEN] = "open", [RC_CLOSE] = "close", [RC_META] = "meta",
};

const char *rclass_name(enum rclass c)
{
	return (unsigned)c < RC__COUNT ? rclass_names[c] : "?";
}

enum rclass rclass_of(unsigned op_kind)
{
	switch (op_kind) {
	case OP_READ: case OP_AREAD:
		return RC_READ;
	case OP_WRITE: case OP_AWRITE:
		return RC_WRITE;
	case OP_FSYNC: case OP_FDATASYNC:
		return RC_SYNC;
	case OP_OPEN:
		return RC_OPEN;
	case OP_CLOSE:
		return RC_CLOSE;
	default:
		/* ftruncate, fallocate, unlink, rename, mkdir, rmdir, stat,
		 * and seek (counted as meta by stat, never issued by run) */
		return RC_META;
	}
}
