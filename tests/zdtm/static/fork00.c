/* A tree: the test forks two children (each with its own memory contents after fork, one of them with a
 * grandchild). After restore the PIDs, the parent links and the contents are the same, and the
 * children still answer signals and exit with the status the parent expects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NCH 2
#define MEM (256 * 1024)

static volatile sig_atomic_t got_usr1;
static int ready[2]; /* each child and the grandchild write a byte once set up (no sleep to outrun) */

static void on_usr1(int s)
{
	(void)s;
	got_usr1 = 1;
}

static pid_t ppid_of(pid_t pid)
{
	char path[64], *buf;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, &buf) < 0)
		return -1;
	char *p = strrchr(buf, ')');
	int ppid = -1;
	if (p)
		sscanf(p + 2, "%*c %d", &ppid);
	free(buf);
	return ppid;
}

/* Wait for SIGUSR1, check the memory and the parent link, exit 0 (or 1). */
__attribute__((noreturn)) static void child_main(int idx, pid_t parent, int grandchild);
__attribute__((noreturn)) static void child_main(int idx, pid_t parent, int grandchild)
{
	sigset_t empty;
	uint8_t *mem = malloc(MEM);
	pid_t gc = -1;
	test_forked();
	datagen(mem, MEM, 1000 + (uint64_t)idx);
	if (grandchild) {
		gc = fork();
		if (gc == 0)
			child_main(idx + 10, getppid(), 0);
	}
	if (write(ready[1], "r", 1) != 1)
		_exit(3);
	close(ready[0]);
	close(ready[1]);
	sigemptyset(&empty);
	while (!got_usr1)
		sigsuspend(&empty);
	int bad = datachk(mem, MEM, 1000 + (uint64_t)idx, NULL) != 0 || getppid() != parent;
	if (gc > 0) {
		int st;
		if (ppid_of(gc) != getpid())
			bad = 1;
		kill(gc, SIGUSR1);
		if (waitpid(gc, &st, 0) != gc || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad = 1;
	}
	_exit(bad ? 1 : 0);
}

int main(int argc, char **argv)
{
	pid_t ch[NCH];
	sigset_t m;
	test_init(argc, argv);
	signal(SIGUSR1, on_usr1);
	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	sigprocmask(SIG_BLOCK, &m, NULL); /* children wait for it in sigsuspend */
	if (pipe(ready))
		fail("pipe");
	for (int i = 0; i < NCH; i++) {
		ch[i] = fork();
		if (ch[i] < 0)
			fail("fork");
		if (ch[i] == 0)
			child_main(i, getppid(), i == 1);
	}
	close(ready[1]);
	char r[NCH + 1];
	for (size_t got = 0; got < sizeof(r);) { /* both children and the grandchild are set up */
		ssize_t n = read(ready[0], r, sizeof(r) - got);
		if (n <= 0) {
			fail("setup: %zu of %zu processes ready", got, sizeof(r));
			break;
		}
		got += (size_t)n;
	}
	close(ready[0]);
	test_daemon();
	test_waitsig();
	for (int i = 0; i < NCH; i++) {
		int st;
		if (ppid_of(ch[i]) != getpid())
			fail("child %d: parent is %d, not %d", ch[i], ppid_of(ch[i]), getpid());
		kill(ch[i], SIGUSR1);
		if (waitpid(ch[i], &st, 0) != ch[i])
			fail("waitpid %d", ch[i]);
		else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			fail("child %d: status %#x (memory, parent or grandchild differs)", ch[i], st);
	}
	return test_pass();
}
