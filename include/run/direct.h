/*
 * direct.h - the --direct (O_DIRECT) alignment policy.
 *
 * O_DIRECT needs the buffer, the offset and the length aligned to the
 * file's direct-I/O alignment (the device's logical block size, usually
 * 512 or 4096).  Traced requests are often not (10444-byte writes are
 * normal), and a silent EINVAL is no answer.  Policy:
 *
 *   - the offset is rounded down and the end rounded up to the block size;
 *     the op is counted in worker_result.rounded_ops and the added bytes in
 *     rounded_extra_bytes;
 *   - io_bytes stays what the trace asked for; done_bytes is the part of
 *     the kernel's answer that falls inside the traced range
 *     (direct_result());
 *   - a rounded WRITE writes the whole rounded range from the buffer:
 *     there is no read-modify-write, so it writes more bytes than traced
 *     (and the bytes around the traced range get the buffer's content).
 *
 * Buffers come from direct_buf_alloc() (posix_memalign to the alignment).
 */
#ifndef REPLAY_DIRECT_H
#define REPLAY_DIRECT_H

#include <stdint.h>
#include <stddef.h>

struct io_req;

#define DIRECT_DEFAULT_ALIGN 4096u
/* largest O_DIRECT alignment the runner's buffers allow */
#define DIRECT_MAX_ALIGN 65536u

/* Round [off, off+len) out to multiples of lbs (a power of two >= 1).
 * len 0 stays 0 (the offset is still rounded down). */
void direct_align(uint64_t off, uint64_t len, uint32_t lbs, uint64_t *aoff, uint64_t *alen);

/* Direct-I/O alignment of an open file: statx(STATX_DIOALIGN) when the
 * kernel knows it (offset alignment into *off_align, buffer alignment into
 * *mem_align), else BLKSSZGET for a block device, else `fallback` (the
 * target's logical block size, or DIRECT_DEFAULT_ALIGN when 0) for both.
 * Returns 0, or -EOPNOTSUPP when the file system refuses O_DIRECT
 * (statx says alignment 0), -errno on error. */
int direct_query_align(int fd, uint32_t fallback, uint32_t *off_align, uint32_t *mem_align);

/* Bytes to allocate so any request of up to maxlen bytes still fits once
 * rounded: maxlen rounded up + one block. */
uint64_t direct_buf_len(uint64_t maxlen, uint32_t lbs);

/* posix_memalign(align) of len bytes, zero-filled.  -ENOMEM / -EINVAL. */
int direct_buf_alloc(void **buf, size_t len, uint32_t align);

/* Apply the policy to a read/write request in place: r->offset/r->len
 * become the aligned range.  Returns the extra bytes (0 when the request
 * was already aligned; the runner counts rounded_ops when > 0).  *orig_off
 * and *orig_len keep the traced range for direct_result().  Syncs are
 * untouched. */
uint64_t direct_adjust(struct io_req *r, uint32_t lbs, uint64_t *orig_off, uint64_t *orig_len);

/* Map the kernel's result for the aligned request back to the traced
 * range: bytes of [orig_off, orig_off+orig_len) covered by the transfer
 * [aoff, aoff+res), or res itself when negative (-errno). */
int64_t direct_result(int64_t res, uint64_t aoff, uint64_t orig_off, uint64_t orig_len);

#endif
