/* nsmnt_child_ghost2open with the second open by a sibling that entered the child's mount namespace (setns):
 * the child M mounts a tmpfs of its own (only its namespace shows it), writes f there and opens it at fd 7;
 * its sibling J enters M's namespace and opens f on its own at fd 8 (offset 2); f is then unlinked. After
 * restore both fds are one unlinked inode on M's tmpfs, with its data, two open file descriptions, a write
 * through one read through the other (the test checks through /proc). Before, J made a copy of its own of
 * crshim's ghost on that mount (restore-ghost.c found no maker for it: it did not descend from M): two
 * inodes, whose writes no longer met. */
#include "nsmnt.h"

#define GFD 7
#define JFD 8
#define F "/nsmnt_sg/m/d/f"

static int setup(void)
{
	if (ghostfs_own("/nsmnt_sg"))
		return 1;
	ghostfs_file(F, GFD, O_RDWR);
	return lseek(GFD, 5, SEEK_SET) == 5 ? 0 : 1;
}

static int in(void)
{
	open_at(JFD, F, O_RDWR, "open " F " in the sibling");
	return lseek(JFD, 2, SEEK_SET) == 2 ? unlink(F) : 1;
}

/* Is fd (ours) a copy on our tmpfs? 0 or ghostfs_copy's bits */
static int fd_copy(int fd)
{
	struct stat st;
	char l[32];
	snprintf(l, sizeof(l), "/proc/self/fd/%d", fd);
	return fstat(fd, &st) ? 1 : ghostfs_copy(&st, "/nsmnt_sg/m/d", l, F);
}

static int check_m(void)
{
	return fd_copy(GFD);
}

static int check_j(void)
{
	return fd_copy(JFD);
}

int main(int argc, char **argv)
{
	struct stat a, b, top;
	char p[64], buf[8] = "";
	int m = -1, j = -1;
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_sg", "tmpfs", 0, "size=1m");
	mkdirs("/nsmnt_sg/m");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check_m);
	pid_t sib = nsmnt_sibling(ch, NULL, in, check_j);
	test_daemon();
	test_waitsig();
	CHECK(mntns_ino(ch) && mntns_ino(sib) == mntns_ino(ch) && mntns_ino(ch) != mntns_ino(getpid()),
	      "the sibling is not in the child's namespace, or the child in the test's");
	snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)ch, GFD);
	m = open(p, O_RDWR);
	snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)sib, JFD);
	j = open(p, O_RDWR);
	CHECK(m >= 0 && j >= 0 && !fstat(m, &a) && !fstat(j, &b), "the fds are gone");
	CHECK(a.st_dev == b.st_dev && a.st_ino == b.st_ino,
	      "the child's fd 7 (%llu) and the sibling's fd 8 (%llu) are two inodes",
	      (unsigned long long)a.st_ino, (unsigned long long)b.st_ino);
	CHECK(!stat("/nsmnt_sg", &top) && top.st_dev != a.st_dev, "the file is on the test's tmpfs");
	CHECK(pread(j, buf, 5, 0) == 5 && !strcmp(buf, "ghost"), "not its data");
	CHECK(pwrite(m, "G", 1, 0) == 1 && pread(j, buf, 1, 0) == 1 && buf[0] == 'G',
	      "a write through the child's fd not read through the sibling's");
	snprintf(p, sizeof(p), "/proc/%d/fdinfo/%d", (int)ch, GFD);
	CHECK(file_field(p, "pos:", 10, -1) == 5, "the child's fd 7 not at offset 5");
	snprintf(p, sizeof(p), "/proc/%d/fdinfo/%d", (int)sib, JFD);
	CHECK(file_field(p, "pos:", 10, -1) == 2, "the sibling's fd 8 not at offset 2");
	close(m);
	close(j);
	kill(ch, SIGUSR1);
	kill(sib, SIGUSR1);
	child_exit_ok(ch, "1: the child's fd linked, 2: not on its tmpfs, 4: not named PATH (deleted)");
	child_exit_ok(sib, "1: the sibling's fd linked, 2: not on the tmpfs, 4: not named PATH (deleted)");
	return test_pass();
}
