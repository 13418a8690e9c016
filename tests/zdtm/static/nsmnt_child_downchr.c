/* A character device held on a mount of the test's mount namespace by a grandchild in a namespace of its
 * own, whose parent left that namespace after it (CRIU's tempfs_subns shape: fd 0, /dev/null): saved as
 * /proc/1/root/PATH and opened with the files of /proc/PID. After restore fd 7 is that device again, on a
 * mount the grandchild's mountinfo does not list. Before, the dump's dry run of the restore's checks refused
 * it (openat2 RESOLVE_IN_ROOT of the /proc magic link: EXDEV). */
#include "nsmnt.h"

#include <sys/sysmacros.h>
#include <sys/wait.h>

#define CFD 7

static int unshare_private(void)
{
	return unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

static int grandchild(int pfd[2])
{
	if (unshare_private() || child_ready(pfd))
		_exit(9);
	usr1_wait();
	struct stat st;
	int bad = 0;
	if (fstat(CFD, &st) || !S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3))
		bad |= 1;
	if (write(CFD, "x", 1) != 1)
		bad |= 2;
	if (mnt_listed(fd_mnt_id(CFD)))
		bad |= 4;
	_exit(bad);
}

int main(int argc, char **argv)
{
	int pfd[2], gfd[2];
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_dc", "tmpfs", 0, "size=1m");
	write_file("/nsmnt_dc/null", ""); /* (a bind of /dev/null: no mknod in a user namespace) */
	must_mount("/dev/null", "/nsmnt_dc/null", NULL, MS_BIND, NULL);
	open_at(CFD, "/nsmnt_dc/null", O_RDWR, "open /nsmnt_dc/null");
	usr1_block();
	if (pipe(pfd))
		fail("pipe");
	pid_t ch = test_fork();
	if (ch == 0) {
		if (pipe(gfd))
			_exit(9);
		pid_t g = test_fork();
		if (g == 0)
			grandchild(gfd);
		if (g < 0 || child_started(gfd) || unshare_private() || child_ready(pfd))
			_exit(9);
		usr1_wait();
		int st = 9;
		kill(g, SIGUSR1);
		_exit(waitpid(g, &st, 0) == g && WIFEXITED(st) ? WEXITSTATUS(st) : 9);
	}
	if (ch < 0 || child_started(pfd))
		fail("child not ready");
	test_daemon();
	test_waitsig();
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: not the device, 2: not written, 4: on a mount of the grandchild's namespace");
	return test_pass();
}
