/* Lowered soft and hard rlimits survive (getrlimit and /proc/self/limits). */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct rlimit before[RLIM_NLIMITS], r;
	static const struct {
		int res;
		rlim_t soft, hard;
	} set[] = {
	    {RLIMIT_NOFILE, 300, 777},
	    {RLIMIT_CORE, 0, 1 << 20},
	    {RLIMIT_STACK, 6 << 20, RLIM_INFINITY},
	    {RLIMIT_NPROC, 4000, 5000},
	    {RLIMIT_MSGQUEUE, 100000, 200000},
	    {RLIMIT_SIGPENDING, 1000, 2000},
	    {RLIMIT_FSIZE, 1ULL << 40, RLIM_INFINITY},
	    {RLIMIT_MEMLOCK, 1 << 20, 2 << 20},
	    {RLIMIT_LOCKS, 1000, RLIM_INFINITY},
	    {RLIMIT_CPU, 100000, 200000},
	};
	char *lim0, *lim1;
	size_t i;

	test_init(argc, argv);
	for (i = 0; i < ARRAY_SIZE(set); i++) {
		r.rlim_cur = set[i].soft;
		r.rlim_max = set[i].hard;
		if (setrlimit(set[i].res, &r))
			fail("setrlimit %d", set[i].res);
	}
	for (i = 0; i < RLIM_NLIMITS; i++)
		getrlimit(i, &before[i]);
	read_file("/proc/self/limits", &lim0);
	test_daemon();
	test_waitsig();

	for (i = 0; i < RLIM_NLIMITS; i++) {
		getrlimit(i, &r);
		if (r.rlim_cur != before[i].rlim_cur || r.rlim_max != before[i].rlim_max)
			fail("rlimit %zu: %llu/%llu, want %llu/%llu", i, (unsigned long long)r.rlim_cur,
			     (unsigned long long)r.rlim_max, (unsigned long long)before[i].rlim_cur,
			     (unsigned long long)before[i].rlim_max);
	}
	read_file("/proc/self/limits", &lim1);
	if (strcmp(lim0, lim1))
		fail("/proc/self/limits changed");
	/* the hard limit is really enforced */
	r.rlim_cur = r.rlim_max = 778;
	if (setrlimit(RLIMIT_NOFILE, &r) == 0 && geteuid() != 0)
		fail("raised NOFILE hard limit as non-root");
	pass();
	return 0;
}
