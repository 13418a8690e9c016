/* One unlinked file opened separately (two open file descriptions) by a parent and its child: the parent
 * holds fd 40, the child only fd 41 (its own open). After restore they are still one inode: a write by the
 * child through its fd is read by the parent through its own, and both fds have the same dev/ino. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NAME "unlink_tree.file"
enum { PFD = 40, CFD = 41 };

int main(int argc, char **argv)
{
	sigset_t m;
	int sig, res[2] = {-1, -1};
	struct stat a = {0};
	char c = 0;

	test_init(argc, argv);
	int fd = open(NAME, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || dup2(fd, PFD) != PFD || pwrite(PFD, "parent", 6, 0) != 6)
		fail("open");
	close(fd);
	fd = open(NAME, O_RDWR);
	if (fd < 0 || dup2(fd, CFD) != CFD || pipe(res))
		fail("open again");
	close(fd);
	usr1_mask(&m);
	pid_t ch = test_fork();
	if (ch == 0) {
		close(PFD);
		close(res[0]);
		sigwait(&m, &sig);
		if (pwrite(CFD, "C", 1, 100) != 1)
			_exit(1);
		child_devino_exit(CFD, res[1]);
	}
	close(CFD);
	close(res[1]);
	if (unlink(NAME))
		fail("unlink");
	test_daemon();
	test_waitsig();

	child_same_devino(ch, res[0], PFD, "file");
	if (fstat(PFD, &a))
		fail("fstat");
	if (pread(PFD, &c, 1, 100) != 1 || c != 'C')
		fail("the child's write is not seen by the parent (%#x)", c & 0xff);
	if (a.st_nlink != 0 || access(NAME, F_OK) == 0)
		fail("the file is linked again");
	pass();
	return 0;
}
