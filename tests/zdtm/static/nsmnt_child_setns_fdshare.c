/* A child M unshares its mount namespace, mounts a tmpfs (/nsmnt_sf, file f: "maker") and opens f at fd 9
 * (offset 2); its sibling J setns()es into M's namespace and takes that open file description from M
 * (pidfd_getfd) at its fd 8: one description of the two only, opened after the unshare. The test's own
 * namespace has a file f of its own at that path ("root"). After restore fds 9 of M and 8 of J are one open
 * file description (kcmp), at offset 2, of M's f on its tmpfs, in the one namespace of both. */
#include <linux/kcmp.h>
#include <sys/syscall.h>
#include "nsmnt.h"

static int setup(void)
{
	if (mount("nsmnt", "/nsmnt_sf", "tmpfs", 0, "size=1m"))
		return -1;
	write_file("/nsmnt_sf/f", "maker");
	open_at(9, "/nsmnt_sf/f", O_RDWR, "open /nsmnt_sf/f in M's namespace");
	return lseek(9, 2, SEEK_SET) == 2 ? 0 : -1;
}

/* Is fd on the tmpfs at /nsmnt_sf, holding "maker"? 0, or 1 not on it, 2 not its data. */
static int fd_on_tmpfs(int fd)
{
	struct stat a, b;
	char buf[8] = "";
	int bad = fstat(fd, &a) || stat("/nsmnt_sf", &b) || a.st_dev != b.st_dev ? 1 : 0;
	return bad | (pread(fd, buf, sizeof(buf) - 1, 0) != 5 || strcmp(buf, "maker") ? 2 : 0);
}

static int check(void)
{
	return fd_on_tmpfs(9);
}

int main(int argc, char **argv)
{
	int jp[2];
	test_init(argc, argv);
	mkdirs("/nsmnt_sf");
	write_file("/nsmnt_sf/f", "root");
	usr1_block();
	pid_t m = nsmnt_child(setup, check);
	if (pipe(jp))
		fail("pipe");
	pid_t j = test_fork();
	if (j == 0) {
		int pfd = (int)syscall(SYS_pidfd_open, m, 0);
		int fd = pfd < 0 || nsmnt_enter(m) ? -1 : (int)syscall(SYS_pidfd_getfd, pfd, 9, 0);
		if (fd < 0 || dup2(fd, 8) != 8 || close(fd) || close(pfd) || child_ready(jp))
			_exit(9);
		usr1_wait();
		_exit(fd_on_tmpfs(8));
	}
	CHECK(j > 0 && !child_started(jp), "J not ready");
	test_daemon();
	test_waitsig();
	CHECK(mntns_ino(m) && mntns_ino(j) == mntns_ino(m) && mntns_ino(m) != mntns_ino(getpid()),
	      "J is not in M's namespace, or M in the test's");
	CHECK(syscall(SYS_kcmp, m, j, KCMP_FILE, 9, 8) == 0,
	      "fd 9 of M and fd 8 of J are not one description");
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/fdinfo/8", j);
	CHECK(file_field(p, "pos:", 10, -1) == 2, "J's fd 8 not at offset 2");
	CHECK(file_is("/nsmnt_sf/f", "root"), "the test's own f changed");
	kill(m, SIGUSR1);
	kill(j, SIGUSR1);
	child_exit_ok(m, "1: M's fd 9 not on its tmpfs, 2: not its data");
	child_exit_ok(j, "1: J's fd 8 not on M's tmpfs, 2: not its data");
	return test_pass();
}
