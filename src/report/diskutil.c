/* diskutil.c - fio's "disk_util" from /sys/block (diskutil.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/diskutil.h"
#include "report/jsontext.h"
#include "report/report.h"

void diskutil_init(struct disk_dev *dev, const char *disk)
{
	memset(dev, 0, sizeof(*dev));
	if (!disk || !disk[0] || strlen(disk) >= sizeof(dev->name))
		return;
	snprintf(dev->name, sizeof(dev->name), "%s", disk);
	snprintf(dev->stat, sizeof(dev->stat), "/sys/block/%s/stat", disk);
}

bool diskutil_parse(const char *text, struct disk_stat *d)
{
	const char *p = text;
	memset(d, 0, sizeof(*d));
	for (int i = 0; i < 11; i++) {
		char *end;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			return false;
		errno = 0;
		d->v[i] = strtoull(p, &end, 10);
		if (errno || end == p)
			return false;
		p = end;
	}
	d->ok = true;
	return true;
}

void diskutil_read(const struct disk_dev *dev, struct disk_stat *d)
{
	char buf[512];
	memset(d, 0, sizeof(*d));
	if (!dev->name[0])
		return;
	FILE *f = fopen(dev->stat, "re");
	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f))
		diskutil_parse(buf, d);
	fclose(f);
}

json_t *diskutil_json(const struct disk_dev *dev, const struct disk_stat *a,
		      const struct disk_stat *b, uint64_t wall_ns)
{
	json_t *arr = json_array(), *o;
	uint64_t dv[11];
	int bad = 0;
	if (!arr || !dev->name[0] || !a->ok || !b->ok)
		return arr;
	for (int i = 0; i < 11; i++)
		dv[i] = b->v[i] >= a->v[i] ? b->v[i] - a->v[i] : 0;
	double util = wall_ns ? 100.0 * (double)dv[9] * 1e6 / (double)wall_ns : 0.0;
	o = json_object();
	bad |= report_set(o, "name", json_text_str(dev->name));
	bad |= report_set(o, "read_ios", report_u64(dv[0]));
	bad |= report_set(o, "write_ios", report_u64(dv[4]));
	bad |= report_set(o, "read_merges", report_u64(dv[1]));
	bad |= report_set(o, "write_merges", report_u64(dv[5]));
	bad |= report_set(o, "read_ticks", report_u64(dv[3]));
	bad |= report_set(o, "write_ticks", report_u64(dv[7]));
	bad |= report_set(o, "in_queue", report_u64(dv[10]));
	bad |= report_set(o, "util", json_real(util > 100.0 ? 100.0 : util));
	bad |= json_array_append_new(arr, o);
	if (bad) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}
