/* Copy-on-write sharing of private memory between a parent and its children survives the restore: the
 * parent fills 32 MiB and forks two children; the first writes one page of it, the parent another after the
 * fork, the second child none. After the restore each process has its own contents and the pages nobody
 * wrote are still one copy: at least 30 MiB of the VMA are Shared_Dirty in each process (a restore that
 * gives each process a copy of its own leaves none, and the three use 96 MiB instead of 32). */
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#define SZ (32UL << 20)
#define SHARED_MIN_KB (30L << 10)
#define NCHILD 2

/* Page k of m is datagen(seed + 1 + k) when process w wrote it (w: 0 the parent, page 1; 1 the first
 * child, page 0), else datagen(seed) of the whole region. */
static int contents_ok(const char *m, uint64_t seed, int w)
{
	for (size_t off = 0; off < SZ; off += PAGE) {
		int mine = (w == 0 && off == PAGE) || (w == 1 && off == 0);
		if (mine ? datachk(m + off, PAGE, seed + 1 + (uint64_t)w, NULL)
			 : datachk(m + off, PAGE, seed + off / 8, NULL))
			return 0;
	}
	return 1;
}

static void fill(char *m, uint64_t seed)
{
	for (size_t off = 0; off < SZ; off += PAGE)
		datagen(m + off, PAGE, seed + off / 8);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	uint64_t seed = getpid() * 7919ULL;
	char *m = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pid_t ch[NCHILD];
	if (m == MAP_FAILED) {
		fail("mmap");
		return 1;
	}
	fill(m, seed);
	usr1_block();
	for (int i = 0; i < NCHILD; i++) {
		int pfd[2];
		if (pipe(pfd)) {
			fail("pipe");
			return 1;
		}
		ch[i] = test_fork();
		if (ch[i] == 0) {
			if (i == 0)
				datagen(m, PAGE, seed + 2);
			if (child_ready(pfd))
				_exit(5);
			usr1_wait();
			_exit(contents_ok(m, seed, i + 1) ? 0 : 1);
		}
		if (ch[i] < 0 || child_started(pfd)) {
			fail("child not ready");
			return 1;
		}
	}
	datagen(m + PAGE, PAGE, seed + 1);
	vma_shared_ok(0, m, SHARED_MIN_KB, "parent (before)");
	test_daemon();
	test_waitsig();

	if (!contents_ok(m, seed, 0))
		fail("the parent's private memory differs");
	vma_shared_ok(0, m, SHARED_MIN_KB, "parent");
	for (int i = 0; i < NCHILD; i++)
		vma_shared_ok(ch[i], m, SHARED_MIN_KB, "child");
	for (int i = 0; i < NCHILD; i++) {
		kill(ch[i], SIGUSR1);
		child_exit_ok(ch[i], "its private memory differs");
	}
	if (!contents_ok(m, seed, 0))
		fail("a child's exit changed the parent's memory");
	return test_pass();
}
