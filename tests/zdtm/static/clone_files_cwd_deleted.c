/* A child made with clone(CLONE_FILES) shares its parent's fd table but not its fs info, and its cwd is a
 * removed directory (the parent's is the test dir). After restore the table is still one (kcmp), the
 * child's cwd is still that dead directory (getcwd fails with ENOENT, /proc/self/cwd says "(deleted)",
 * nothing can be made in it), the parent's is the test dir, and the directory is not back. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

static int child_check(void)
{
	char buf[PATH_MAX];
	int bad = 0;
	if (getcwd(buf, sizeof(buf)) || errno != ENOENT)
		bad |= 1;
	ssize_t n = readlink("/proc/self/cwd", buf, sizeof(buf) - 1);
	if (n < 0)
		bad |= 2;
	else {
		buf[n] = '\0';
		if (n < 10 || strcmp(buf + n - 10, " (deleted)"))
			bad |= 2;
	}
	if (mkdir("x", 0700) == 0 || errno != ENOENT)
		bad |= 4;
	return bad;
}

static int child_setup(void)
{
	return chdir("gone_cwd");
}

int main(int argc, char **argv)
{
	char top[PATH_MAX], here[PATH_MAX];
	test_init(argc, argv);
	if (!getcwd(top, sizeof(top)) || mkdir("gone_cwd", 0700)) {
		fail("setup");
		return 1;
	}
	pid_t ch = files_sharer_start(child_setup, child_check);
	if (ch < 0 || rmdir("gone_cwd")) {
		fail("rmdir");
		return 1;
	}
	test_daemon();
	test_waitsig();

	if (!getcwd(here, sizeof(here)) || strcmp(here, top))
		fail("the parent's cwd is not the test dir any more");
	if (access("gone_cwd", F_OK) == 0)
		fail("the removed directory is back in the test dir");
	files_sharer_end(ch, "1: getcwd works, 2: cwd not \"(deleted)\", 4: mkdir in it");
	return test_pass();
}
