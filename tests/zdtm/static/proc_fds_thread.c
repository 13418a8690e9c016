/* The test holds /proc/self/task/TID/comm of a thread of its own (not the leader) open: the restore does not
 * open files of a thread (a thread's TID is not known to the tree's processes when they open their /proc
 * files), so the dump must fail with one line naming the fd, and the test keep running with its thread and
 * the fd still reading the thread's name. Before, the dump passed and the restore refused it after the tree
 * was killed (the dump's run of the restore's checks did not reach the /proc files' preparation). */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

#define FD 50

static volatile pid_t ttid;

static void *thread(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "zdtm-pft", 0, 0, 0);
	ttid = (pid_t)syscall(SYS_gettid);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	char path[64], buf[32] = "";
	test_init(argc, argv);
	if (pthread_create(&th, NULL, thread, NULL))
		fail("pthread_create");
	while (!ttid)
		usleep(1000);
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)ttid);
	int fd = open(path, O_RDONLY);
	if (fd < 0 || dup2(fd, FD) != FD || close(fd))
		fail("open %s", path);
	test_daemon();
	test_waitsig();

	if (pread(FD, buf, sizeof(buf) - 1, 0) <= 0 || strcmp(buf, "zdtm-pft\n"))
		fail("fd %d reads '%s', not the thread's name", FD, buf);
	pass();
	return 0;
}
