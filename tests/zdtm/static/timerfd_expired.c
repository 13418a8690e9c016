/* A periodic timerfd (first expiry after 50 us, then every 4 s) that expired once and was not read: the
 * kernel shows it with no time left (it is armed again only by the next read). After restore it is still
 * periodic (interval 4 s, not disarmed), the expiry is there to read (at least 1), and after that read it
 * runs again (time left, at most 4 s) (CRIU's timerfd). */
#include <stdint.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct itimerspec its = {.it_value = {0, 50000}, .it_interval = {4, 0}}, g;
	uint64_t ticks = 0;
	test_init(argc, argv);
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL))
		fail("timerfd");
	usleep(300000);
	test_daemon();
	test_waitsig();

	if (timerfd_gettime(fd, &g) || g.it_interval.tv_sec != 4 || g.it_interval.tv_nsec)
		fail("interval %lld.%09ld, want 4 s (disarmed?)", (long long)g.it_interval.tv_sec,
		     g.it_interval.tv_nsec);
	if (read(fd, &ticks, sizeof(ticks)) != sizeof(ticks) || ticks < 1)
		fail("read: %llu expirations", (unsigned long long)ticks);
	if (timerfd_gettime(fd, &g) || (!g.it_value.tv_sec && !g.it_value.tv_nsec) || g.it_value.tv_sec > 4)
		fail("after the read: %lld.%09ld left, want (0, 4] s", (long long)g.it_value.tv_sec,
		     g.it_value.tv_nsec);
	return test_pass();
}
