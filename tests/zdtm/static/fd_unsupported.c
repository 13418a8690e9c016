/* An fd crshim cannot dump yet (an eventfd, fd 9, counter 5): the dump must fail with one line naming
 * the fd, its kind and the task, and the task must keep running, untraced, with its state. Run by
 * tests/zdtm/fd_unsupported.sh (noauto here: a normal C/R of it fails by design). */
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	uint64_t v = 0;
	int fd;

	test_init(argc, argv);
	fd = eventfd(5, EFD_NONBLOCK);
	if (fd < 0 || dup2(fd, 9) != 9)
		fail("eventfd");
	close(fd);
	test_daemon();
	test_waitsig();

	if (read(9, &v, sizeof(v)) != sizeof(v) || v != 5)
		fail("eventfd counter %llu, want 5", (unsigned long long)v);
	pass();
	return 0;
}
