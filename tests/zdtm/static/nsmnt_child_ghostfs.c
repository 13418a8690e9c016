/* A deleted file held by a child on a tmpfs it mounted in its own mount namespace (CRIU's mountpoints
 * shape): the root's namespace has the directory of its path on another filesystem. After restore the fd
 * is an unlinked file with its data again (made on the filesystem the root's tree has there, as before
 * the ghosts of other namespaces were opened on their own mount). Before, the dump refused it. */
#include "nsmnt.h"

#define GFD 7

static int setup(void)
{
	if (mount("nsmnt", "/nsmnt_gf/m", "tmpfs", 0, "size=1m") || mkdir("/nsmnt_gf/m/d", 0755))
		return 1;
	write_file("/nsmnt_gf/m/d/f", "ghost");
	open_at(GFD, "/nsmnt_gf/m/d/f", O_RDWR, "open /nsmnt_gf/m/d/f in the child");
	return unlink("/nsmnt_gf/m/d/f");
}

static int check(void)
{
	struct stat st;
	char buf[16] = "";
	int bad = 0;
	if (fstat(GFD, &st) || st.st_nlink != 0 || !S_ISREG(st.st_mode))
		bad |= 1;
	if (pread(GFD, buf, sizeof(buf) - 1, 0) != 5 || strcmp(buf, "ghost"))
		bad |= 2;
	if (access("/nsmnt_gf/m/d", F_OK))
		bad |= 4;
	return bad;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_gf", "tmpfs", 0, "size=1m");
	mkdirs("/nsmnt_gf/m");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	test_daemon();
	test_waitsig();
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: not an unlinked regular file, 2: not its data, 4: its tmpfs not mounted again");
	CHECK(access("/nsmnt_gf/m/d", F_OK), "the child's tmpfs is mounted in the parent's namespace");
	return test_pass();
}
