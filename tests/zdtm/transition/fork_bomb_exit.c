/* A fork bomb that exits as fast as it forks, while the dump seizes the tree: the root is a child subreaper;
 * each spawner forks children that fork a grandchild and exit at once, so grandchildren keep being
 * reparented to the root, which reaps them (and becomes their parent in the middle of the seize). Tasks of
 * the tree exit, become zombies and change parents during the seize. After restore the bomb goes on; at the
 * end every status is the one expected and every grandchild born was reaped exactly once by the root. */
#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define SPAWNERS 3
#define MAX_ZOMBIES 300

struct shared {
	atomic_int stop;
	atomic_ulong born;   /* grandchildren forked */
	atomic_ulong reaped; /* grandchildren the root reaped */
	atomic_ulong bad;    /* statuses a spawner did not expect */
};

static void spawner(struct shared *sh)
{
	while (!atomic_load(&sh->stop)) {
		/* at most MAX_ZOMBIES grandchildren not reaped yet: on a loaded machine the root gets little
		 * CPU, and 10,000 zombies made the restore take longer than the runner waits (mode uns, load
		 * 50) */
		if (atomic_load(&sh->born) - atomic_load(&sh->reaped) > MAX_ZOMBIES) {
			usleep(1000);
			continue;
		}
		pid_t c = fork();
		if (c < 0) {
			atomic_fetch_add(&sh->bad, 1);
			_exit(1);
		}
		if (c == 0) {
			pid_t g = fork();
			if (g == 0) {
				for (volatile int i = 0; i < 20000; i++)
					;
				_exit(7);
			}
			if (g > 0)
				atomic_fetch_add(&sh->born, 1);
			_exit(g > 0 ? 5 : 6);
		}
		int st;
		pid_t w;
		while ((w = waitpid(c, &st, 0)) < 0 && errno == EINTR)
			;
		if (w != c || !WIFEXITED(st) || WEXITSTATUS(st) != 5)
			atomic_fetch_add(&sh->bad, 1);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	pid_t sp[SPAWNERS];
	unsigned long reaped = 0, strange = 0;
	int st;

	test_init(argc, argv);
	struct shared *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		fail("mmap/subreaper");
	for (int i = 0; i < SPAWNERS; i++) {
		sp[i] = fork();
		if (sp[i] == 0) {
			test_forked();
			spawner(sh);
		}
	}
	test_daemon();
	while (test_go()) {
		pid_t w = waitpid(-1, &st, WNOHANG);
		if (w > 0) {
			if (WIFEXITED(st) && WEXITSTATUS(st) == 7) {
				reaped++;
				atomic_fetch_add(&sh->reaped, 1);
			} else {
				strange++;
				test_msg("pid %d: status %#x\n", w, st);
			}
		} else
			usleep(1000);
	}
	atomic_store(&sh->stop, 1);
	for (int i = 0; i < SPAWNERS; i++) {
		if (waitpid(sp[i], &st, 0) != sp[i] || !WIFEXITED(st) || WEXITSTATUS(st))
			fail("spawner %d: status %#x", sp[i], st);
	}
	pid_t w;
	while ((w = waitpid(-1, &st, 0)) > 0 || errno == EINTR) {
		if (w <= 0)
			continue;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 7)
			reaped++;
		else
			strange++;
	}
	if (strange || atomic_load(&sh->bad))
		fail("%lu unexpected statuses at the root, %lu in the spawners", strange,
		     atomic_load(&sh->bad));
	if (reaped != atomic_load(&sh->born))
		fail("%lu grandchildren born, %lu reaped", atomic_load(&sh->born), reaped);
	test_msg("%lu grandchildren\n", reaped);
	if (!test_failures)
		pass();
	return 0;
}
