/* A deleted file held by a sibling J that entered a child M's mount namespace (setns) on a mount of the
 * namespace M's was made from (the test's): J opened it (fd 8) before its setns, the test holds it too (fd
 * 7), then it is unlinked. After restore J's fd 8 is the test's inode, unlinked, with its data, on a mount
 * of the test's namespace (its fdinfo mnt_id), and J is in M's namespace. */
#include "nsmnt.h"

#define TFD 7
#define JFD 8
#define F "/nsmnt_ju/f"

static int none(void)
{
	return 0;
}

static int before(void)
{
	open_at(JFD, F, O_RDWR, "open " F " in the sibling");
	return 0;
}

static int check_j(void)
{
	struct stat st;
	char buf[8] = "";
	int bad = fstat(JFD, &st) || st.st_nlink ? 1 : 0;
	return bad | (pread(JFD, buf, sizeof(buf) - 1, 0) != 5 || strcmp(buf, "ghost") ? 2 : 0);
}

int main(int argc, char **argv)
{
	struct stat a, b;
	char p[64];
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_ju", "tmpfs", 0, "size=1m");
	write_file(F, "ghost");
	open_at(TFD, F, O_RDWR, "open " F);
	usr1_block();
	pid_t ch = nsmnt_child(none, none);
	pid_t sib = nsmnt_sibling(ch, before, NULL, check_j);
	if (unlink(F))
		fail("unlink " F);
	test_daemon();
	test_waitsig();
	CHECK(mntns_ino(ch) && mntns_ino(sib) == mntns_ino(ch) && mntns_ino(ch) != mntns_ino(getpid()),
	      "the sibling is not in the child's namespace, or the child in the test's");
	snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)sib, JFD);
	CHECK(!stat(p, &b) && !fstat(TFD, &a) && a.st_dev == b.st_dev && a.st_ino == b.st_ino,
	      "the sibling's fd 8 is not the inode of the test's fd 7");
	snprintf(p, sizeof(p), "/proc/%d/fdinfo/%d", (int)sib, JFD);
	CHECK(mnt_listed((int)file_field(p, "mnt_id:", 10, -1)),
	      "the sibling's fd 8 is not on a mount of the test's namespace");
	kill(ch, SIGUSR1);
	kill(sib, SIGUSR1);
	child_exit_ok(ch, "the child");
	child_exit_ok(sib, "1: its fd linked, 2: not its data");
	return test_pass();
}
