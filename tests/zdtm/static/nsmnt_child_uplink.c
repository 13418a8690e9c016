/* A child in a mount namespace of its own holds a file of its parent's mount (opened before its unshare)
 * that the parent then unlinked while another link of it stays: after restore it is that file (one link)
 * on its parent's mount still (not one its own mountinfo lists), reopened by that link in its parent's
 * namespace. Before, the dump refused it with one line. */
#include "nsmnt.h"

#define UPFD 7

static int setup(void)
{
	return 0;
}

static int check(void)
{
	struct stat st;
	return fstat(UPFD, &st) || st.st_nlink != 1 ? 1 : mnt_listed(fd_mnt_id(UPFD)) ? 2 : 0;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_ul", "tmpfs", 0, "size=1m");
	write_file("/nsmnt_ul/f", "linked");
	if (link("/nsmnt_ul/f", "/nsmnt_ul/g"))
		fail("link");
	open_at(UPFD, "/nsmnt_ul/f", O_RDONLY, "open /nsmnt_ul/f");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	close(UPFD);
	if (unlink("/nsmnt_ul/f"))
		fail("unlink");
	test_daemon();
	test_waitsig();
	CHECK(file_is("/nsmnt_ul/g", "linked"), "the other link is gone");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: fd 7 not the file with one link left, 2: on a mount of its own namespace");
	return test_pass();
}
