/* membarrier registrations read by MEMBARRIER_CMD_GET_REGISTRATIONS (Linux 6.3+): global expedited (which no
 * barrier shows: its barrier works whether the process registered or not) and private expedited registered,
 * sync-core and rseq not. After restore the same set is registered (before: the global one was lost; CRIU's
 * membarrier). */
#include <errno.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

#define GET_REGISTRATIONS (1 << 9)

static int mb(int cmd)
{
	return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

int main(int argc, char **argv)
{
	const int want = MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED | MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED;
	test_init(argc, argv);
	int have = mb(MEMBARRIER_CMD_QUERY);
	if (have < 0 || (have & want) != want)
		test_skip("no global and private expedited barriers here");
	if (mb(GET_REGISTRATIONS) < 0 && errno == EINVAL)
		test_skip("no MEMBARRIER_CMD_GET_REGISTRATIONS (Linux < 6.3)");
	if (mb(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) || mb(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED))
		fail("register the barriers");
	int before = mb(GET_REGISTRATIONS);
	if (before != want)
		fail("registrations 0x%x before, want 0x%x", before, want);
	test_daemon();
	test_waitsig();
	int after = mb(GET_REGISTRATIONS);
	if (after != before)
		fail("registrations 0x%x after the restore, 0x%x before", after, before);
	if (mb(MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		fail("private expedited barrier: errno %d", errno);
	return test_pass();
}
