/* Copy-on-write memory over three generations, each process changing it in its own way after its fork:
 * the parent fills A and B; the child drops the first half of A (MADV_DONTNEED: zeros) and moves B
 * (mremap, so no VMA of its parent is at its place), then forks a grandchild that writes one page of A's
 * second half. After the restore each process reads its own contents: the parent all of A and B as it
 * wrote them, the child zeros in A's first half, the grandchild that too and its page. */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define SZ (4UL << 20)
#define NPG (SZ / PAGE)

static int zero(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

/* gen: 0 parent, 1 child, 2 grandchild; 0 if its A and B (at b) hold what it expects. */
static int gen_bad(const char *a, const char *b, uint64_t seed, int gen)
{
	for (size_t k = 0; k < NPG; k++) {
		const char *pa = a + k * PAGE;
		int ok = gen && k < NPG / 2		? zero(pa, PAGE)
			 : gen == 2 && k == NPG / 2 + 3 ? !datachk(pa, PAGE, seed + 99, NULL)
							: !datachk(pa, PAGE, seed + k, NULL);
		if (!ok || datachk(b + k * PAGE, PAGE, seed + 1000 + k, NULL))
			return 1;
	}
	return 0;
}

static void grandchild(char *a, char *b, uint64_t seed, int pfd[2])
{
	datagen(a + (NPG / 2 + 3) * PAGE, PAGE, seed + 99);
	if (child_ready(pfd))
		_exit(5);
	usr1_wait();
	_exit(gen_bad(a, b, seed, 2));
}

static void child(char *a, char *b, uint64_t seed, int up[2])
{
	int pfd[2];
	madvise(a, SZ / 2, MADV_DONTNEED);
	char *nb = mremap(b, SZ, SZ, MREMAP_MAYMOVE | MREMAP_FIXED,
			  mmap(NULL, SZ, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	if (nb == MAP_FAILED || pipe(pfd))
		_exit(6);
	pid_t g = test_fork();
	if (g == 0)
		grandchild(a, nb, seed, pfd);
	if (g < 0 || child_started(pfd) || child_ready(up))
		_exit(7);
	usr1_wait();
	int bad = gen_bad(a, nb, seed, 1);
	kill(g, SIGUSR1);
	int st;
	if (waitpid(g, &st, 0) != g || !WIFEXITED(st) || WEXITSTATUS(st))
		bad |= 2;
	_exit(bad);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	uint64_t seed = getpid() * 104729ULL;
	char *a = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *b = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int pfd[2];
	if (a == MAP_FAILED || b == MAP_FAILED || pipe(pfd)) {
		fail("mmap");
		return 1;
	}
	for (size_t k = 0; k < NPG; k++) {
		datagen(a + k * PAGE, PAGE, seed + k);
		datagen(b + k * PAGE, PAGE, seed + 1000 + k);
	}
	usr1_block();
	pid_t ch = test_fork();
	if (ch == 0)
		child(a, b, seed, pfd);
	if (ch < 0 || child_started(pfd)) {
		fail("child not ready");
		return 1;
	}
	test_daemon();
	test_waitsig();

	if (gen_bad(a, b, seed, 0))
		fail("the parent's private memory differs");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: the child's memory differs, 2: the grandchild's");
	return test_pass();
}
