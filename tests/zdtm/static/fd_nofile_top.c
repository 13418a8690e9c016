/* An fd at the top of the test's RLIMIT_NOFILE (hard limit - 1, the soft limit raised to it): no room above
 * it for the restore's own fds, and crshim may not raise its hard limit (no CAP_SYS_RESOURCE, and its limit
 * is the runner's, the test's). The dump must fail with one line and the tree keep running, the fd and its
 * offset as they were. Before: the dump passed and the restore failed after the tree was killed ("move
 * helper fds above N: Invalid argument"). */
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct rlimit rl;
	test_init(argc, argv);
	int fd = open("top.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_max == RLIM_INFINITY) {
		fail("setup");
		return 1;
	}
	rl.rlim_cur = rl.rlim_max;
	int top = (int)rl.rlim_max - 1;
	if (setrlimit(RLIMIT_NOFILE, &rl) || dup2(fd, top) != top || write(top, "top", 3) != 3) {
		fail("fd %d", top);
		return 1;
	}
	close(fd);
	test_daemon();
	test_waitsig();
	if (lseek(top, 0, SEEK_CUR) != 3)
		fail("fd %d: offset %lld", top, (long long)lseek(top, 0, SEEK_CUR));
	return test_pass();
}
