/* An unlinked FIFO opened twice (two open file descriptions: the second through /proc/self/fd) and held by
 * the test and a forked child, each with a description of its own: after restore it is still one FIFO,
 * 40 bytes in flight once, and bytes the child writes through its description are read by the test
 * through its own (the same inode: fstat of both). */
#include "fifo_unl.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	fifo_unl_make(A);
	if (fifo_reopen(A, B))
		fail("open u.fifo twice at fds %d, %d", A, B);
	fifo_unl_unlink();
	usr1_block();
	pid_t ch = test_fork();
	if (ch == 0) { /* the child keeps only B, the test only A */
		close(A);
		usr1_wait();
		_exit(fifo_check_kid(B));
	}
	close(B);
	test_daemon();
	test_waitsig();

	fifo_unl_expect(A, ch, B);
	fifo_kid_write(ch, A);
	return test_pass();
}
