/*
 * diskutil.h - fio's "disk_util" for the target's block device: the
 * kernel's I/O counters of the whole disk (/sys/block/NAME/stat, the
 * disk target_info_get() names: a partition's parent disk) read before and
 * after a run.
 */
#ifndef REPLAY_DISKUTIL_H
#define REPLAY_DISKUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

struct disk_stat {
	bool ok;
	/* the first 11 fields of the stat file: read ios, merges, sectors,
	 * ticks (ms), write ios, merges, sectors, ticks, in flight, io_ticks,
	 * time in queue */
	uint64_t v[11];
};

struct disk_dev {
	char name[64];           /* "vda" ("" when the target has no disk) */
	char stat[96];           /* /sys/block/NAME/stat                   */
};

/* The disk target_info_get() found under the target (its `disk`, "" when
 * none: tmpfs, NFS). */
void diskutil_init(struct disk_dev *dev, const char *disk);
/* Parse one stat file's text (exposed for tests); false when malformed. */
bool diskutil_parse(const char *text, struct disk_stat *d);
void diskutil_read(const struct disk_dev *dev, struct disk_stat *d);
/* fio's entry: name, read_ios, write_ios, read_merges, write_merges,
 * read_ticks, write_ticks, in_queue, util (io_ticks over wall_ns, in
 * percent, at most 100) - the difference of b and a.  An empty array when
 * either sample failed. */
json_t *diskutil_json(const struct disk_dev *dev, const struct disk_stat *a,
		      const struct disk_stat *b, uint64_t wall_ns);

#endif
