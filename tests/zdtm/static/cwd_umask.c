/* cwd (a subdirectory of the test dir) and umask survive. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	char before[PATH_MAX], after[PATH_MAX];
	struct stat st;
	mode_t m;

	test_init(argc, argv);
	mkdir("cwd_umask.dir", 0755);
	mkdir("cwd_umask.dir/sub dir", 0755);
	if (chdir("cwd_umask.dir/sub dir"))
		fail("chdir");
	if (!getcwd(before, sizeof(before)))
		fail("getcwd");
	umask(0027);
	test_daemon();
	test_waitsig();

	if (!getcwd(after, sizeof(after)))
		fail("getcwd after");
	else if (strcmp(before, after))
		fail("cwd %s, want %s", after, before);
	m = umask(0);
	if (m != 0027)
		fail("umask %03o, want 027", m);
	umask(0027);
	int fd = open("newfile", O_CREAT | O_WRONLY, 0666);
	if (fd < 0 || fstat(fd, &st))
		fail("create in cwd");
	else if ((st.st_mode & 0777) != 0640)
		fail("new file mode %03o, want 640", st.st_mode & 0777);
	pass();
	return 0;
}
