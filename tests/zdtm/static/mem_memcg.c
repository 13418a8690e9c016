/* Private anonymous memory is charged to the memory cgroup of its tree, not to crshim's: a page is charged
 * for good to the memory cgroup it is allocated in, and the restore of a single process prefills its large
 * private VMAs in crshim before clone3 (engine/mem/restore-pages.c). The test, in a v1 memory cgroup of its
 * own (memcg_test.h), fills 16 private anonymous VMAs of 4 MiB: "rss" of its memory.stat grows by about
 * 64 MiB. After restore the contents are there and that cgroup's "rss" is at least 3/4 of 64 MiB. Before:
 * about 0.1 MiB (the prefilled pages were charged to crshim's memory cgroup, and stayed so). */
#include <sys/mman.h>
#include "memcg_test.h"

#define NV 16
#define SZ (4L << 20)

int main(int argc, char **argv)
{
	unsigned char *v[NV];
	test_init(argc, argv);
	memcg_setup("zdtm-anonmem");
	long r0 = memcg_stat("rss");
	for (int i = 0; i < NV; i++) {
		v[i] = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (v[i] == MAP_FAILED) {
			memcg_cleanup();
			fail("setup: mmap: %m");
			return 1;
		}
		for (long o = 0; o < SZ; o += 4096)
			v[i][o] = (unsigned char)(i * 7 + o / 4096);
	}
	long r1 = memcg_stat("rss");
	if (r0 < 0 || r1 - r0 < NV * SZ * 3 / 4) {
		memcg_cleanup();
		test_skip("no anonymous charges seen in memory.stat (%ld bytes for %ld)", r1 - r0, NV * SZ);
	}
	test_msg("rss of %s: %ld\n", memcg_top, r1);
	test_daemon();
	test_waitsig();

	long r2 = memcg_stat("rss");
	int ok = 1;
	for (int i = 0; i < NV; i++)
		for (long o = 0; o < SZ; o += 4096)
			ok &= v[i][o] == (unsigned char)(i * 7 + o / 4096);
	for (int i = 0; i < NV; i++)
		munmap(v[i], SZ);
	memcg_cleanup();
	if (!ok)
		fail("the private memory lost its contents");
	if (r2 < NV * SZ * 3 / 4)
		fail("after restore the test's memory cgroup holds %ld bytes of rss, want at least %ld (3/4 "
		     "of its "
		     "%ld bytes of private memory): they are charged elsewhere",
		     r2, NV * SZ * 3 / 4, NV * SZ);
	return test_pass();
}
