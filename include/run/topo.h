/*
 * topo.h - host topology (hwloc) and worker placement.
 */
#ifndef REPLAY_TOPO_H
#define REPLAY_TOPO_H

#include <stddef.h>

enum bind_mode { BIND_SPREAD = 0, BIND_NONE, BIND_CORE, BIND_NUMA };

struct topo_summary {
	int packages, numa_nodes, cores, pus;
};

struct topo;
/* Load the topology (honours HWLOC_SYNTHETIC / HWLOC_XMLFILE). -errno. */
int  topo_load(struct topo **t);
void topo_get_summary(const struct topo *t, struct topo_summary *s);
/* Parse "none|core|numa|spread". -EINVAL when unknown. */
int  topo_parse_bind(const char *s, enum bind_mode *m);
/* Bind the calling process as worker idx of n.  Fills the cpuset actually
 * used ("0-1", hwloc list syntax) and its NUMA node (-1 unknown). -errno. */
int  topo_bind_worker(struct topo *t, enum bind_mode m, unsigned idx, unsigned n,
		      char *cpuset, size_t cslen, int *numa);
void topo_free(struct topo *t);
/* The placement topo_bind_worker() uses, computed without binding (for
 * tests and --dry-run).  Same outputs.  -errno. */
int  topo_plan_worker(const struct topo *t, enum bind_mode m, unsigned idx, unsigned n,
		      char *cpuset, size_t cslen, int *numa);
/* 1 when the topology is this machine's (0 for HWLOC_SYNTHETIC/XML: then
 * topo_bind_worker computes the placement but binds nothing). */
int  topo_is_thissystem(const struct topo *t);
/* "none", "core", "numa", "spread" */
const char *topo_bind_name(enum bind_mode m);

#endif
