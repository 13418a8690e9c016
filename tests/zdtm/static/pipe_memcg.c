/* A pipe's buffer is charged to the tree's memory cgroup, not to crshim's: the pages of a pipe's data are
 * charged for good to the memory cgroup of the process that writes them, and a pipe several processes of the
 * tree hold is made and filled at restore by crshim (engine/files/restore-pipes.c, rst_pipes_share). The
 * test, in a v1 memory cgroup of its own (memcg_test.h), makes 8 pipes of 1 MiB (F_SETPIPE_SZ: 1 MiB is
 * fs.pipe-max-size's default, what a process without CAP_SYS_RESOURCE may set), fills them and forks a child
 * that holds them too: memory.kmem.usage_in_bytes grows by D (about 8 MiB). After restore the
 * data is there, and reading it all gives back at least half of D to that cgroup. Before: nothing (crshim
 * wrote it in its own memory cgroup, which the reads gave back to). */
#include <fcntl.h>
#include <sys/prctl.h>
#include "memcg_test.h"

#define NP 8
#define PSZ (1 << 20)
#define SZ (NP * PSZ)
enum { PR = 50, PW = 51 }; /* pipe i at PR + 2 * i, PW + 2 * i */

static long kmem(void)
{
	return memcg_val("memory.kmem.usage_in_bytes");
}

int main(int argc, char **argv)
{
	static char buf[SZ], back[SZ];
	sigset_t m;
	test_init(argc, argv);
	memcg_setup("zdtm-pipemem");
	usr1_mask(&m);
	datagen(buf, SZ, 17);
	long k0 = kmem();
	for (int i = 0; i < NP; i++) {
		pipe_at(PR + 2 * i, PW + 2 * i, O_NONBLOCK);
		if (fcntl(PW + 2 * i, F_SETPIPE_SZ, PSZ) != PSZ) {
			memcg_cleanup();
			test_skip("F_SETPIPE_SZ %d: %m", PSZ);
		}
		if (write(PW + 2 * i, buf + i * PSZ, PSZ) != PSZ)
			fail("setup: write %d bytes into pipe %d: %m", PSZ, i);
	}
	long d = kmem() - k0;
	if (k0 < 0 || d < SZ * 3L / 4) {
		memcg_cleanup();
		test_skip("no pipe charges seen in memory.kmem.usage_in_bytes (%ld bytes for %d)", d, SZ);
	}
	test_msg("%d pipes of %d bytes: %ld bytes of kmem in %s\n", NP, PSZ, d, memcg_top);
	pid_t ch = test_fork();
	if (ch == 0) { /* holds both ends as after the fork: the pipe is the tree's, made once by crshim */
		int sig;
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		sigwait(&m, &sig);
		_exit(0);
	}
	test_daemon();
	test_waitsig();

	long k2 = kmem();
	ssize_t got = 0, n;
	for (int i = 0; i < NP; i++)
		for (ssize_t one = 0; one < PSZ && (n = read(PR + 2 * i, back + got, PSZ - one)) > 0;
		     one += n)
			got += n;
	long k3 = kmem();
	kill(ch, SIGUSR1);
	child_exit_ok(ch, NULL);
	memcg_cleanup();
	if (got != SZ || memcmp(buf, back, SZ))
		fail("the pipes' data: %zd bytes read back, want %d as written", got, SZ);
	if (k2 < 0 || k2 - k3 < d / 2)
		fail("reading the restored pipes gave back %ld bytes of kernel memory to the test's memory "
		     "cgroup, "
		     "want at least %ld (half of what their data took at setup): it is charged elsewhere",
		     k2 - k3, d / 2);
	return test_pass();
}
