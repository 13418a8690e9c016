/* nsmnt_ghostfile_bind in a child of the test with a mount namespace of its own: a tmpfs at /nsmnt_gfp with
 * p/f ("ghost"); the child binds p (the file's directory) at /nsmnt_gfp/b, holds p/f as fd 7 through the
 * tmpfs and as fd 8 through its bind; then the test unlinks it. After restore the child's fd 7 and fd 8 are
 * one inode (what is written through one is read through the other), still deleted (st_nlink 0), fd 7 on
 * its mount of the tmpfs and fd 8 on its bind (fdinfo mnt_id as statx of the mount points reads them, both
 * in its mountinfo), each named "PATH (deleted)" by its own path. */
#include "nsmnt.h"

#define TOP "/nsmnt_gfp"

static int setup(void)
{
	mkdirs(TOP "/b");
	if (mount(TOP "/p", TOP "/b", NULL, MS_BIND, NULL))
		return 1;
	open_at(7, TOP "/p/f", O_RDWR, "open " TOP "/p/f in the child");
	open_at(8, TOP "/b/f", O_RDWR, "open " TOP "/b/f in the child");
	return 0;
}

static int check(void)
{
	struct stat a, b;
	char buf[8] = "";
	int bad = 0;
	if (fstat(7, &a) || a.st_nlink != 0 || !S_ISREG(a.st_mode))
		bad |= 1;
	if (fstat(8, &b) || b.st_dev != a.st_dev || b.st_ino != a.st_ino)
		bad |= 2;
	if (pread(8, buf, 5, 0) != 5 || memcmp(buf, "ghost", 5) || pwrite(7, "seen", 4, 0) != 4 ||
	    pread(8, buf, 4, 0) != 4 || memcmp(buf, "seen", 4))
		bad |= 4;
	if (fd_mnt_id(7) != path_mnt_id(TOP) || !mnt_listed(fd_mnt_id(7)))
		bad |= 8;
	if (fd_mnt_id(8) != path_mnt_id(TOP "/b") || path_mnt_id(TOP "/b") == path_mnt_id(TOP) ||
	    !mnt_listed(fd_mnt_id(8)))
		bad |= 16;
	if (!fd_named(7, TOP "/p/f (deleted)") || !fd_named(8, TOP "/b/f (deleted)"))
		bad |= 32;
	return bad;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("nsmnt", TOP, "tmpfs", 0, "size=1m");
	mkdirs(TOP "/p");
	write_file(TOP "/p/f", "ghost");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	if (unlink(TOP "/p/f"))
		fail("unlink " TOP "/p/f");
	test_daemon();
	test_waitsig();

	CHECK(access(TOP "/p/f", F_OK) && errno == ENOENT, "the deleted file is back");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: fd 7 not a deleted file, 2: fd 8 another inode, 4: data not shared, 8: fd 7 "
			  "not on its tmpfs's mount, 16: fd 8 not on its bind, 32: not named PATH (deleted)");
	return test_pass();
}
