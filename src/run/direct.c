/*
 * direct.c - O_DIRECT alignment policy (see direct.h for the rules).
 *
 * The alignment is asked of the kernel per file (statx STATX_DIOALIGN,
 * Linux 6.1+) because it depends on the file system and the device, not
 * just on the page size.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "run/direct.h"
#include "engine/engine.h"

void direct_align(uint64_t off, uint64_t len, uint32_t lbs, uint64_t *aoff, uint64_t *alen)
{
	uint64_t mask = lbs ? (uint64_t)lbs - 1 : 0;
	uint64_t start = off & ~mask;
	uint64_t end = len ? (off + len + mask) & ~mask : start;

	*aoff = start;
	*alen = end - start;
}

int direct_query_align(int fd, uint32_t fallback, uint32_t *off_align, uint32_t *mem_align)
{
	struct statx stx;
	uint32_t def = fallback ? fallback : DIRECT_DEFAULT_ALIGN;

#ifdef STATX_DIOALIGN
	memset(&stx, 0, sizeof(stx));
	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
	    (stx.stx_mask & STATX_DIOALIGN) && S_ISREG(stx.stx_mode)) {
		if (!stx.stx_dio_offset_align || !stx.stx_dio_mem_align)
			return -EOPNOTSUPP;
		*off_align = stx.stx_dio_offset_align;
		*mem_align = stx.stx_dio_mem_align;
		return 0;
	}
#endif
	{
		struct stat st;
		int ssz = 0;

		if (fstat(fd, &st) < 0)
			return -errno;
		if (S_ISBLK(st.st_mode) && ioctl(fd, BLKSSZGET, &ssz) == 0 && ssz > 0) {
			*off_align = *mem_align = (uint32_t)ssz;
			return 0;
		}
	}
	*off_align = *mem_align = def;
	return 0;
}

uint64_t direct_buf_len(uint64_t maxlen, uint32_t lbs)
{
	uint64_t a, l;

	direct_align(0, maxlen, lbs, &a, &l);
	return l + lbs;
}

int direct_buf_alloc(void **buf, size_t len, uint32_t align)
{
	void *p = NULL;
	int ret;

	if (align < sizeof(void *))
		align = sizeof(void *);
	if (!len)
		len = align;
	ret = posix_memalign(&p, align, len);
	if (ret)
		return -ret;
	memset(p, 0, len);
	*buf = p;
	return 0;
}

uint64_t direct_adjust(struct io_req *r, uint32_t lbs, uint64_t *orig_off, uint64_t *orig_len)
{
	uint64_t aoff, alen;

	*orig_off = r->offset;
	*orig_len = r->len;
	if (r->dir != IO_READ && r->dir != IO_WRITE)
		return 0;
	direct_align(r->offset, r->len, lbs, &aoff, &alen);
	r->offset = aoff;
	r->len = alen;
	return alen - *orig_len;
}

int64_t direct_result(int64_t res, uint64_t aoff, uint64_t orig_off, uint64_t orig_len)
{
	uint64_t end, oend;

	if (res < 0)
		return res;
	end = aoff + (uint64_t)res;       /* transfer covered [aoff, end)  */
	if (end <= orig_off)
		return 0;
	oend = orig_off + orig_len;
	return (int64_t)((end < oend ? end : oend) - orig_off);
}
