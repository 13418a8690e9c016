/* nsmnt_child_fifo_unl with two children, each in a mount namespace of its own, each holding a description
 * of its own of the unlinked FIFO (fds 51, 52), the test none: the openers of the descriptions are only
 * processes of nested mount namespaces, siblings (which of them comes first is not known). After restore
 * both children hold one FIFO (the same inode, no link), the 40 bytes in flight are there once, and what
 * each child writes through its description the test reads through a new open of the other's. */
#include "nsmnt.h"
#include "fifo_unl.h"

static int setup_b(void)
{
	return fifo_reopen(A, B) || close(A);
}

static int setup_c(void)
{
	return fifo_reopen(A, C) || close(A);
}

static int check_b(void)
{
	return fifo_check_kid(B);
}

static int check_c(void)
{
	return fifo_check_kid(C);
}

int main(int argc, char **argv)
{
	char buf[8];
	test_init(argc, argv);
	fifo_unl_make(A);
	usr1_block();
	pid_t b = nsmnt_child(setup_b, check_b), c = nsmnt_child(setup_c, check_c);
	close(A);
	fifo_unl_unlink();
	test_daemon();
	test_waitsig();

	fifo_kid_open(b, B, A); /* the test's own descriptions of the children's fds: A of b's, B of c's */
	fifo_kid_open(c, C, B);
	fifo_unl_expect(A, c, C);
	if (read(B, buf, sizeof(buf)) >= 0 || errno != EAGAIN)
		fail("the data in flight is there twice");
	fifo_kid_write(b, B);
	fifo_kid_write(c, A);
	return test_pass();
}
