/* The standing kernel.{sem,shm}_next_id of the tree's own IPC namespace (the id the next object of that kind
 * gets), set after a semaphore set, a message queue and a shared memory segment (attached: crshim saves the
 * attached ones) were made; msg_next_id left unset (-1). The restore makes each object with its id, which
 * takes and resets those values: after it they read as before (sem 163851, shm 229379, msg -1), and a new
 * set and segment get exactly those ids. */
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include "ns_world.h"

#define SEM_NEXT 163851 /* seq 5, index 11 */
#define SHM_NEXT 229379 /* seq 7, index 3 */

static long get(const char *what)
{
	char p[64], *v = NULL;
	snprintf(p, sizeof(p), "/proc/sys/kernel/%s_next_id", what);
	long r = read_file(p, &v) < 0 ? -2 : strtol(v, NULL, 10);
	free(v);
	return r;
}

static void set(const char *what, long val)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/sys/kernel/%s_next_id", what);
	FILE *f = fopen(p, "w");
	if (!f || fprintf(f, "%ld\n", val) < 0 || fclose(f) || get(what) != val)
		fail("setup: %s = %ld", p, val);
}

int main(int argc, char **argv)
{
	unsigned long host = nsw_init(argc, argv, CLONE_NEWIPC, "ipc");
	int sem = semget(0x4e535711, 2, IPC_CREAT | 0600), msq = msgget(0x4e535712, IPC_CREAT | 0600);
	int shm = shmget(0x4e535713, 4096, IPC_CREAT | 0600);
	if (sem < 0 || msq < 0 || shm < 0 || shmat(shm, NULL, 0) == (void *)-1) /* attached: saved */
		fail("setup: objects");
	set("sem", SEM_NEXT);
	set("shm", SHM_NEXT);
	if (get("msg") != -1)
		fail("setup: msg_next_id is %ld", get("msg"));
	test_daemon();
	test_waitsig();
	nsw_own("ipc", host);
	if (semget(0x4e535711, 0, 0) != sem || msgget(0x4e535712, 0) != msq ||
	    shmget(0x4e535713, 0, 0) != shm)
		fail("the objects are not there with their ids");
	if (get("sem") != SEM_NEXT || get("shm") != SHM_NEXT || get("msg") != -1)
		fail("next ids: sem %ld (want %d), shm %ld (want %d), msg %ld (want -1)", get("sem"),
		     SEM_NEXT, get("shm"), SHM_NEXT, get("msg"));
	int s2 = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600), m2 = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	if (s2 != SEM_NEXT || m2 != SHM_NEXT)
		fail("new objects got ids %d and %d, not %d and %d", s2, m2, SEM_NEXT, SHM_NEXT);
	semctl(s2, 0, IPC_RMID);
	shmctl(m2, IPC_RMID, NULL);
	semctl(sem, 0, IPC_RMID);
	msgctl(msq, IPC_RMID, NULL);
	shmctl(shm, IPC_RMID, NULL);
	return test_pass();
}
