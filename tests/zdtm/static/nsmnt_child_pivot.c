/* A child in a mount namespace of its own that pivot_root'ed into a tmpfs of its own (CRIU's
 * mntns_pivot_root shape): its root mount is not its parent's, which crshim does not make again yet
 * (ns/mnt-nested.c makes a nested namespace from its parent's, the same root): the dump refuses it with one
 * line (.desc dump-expect) and the tree keeps running as it was; the test's checks pass on it. */
#include <linux/magic.h>
#include <linux/magic.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/vfs.h>
#include "nsmnt.h"

static int setup(void)
{
	if (mount("nsmnt", "/nsmnt_cp", "tmpfs", 0, "size=1m") || mkdir("/nsmnt_cp/old", 0755) ||
	    chdir("/nsmnt_cp") || syscall(SYS_pivot_root, ".", "old") || chroot(".") || chdir("/") ||
	    umount2("/old", MNT_DETACH))
		return -1;
	write_file("/data", "pivoted");
	return 0;
}

static int check(void)
{
	struct statfs sf; /* (no /proc in there) */
	return (statfs("/", &sf) || sf.f_type != TMPFS_MAGIC ? 1 : 0) | (file_is("/data", "pivoted") ? 0 : 2);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	mkdirs("/nsmnt_cp");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	test_daemon();
	test_waitsig();
	struct mnt_line m;
	CHECK(mnt_find("/nsmnt_cp", &m) != 0, "the child's tmpfs is mounted in the parent's namespace");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: its root is not its tmpfs, 2: its file is gone");
	return test_pass();
}
