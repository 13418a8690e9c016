/* A deleted file held on a mount of a child's own mount namespace by a sibling that entered that namespace
 * (setns), on its own bind there (b), while the test holds it through its bind of another directory of the
 * same tmpfs (a: both names of one inode, then unlinked). After restore the sibling's fd 8 is the inode of
 * the test's fd 7 (checked by the test through /proc), unlinked, with its data, on a mount of the sibling's
 * namespace, named "/nsmnt_gj/b/f (deleted)". Mode cuns: crshim links it there for the sibling's open at the
 * child's stand (rst_ghost_link_nested, link_maker), as for a process that inherits the namespace; before,
 * the dump refused it ("one of a process that neither made its namespace nor inherited it"). */
#include "nsmnt.h"

#define UPFD 7
#define OWNFD 8

static int setup(void)
{
	return nsmnt_own_bind("/nsmnt_gj");
}

static int in(void)
{
	open_at(OWNFD, "/nsmnt_gj/b/f", O_RDWR, "open /nsmnt_gj/b/f in the sibling");
	return 0;
}

static int none(void)
{
	return 0;
}

static int check(void)
{
	struct stat st;
	char buf[8] = "", name[64] = "";
	int bad = 0;
	if (fstat(OWNFD, &st) || st.st_nlink || !mnt_listed(fd_mnt_id(OWNFD)))
		bad |= 1;
	if (pread(OWNFD, buf, sizeof(buf) - 1, 0) != 5 || strcmp(buf, "ghost"))
		bad |= 2;
	if (readlink("/proc/self/fd/8", name, sizeof(name) - 1) < 0 ||
	    strcmp(name, "/nsmnt_gj/b/f (deleted)"))
		bad |= 4;
	return bad;
}

int main(int argc, char **argv)
{
	struct stat a, b;
	char p[64];
	test_init(argc, argv);
	nsmnt_two_binds("/nsmnt_gj");
	write_file("/nsmnt_gj/0/a/f", "ghost");
	if (link("/nsmnt_gj/0/a/f", "/nsmnt_gj/0/b/f"))
		fail("link /nsmnt_gj/0/b/f");
	open_at(UPFD, "/nsmnt_gj/a/f", O_RDWR, "open /nsmnt_gj/a/f");
	usr1_block();
	pid_t ch = nsmnt_child(setup, none);
	pid_t sib = nsmnt_sibling(ch, NULL, in, check);
	if (unlink("/nsmnt_gj/0/a/f") || unlink("/nsmnt_gj/0/b/f"))
		fail("unlink");
	test_daemon();
	test_waitsig();
	snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)sib, OWNFD);
	CHECK(!stat(p, &b) && !fstat(UPFD, &a) && a.st_dev == b.st_dev && a.st_ino == b.st_ino,
	      "the sibling's fd 8 is not the inode of the test's fd 7");
	kill(ch, SIGUSR1);
	kill(sib, SIGUSR1);
	child_exit_ok(ch, "the child");
	child_exit_ok(
	    sib, "1: its fd not unlinked on its own mount, 2: not its data, 4: not named PATH (deleted)");
	return test_pass();
}
