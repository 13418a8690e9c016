/* System V shared memory in the tree's own IPC namespace that no process attaches: a keyed segment
 * (0x4e535704, 3 pages, mode 0604) filled and detached, and an IPC_PRIVATE one never attached. Before,
 * the dump saw segments only through the tree's mappings, so these were lost without a word. After the
 * restore both are there with the same ids, key, mode and size, nobody attached, the first with its
 * contents, the second zeroed; and they are not in the host's namespace. */
#include <sys/ipc.h>
#include <sys/shm.h>
#include "ns_world.h"

#define SZ (3 * 4096)

static void check_seg(int id, key_t key, unsigned mode, size_t size)
{
	struct shmid_ds ds;
	if (shmctl(id, IPC_STAT, &ds))
		fail("segment %d is gone", id);
	else if (ds.shm_perm.__key != key || (ds.shm_perm.mode & 0777) != mode || ds.shm_segsz != size ||
		 ds.shm_nattch != 0)
		fail("segment %d: key %#x mode %o size %zu nattch %lu", id, ds.shm_perm.__key,
		     ds.shm_perm.mode & 0777, (size_t)ds.shm_segsz, (unsigned long)ds.shm_nattch);
}

int main(int argc, char **argv)
{
	unsigned long host = nsw_init(argc, argv, CLONE_NEWIPC, "ipc");
	int a = shmget(0x4e535704, SZ, IPC_CREAT | 0604), b = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	char *p = a < 0 ? NULL : shmat(a, NULL, 0);
	if (!p || p == (void *)-1 || b < 0)
		fail("setup: shm");
	datagen(p, SZ, 78);
	shmdt(p);
	test_daemon();
	test_waitsig();
	nsw_own("ipc", host);
	check_seg(a, 0x4e535704, 0604, SZ);
	check_seg(b, IPC_PRIVATE, 0600, 4096);
	if (shmget(0x4e535704, 0, 0) != a)
		fail("key 0x4e535704 does not find segment %d", a);
	p = shmat(a, NULL, SHM_RDONLY);
	if (p == (void *)-1 || datachk(p, SZ, 78, NULL))
		fail("contents of segment %d", a);
	char *q = shmat(b, NULL, SHM_RDONLY);
	for (size_t i = 0; q != (void *)-1 && i < 4096; i++)
		if (q[i]) {
			fail("segment %d is not zero at %zu", b, i);
			break;
		}
	nsw_host_lacks("ipcs -m", "0x4e535704"); /* the host agent, in every mode */
	shmctl(a, IPC_RMID, NULL);
	shmctl(b, IPC_RMID, NULL);
	return test_pass();
}
