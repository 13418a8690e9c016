/* nsmnt_child_ghostname with two deleted files whose names in the child's namespace have the same last part
 * in two directories removed too (b/d/f and b/e/f): each gets a name in b, the deepest directory left
 * (reg_file_entry.ghost_name), f for one and f.crshim-ghost.ID for the other (dump_ghost_pick_name: a name
 * picked for another file of the tree is not picked again). After restore each of fds 17 and 18 is its own
 * file again (the inode of fd 15, fd 16: opened before the child's unshare, on the parent's bind), with its
 * data, on the child's own mount, named "/nsmnt_gn/b/f (deleted)" or "/nsmnt_gn/b/f.crshim-ghost.ID
 * (deleted)", not both alike. Before, the dump picked f for both: mode cuns failed the restore (crshim's link
 * at f: "File exists"), and after a fix at restore (rst_ghost_alt_name) the other modes named both
 * "/nsmnt_gn/b/f (deleted)". With NSMNT_GN_NAMED (nsmnt_child_ghostname3) the first file is b/f, its
 * directory left: it keeps its name, the other (b/d/f) is named f.crshim-ghost.ID; before, both b/f. */
#include "nsmnt.h"

#ifdef NSMNT_GN_NAMED
#define GN_F1 "/nsmnt_gn/b/f"
#define GN_F1_0 "/nsmnt_gn/0/b/f"
#define GN_F2 "/nsmnt_gn/b/d/f"
#define GN_F2_0 "/nsmnt_gn/0/b/d/f"
#else
#define GN_F1 "/nsmnt_gn/b/d/f"
#define GN_F1_0 "/nsmnt_gn/0/b/d/f"
#define GN_F2 "/nsmnt_gn/b/e/f"
#define GN_F2_0 "/nsmnt_gn/0/b/e/f"
#endif

#define UP1 15 /* (above the child's ready pipe) */
#define UP2 16
#define CF1 17
#define CF2 18

static int setup(void)
{
	if (nsmnt_own_bind("/nsmnt_gn"))
		return 1;
	open_at(CF1, GN_F1, O_RDWR, "open " GN_F1 " in the child");
	open_at(CF2, GN_F2, O_RDWR, "open " GN_F2 " in the child");
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
	int bad = 0, n7 = name_of(CF1, GN_F1 " (deleted)"), n8 = name_of(CF2, GN_F2 " (deleted)");
	if (!same(CF1, UP1, "one"))
		bad |= 1;
	if (!same(CF2, UP2, "two"))
		bad |= 2;
#ifdef NSMNT_GN_NAMED
	if (n7 != 3) /* (its own name, b/f, in every mode) */
		bad |= 8;
	if (n8 != 3 && n8 != 2)
		bad |= 4;
#else
	if ((n7 == 3) != (n8 == 3) || !n7 || !n8 || (n7 != 3 && n7 == n8))
		bad |= 4;
#endif
	return bad;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	nsmnt_two_binds("/nsmnt_gn");
	mkdirs("/nsmnt_gn/0/b/d");
#ifndef NSMNT_GN_NAMED
	mkdirs("/nsmnt_gn/0/b/e");
#endif
	write_file("/nsmnt_gn/0/a/f1", "one");
	write_file("/nsmnt_gn/0/a/f2", "two");
	if (link("/nsmnt_gn/0/a/f1", GN_F1_0) || link("/nsmnt_gn/0/a/f2", GN_F2_0))
		fail("link");
	open_at(UP1, "/nsmnt_gn/a/f1", O_RDWR, "open /nsmnt_gn/a/f1");
	open_at(UP2, "/nsmnt_gn/a/f2", O_RDWR, "open /nsmnt_gn/a/f2");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	close(UP1);
	close(UP2);
	if (unlink("/nsmnt_gn/0/a/f1") || unlink("/nsmnt_gn/0/a/f2") || unlink(GN_F1_0) || unlink(GN_F2_0) ||
	    rmdir("/nsmnt_gn/0/b/d"))
		fail("unlink");
#ifndef NSMNT_GN_NAMED
	if (rmdir("/nsmnt_gn/0/b/e"))
		fail("rmdir");
#endif
	test_daemon();
	test_waitsig();
	kill(ch, SIGUSR1);
	child_exit_ok(
	    ch, "1: fd 17 not the first file (fd 15's inode, data, own mount), 2: fd 18 not the second, "
		"4: not named b/f or b/f.crshim-ghost.ID (deleted), or both alike, 8: the first not b/f");
	return test_pass();
}
