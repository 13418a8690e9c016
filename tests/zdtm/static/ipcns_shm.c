/* System V shared memory in the tree's own IPC namespace: a keyed segment (0x4e535703, 3 pages, mode 0640)
 * attached and filled, a second one attached read-only. After the restore the namespace is ours, the
 * segments have the same ids and keys, the same contents at the same addresses, and are not in the host's
 * namespace (read by the runner's host agent, in every mode). */
#include <sys/ipc.h>
#include <sys/shm.h>
#include "ns_world.h"

#define SZ (3 * 4096)

int main(int argc, char **argv)
{
	struct shmid_ds ds;
	unsigned long host = nsw_init(argc, argv, CLONE_NEWIPC, "ipc");
	int a = shmget(0x4e535703, SZ, IPC_CREAT | 0640), b = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	char *p = a < 0 ? NULL : shmat(a, NULL, 0), *q;
	if (!p || p == (void *)-1 || b < 0)
		fail("setup: shm");
	datagen(p, SZ, 77);
	q = shmat(b, NULL, 0);
	memcpy(q, "nsworld", 8);
	shmdt(q);
	q = shmat(b, NULL, SHM_RDONLY);
	if (q == (void *)-1)
		fail("setup: shmat read-only");
	test_daemon();
	test_waitsig();
	nsw_own("ipc", host);
	if (datachk(p, SZ, 77, NULL) || memcmp(q, "nsworld", 8))
		fail("contents");
	if (shmctl(a, IPC_STAT, &ds) || ds.shm_perm.__key != 0x4e535703 || (ds.shm_perm.mode & 0777) != 0640)
		fail("segment %d", a);
	if (shmget(0x4e535703, 0, 0) != a)
		fail("key 0x4e535703 does not find segment %d", a);
	nsw_host_lacks("ipcs -m", "0x4e535703"); /* the host agent, in every mode */
	shmdt(p);
	shmdt(q);
	shmctl(a, IPC_RMID, NULL);
	shmctl(b, IPC_RMID, NULL);
	return test_pass();
}
