/* registry.c - the explicit list of engines (engine.h). */
#include <string.h>
#include "engine.h"

static const struct engine_ops *const engines[] = {
	&engine_sync,
	&engine_libaio,
	&engine_uring,
	&engine_null,
};
#define NENGINES (sizeof(engines) / sizeof(engines[0]))

const struct engine_ops *engine_find(const char *name)
{
	for (size_t i = 0; i < NENGINES; i++)
		if (engines[i] && !strcmp(engines[i]->name, name))
			return engines[i];
	return NULL;
}

const char *engine_names(void)
{
	return "sync, libaio, io_uring, null";
}
