/* Private memory after fork (copy-on-write): the parent and its child both change the memory they
 * inherited, differently (the parent the first half, the child the second half; a page both leave alone).
 * After restore each has its own right contents, and a write in one is not seen by the other. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define SZ (2UL << 20)
#define HALF (SZ / 2)

/* mine: which half this process rewrote with seed+1 (0 = first), the other half keeps seed. */
static int check(const char *m, uint64_t seed, int mine)
{
	const char *own = m + (mine ? HALF : 0), *other = m + (mine ? 0 : HALF);
	return datachk(own, HALF, seed + 1 + (uint64_t)mine, NULL) || datachk(other, HALF, seed, NULL);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	uint64_t seed = getpid() * 13ULL;
	char *m = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *heap = malloc(HALF);
	int pfd[2];
	if (m == MAP_FAILED || !heap || pipe(pfd)) {
		fail("mmap");
		return 1;
	}
	datagen(m, HALF, seed);
	datagen(m + HALF, HALF, seed);
	datagen(heap, HALF / 2, seed + 5);
	datagen(heap + HALF / 2, HALF / 2, seed + 5);
	usr1_block();
	pid_t ch = test_fork();
	if (ch == 0) {
		datagen(m + HALF, HALF, seed + 2);
		datagen(heap, HALF / 2, seed + 6);
		if (child_ready(pfd))
			_exit(5);
		usr1_wait();
		int bad = check(m, seed, 1) || datachk(heap, HALF / 2, seed + 6, NULL) ||
			  datachk(heap + HALF / 2, HALF / 2, seed + 5, NULL);
		memset(m, 0x5a, PAGE); /* must not be seen by the parent */
		_exit(bad);
	}
	if (ch < 0 || child_started(pfd)) {
		fail("child not ready");
		return 1;
	}
	datagen(m, HALF, seed + 1);
	test_daemon();
	test_waitsig();

	if (check(m, seed, 0))
		fail("the parent's private memory differs");
	if (datachk(heap, HALF / 2, seed + 5, NULL) || datachk(heap + HALF / 2, HALF / 2, seed + 5, NULL))
		fail("the parent's heap differs");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "its private memory differs");
	if (check(m, seed, 0))
		fail("the child's write after restore is seen by the parent");
	return test_pass();
}
