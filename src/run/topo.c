/*
 * topo.c - host topology (hwloc) and worker placement.
 *
 * Placement is a pure computation over the topology (topo_plan_worker),
 * so it can be tested on HWLOC_SYNTHETIC machines that do not exist;
 * topo_bind_worker is the thin wrapper that applies it to this process.
 *
 *   spread  cores taken round-robin across packages (worker 0 on package
 *           0, worker 1 on package 1, ...), worker i on the (i mod ncores)-th
 *           core of that order, bound to the core's PUs
 *   core    worker i on core (i mod ncores) in topology order (compact:
 *           a package fills before the next), bound to the core's PUs
 *   numa    worker i on NUMA node (i mod nnodes): CPUs and memory
 *   none    no binding; the cpuset reported is the whole machine's
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>

#include "run/topo.h"

struct topo {
	hwloc_topology_t t;
};

/* hwloc_topology_init() loads every hwloc plugin installed unless the
 * environment names some not to load.  Those for I/O devices (PCI,
 * OpenCL, GL; with them libX11, libOpenCL, ICU, libxml2 and more) find
 * nothing replay uses, which is cores and NUMA nodes: not loading them
 * takes ~4 ms off the start of every replay process and ~100 mappings
 * off every worker's fork() and exit.  The XML one is kept when the
 * topology comes from HWLOC_XMLFILE; a list the user set is left alone. */
static void topo_skip_io_plugins(void)
{
#define IO_PLUGINS "hwloc_pci,hwloc_opencl,hwloc_gl,hwloc_cuda,hwloc_nvml,hwloc_rsmi,hwloc_levelzero"
	static const char io[] = IO_PLUGINS, io_xml[] = IO_PLUGINS ",hwloc_xml_libxml";
#undef IO_PLUGINS
	const char *xml = getenv("HWLOC_XMLFILE");

	if (getenv("HWLOC_PLUGINS_BLACKLIST") || getenv("HWLOC_PLUGINS_BLOCKLIST"))
		return;
	/* (BLOCKLIST: the name later hwloc releases may read) */
	setenv("HWLOC_PLUGINS_BLACKLIST", xml && *xml ? io : io_xml, 0);
	setenv("HWLOC_PLUGINS_BLOCKLIST", xml && *xml ? io : io_xml, 0);
}

int topo_load(struct topo **tp)
{
	struct topo *t = NULL;
	const char *syn = getenv("HWLOC_SYNTHETIC");
	const char *xml = getenv("HWLOC_XMLFILE");
	int ret = -ENOMEM;

	*tp = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		goto out;
	topo_skip_io_plugins();
	if (hwloc_topology_init(&t->t) < 0) {
		ret = errno ? -errno : -ENOMEM;
		free(t);
		t = NULL;
		goto out;
	}
	if (syn && *syn) {
		if (hwloc_topology_set_synthetic(t->t, syn) < 0) {
			ret = -EINVAL;
			goto out;
		}
	} else if (xml && *xml) {
		if (hwloc_topology_set_xml(t->t, xml) < 0) {
			ret = errno ? -errno : -EINVAL;
			goto out;
		}
	}
	if (hwloc_topology_load(t->t) < 0) {
		ret = errno ? -errno : -EINVAL;
		goto out;
	}
	*tp = t;
	t = NULL;
	ret = 0;
out:
	topo_free(t);
	return ret;
}

void topo_free(struct topo *t)
{
	if (!t)
		return;
	hwloc_topology_destroy(t->t);
	free(t);
}

static int count(const struct topo *t, hwloc_obj_type_t type)
{
	int n = hwloc_get_nbobjs_by_type(t->t, type);

	return n < 0 ? 0 : n;
}

void topo_get_summary(const struct topo *t, struct topo_summary *s)
{
	s->packages = count(t, HWLOC_OBJ_PACKAGE);
	s->numa_nodes = count(t, HWLOC_OBJ_NUMANODE);
	s->cores = count(t, HWLOC_OBJ_CORE);
	s->pus = count(t, HWLOC_OBJ_PU);
}

int topo_is_thissystem(const struct topo *t)
{
	return hwloc_topology_is_thissystem(t->t) ? 1 : 0;
}

static const char *const bind_names[] = {
	[BIND_SPREAD] = "spread", [BIND_NONE] = "none", [BIND_CORE] = "core", [BIND_NUMA] = "numa",
};

const char *topo_bind_name(enum bind_mode m)
{
	return (unsigned)m < sizeof(bind_names) / sizeof(bind_names[0]) ? bind_names[m] : "?";
}

int topo_parse_bind(const char *s, enum bind_mode *m)
{
	for (unsigned i = 0; i < sizeof(bind_names) / sizeof(bind_names[0]); i++)
		if (s && !strcmp(s, bind_names[i])) {
			*m = (enum bind_mode)i;
			return 0;
		}
	return -EINVAL;
}

/* The NUMA node whose CPUs hold `set` (first one intersecting), -1 none. */
static int numa_of(const struct topo *t, hwloc_const_cpuset_t set)
{
	hwloc_obj_t node = NULL;

	while ((node = hwloc_get_next_obj_by_type(t->t, HWLOC_OBJ_NUMANODE, node)))
		if (node->cpuset && hwloc_bitmap_intersects(node->cpuset, set))
			return (int)node->os_index;
	return -1;
}

/* The (k)-th core of the spread order: packages round-robin. */
static hwloc_obj_t spread_core(const struct topo *t, unsigned k)
{
	int npk = count(t, HWLOC_OBJ_PACKAGE);
	int ncores = count(t, HWLOC_OBJ_CORE);
	unsigned taken = 0;

	if (npk <= 1)
		return hwloc_get_obj_by_type(t->t, HWLOC_OBJ_CORE, k);
	/* round r takes the r-th core of each package that has one */
	for (int r = 0; r < ncores; r++)
		for (int p = 0; p < npk; p++) {
			hwloc_obj_t pk = hwloc_get_obj_by_type(t->t, HWLOC_OBJ_PACKAGE, (unsigned)p);
			int inpk = hwloc_get_nbobjs_inside_cpuset_by_type(t->t, pk->cpuset, HWLOC_OBJ_CORE);

			if (r >= inpk)
				continue;
			if (taken++ == k)
				return hwloc_get_obj_inside_cpuset_by_type(t->t, pk->cpuset,
									   HWLOC_OBJ_CORE, (unsigned)r);
		}
	return NULL;
}

/* Fill `set` (and `nodes` for numa mode, may be NULL) for worker idx. */
static int plan(const struct topo *t, enum bind_mode m, unsigned idx, hwloc_bitmap_t set,
		hwloc_bitmap_t nodes, int *numa)
{
	hwloc_obj_t obj = NULL;
	int n;

	*numa = -1;
	if (nodes)
		hwloc_bitmap_zero(nodes);
	switch (m) {
	case BIND_NONE:
		hwloc_bitmap_copy(set, hwloc_topology_get_topology_cpuset(t->t));
		return 0;
	case BIND_NUMA:
		n = count(t, HWLOC_OBJ_NUMANODE);
		if (n <= 0)
			return -ENODEV;
		obj = hwloc_get_obj_by_type(t->t, HWLOC_OBJ_NUMANODE, idx % (unsigned)n);
		if (!obj || !obj->cpuset)
			return -ENODEV;
		hwloc_bitmap_copy(set, obj->cpuset);
		if (nodes)
			hwloc_bitmap_copy(nodes, obj->nodeset);
		*numa = (int)obj->os_index;
		return 0;
	case BIND_SPREAD:
	case BIND_CORE:
		n = count(t, HWLOC_OBJ_CORE);
		if (n > 0)
			obj = m == BIND_SPREAD ? spread_core(t, idx % (unsigned)n)
					       : hwloc_get_obj_by_type(t->t, HWLOC_OBJ_CORE, idx % (unsigned)n);
		if (!obj) {
			/* no cores reported (some VMs): PUs instead */
			n = count(t, HWLOC_OBJ_PU);
			if (n <= 0)
				return -ENODEV;
			obj = hwloc_get_obj_by_type(t->t, HWLOC_OBJ_PU, idx % (unsigned)n);
		}
		if (!obj || !obj->cpuset)
			return -ENODEV;
		hwloc_bitmap_copy(set, obj->cpuset);
		*numa = numa_of(t, set);
		return 0;
	}
	return -EINVAL;
}

static int list_string(hwloc_const_bitmap_t set, char *buf, size_t len)
{
	int n = hwloc_bitmap_list_snprintf(buf, len, set);

	if (n < 0)
		return -EINVAL;
	return (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int topo_plan_worker(const struct topo *t, enum bind_mode m, unsigned idx, unsigned n,
		     char *cpuset, size_t cslen, int *numa)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int ret = -ENOMEM;

	(void)n;
	if (!set)
		goto out;
	ret = plan(t, m, idx, set, NULL, numa);
	if (ret == 0 && cpuset)
		ret = list_string(set, cpuset, cslen);
out:
	hwloc_bitmap_free(set);
	return ret;
}

int topo_bind_worker(struct topo *t, enum bind_mode m, unsigned idx, unsigned n,
		     char *cpuset, size_t cslen, int *numa)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
	int ret = -ENOMEM;

	(void)n;
	if (!set || !nodes)
		goto out;
	ret = plan(t, m, idx, set, nodes, numa);
	if (ret < 0)
		goto out;
	if (cpuset) {
		ret = list_string(set, cpuset, cslen);
		if (ret < 0)
			goto out;
	}
	if (m == BIND_NONE || !topo_is_thissystem(t))
		goto out; /* nothing to do, or CPUs that do not exist here */
	if (hwloc_set_cpubind(t->t, set, HWLOC_CPUBIND_PROCESS) < 0) {
		ret = errno ? -errno : -EINVAL;
		goto out;
	}
	if (m == BIND_NUMA && !hwloc_bitmap_iszero(nodes)) {
		/* memory too; a kernel without NUMA support refuses: not fatal */
		if (hwloc_set_membind(t->t, nodes, HWLOC_MEMBIND_BIND,
				      HWLOC_MEMBIND_PROCESS | HWLOC_MEMBIND_BYNODESET) < 0 &&
		    errno != ENOSYS && errno != EXDEV)
			ret = -errno;
	}
out:
	hwloc_bitmap_free(set);
	hwloc_bitmap_free(nodes);
	return ret;
}
