/* A process sharing the address space and the fs info (CLONE_VM | CLONE_FS) of its parent, in a user
 * namespace of its own that does not own the PID namespace: refused at dump with one line (the restorer
 * clones it outside the namespace, to give it its pid, and one sharing its fs info cannot enter it). */
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "userns_refused.h"

static char stack[64 * 1024] __attribute__((aligned(16)));
static pid_t child;

static int sleeper(void *arg)
{
	(void)arg;
	/* its own copy of the fd table: the ready pipe closed there (test_forked() would write our memory) */
	syscall(SYS_close_range, 3, ~0u, 0);
	for (;;)
		pause();
	return 0;
}

static void end_child(void)
{
	int st;
	kill(child, SIGKILL);
	if (waitpid(child, &st, 0) != child)
		fail("wait for the child");
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	unsigned long u = uref_enter();
	child = clone(sleeper, stack + sizeof(stack), CLONE_VM | CLONE_FS | CLONE_SIGHAND | SIGCHLD, NULL);
	if (child < 0)
		fail("setup: clone");
	return uref_done(u, end_child);
}
