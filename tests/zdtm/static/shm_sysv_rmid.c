/* System V shared memory, the harder cases: a segment with a key (mode 0640, owner 1234:2345) attached twice
 * by the test, read-write (one page of it mprotect'ed read-only: two VMAs) and read-only (SHM_RDONLY); and a
 * segment attached by the test and its child and then removed (IPC_RMID) while attached. After restore: the
 * same ids, key, mode, owner and nattch (3 and 2); the read-only attach cannot be made writable (EACCES);
 * contents kept and still shared (a write through one attach or process is seen through the other); the
 * removed segment is still marked removed and is gone once both have detached. */
#include <stdint.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define PG 4096
#define SZ_A (5 * PG)
#define SZ_B (2 * PG + 100)

static int stat_seg(int id, struct shmid_ds *ds)
{
	memset(ds, 0, sizeof(*ds));
	return shmctl(id, IPC_STAT, ds);
}

int main(int argc, char **argv)
{
	int a, b, ctl[2] = {-1, -1}, st = 0;
	key_t key;
	uint8_t *rw, *ro;
	volatile uint8_t *m;
	struct shmid_ds ds;
	pid_t ch;

	test_init(argc, argv);
	key = (key_t)(0x5a000000 | (getpid() & 0xffffff));
	a = shmget(key, SZ_A, IPC_CREAT | IPC_EXCL | 0640);
	b = shmget(IPC_PRIVATE, SZ_B, IPC_CREAT | 0600);
	if (a < 0 || b < 0 || pipe(ctl))
		fail("setup: shmget");
	rw = shmat(a, NULL, 0);
	ro = shmat(a, NULL, SHM_RDONLY);
	m = shmat(b, NULL, 0);
	if (rw == (void *)-1 || ro == (void *)-1 || m == (void *)-1)
		fail("setup: shmat");
	datagen(rw, SZ_A, 41);
	if (mprotect(rw + 3 * PG, 2 * PG, PROT_READ))
		fail("setup: mprotect");
	if (stat_seg(a, &ds) == 0) {
		ds.shm_perm.uid = 1234;
		ds.shm_perm.gid = 2345;
		if (shmctl(a, IPC_SET, &ds))
			fail("setup: IPC_SET");
	}
	datagen((void *)m, PG, 42);
	ch = fork();
	if (ch == 0) {
		char c;
		test_forked();
		if (shmdt(rw) || shmdt(ro)) /* the child keeps only segment b */
			_exit(3);
		datagen((void *)(m + PG), SZ_B - PG, 43);
		if (read(ctl[0], &c, 1) != 1)
			_exit(1);
		if (datachk((void *)m, PG, 42, NULL))
			_exit(2);
		m[SZ_B - 1] = 0x5a;
		shmdt((void *)m);
		_exit(0);
	}
	for (int i = 0; i < 5000 && datachk((void *)(m + PG), SZ_B - PG, 43, NULL); i++)
		usleep(1000);
	if (shmctl(b, IPC_RMID, NULL))
		fail("setup: IPC_RMID");
	test_daemon();
	test_waitsig();

	if (stat_seg(a, &ds) || ds.shm_perm.__key != key || (ds.shm_perm.mode & 0777) != 0640 ||
	    ds.shm_perm.uid != 1234 || ds.shm_perm.gid != 2345 || ds.shm_nattch != 3 || ds.shm_segsz != SZ_A)
		fail("segment %d: key %#x mode %o owner %u:%u nattch %lu size %zu, want %#x 0640 1234:2345 3 "
		     "%d",
		     a, (unsigned)ds.shm_perm.__key, ds.shm_perm.mode, ds.shm_perm.uid, ds.shm_perm.gid,
		     (unsigned long)ds.shm_nattch, (size_t)ds.shm_segsz, (unsigned)key, SZ_A);
	if (datachk(rw, SZ_A, 41, NULL) || datachk(ro, SZ_A, 41, NULL))
		fail("segment %d: contents changed", a);
	rw[0] ^= 0xff;
	if (ro[0] != rw[0])
		fail("segment %d: the two attaches are not one segment any more", a);
	if (mprotect(ro, PG, PROT_READ | PROT_WRITE) == 0 || errno != EACCES)
		fail("the read-only attach could be made writable");
	if (mprotect(rw + 3 * PG, PG, PROT_READ | PROT_WRITE))
		fail("the read-write attach cannot be made writable again");
	if (stat_seg(b, &ds) || !(ds.shm_perm.mode & SHM_DEST) || ds.shm_nattch != 2 || ds.shm_segsz != SZ_B)
		fail("removed segment %d: mode %o nattch %lu size %zu, want SHM_DEST, 2, %d", b,
		     ds.shm_perm.mode, (unsigned long)ds.shm_nattch, (size_t)ds.shm_segsz, SZ_B);
	if (datachk((void *)m, PG, 42, NULL) || datachk((void *)(m + PG), SZ_B - PG - 1, 43, NULL))
		fail("removed segment %d: contents changed", b);
	if (write(ctl[1], "g", 1) != 1 || waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: status %#x", st);
	if (m[SZ_B - 1] != 0x5a)
		fail("removed segment %d: the child's write is not seen: not shared any more", b);
	shmdt((void *)m);
	if (stat_seg(b, &ds) == 0 || (errno != EINVAL && errno != EIDRM))
		fail("removed segment %d still there after the last detach", b);
	shmdt(rw);
	shmdt(ro);
	shmctl(a, IPC_RMID, NULL);
	return test_pass();
}
