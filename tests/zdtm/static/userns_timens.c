/* A time namespace owned by the tree's user namespace in a tree not born in it (its PID and mount namespaces
 * are not owned by it): the test, in a user namespace of its own (modes cr and ns: made by the test, `0 0 1`;
 * modes uns and cuns: the mode's), unshares a time namespace with offsets (+10 days monotonic, +20 days
 * boottime) and enters it itself (setns on its time_for_children). After the restore the time namespace
 * is still owned by our user namespace, with the same offsets, and the clocks are ahead by them. Failed
 * before: the dump refused it with one line ("owns the root's time namespace but not its PID and mount
 * namespaces"; mode cuns restored it, born in its user namespace). */
#include "ns_owned.h"

#define MONO 864000LL
#define BOOT 1728000LL

int main(int argc, char **argv)
{
	char want[128], before[128], after[128];
	test_init(argc, argv);
	nso_own_userns();
	if (unshare(CLONE_NEWTIME))
		test_skip("unshare(CLONE_NEWTIME): %m");
	snprintf(want, sizeof(want), "monotonic %lld 0\nboottime %lld 0\n", MONO, BOOT);
	uref_write("/proc/self/timens_offsets", want);
	int fd = open("/proc/self/ns/time_for_children", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWTIME))
		fail("setup: enter our time namespace: %m");
	if (fd >= 0)
		close(fd);
	nso_read("/proc/self/timens_offsets", before, sizeof(before));
	if (!nso_owned_by_ours("time") || nso_now(CLOCK_MONOTONIC) < MONO || nso_now(CLOCK_BOOTTIME) < BOOT)
		fail("setup: time namespace not ours or clocks not offset (%lld %lld)",
		     nso_now(CLOCK_MONOTONIC), nso_now(CLOCK_BOOTTIME));
	long long mono = nso_now(CLOCK_MONOTONIC);
	test_daemon();
	test_waitsig();
	nso_read("/proc/self/timens_offsets", after, sizeof(after));
	if (strcmp(before, after))
		fail("offsets: before '%s', after '%s'", before, after);
	if (!nso_owned_by_ours("time"))
		fail("the time namespace is not owned by our user namespace after restore");
	if (nso_now(CLOCK_MONOTONIC) < mono || nso_now(CLOCK_BOOTTIME) < nso_now(CLOCK_MONOTONIC) + MONO / 2)
		fail("clocks after restore: monotonic %lld (was %lld), boottime %lld",
		     nso_now(CLOCK_MONOTONIC), mono, nso_now(CLOCK_BOOTTIME));
	if (!test_failures)
		pass();
	return 0;
}
