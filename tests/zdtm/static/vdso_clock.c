/* vDSO clock calls after restore: clock_gettime (several clocks), gettimeofday,
 * time work, agree with the raw syscalls, monotonic never goes backwards; the
 * vDSO is still where AT_SYSINFO_EHDR says and is an ELF image. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "zdtmtst.h"

static long long ns(const struct timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

int main(int argc, char **argv)
{
	const clockid_t clks[] = {CLOCK_REALTIME, CLOCK_MONOTONIC,	 CLOCK_MONOTONIC_RAW,
				  CLOCK_BOOTTIME, CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE,
				  CLOCK_TAI};
	struct timespec mono0, t, s, prev;
	unsigned long vdso = getauxval(AT_SYSINFO_EHDR);
	char l0[96], l[96];
	size_t i;

	test_init(argc, argv);
	clock_gettime(CLOCK_MONOTONIC, &mono0);
	if (!vdso || vma_info((void *)vdso, l0, sizeof(l0), NULL, 0))
		fail("no vdso");
	test_daemon();
	test_waitsig();

	if (vma_info((void *)vdso, l, sizeof(l), NULL, 0) || strcmp(l, l0))
		fail("vdso vma '%s', want '%s'", l, l0);
	if (memcmp((void *)vdso, ELFMAG, SELFMAG))
		fail("no ELF image at AT_SYSINFO_EHDR");
	for (i = 0; i < ARRAY_SIZE(clks); i++) {
		long long d;
		if (clock_gettime(clks[i], &t) || syscall(SYS_clock_gettime, clks[i], &s)) {
			fail("clock %d", clks[i]);
			continue;
		}
		d = ns(&s) - ns(&t);
		/* coarse clocks lag by up to a tick */
		if (d < 0 || d > 500 * 1000000LL) /* coarse clocks lag a tick; preemption */
			fail("clock %d: vdso %lld vs syscall %lld (diff %lld ns)", clks[i], ns(&t), ns(&s),
			     d);
	}
	clock_gettime(CLOCK_MONOTONIC, &t);
	if (ns(&t) < ns(&mono0))
		fail("CLOCK_MONOTONIC went backwards across C/R");
	struct timeval tv;
	struct timespec rt;
	gettimeofday(&tv, NULL);
	clock_gettime(CLOCK_REALTIME, &rt);
	time_t now = time(NULL);
	if (labs(tv.tv_sec - rt.tv_sec) > 1 || labs(now - rt.tv_sec) > 1 ||
	    labs(now - syscall(SYS_time, NULL)) > 1)
		fail("gettimeofday %ld, time %ld, clock_gettime %ld disagree", (long)tv.tv_sec, (long)now,
		     (long)rt.tv_sec);
	clock_gettime(CLOCK_MONOTONIC, &prev);
	for (i = 0; i < 2000000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (ns(&t) < ns(&prev)) {
			fail("CLOCK_MONOTONIC went backwards: %lld < %lld", ns(&t), ns(&prev));
			break;
		}
		prev = t;
	}
	pass();
	return 0;
}
