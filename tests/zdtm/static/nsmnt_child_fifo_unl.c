/* fifo_unl_two_desc across mount namespaces: an unlinked FIFO opened twice (the second open through
 * /proc/self/fd), the test holding the first description (fd 50), its child, in a mount namespace of its own,
 * the second (fd 51). After restore it is still one FIFO (the same inode through both, no link), the 40
 * bytes in flight are there once, and the child's bytes written through its description are read by the
 * test through its own. Before, each mount namespace's opener made the FIFO again for itself: two FIFOs,
 * the child's bytes never reached the test. */
#include "nsmnt.h"
#include "fifo_unl.h"

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
	test_init(argc, argv);
	fifo_unl_make(A);
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	fifo_unl_unlink();
	test_daemon();
	test_waitsig();

	fifo_unl_expect(A, ch, B);
	fifo_kid_write(ch, A);
	return test_pass();
}
