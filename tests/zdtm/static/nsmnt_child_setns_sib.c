/* A child unshares its mount namespace and mounts a tmpfs of its own (/nsmnt_ss, over a directory of the
 * test's with a file p); its sibling setns()es into that namespace while the child lives, holding fd 7 on p
 * (opened before, on the test's mount) and fd 8 on the tmpfs's f (opened after). After restore both are in
 * one namespace other than the test's (the sibling entered the one the child made again:
 * pstree_entry.mntns_join, crshim lets it go once the child's namespace stands), fd 7 reads p, fd 8 is f on
 * the child's tmpfs. Before, the dump refused the sibling with one line. */
#include "nsmnt.h"

static int setup(void)
{
	if (mount("nsmnt", "/nsmnt_ss", "tmpfs", 0, "size=1m"))
		return -1;
	write_file("/nsmnt_ss/f", "c");
	return 0;
}

static int check(void)
{
	return file_is("/nsmnt_ss/f", "c") ? 0 : 1;
}

static int sib_check(void)
{
	char buf[8] = "";
	struct stat a, b;
	int bad = check();
	if (pread(7, buf, sizeof(buf) - 1, 0) != 1 || strcmp(buf, "p"))
		bad |= 2;
	memset(buf, 0, sizeof(buf));
	if (pread(8, buf, sizeof(buf) - 1, 0) != 1 || strcmp(buf, "c") || fstat(8, &a) ||
	    stat("/nsmnt_ss", &b) || a.st_dev != b.st_dev)
		bad |= 4;
	return bad;
}

static int before(void)
{
	open_at(7, "/nsmnt_ss/p", O_RDONLY, "open /nsmnt_ss/p");
	return 0;
}

static int in(void)
{
	open_at(8, "/nsmnt_ss/f", O_RDONLY, "open /nsmnt_ss/f in the child's namespace");
	return 0;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	mkdirs("/nsmnt_ss");
	write_file("/nsmnt_ss/p", "p");
	usr1_block();
	pid_t c = nsmnt_child(setup, check);
	pid_t s = nsmnt_sibling(c, before, in, sib_check);
	test_daemon();
	test_waitsig();
	CHECK(mntns_ino(s) && mntns_ino(s) == mntns_ino(c) && mntns_ino(c) != mntns_ino(getpid()),
	      "the sibling is not in the child's namespace");
	CHECK(file_is("/nsmnt_ss/p", "p"), "the test's /nsmnt_ss/p is gone");
	kill(c, SIGUSR1);
	kill(s, SIGUSR1);
	child_exit_ok(c, "1: its tmpfs is gone");
	child_exit_ok(s, "1: the child's tmpfs is gone, 2: fd 7 is not the test's p, 4: fd 8 is not f on the "
			 "child's tmpfs");
	return test_pass();
}
