/* System V semaphore sets in the tree's own IPC namespace: one with a key (0x4e535701) and 5 semaphores set
 * to 0, 1, 7, 300, 32767, mode 0640 and another group, one IPC_PRIVATE set with 2. After the restore the
 * namespace is ours (not the host's), both sets have the same ids, keys, modes, owners and values, and a
 * semop on them works. */
#include <sys/ipc.h>
#include <sys/sem.h>
#include "ns_world.h"

union semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

static const unsigned short want[5] = {0, 1, 7, 300, 32767};

static void check(int id, key_t key, int n, const unsigned short *v, unsigned mode, gid_t gid,
		  const char *when)
{
	struct semid_ds ds = {0};
	unsigned short got[8] = {0};
	union semun u = {.buf = &ds};
	if (semctl(id, 0, IPC_STAT, u) < 0)
		return fail("%s: set %d: IPC_STAT", when, id);
	if (ds.sem_perm.__key != key || (int)ds.sem_nsems != n || (ds.sem_perm.mode & 0777) != mode ||
	    ds.sem_perm.gid != gid)
		fail("%s: set %d: key %x nsems %lu mode %o gid %u", when, id, ds.sem_perm.__key,
		     (unsigned long)ds.sem_nsems, ds.sem_perm.mode & 0777, ds.sem_perm.gid);
	u.array = got;
	if (semctl(id, 0, GETALL, u) < 0 || memcmp(got, v, (size_t)n * sizeof(*v)))
		fail("%s: set %d: values differ", when, id);
}

int main(int argc, char **argv)
{
	unsigned long host = nsw_init(argc, argv, CLONE_NEWIPC, "ipc");
	int a = semget(0x4e535701, 5, IPC_CREAT | 0640), b = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
	unsigned short two[2] = {3, 4};
	union semun u = {.array = (unsigned short *)want};
	struct semid_ds ds;
	if (a < 0 || b < 0 || semctl(a, 0, SETALL, u) < 0)
		fail("setup: semget");
	u.array = two;
	semctl(b, 0, SETALL, u);
	u.buf = &ds;
	semctl(a, 0, IPC_STAT, u);
	ds.sem_perm.gid = 77;
	if (semctl(a, 0, IPC_SET, u) < 0)
		fail("setup: IPC_SET");
	check(a, 0x4e535701, 5, want, 0640, 77, "setup");
	check(b, IPC_PRIVATE, 2, two, 0600, getgid(), "setup");
	test_daemon();
	test_waitsig();
	nsw_own("ipc", host);
	check(a, 0x4e535701, 5, want, 0640, 77, "after restore");
	check(b, IPC_PRIVATE, 2, two, 0600, getgid(), "after restore");
	if (semget(0x4e535701, 0, 0) != a)
		fail("key 0x4e535701 does not find set %d", a);
	struct sembuf op = {.sem_num = 2, .sem_op = -7, .sem_flg = IPC_NOWAIT};
	if (semop(a, &op, 1) || semctl(a, 2, GETVAL) != 0)
		fail("semop on set %d", a);
	semctl(a, 0, IPC_RMID);
	semctl(b, 0, IPC_RMID);
	return test_pass();
}
