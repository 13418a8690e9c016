/* AIO context helpers (lib/aioctx.c) of the tests of AIO rings (static/aio_ring, static/fdt_shared_blobfds):
 * the raw syscalls (no libaio), one request at a time. */
#ifndef ZDTM_AIOCTX_H
#define ZDTM_AIOCTX_H
#include <linux/aio_abi.h>
#include <stdint.h>

/* io_submit on ctx of one request: a write of 1 byte ('x') at offset 0 of fd, with aio_data data.
 * Returns io_submit's result (1: submitted). */
long aioctx_write(aio_context_t ctx, int fd, uint64_t data);
/* io_getevents on ctx: min to nr events into ev, waiting 5 s at most. Returns its result. */
long aioctx_events(aio_context_t ctx, long min, long nr, struct io_event *ev);

#endif
