/* Copy-on-write sharing of a private file mapping between a parent and its child survives the restore
 * (CRIU's cow01, its file_tcs): the parent maps an 8 MiB file privately, writes the first 7 MiB of it and
 * forks; the child writes one page of it, the parent another after the fork, the last MiB nobody writes.
 * After the restore each process has its own contents, the pages written before the fork and not since are
 * still one copy (at least 6 MiB of the VMA Shared_Dirty in each: a copy each leaves none), and the pages
 * nobody wrote still follow the file (a pwrite to it is seen through both mappings). */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#define SZ (8UL << 20)
#define WR (7UL << 20) /* written before the fork */
#define SHARED_MIN_KB (6L << 10)

/* Page at off of m as process w (0 the parent: page 1 written after the fork; 1 the child: page 0) sees
 * it: its own write, the parent's write before the fork, or the file's contents. */
static int page_ok(const char *m, size_t off, uint64_t seed, int w)
{
	if ((w == 0 && off == PAGE) || (w == 1 && off == 0))
		return !datachk(m + off, PAGE, seed + 1 + (uint64_t)w, NULL);
	if (off == SZ - PAGE && !datachk(m + off, PAGE, seed + 555, NULL))
		return 1; /* the parent's pwrite to the file (follows_file) */
	return !datachk(m + off, PAGE, (off < WR ? seed : seed + 100) + off / 8, NULL);
}

static int contents_ok(const char *m, uint64_t seed, int w)
{
	for (size_t off = 0; off < SZ; off += PAGE)
		if (!page_ok(m, off, seed, w))
			return 0;
	return 1;
}

/* A pwrite to the file's last page is seen through the mapping (not a private copy). */
static int follows_file(int fd, const char *m, uint64_t seed)
{
	char buf[PAGE];
	datagen(buf, PAGE, seed + 555);
	if (pwrite(fd, buf, PAGE, (off_t)(SZ - PAGE)) != (ssize_t)PAGE)
		return 0;
	return !datachk(m + SZ - PAGE, PAGE, seed + 555, NULL);
}

/* The child: writes page 0, then waits for SIGUSR1 and checks its contents (exit 0); the parent writes
 * page 1 once it is ready. */
static pid_t spawn(char *m, uint64_t seed, int pfd[2])
{
	usr1_block();
	pid_t ch = test_fork();
	if (ch == 0) {
		datagen(m, PAGE, seed + 2);
		if (child_ready(pfd))
			_exit(5);
		usr1_wait();
		_exit(contents_ok(m, seed, 1) ? 0 : 1);
	}
	if (ch < 0 || child_started(pfd)) {
		fail("child not ready");
		return -1;
	}
	datagen(m + PAGE, PAGE, seed + 1); /* the parent's page, after the fork */
	vma_shared_ok(0, m, SHARED_MIN_KB, "parent (before)");
	return ch;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	uint64_t seed = getpid() * 7919ULL;
	char buf[PAGE];
	int fd = open("cow_file.data", O_RDWR | O_CREAT | O_TRUNC, 0600), pfd[2];
	for (size_t off = 0; fd >= 0 && off < SZ; off += PAGE) {
		datagen(buf, PAGE, seed + 100 + off / 8);
		if (write(fd, buf, PAGE) != (ssize_t)PAGE)
			fail("write the file");
	}
	char *m = fd < 0 ? MAP_FAILED : mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED || pipe(pfd)) {
		fail("setup: %m");
		return 1;
	}
	for (size_t off = 0; off < WR; off += PAGE)
		datagen(m + off, PAGE, seed + off / 8);
	pid_t ch = spawn(m, seed, pfd);
	if (ch < 0)
		return 1;
	test_daemon();
	test_waitsig();

	vma_shared_ok(ch, m, SHARED_MIN_KB, "child");
	vma_shared_ok(0, m, SHARED_MIN_KB, "parent");
	if (!contents_ok(m, seed, 0))
		fail("the parent's private mapping differs");
	if (!follows_file(fd, m, seed))
		fail("the pages nobody wrote do not follow the file any more");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "its private mapping differs");
	return test_pass();
}
