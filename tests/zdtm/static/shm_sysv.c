/* System V shared memory: a segment (IPC_PRIVATE, 3 pages) attached by the test and by its child, each
 * wrote a part. After restore both see the same contents, the segment is still attached in both (shmid the
 * same, nattch 2), and a write by one is seen by the other. */
#include <stdint.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define SZ (3 * 4096)

int main(int argc, char **argv)
{
	int id, ctl[2], st = 0;
	volatile uint8_t *m;
	pid_t ch;

	test_init(argc, argv);
	id = shmget(IPC_PRIVATE, SZ, IPC_CREAT | 0600);
	m = id < 0 ? (void *)-1 : shmat(id, NULL, 0);
	if (m == (void *)-1 || pipe(ctl))
		fail("setup: shmget/shmat");
	datagen((void *)m, SZ / 2, 31);
	ch = fork();
	if (ch == 0) {
		char c;
		test_forked();
		datagen((void *)(m + SZ / 2), SZ / 2, 32);
		if (read(ctl[0], &c, 1) != 1)
			_exit(1);
		/* after restore: the parent's half is there, then write a mark it must see */
		if (datachk((void *)m, SZ / 2, 31, NULL))
			_exit(2);
		m[SZ - 1] = 0x5a;
		_exit(0);
	}
	for (int i = 0; i < 5000 && datachk((void *)(m + SZ / 2), SZ / 2, 32, NULL); i++)
		usleep(1000);
	test_daemon();
	test_waitsig();

	struct shmid_ds ds;
	if (shmctl(id, IPC_STAT, &ds) || ds.shm_nattch != 2 || ds.shm_segsz != SZ)
		fail("segment %d: nattch %lu size %zu, want 2 and %d", id, (unsigned long)ds.shm_nattch,
		     (size_t)ds.shm_segsz, SZ);
	if (datachk((void *)m, SZ / 2, 31, NULL) || datachk((void *)(m + SZ / 2), SZ / 2 - 1, 32, NULL))
		fail("contents changed");
	if (write(ctl[1], "g", 1) != 1 || waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: status %#x", st);
	if (m[SZ - 1] != 0x5a)
		fail("the child's write is not seen: not shared any more");
	shmdt((void *)m);
	shmctl(id, IPC_RMID, NULL);
	return test_pass();
}
