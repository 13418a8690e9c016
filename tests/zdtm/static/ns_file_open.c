/* Open namespace files of the task's own namespaces (/proc/self/ns/net, uts, ipc, mnt, pid, cgroup; one
 * opened O_NONBLOCK): after restore each fd names the namespace the task is in then (the new ones in modes
 * ns and uns), with its open flags. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

static const char *const kinds[] = {"net", "uts", "ipc", "mnt", "pid", "cgroup"};
#define N (sizeof(kinds) / sizeof(kinds[0]))

int main(int argc, char **argv)
{
	int fd[N];
	char p[64];
	test_init(argc, argv);
	for (size_t i = 0; i < N; i++) {
		snprintf(p, sizeof(p), "/proc/self/ns/%s", kinds[i]);
		if ((fd[i] = open(p, i == 1 ? O_RDONLY | O_NONBLOCK : O_RDONLY)) < 0)
			fail("open %s", p);
	}
	test_daemon();
	test_waitsig();
	for (size_t i = 0; i < N; i++) {
		struct stat a, b;
		snprintf(p, sizeof(p), "/proc/self/ns/%s", kinds[i]);
		if (fstat(fd[i], &a) || stat(p, &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev)
			fail("fd %d names another %s namespace than the task's", fd[i], kinds[i]);
		int fl = fcntl(fd[i], F_GETFL);
		if (fl < 0 || (fl & (O_ACCMODE | O_NONBLOCK)) != (i == 1 ? O_RDONLY | O_NONBLOCK : O_RDONLY))
			fail("fd %d (%s): open flags %#x", fd[i], kinds[i], fl);
	}
	pass();
	return 0;
}
