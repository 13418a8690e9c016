/* A time namespace of its own with monotonic and boottime offsets (+1000 days, +2000 days and a bit),
 * entered before the test daemonizes (unshare(CLONE_NEWTIME) takes effect in the children). After the
 * restore the task is in a time namespace of its own with the same offsets, and its monotonic and boottime
 * clocks are ahead of the host's by them. */
#include <time.h>
#include "ns_world.h"

#define MONO 86400000LL
#define BOOT 172800000LL

static long long now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec;
}

int main(int argc, char **argv)
{
	unsigned long host = nsw_ino("time");
	if (unshare(CLONE_NEWTIME)) {
		test_init(argc, argv);
		test_skip("unshare(CLONE_NEWTIME): %m");
	}
	FILE *f = fopen("/proc/self/timens_offsets", "w");
	if (!f || fprintf(f, "monotonic %lld 500\nboottime %lld 700\n", MONO, BOOT) < 0 || fclose(f)) {
		test_init(argc, argv);
		test_skip("timens_offsets: %m");
	}
	test_init(argc, argv);
	static struct nsw_view v[] = {
	    {"time namespace offsets", "cat /proc/self/timens_offsets", NULL, NULL, NULL}};
	nsw_look(v, 1);
	if (now(CLOCK_MONOTONIC) < MONO || now(CLOCK_BOOTTIME) < BOOT)
		fail("setup: clocks not offset: %lld %lld", now(CLOCK_MONOTONIC), now(CLOCK_BOOTTIME));
	nsw_cr(v, 1, "time", host);
	if (now(CLOCK_MONOTONIC) < MONO || now(CLOCK_BOOTTIME) < BOOT ||
	    now(CLOCK_BOOTTIME) < now(CLOCK_MONOTONIC) + MONO / 2)
		fail("clocks after restore: monotonic %lld, boottime %lld", now(CLOCK_MONOTONIC),
		     now(CLOCK_BOOTTIME));
	return test_pass();
}
