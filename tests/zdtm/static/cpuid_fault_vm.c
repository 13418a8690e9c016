/* cpuid faulting (x86_64 arch_prctl(ARCH_SET_CPUID, 0)) of a child made with clone(CLONE_VM) (one address
 * space, two processes; restored by the blob of the first, engine/restorer/sharedvm.c): on in the child, off
 * in the parent; after restore each has its own again. */
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>

#include "cpuid_fault.h"
#ifdef __x86_64__

static char child_stack[64 << 10] __attribute__((aligned(16)));
static volatile int go, ready, child_got = -2;

static int child(void *arg)
{
	(void)arg;
	/* inherited from the parent: off; on in the child only */
	ready = syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0) ? -1 : 1;
	while (!go)
		syscall(SYS_sched_yield);
	child_got = (int)syscall(SYS_arch_prctl, ARCH_GET_CPUID, 0);
	return 0;
}

int main(int argc, char **argv)
{
	cpuid_fault_init(argc, argv);
	syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1);
	test_daemon(); /* first: the child would hold the pipe that tells the runner the test is ready */
	pid_t pid = clone(child, child_stack + sizeof(child_stack), CLONE_VM | SIGCHLD, NULL);
	if (pid < 0) {
		fail("clone");
		return 1;
	}
	while (!ready)
		sched_yield();
	if (ready < 0)
		fail("ARCH_SET_CPUID 0 in the child");
	test_waitsig();
	go = 1;
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child status %#x", st);
	if (child_got != 0)
		fail("child: ARCH_GET_CPUID %d, want 0 (cpuid faulting on)", child_got);
	long v = syscall(SYS_arch_prctl, ARCH_GET_CPUID, 0);
	if (v != 1)
		fail("parent: ARCH_GET_CPUID %ld, want 1 (cpuid faulting off)", v);
	return test_pass();
}
#endif
