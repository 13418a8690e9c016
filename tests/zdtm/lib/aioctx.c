/* AIO context helpers: raw io_submit and io_getevents (lib/aioctx.h). */
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "aioctx.h"

long aioctx_write(aio_context_t ctx, int fd, uint64_t data)
{
	static char buf[1] = {'x'};
	struct iocb cb, *cbp = &cb;
	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = (uint32_t)fd;
	cb.aio_buf = (uint64_t)(uintptr_t)buf;
	cb.aio_nbytes = 1;
	cb.aio_offset = 0;
	cb.aio_lio_opcode = IOCB_CMD_PWRITE;
	cb.aio_data = data;
	return syscall(__NR_io_submit, ctx, 1, &cbp);
}

long aioctx_events(aio_context_t ctx, long min, long nr, struct io_event *ev)
{
	struct timespec ts = {5, 0};
	return syscall(__NR_io_getevents, ctx, min, nr, ev, &ts);
}
