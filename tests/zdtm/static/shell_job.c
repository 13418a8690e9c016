/* A shell job: the task stays in the starter's session and process group
 * (not a leader), dumped and restored with --shell-job. Same pid, and it keeps
 * working; it is still not a session or group leader. */
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	pid_t pid;

	test_init(argc, argv);
	pid = getpid();
	if (getsid(0) == pid || getpgrp() == pid)
		fail("set up as a leader, expected a shell job (sid %d pgrp %d)", getsid(0), getpgrp());
	test_daemon();
	test_waitsig();

	if (getpid() != pid || syscall(SYS_getpid) != pid)
		fail("pid %d, want %d", getpid(), pid);
	if (getsid(0) == pid || getpgrp() == pid)
		fail("became a leader (sid %d pgrp %d)", getsid(0), getpgrp());
	if (kill(-getpgrp(), 0))
		fail("cannot signal our own process group %d", getpgrp());
	pass();
	return 0;
}
