/* A memfd of the parent (fd 30) that its child opened again through /proc/PARENT/fd/30 (its own open file
 * description at fd 31, with its own offset; the child does not hold fd 30). After restore it is one memfd
 * again: same inode in both, the contents kept, a write of the child through fd 31 is read by the parent. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { PFD = 30, CFD = 31 };

int main(int argc, char **argv)
{
	sigset_t m;
	int sig, res[2] = {-1, -1}, go[2] = {-1, -1};
	char path[64], buf[8] = "";

	test_init(argc, argv);
	int fd = memfd_create("memfd_tree", 0);
	if (fd < 0 || dup2(fd, PFD) != PFD || pwrite(PFD, "parent", 6, 0) != 6 || pipe(res) || pipe(go))
		fail("memfd");
	close(fd);
	pid_t parent = getpid();
	usr1_mask(&m);
	pid_t ch = test_fork();
	if (ch == 0) {
		close(PFD);
		close(res[0]);
		close(go[0]);
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)parent, PFD);
		fd = open(path, O_RDWR);
		if (fd < 0 || dup2(fd, CFD) != CFD || lseek(CFD, 3, SEEK_SET) != 3 ||
		    write(go[1], "r", 1) != 1)
			_exit(3);
		close(fd);
		sigwait(&m, &sig);
		if (write(CFD, "C", 1) != 1) /* at offset 3 */
			_exit(1);
		child_devino_exit(CFD, res[1]);
	}
	close(res[1]);
	close(go[1]);
	if (read(go[0], buf, 1) != 1)
		fail("the child did not open the memfd");
	test_daemon();
	test_waitsig();

	child_same_devino(ch, res[0], PFD, "memfd");
	if (pread(PFD, buf, 6, 0) != 6 || memcmp(buf, "parCnt", 6))
		fail("contents \"%.6s\", want \"parCnt\" (the child's write at its offset 3)", buf);
	pass();
	return 0;
}
