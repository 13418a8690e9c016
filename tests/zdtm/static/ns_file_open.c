/* An open namespace file (/proc/self/ns/net, /proc/self/ns/uts): refused at dump with one line (.desc);
 * the fds still name the task's own namespaces afterwards (also meant to hold once they are restored). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

static int same(int fd, const char *path)
{
	struct stat a, b;
	return !fstat(fd, &a) && !stat(path, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	int n = open("/proc/self/ns/net", O_RDONLY), u = open("/proc/self/ns/uts", O_RDONLY);
	if (n < 0 || u < 0)
		fail("open ns");
	test_daemon();
	test_waitsig();
	if (!same(n, "/proc/self/ns/net"))
		fail("net ns fd names another namespace");
	if (!same(u, "/proc/self/ns/uts"))
		fail("uts ns fd names another namespace");
	pass();
	return 0;
}
