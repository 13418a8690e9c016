/* A child made with clone(CLONE_VM | CLONE_SIGHAND) that has a thread of its own: not supported yet, the
 * dump must fail with one line naming the child and the reason, and the tree keeps running
 * (fd_unsupported.sh --test clone_vm_thread). The parent kills the child when it ends. */
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

static char child_stack[64 << 10] __attribute__((aligned(16)));
static char thread_stack[64 << 10] __attribute__((aligned(16)));
static int pfd[2];

static int thread_main(void *arg)
{
	(void)arg;
	for (;;)
		syscall(SYS_pause);
	return 0;
}

static int child_main(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	int t = clone(thread_main, thread_stack + sizeof(thread_stack),
		      CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM, NULL);
	char c = t > 0 ? 'r' : 'e';
	if (write(pfd[1], &c, 1) != 1)
		_exit(1);
	syscall(SYS_close_range, 3, ~0u, 0); /* its own table: without the starter's ready pipe */
	for (;;)
		syscall(SYS_pause);
	return 0;
}

int main(int argc, char **argv)
{
	char c = 0;
	test_init(argc, argv);
	if (pipe(pfd)) {
		fail("pipe");
		return 1;
	}
	pid_t ch =
	    clone(child_main, child_stack + sizeof(child_stack), CLONE_VM | CLONE_SIGHAND | SIGCHLD, NULL);
	if (ch < 0 || read(pfd[0], &c, 1) != 1 || c != 'r') {
		fail("clone");
		return 1;
	}
	test_daemon();
	test_waitsig();
	kill(ch, SIGKILL);
	waitpid(ch, NULL, 0);
	pass();
	return 0;
}
