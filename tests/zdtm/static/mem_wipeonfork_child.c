/* MADV_WIPEONFORK memory with data, in a parent that forked a child before the dump (the child sees it
 * wiped). After restore the parent still has its data (the restore must not wipe it when it forks the child),
 * the child still sees zeros, and a child forked after restore sees zeros again (the flag is kept). */
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif
#define NP 4

static int is_zero(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	static char want[NP * PAGE];
	int pfd[2];
	test_init(argc, argv);
	char *p = mmap(NULL, NP * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || madvise(p, NP * PAGE, MADV_WIPEONFORK) || pipe(pfd)) {
		fail("mmap / madvise / pipe");
		return 1;
	}
	datagen(want, sizeof(want), 11);
	memcpy(p, want, sizeof(want));
	usr1_block();
	pid_t ch = test_fork();
	if (ch == 0) {
		int bad = !is_zero(p, NP * PAGE);
		if (child_ready(pfd))
			_exit(5);
		usr1_wait();
		_exit(bad || !is_zero(p, NP * PAGE));
	}
	if (ch < 0 || child_started(pfd)) {
		fail("child not ready");
		return 1;
	}
	test_daemon();
	test_waitsig();

	if (memcmp(p, want, sizeof(want)))
		fail("the parent's MADV_WIPEONFORK memory lost its data");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "the child's wiped memory is not zero");
	pid_t c2 = fork();
	if (c2 == 0)
		_exit(!is_zero(p, NP * PAGE));
	child_exit_ok(c2, "a child forked after restore sees the data (no MADV_WIPEONFORK any more)");
	return test_pass();
}
