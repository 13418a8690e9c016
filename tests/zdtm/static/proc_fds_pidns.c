/* proc_fds in a PID namespace of its own with its own /proc (as under `unshare --pid --fork --mount-proc`):
 * the root (PID 1) holds /proc/self/status at an offset, the /proc/PID directory of its child (PID 2) and
 * /proc/self/fd as a directory. After restore they are files of that namespace's /proc again: the status
 * says PID 1 (not the PID outside), the child's directory reads the child's stat, the offset is kept. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	pid_t ch;
	off_t off;

	test_init_pidns(argc, argv);
	ch = tree_sleeper();
	if (getpid() != 1 || procfds_open(ch, &off))
		fail("setup: open /proc files (pid %d)", getpid());
	test_daemon();
	test_waitsig();

	procfds_check(off, 1, ch);
	return tree_pass(&ch, 1);
}
