/* sigaltstack: same ss_sp/ss_size/flags after restore, an SA_ONSTACK handler
 * runs on it, and data kept in the alternate stack's unused part survives. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "zdtmtst.h"

#define SSZ (64 * 1024)
static volatile unsigned long handler_sp;
static volatile int on_stack_flag;

static void h(int sig)
{
	stack_t cur;
	char local;
	(void)sig;
	handler_sp = (unsigned long)&local;
	sigaltstack(NULL, &cur);
	on_stack_flag = !!(cur.ss_flags & SS_ONSTACK);
}

int main(int argc, char **argv)
{
	stack_t ss, before, after;
	struct sigaction sa;
	char *stk;
	size_t bad;

	test_init(argc, argv);
	stk = mmap(NULL, SSZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stk == MAP_FAILED) {
		fail("mmap");
		return 1;
	}
	datagen(stk, 4096, 77); /* bottom page: the handler never gets this deep */
	ss.ss_sp = stk;
	ss.ss_size = SSZ;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL))
		fail("sigaltstack");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	if (handler_sp < (unsigned long)stk || handler_sp >= (unsigned long)stk + SSZ || !on_stack_flag)
		fail("handler not on the alt stack before dump");
	sigaltstack(NULL, &before);
	test_daemon();
	test_waitsig();

	sigaltstack(NULL, &after);
	if (after.ss_sp != before.ss_sp || after.ss_size != before.ss_size ||
	    after.ss_flags != before.ss_flags)
		fail("sigaltstack %p/%zu/%d, want %p/%zu/%d", after.ss_sp, after.ss_size, after.ss_flags,
		     before.ss_sp, before.ss_size, before.ss_flags);
	handler_sp = 0;
	on_stack_flag = 0;
	raise(SIGUSR1);
	if (handler_sp < (unsigned long)stk || handler_sp >= (unsigned long)stk + SSZ || !on_stack_flag)
		fail("handler ran at %#lx, not on the alt stack %p", handler_sp, (void *)stk);
	if (datachk(stk, 4096, 77, &bad))
		fail("alt stack memory differs at %zu", bad);
	pass();
	return 0;
}
