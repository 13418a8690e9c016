/* A time namespace of its own with monotonic and boottime offsets (+1000 days, +2000 days and a bit),
 * made by test_init before it forks the test (unshare(CLONE_NEWTIME) takes effect in the children; mode
 * cuns: made in the user namespace, which owns it, as it does after the restore). After the
 * restore the task is in a time namespace of its own with the same offsets, and its monotonic and boottime
 * clocks are ahead of the host's by them. */
#include "ns_owned.h"
#include "ns_world.h"

#define MONO 86400000LL
#define BOOT 172800000LL

int main(int argc, char **argv)
{
	unsigned long host = nsw_ino("time");
	char offsets[96];
	snprintf(offsets, sizeof(offsets), "monotonic %lld 500\nboottime %lld 700\n", MONO, BOOT);
	zdtm_timens(offsets);
	test_init(argc, argv);
	if (zdtm_timens_errno())
		test_skip("a time namespace with offsets: %s", strerror(zdtm_timens_errno()));
	static struct nsw_view v[] = {
	    {"time namespace offsets", "cat /proc/self/timens_offsets", NULL, NULL, NULL}};
	nsw_look(v, 1);
	if (nso_now(CLOCK_MONOTONIC) < MONO || nso_now(CLOCK_BOOTTIME) < BOOT)
		fail("setup: clocks not offset: %lld %lld", nso_now(CLOCK_MONOTONIC),
		     nso_now(CLOCK_BOOTTIME));
	int owned = nso_owned_by_ours("time");
	nsw_cr(v, 1, "time", host);
	if (nso_owned_by_ours("time") != owned)
		fail("the time namespace owned by our user namespace: before %s, after %s",
		     owned ? "yes" : "no", owned ? "no" : "yes");
	if (nso_now(CLOCK_MONOTONIC) < MONO || nso_now(CLOCK_BOOTTIME) < BOOT ||
	    nso_now(CLOCK_BOOTTIME) < nso_now(CLOCK_MONOTONIC) + MONO / 2)
		fail("clocks after restore: monotonic %lld, boottime %lld", nso_now(CLOCK_MONOTONIC),
		     nso_now(CLOCK_BOOTTIME));
	return test_pass();
}
