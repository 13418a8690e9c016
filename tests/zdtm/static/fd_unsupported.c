/* An fd crshim cannot dump (a userfaultfd on fd 9; an eventfd with counter 5 beside it): the dump must
 * fail with one line naming the fd, its kind and the task, and the task must keep running, untraced, with its
 * state. Run by tests/zdtm/fd_unsupported.sh (noauto here: a normal C/R of it fails by design). */
#include <stdint.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	uint64_t v = 0;
	int fd;

	test_init(argc, argv);
	fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || dup2(fd, 9) != 9)
		fail("userfaultfd");
	close(fd);
	fd = eventfd(5, EFD_NONBLOCK);
	if (fd < 0 || dup2(fd, 10) != 10)
		fail("eventfd");
	close(fd);
	test_daemon();
	test_waitsig();

	if (read(10, &v, sizeof(v)) != sizeof(v) || v != 5)
		fail("eventfd counter %llu, want 5", (unsigned long long)v);
	pass();
	return 0;
}
