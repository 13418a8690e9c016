/* membarrier registrations of the address space: private expedited and its sync-core kind registered, the
 * rseq kind not. After the restore the registered kinds' barriers work and the other one still fails with
 * EPERM (no call reads the registrations; the barriers tell them). */
#include <errno.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

static int mb(int cmd)
{
	return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

static const struct {
	int probe, reg;
	const char *name;
} kinds[] = {
    {MEMBARRIER_CMD_PRIVATE_EXPEDITED, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, "private expedited"},
    {MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE,
     "private expedited sync-core"},
    {MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ,
     "private expedited rseq"},
};
#define NKINDS (int)(sizeof(kinds) / sizeof(kinds[0]))
#define NREG 2 /* the first NREG kinds are registered */

/* Each kind the kernel has: registered ones barrier (0), the others refuse (EPERM). */
static void check(const char *when, int have)
{
	for (int i = 0; i < NKINDS; i++) {
		if (!(have & kinds[i].probe))
			continue;
		int r = mb(kinds[i].probe);
		if (i < NREG && r)
			fail("%s: %s barrier failed, want it registered", when, kinds[i].name);
		if (i >= NREG && !(r < 0 && errno == EPERM))
			fail("%s: %s barrier returned %d (errno %d), want EPERM (not registered)", when,
			     kinds[i].name, r, errno);
	}
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	int have = mb(MEMBARRIER_CMD_QUERY);
	if (have < 0 || !(have & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		fail("membarrier: no private expedited barriers here (query %d)", have);
	for (int i = 0; i < NREG; i++)
		if ((have & kinds[i].reg) && mb(kinds[i].reg))
			fail("register the %s barrier", kinds[i].name);
	check("before", have);
	test_daemon();
	test_waitsig();
	check("after the restore", have);
	return test_pass();
}
