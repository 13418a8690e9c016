/* A child made with clone(CLONE_FILES) (the test's fd table) whose restore needs fds of its own after the
 * table was handed to the test: an AIO context whose ring holds events not read yet (the blob moves its
 * head and tail with an eventfd), 8 MiB of MADV_HUGEPAGE memory (filled through a userfaultfd where huge
 * pages may be used) and its /proc/self/maps (read before its blob). The test holds every free fd number
 * from 3 to 63 (one file). After restore every fd of the test is there, the child's memory and its held
 * events (data and results) are as before, and its ring takes new requests. Before: the child opened
 * those fds at the lowest free number while the test was putting its fds back with dup2, so that under
 * load one of the test's fds could be closed by the child (log_fd_stray lost fd 5 or 7 in about 2% of
 * runs with LOAD=4). */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"
#include "aioctx.h"

#define TOP 63
#define MEM (8u << 20)
#define HELD 3

static aio_context_t ctx;
static uint64_t *mem;

/* In the child: the ring with HELD events held behind one read (head and tail not 0), the memory. */
static int setup(void)
{
	struct io_event ev;
	int fd = open("aio.data", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || syscall(__NR_io_setup, 16, &ctx) || aioctx_write(ctx, fd, 99) != 1 ||
	    aioctx_events(ctx, 1, 1, &ev) != 1)
		return 1;
	for (uint64_t i = 0; i < HELD; i++)
		if (aioctx_write(ctx, fd, 100 + i) != 1)
			return 1;
	close(fd);
	void *m = mmap(NULL, MEM + (2u << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	mem = (uint64_t *)(((uintptr_t)m + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
	madvise(mem, MEM, MADV_HUGEPAGE);
	for (size_t i = 0; i < MEM / sizeof(*mem); i++)
		mem[i] = i * 0x9e3779b97f4a7c15ull;
	return 0;
}

/* In the child, after restore: 1 memory, 2 the held events, 3 a new request. */
static int check(void)
{
	struct io_event ev[HELD];
	for (size_t i = 0; i < MEM / sizeof(*mem); i++)
		if (mem[i] != i * 0x9e3779b97f4a7c15ull)
			return 1;
	long n = aioctx_events(ctx, HELD, HELD, ev);
	if (n != HELD)
		return 2;
	for (long i = 0; i < n; i++)
		if (ev[i].data != 100 + (uint64_t)i || ev[i].res != 1)
			return 2;
	int fd = open("aio.data", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || aioctx_write(ctx, fd, 7) != 1 || aioctx_events(ctx, 1, 1, ev) != 1 || ev[0].data != 7)
		return 3;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	int fd = open("fill.data", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || (fd != TOP && (dup2(fd, TOP) != TOP || close(fd)))) {
		fail("open fill.data at fd %d", TOP);
		return 1;
	}
	usr1_block();
	pid_t sh = files_sharer_start(setup, check);
	if (sh < 0)
		return 1;
	int n = 0;
	for (int i = 3; i < TOP; i++) /* (after the clone: its ready pipe is closed) */
		if (fcntl(i, F_GETFD) < 0) {
			if (dup2(TOP, i) != i) {
				fail("dup2 to %d", i);
				return 1;
			}
			n++;
		}
	bool there[TOP + 1];
	test_daemon();
	for (int i = 0; i <= TOP; i++)
		there[i] = fcntl(i, F_GETFD) >= 0;
	test_waitsig();
	for (int i = 3; i <= TOP; i++)
		if (there[i] && fcntl(i, F_GETFD) < 0)
			fail("fd %d is gone", i);
	files_sharer_end(sh, "1: memory, 2: the held AIO events, 3: a new AIO request");
	test_msg("%d fds of fill.data\n", n);
	return test_pass();
}
