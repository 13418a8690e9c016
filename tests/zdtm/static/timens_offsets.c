/* A time namespace of its own with monotonic and boottime offsets (+1000 days, +2000 days and a bit),
 * made by test_init before it forks the test (unshare(CLONE_NEWTIME) takes effect in the children; mode
 * cuns: made in the user namespace, which owns it, as it does after the restore). After the
 * restore the task is in a time namespace of its own with the same offsets, and its monotonic and boottime
 * clocks are ahead of the host's by them. */
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "ns_world.h"

#define MONO 86400000LL
#define BOOT 172800000LL

static long long now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec;
}

/* Our time namespace is owned by our user namespace (mode cuns), not by an ancestor of it. */
static int owned_by_ours(void)
{
	struct stat a, b;
	int ns = open("/proc/self/ns/time", O_RDONLY | O_CLOEXEC);
	int u = ns < 0 ? -1 : ioctl(ns, NS_GET_USERNS);
	int r = u >= 0 && !fstat(u, &a) && !stat("/proc/self/ns/user", &b) && a.st_ino == b.st_ino;
	if (ns >= 0)
		close(ns);
	if (u >= 0)
		close(u);
	return r;
}

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
	if (now(CLOCK_MONOTONIC) < MONO || now(CLOCK_BOOTTIME) < BOOT)
		fail("setup: clocks not offset: %lld %lld", now(CLOCK_MONOTONIC), now(CLOCK_BOOTTIME));
	int owned = owned_by_ours();
	nsw_cr(v, 1, "time", host);
	if (owned_by_ours() != owned)
		fail("the time namespace owned by our user namespace: before %s, after %s",
		     owned ? "yes" : "no", owned ? "no" : "yes");
	if (now(CLOCK_MONOTONIC) < MONO || now(CLOCK_BOOTTIME) < BOOT ||
	    now(CLOCK_BOOTTIME) < now(CLOCK_MONOTONIC) + MONO / 2)
		fail("clocks after restore: monotonic %lld, boottime %lld", now(CLOCK_MONOTONIC),
		     now(CLOCK_BOOTTIME));
	return test_pass();
}
