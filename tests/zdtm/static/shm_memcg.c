/* Shared memory is charged to the memory cgroup of its tree, not to crshim's: a shmem page is charged for
 * good to the memory cgroup of the process that first touches it, and crshim makes and fills at restore the
 * System V segments, the shared anonymous memory and the memfds shared by mapping
 * (engine/mem/restore-shmem.c, restore-ipc-shm.c). The test, in a v1 memory cgroup of its own (memcg_test.h),
 * fills an 8 MiB System V segment, 8 MiB of shared anonymous memory and an 8 MiB memfd, all mapped: "shmem"
 * of its memory.stat is about 24 MiB. After restore the contents are there and that cgroup's "shmem" is at
 * least 3/4 of 24 MiB. Before: about 0 (the pages were charged to crshim's memory cgroup). */
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include "memcg_test.h"

#define SZ (8L << 20)

static void fill(unsigned char *p, unsigned char seed)
{
	for (long i = 0; i < SZ; i += 4096)
		p[i] = (unsigned char)(seed + i / 4096);
}

static int same(const unsigned char *p, unsigned char seed)
{
	for (long i = 0; i < SZ; i += 4096)
		if (p[i] != (unsigned char)(seed + i / 4096))
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	memcg_setup("zdtm-shmmem");
	int id = shmget(IPC_PRIVATE, SZ, IPC_CREAT | 0600);
	unsigned char *sysv = id < 0 ? (void *)-1 : shmat(id, NULL, 0);
	unsigned char *anon = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int mfd = memfd_create("zdtm_shm_memcg", MFD_CLOEXEC);
	unsigned char *mem = mfd < 0 || ftruncate(mfd, SZ)
				 ? MAP_FAILED
				 : mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (sysv == (void *)-1 || anon == MAP_FAILED || mem == MAP_FAILED) {
		if (id >= 0)
			shmctl(id, IPC_RMID, NULL);
		memcg_cleanup();
		fail("setup: shared memory: %m");
		return 1;
	}
	long s0 = memcg_stat("shmem");
	fill(sysv, 1);
	fill(anon, 2);
	fill(mem, 3);
	long s1 = memcg_stat("shmem");
	if (s0 < 0 || s1 - s0 < 3 * SZ * 3 / 4) {
		shmctl(id, IPC_RMID, NULL);
		memcg_cleanup();
		test_skip("no shmem charges seen in memory.stat (%ld bytes for %ld)", s1 - s0, 3 * SZ);
	}
	test_msg("shmem of %s: %ld\n", memcg_top, s1);
	test_daemon();
	test_waitsig();

	long s2 = memcg_stat("shmem");
	int ok = same(sysv, 1) && same(anon, 2) && same(mem, 3);
	shmdt(sysv);
	shmctl(id, IPC_RMID, NULL);
	munmap(anon, SZ);
	munmap(mem, SZ);
	close(mfd);
	memcg_cleanup();
	if (!ok)
		fail("the shared memory lost its contents");
	if (s2 < 3 * SZ * 3 / 4)
		fail(
		    "after restore the test's memory cgroup holds %ld bytes of shmem, want at least %ld (3/4 "
		    "of its %ld bytes of shared memory): they are charged elsewhere",
		    s2, 3 * SZ * 3 / 4, 3 * SZ);
	return test_pass();
}
