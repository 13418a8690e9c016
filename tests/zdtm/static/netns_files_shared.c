/* A child cloned with CLONE_FILES (one fd table with the test) that then unshares its network namespace:
 * at restore the second of the two to be made would find the fd of its namespace, which it inherits from
 * crshim, taken by the files the other opened in their table; the dump refuses it with one line (.desc
 * dump-expect) and the tree keeps running: the child is still in a namespace of its own and its fd table
 * still the test's (an fd it opens is seen by the test). */
#include <sys/syscall.h>
#include <linux/kcmp.h>
#include "ns_world.h"

static int ready_pipe[2];
static char stack[64 * 1024] __attribute__((aligned(16)));

static int child(void *arg)
{
	(void)arg;
	/* (its exit would not close the pipe's write end, which the shared fd table keeps: it says "f") */
	int bad = unshare(CLONE_NEWNET);
	if (write(ready_pipe[1], bad ? "f" : "r", 1) != 1 || bad)
		_exit(64);
	for (;;)
		pause();
	return 0;
}

int main(int argc, char **argv)
{
	char c, p[64];
	test_init(argc, argv);
	if (pipe(ready_pipe))
		fail("pipe");
	pid_t ch = clone(child, stack + sizeof(stack), CLONE_FILES | SIGCHLD, NULL);
	if (ch < 0 || read(ready_pipe[0], &c, 1) != 1 || c != 'r') {
		fail("child not ready");
		return 1;
	}
	test_daemon();
	test_waitsig();

	struct stat a, b;
	snprintf(p, sizeof(p), "/proc/%d/ns/net", (int)ch);
	if (stat(p, &a) || stat("/proc/self/ns/net", &b) || a.st_ino == b.st_ino)
		fail("the child is not in a network namespace of its own");
	if (syscall(SYS_kcmp, getpid(), ch, KCMP_FILES, 0, 0))
		fail("the child does not share the test's fd table");
	kill(ch, SIGKILL);
	waitpid(ch, NULL, 0);
	return test_pass();
}
