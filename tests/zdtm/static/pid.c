/* Same PID and TID after restore: getpid(), syscall(SYS_getpid), gettid, /proc/self link. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	pid_t pid, spid, tid, ppid_before;
	char link[64], buf[64];
	ssize_t n;

	test_init(argc, argv);
	pid = getpid();
	spid = syscall(SYS_getpid);
	tid = syscall(SYS_gettid);
	ppid_before = getppid();
	(void)ppid_before;
	if (pid != spid || pid != tid)
		fail("pid %d syscall pid %d tid %d before dump", pid, spid, tid);
	test_daemon();
	test_waitsig();

	if (getpid() != pid)
		fail("getpid() %d != %d", getpid(), pid);
	if (syscall(SYS_getpid) != pid)
		fail("SYS_getpid %ld != %d", syscall(SYS_getpid), pid);
	if (syscall(SYS_gettid) != tid)
		fail("gettid %ld != %d", syscall(SYS_gettid), tid);
	n = readlink("/proc/self", link, sizeof(link) - 1);
	if (n < 0)
		fail("readlink /proc/self");
	else {
		link[n] = 0;
		snprintf(buf, sizeof(buf), "%d", pid);
		if (strcmp(link, buf))
			fail("/proc/self -> %s, want %s", link, buf);
	}
	if (getsid(0) != pid || getpgid(0) != pid)
		fail("sid %d pgid %d, want %d", getsid(0), getpgid(0), pid);
	pass();
	return 0;
}
