/* Guard pages (madvise MADV_GUARD_INSTALL, Linux 6.14+) in an anonymous mapping: a touch of one faults
 * (SIGSEGV), the pages around them keep their data. crshim cannot dump them yet: the dump must fail with one
 * line naming them and leave the test running (tests/zdtm/fd_unsupported.sh --test maps_guard), which then
 * still passes. */
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif

static sigjmp_buf jb;

static void on_segv(int s)
{
	(void)s;
	siglongjmp(jb, 1);
}

/* 1 if a write to p faults. */
static int faults(volatile char *p)
{
	if (sigsetjmp(jb, 1))
		return 1;
	*p = 'x';
	return 0;
}

int main(int argc, char **argv)
{
	long ps = sysconf(_SC_PAGESIZE);
	test_init(argc, argv);
	char *m = mmap(NULL, 4 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		fail("mmap");
	memset(m, 'a', 4 * ps);
	if (madvise(m + ps, ps, MADV_GUARD_INSTALL))
		test_skip("madvise(MADV_GUARD_INSTALL): %m");
	signal(SIGSEGV, on_segv);
	test_daemon();
	test_waitsig();
	if (!faults(m + ps))
		fail("a write to the guard page did not fault");
	for (int i = 0; i < 4; i++)
		if (i != 1 && (m[i * ps] != 'a' || m[i * ps + ps - 1] != 'a'))
			fail("page %d lost its data", i);
	return test_pass();
}
