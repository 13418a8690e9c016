/* A child in a mount namespace of its own that pivot_root'ed into a tmpfs of its own (CRIU's
 * mntns_pivot_root shape), a file in it, and fd 7 open on a file of its parent's namespace, opened before
 * its unshare (gone from its own: opened there at restore, reg_file_entry.mnt_up). After restore its root
 * is that tmpfs with the file, fd 7 is the parent's file, and the parent's namespace has no such mount.
 * Before, the dump refused it. */
#include <linux/magic.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include "nsmnt.h"

#define UPFD 7

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
	char buf[16] = "";
	return (statfs("/", &sf) || sf.f_type != TMPFS_MAGIC ? 1 : 0) |
	       (file_is("/data", "pivoted") ? 0 : 2) |
	       (pread(UPFD, buf, sizeof(buf) - 1, 0) != 6 || strcmp(buf, "parent") ? 4 : 0);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	mkdirs("/nsmnt_cp");
	write_file("/nsmnt_cp_up", "parent");
	open_at(UPFD, "/nsmnt_cp_up", O_RDONLY, "open /nsmnt_cp_up"); /* the child's: the parent closes it */
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	close(UPFD);
	test_daemon();
	test_waitsig();
	struct mnt_line m;
	CHECK(mnt_find("/nsmnt_cp", &m) != 0, "the child's tmpfs is mounted in the parent's namespace");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: its root is not its tmpfs, 2: its file is gone, 4: fd 7 not the parent's file");
	return test_pass();
}
