/* Event fds held by two processes of the tree (inherited by fork): an eventfd (counter 2), a memfd
 * (contents, shared offset) and an inotify instance. After restore they are still one file each: the
 * child adds 5 to the eventfd, writes into the memfd through its fd (moving the shared offset) and makes
 * an event the parent's inotify watch sees; the parent then finds all of it through its own fds. */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	int efd, mfd, ifd, go[2], st, wd;
	uint64_t v = 0;
	char buf[64] __attribute__((aligned(8)));
	pid_t pid;

	test_init(argc, argv);
	efd = eventfd(2, EFD_NONBLOCK);
	mfd = memfd_create("shared", 0);
	ifd = inotify_init1(IN_NONBLOCK);
	if (efd < 0 || mfd < 0 || ifd < 0 || pipe(go) || write(mfd, "0123456789", 10) != 10 ||
	    mkdir("shared.d", 0755))
		fail("setup");
	wd = inotify_add_watch(ifd, "shared.d", IN_CREATE);
	if (wd < 0)
		fail("watch");
	pid = test_fork();
	if (pid == 0) {
		char c;
		uint64_t five = 5;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		if (write(efd, &five, sizeof(five)) != sizeof(five) || write(mfd, "AB", 2) != 2 ||
		    close(open("shared.d/x", O_CREAT | O_WRONLY, 0644)))
			_exit(2);
		_exit(0);
	}
	close(go[0]);
	test_daemon();
	test_waitsig();

	if (write(go[1], "g", 1) != 1 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child");
	if (read(efd, &v, sizeof(v)) != sizeof(v) || v != 7)
		fail("eventfd counter %llu, want 2 + 5 from the child", (unsigned long long)v);
	if (lseek(mfd, 0, SEEK_CUR) != 12 || pread(mfd, buf, 12, 0) != 12 || memcmp(buf, "0123456789AB", 12))
		fail("memfd: offset %lld, the child's write is not in the parent's memfd",
		     (long long)lseek(mfd, 0, SEEK_CUR));
	if (read(ifd, buf, sizeof(buf)) <= 0 || ((struct inotify_event *)buf)->wd != wd)
		fail("inotify: the child's file creation is not seen");
	pass();
	return 0;
}
