/* An fd open on the test's own cgroup directory (v1 pids: zdtm-cgfd-PID), which the .desc's pre-restore
 * removes, as CRIU's cgroup02 hook does: the restore makes the cgroup again (soft), then opens the fd on it.
 * Before, the restore's check of the files, which comes before the cgroups are made, failed: "fd N: file
 * /sys/fs/cgroup/pids/zdtm-cgfd-PID: No such file or directory". */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "zdtmtst.h"
#include "cgroup_pids.h"

static char top[512], orig[256];

int main(int argc, char **argv)
{
	char p[1024], now[512], link[1024];
	struct stat st;
	test_init(argc, argv);
	cg_test_top("zdtm-cgfd", orig, sizeof(orig), top, sizeof(top));
	if (mkdir(top, 0755))
		fail("mkdir %s: %m", top);
	snprintf(p, sizeof(p), "%s/cgroup.procs", top);
	if (cg_write(p, getpid())) {
		rmdir(top);
		fail("into %s: %m", top);
	}
	int fd = open(top, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		cg_back(orig);
		rmdir(top);
		fail("open %s: %m", top);
	}
	test_daemon();
	test_waitsig();

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(p, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	bool dir = !fstat(fd, &st) && S_ISDIR(st.st_mode);
	snprintf(p, sizeof(p), "%s/cgroup.procs", top);
	bool procs = !faccessat(fd, "cgroup.procs", F_OK, 0);
	cg_of(getpid(), now, sizeof(now));
	close(fd);
	cg_back(orig);
	rmdir(top);
	errno = 0;
	if (!dir || !procs || strcmp(link, top))
		fail("the fd is %s (%s, %s), not the cgroup %s", link,
		     dir ? "a directory" : "not a directory", procs ? "with cgroup.procs" : "no cgroup.procs",
		     top);
	if (!strstr(now, "/zdtm-cgfd-"))
		fail("the test is in %s after the restore", now);
	return test_pass();
}
