/* fifo_unl_two_desc across mount namespaces: an unlinked FIFO opened twice (the second open through
 * /proc/self/fd), the test holding the first description (fd 50), its child, in a mount namespace of its own,
 * the second (fd 51). After restore it is still one FIFO (the same inode through both, no link), the 40
 * bytes in flight are there once, and the child's bytes written through its description are read by the
 * test through its own. Before, each mount namespace's opener made the FIFO again for itself: two FIFOs,
 * the child's bytes never reached the test. */
#include "nsmnt_fifo_unl.h"

static int setup(void)
{
	return fifo_reopen(A, B) || close(A);
}

static int check(void)
{
	return fifo_check_kid(B);
}

int main(int argc, char **argv)
{
	char buf[128];
	test_init(argc, argv);
	fifo_unl_make(A);
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	fifo_unl_unlink();
	test_daemon();
	test_waitsig();

	struct stat sa;
	if (fstat(A, &sa) || sa.st_nlink || !S_ISFIFO(sa.st_mode))
		fail("the test's fd %d is not an unlinked FIFO", A);
	else if (!fifo_kid_is(ch, B, &sa))
		fail("the test's fd %d and the child's fd %d are not one FIFO", A, B);
	ssize_t n = read(A, buf, sizeof(buf));
	if (n != FIFO_INFLIGHT)
		fail("the data in flight: %zd bytes, want %d", n, FIFO_INFLIGHT);
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: its fd not an unlinked FIFO, 2: its write");
	n = read(A, buf, sizeof(buf));
	if (n != 5 || memcmp(buf, "child", 5))
		fail("the child's 5 bytes through its own description: read %zd", n);
	return test_pass();
}
