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

