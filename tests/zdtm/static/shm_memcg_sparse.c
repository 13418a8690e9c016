/* shm_memcg with large sparse objects in a tight memory cgroup: the room crshim wants in the tree's memory
 * cgroup before it makes and fills a shared memory object there is the bytes of the object's pages in the
 * images (what filling it allocates), not the object's size. The test, in a v1 memory cgroup of its own
 * (memcg_test.h), maps a 4 GiB memfd, 1 GiB of shared anonymous memory and a 1 GiB System V segment and
 * writes 1 MiB into each (256 pages spread over it); memory.limit_in_bytes is then 64 MiB. After restore the
 * contents are there and that cgroup holds at least 3/4 of the 3 MiB as shmem. Before: crshim counted each
 * object by its size (4 GiB + 16 MiB wanted, 64 MiB allowed), stayed in its own memory cgroup and the pages
 * were charged there (0 bytes of shmem in the test's). */
#include <stdint.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include "memcg_test.h"

#define MFD_SZ (4ULL << 30)
#define BIG_SZ (1ULL << 30)
#define NPG 256L
#define LIMIT (64L << 20)

static void fill(unsigned char *p, uint64_t size, unsigned char seed)
{
	for (long i = 0; i < NPG; i++)
		memset(p + (size / NPG) * (uint64_t)i, (unsigned char)(seed + i), 4096);
}

static int same(const unsigned char *p, uint64_t size, unsigned char seed)
{
	for (long i = 0; i < NPG; i++) {
		const unsigned char *q = p + (size / NPG) * (uint64_t)i;
		if (q[0] != (unsigned char)(seed + i) || q[4095] != (unsigned char)(seed + i))
			return 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	memcg_setup("zdtm-shmsparse");
	int id = shmget(IPC_PRIVATE, BIG_SZ, IPC_CREAT | 0600);
	unsigned char *sysv = id < 0 ? (void *)-1 : shmat(id, NULL, 0);
	unsigned char *anon =
	    mmap(NULL, BIG_SZ, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	int mfd = memfd_create("zdtm_shm_memcg_sparse", MFD_CLOEXEC);
	unsigned char *mem =
	    mfd < 0 || ftruncate(mfd, (off_t)MFD_SZ)
		? MAP_FAILED
		: mmap(NULL, MFD_SZ, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, mfd, 0);
	if (sysv == (void *)-1 || anon == MAP_FAILED || mem == MAP_FAILED) {
		if (id >= 0)
			shmctl(id, IPC_RMID, NULL);
		memcg_cleanup();
		test_skip("no sparse shared memory: %m");
	}
	long s0 = memcg_stat("shmem"), want = 3 * NPG * 4096;
	fill(sysv, BIG_SZ, 1);
	fill(anon, BIG_SZ, 2);
	fill(mem, MFD_SZ, 3);
	long s1 = memcg_stat("shmem");
	if (s0 < 0 || s1 - s0 < want * 3 / 4) {
		shmctl(id, IPC_RMID, NULL);
		memcg_cleanup();
		test_skip("no shmem charges seen in memory.stat (%ld bytes for %ld)", s1 - s0, want);
	}
	if (memcg_val("memory.usage_in_bytes") > LIMIT / 2) {
		shmctl(id, IPC_RMID, NULL);
		memcg_cleanup();
		test_skip("the test's memory cgroup holds %ld bytes already: no room for a 64 MiB limit",
			  memcg_val("memory.usage_in_bytes"));
	}
	memcg_put("memory.limit_in_bytes", LIMIT);
	test_msg("shmem of %s: %ld, limit %ld\n", memcg_top, s1, LIMIT);
	test_daemon();
	test_waitsig();

	long s2 = memcg_stat("shmem");
	int ok = same(sysv, BIG_SZ, 1) && same(anon, BIG_SZ, 2) && same(mem, MFD_SZ, 3);
	shmdt(sysv);
	shmctl(id, IPC_RMID, NULL);
	munmap(anon, BIG_SZ);
	munmap(mem, MFD_SZ);
	close(mfd);
	memcg_cleanup();
	if (!ok)
		fail("the shared memory lost its contents");
	if (s2 < want * 3 / 4)
		fail(
		    "after restore the test's memory cgroup (limit 64 MiB) holds %ld bytes of shmem, want at "
		    "least %ld (3/4 of the %ld bytes written into 6 GiB of sparse shared memory): they are "
		    "charged elsewhere",
		    s2, want * 3 / 4, want);
	return test_pass();
}
