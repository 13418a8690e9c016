/* /proc/self/coredump_filter (0x5b in the test, 0x1 in a child): the same after restore (before: the
 * restore left the default, 0x33, without a word). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "zdtmtst.h"

static unsigned long get_filter(void)
{
	char b[32] = "";
	int fd = open("/proc/self/coredump_filter", O_RDONLY);
	if (fd < 0 || read(fd, b, sizeof(b) - 1) <= 0)
		return ~0ul;
	close(fd);
	return strtoul(b, NULL, 16);
}

static int set_filter(const char *v)
{
	int fd = open("/proc/self/coredump_filter", O_WRONLY);
	if (fd < 0)
		return -1;
	int r = write(fd, v, strlen(v)) == (ssize_t)strlen(v) ? 0 : -1;
	close(fd);
	return r;
}

static int child_check(void *arg)
{
	(void)arg;
	return get_filter() == 0x1 ? 0 : 3;
}

int main(int argc, char **argv)
{
	int st;

	test_init(argc, argv);
	/* the child inherits 0x1 */
	if (set_filter("0x1")) {
		fail("set coredump_filter");
		return 1;
	}
	pid_t pid = tree_fork_waiting(child_check, NULL);
	if (set_filter("0x5b") || get_filter() != 0x5b) {
		fail("set coredump_filter");
		return 1;
	}
	test_daemon();
	test_waitsig();

	if (get_filter() != 0x5b)
		fail("coredump_filter %#lx, want 0x5b", get_filter());
	if ((st = tree_waiting_go(pid)))
		fail("child: its coredump_filter lost (status %#x)", st);
	pass();
	return 0;
}
