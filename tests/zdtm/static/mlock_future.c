/* mlockall(MCL_FUTURE) in force, with a PROT_NONE reservation made under it (locked, no pages: mlock of it
 * fails with ENOMEM and the restore failed on it), a region locked with mlock2(MLOCK_ONFAULT) ("lf") and a
 * child under mlockall(MCL_FUTURE | MCL_ONFAULT): after restore the reservation is still locked and
 * PROT_NONE, the on-fault region still "lo lf" with its data, and a mapping made afterwards is locked ("lo",
 * "lf" in the child) as before the dump (before: MCL_FUTURE was lost without a word). */
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef MCL_ONFAULT
#define MCL_ONFAULT 4
#endif
#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 1
#endif

/* A new mapping: locked (and on fault) as mlockall asked; 0 if so. */
static int new_map_locked(int onfault)
{
	char *n = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (n == MAP_FAILED)
		return 1;
	int r = vma_has_flag(n, "lo") != 1 || vma_has_flag(n, "lf") != onfault;
	munmap(n, 4 * PAGE);
	return r;
}

static void child(int go, int done, void *arg)
{
	char c;
	(void)arg;
	if (mlockall(MCL_FUTURE | MCL_ONFAULT) || new_map_locked(1))
		_exit(2);
	if (write(done, "r", 1) != 1 || read(go, &c, 1) != 1)
		_exit(3);
	_exit(new_map_locked(1) ? 4 : 0);
}

int main(int argc, char **argv)
{
	int go, done, st;

	test_init(argc, argv);
	char *lf = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (lf == MAP_FAILED || syscall(SYS_mlock2, lf, 8 * PAGE, MLOCK_ONFAULT)) {
		fail("mmap/mlock2(MLOCK_ONFAULT)");
		return 1;
	}
	datagen(lf, 2 * PAGE, 7);
	if (mlockall(MCL_FUTURE)) {
		fail("mlockall");
		return 1;
	}
	char *res = mmap(NULL, 256 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED || vma_has_flag(res, "lo") != 1 || new_map_locked(0)) {
		fail("PROT_NONE reservation under MCL_FUTURE not locked");
		return 1;
	}
	pid_t pid = fork_talker_ready(child, NULL, &go, &done);
	if (pid < 0)
		return 1;
	test_daemon();
	test_waitsig();

	size_t bad;
	if (vma_has_flag(res, "lo") != 1)
		fail("the PROT_NONE reservation is not locked");
	if (mem_probe(res, 0) == 0)
		fail("the PROT_NONE reservation is readable");
	if (vma_has_flag(lf, "lo") != 1 || vma_has_flag(lf, "lf") != 1)
		fail("the MLOCK_ONFAULT region lost lo/lf");
	if (datachk(lf, 2 * PAGE, 7, &bad))
		fail("MLOCK_ONFAULT data differs at %#zx", bad);
	if (new_map_locked(0))
		fail("a new mapping is not locked: MCL_FUTURE lost");
	/* the child checks its own new mapping once woken */
	if ((st = talker_end(pid, go))) {
		fail("child: status %#x", st);
		return 1;
	}
	pass();
	return 0;
}
