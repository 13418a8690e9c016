/* Runner self-check: changes its comm, maps a new region and opens an fd 1 s after it is
 * ready, as a broken restore would. The runner's before/after comparison must
 * report it. The test itself passes. */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	test_daemon();
	sleep(1);
	prctl(PR_SET_NAME, "selftest-drift");
	if (mmap(NULL, 3 * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
		fail("mmap");
	if (open("/dev/null", O_RDONLY) < 0)
		fail("open");
	test_waitsig();
	pass();
	return 0;
}
