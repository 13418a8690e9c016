/* Shared anonymous memory (MAP_SHARED|MAP_ANONYMOUS) used by a parent and its child: the parent wrote the
 * first half before the fork, the child the second half after it. After restore both see both halves,
 * both still map one object (a token written by one is seen by the other, both ways), and the object was
 * dumped once. */
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "zdtmtst.h"

#define SZ (4UL << 20)
#define HALF (SZ / 2)

struct ctl {
	volatile int child_ready, ping, pong;
};

/* Wait until *p == v (about 20 s at most). */
static int wait_for(const volatile int *p, int v)
{
	for (int i = 0; i < 20000; i++) {
		if (*p == v)
			return 0;
		usleep(1000);
	}
	return -1;
}

static int check(char *m, uint64_t seed)
{
	return datachk(m, HALF - PAGE, seed, NULL) || datachk(m + HALF, HALF - PAGE, seed + 1, NULL);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	uint64_t seed = getpid() * 31ULL;
	char *m = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		fail("mmap");
		return 1;
	}
	struct ctl *c = (struct ctl *)(m + SZ - PAGE);
	datagen(m, HALF - PAGE, seed);
	usr1_block();
	pid_t ch = test_fork();
	if (ch == 0) {
		datagen(m + HALF, HALF - PAGE, seed + 1);
		c->child_ready = 1;
		usr1_wait();
		int bad = check(m, seed) ? 1 : 0;
		if (wait_for(&c->ping, 1))
			bad |= 2;
		c->pong = 1;
		memcpy(m + HALF - PAGE, "from-child", 10);
		_exit(bad);
	}
	if (ch < 0 || wait_for(&c->child_ready, 1)) {
		fail("child not ready");
		return 1;
	}
	test_daemon();
	test_waitsig();

	if (check(m, seed))
		fail("contents differ in the parent");
	vma_flag_is(m, "sh", 1, "VMA lost VM_SHARED");
	kill(ch, SIGUSR1);
	c->ping = 1;
	if (wait_for(&c->pong, 1))
		fail("the child's write is not seen by the parent: memory not shared");
	int st;
	if (waitpid(ch, &st, 0) != ch)
		fail("waitpid");
	else if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: status %#x (1: contents, 2: the parent's write not seen)", st);
	else if (memcmp(m + HALF - PAGE, "from-child", 10))
		fail("the child's last write is not seen");
	return test_pass();
}
