/* A child in a mount namespace of its own, an unchanged copy of its parent's, holds a file its parent opened
 * before the copy was made (the parent closed its fd): the file is on the parent's mount, not on the
 * child's copy of it (fdinfo mnt_id: a mount its own mountinfo does not list), and a file the child opens
 * is on its copy (CRIU's mntns_open). After restore both are so again. Before, such a child was restored in
 * its parent's namespace (both files on one mount). */
#include <sched.h>
#include "nsmnt.h"

#define UPFD 7
#define OWNFD 8

static int setup(void)
{
	open_at(OWNFD, "/nsmnt_uf/f", O_RDONLY, "open /nsmnt_uf/f in the child");
	return 0;
}

static int check(void)
{
	int up = fd_mnt_id(UPFD), own = fd_mnt_id(OWNFD), bad = 0;
	if (up < 0 || own < 0 || up == own)
		bad |= 1;
	if (mnt_listed(up) || !mnt_listed(own))
		bad |= 2;
	if (!file_is("/proc/self/fd/7", "up") || !file_is("/nsmnt_uf/f", "up"))
		bad |= 4;
	return bad;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_uf", "tmpfs", 0, "size=1m");
	write_file("/nsmnt_uf/f", "up");
	open_at(UPFD, "/nsmnt_uf/f", O_RDONLY, "open /nsmnt_uf/f");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	close(UPFD);
	test_daemon();
	test_waitsig();
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: both files on one mount, 2: fd 7 on a mount of its own namespace or fd 8 not, "
			  "4: contents");
	return test_pass();
}
