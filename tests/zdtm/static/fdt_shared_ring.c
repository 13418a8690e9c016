/* A child made with clone(CLONE_FILES) maps a packet socket's receive ring (a copy of its parent's mapping)
 * through an fd of the table it shares: that table is restored after the child's turn (engine/files/
 * restore-fdtable.c), when the child can no longer take a copy of the socket for its restorer, so the dump
 * must refuse it with one line and leave the tree running. */
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct pkring r;
	struct tpacket_req3 req = {
	    .tp_block_size = 4096, .tp_block_nr = 4, .tp_frame_size = 1024, .tp_frame_nr = 16};
	test_init(argc, argv);
	pkring_open(&r, TPACKET_V2, &req, NULL);
	usr1_block();
	pid_t ch = (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
	if (ch == 0) {
		usr1_wait();
		_exit(0);
	}
	if (ch < 0) {
		fail("clone(CLONE_FILES)");
		return 1;
	}
	test_daemon();
	test_waitsig();
	kill(ch, SIGUSR1);
	child_exit_ok(ch, NULL);
	return test_pass();
}
