/* registry.c - the explicit list of engines (engine.h). */
#include <string.h>
#include "engine/engine.h"

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

unsigned engine_take_done(struct io_req **done, unsigned *ndone, struct io_req **out,
			  unsigned max)
{
	unsigned got = 0;

	while (got < max && got < *ndone) {
		out[got] = done[got];
		got++;
	}
	*ndone -= got;
	if (*ndone)
		memmove(done, done + got, *ndone * sizeof(*done));
	return got;
}
