/* nsmnt_child_ghostname with two deleted files whose names in the child's namespace have the same last part
 * in two directories removed too (b/d/f and b/e/f): the dump picks the name f in b, the deepest directory
 * left, for both (reg_file_entry.ghost_name: free at dump), so that at restore the second finds the first
 * there. After restore each of fds 17 and 18 is its own file again (the inode of fd 15, fd 16: opened before
 * the child's unshare, on the parent's bind), with its data, on the child's own mount, named "/nsmnt_gn/b/f
 * (deleted)" or, the second in mode cuns, "/nsmnt_gn/b/f.crshim-ghost.ID (deleted)" (crshim links each there
 * for the child's open: the first has f then; rst_ghost_alt_name). Before, mode cuns failed the restore
 * (crshim's link at f: "File exists"). */
#include "nsmnt.h"

#define UP1 15 /* (above the child's ready pipe) */
#define UP2 16
#define CF1 17
#define CF2 18

static int setup(void)
{
	if (nsmnt_own_bind("/nsmnt_gn"))
		return 1;
	open_at(CF1, "/nsmnt_gn/b/d/f", O_RDWR, "open /nsmnt_gn/b/d/f in the child");
	open_at(CF2, "/nsmnt_gn/b/e/f", O_RDWR, "open /nsmnt_gn/b/e/f in the child");
	return 0;
}

/* fd's link: 3 if it is orig (as before: no restore, mode checkpoint), 1 if "/nsmnt_gn/b/f (deleted)", 2 if
 * "/nsmnt_gn/b/f.crshim-ghost.ID (deleted)"; 0 else */
static int name_of(int fd, const char *orig)
{
	char p[64], l[256] = "", tail[32] = "";
	unsigned id;
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	if (readlink(p, l, sizeof(l) - 1) <= 0)
		return 0;
	if (!strcmp(l, orig))
		return 3;
	if (!strcmp(l, "/nsmnt_gn/b/f (deleted)"))
		return 1;
	return sscanf(l, "/nsmnt_gn/b/f.crshim-ghost.%u %31[^\n]", &id, tail) == 2 &&
		       !strcmp(tail, "(deleted)")
		   ? 2
		   : 0;
}

/* fd is the inode of up, unlinked, with data want, on a mount of the child's namespace */
static int same(int fd, int up, const char *want)
{
	struct stat a, b;
	char buf[8] = "";
	return !fstat(fd, &a) && !fstat(up, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev &&
	       !a.st_nlink && pread(fd, buf, sizeof(buf) - 1, 0) == (ssize_t)strlen(want) &&
	       !strcmp(buf, want) && mnt_listed(fd_mnt_id(fd)) && !mnt_listed(fd_mnt_id(up));
}

static int check(void)
{
	int bad = 0, n7 = name_of(CF1, "/nsmnt_gn/b/d/f (deleted)"),
	    n8 = name_of(CF2, "/nsmnt_gn/b/e/f (deleted)");
	if (!same(CF1, UP1, "one"))
		bad |= 1;
	if (!same(CF2, UP2, "two"))
		bad |= 2;
	/* (both b/f: each linked there again by the child for its open and unlinked at once, other modes) */
	if ((n7 == 3) != (n8 == 3) || !n7 || !n8 || (n7 == 2 && n8 == 2))
		bad |= 4;
	return bad;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	nsmnt_two_binds("/nsmnt_gn");
	mkdirs("/nsmnt_gn/0/b/d");
	mkdirs("/nsmnt_gn/0/b/e");
	write_file("/nsmnt_gn/0/a/f1", "one");
	write_file("/nsmnt_gn/0/a/f2", "two");
	if (link("/nsmnt_gn/0/a/f1", "/nsmnt_gn/0/b/d/f") || link("/nsmnt_gn/0/a/f2", "/nsmnt_gn/0/b/e/f"))
		fail("link");
	open_at(UP1, "/nsmnt_gn/a/f1", O_RDWR, "open /nsmnt_gn/a/f1");
	open_at(UP2, "/nsmnt_gn/a/f2", O_RDWR, "open /nsmnt_gn/a/f2");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	close(UP1);
	close(UP2);
	if (unlink("/nsmnt_gn/0/a/f1") || unlink("/nsmnt_gn/0/a/f2") || unlink("/nsmnt_gn/0/b/d/f") ||
	    unlink("/nsmnt_gn/0/b/e/f") || rmdir("/nsmnt_gn/0/b/d") || rmdir("/nsmnt_gn/0/b/e"))
		fail("unlink");
	test_daemon();
	test_waitsig();
	kill(ch, SIGUSR1);
	child_exit_ok(
	    ch, "1: fd 17 not the first file (fd 15's inode, data, own mount), 2: fd 18 not the second, "
		"4: not named b/f or b/f.crshim-ghost.ID (deleted)");
	return test_pass();
}
