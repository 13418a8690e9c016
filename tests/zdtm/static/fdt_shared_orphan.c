/* Two processes share an fd table but not through a parent that shares it: X (forked, its own table) clones
 * C with CLONE_FILES, C clones Y with CLONE_FILES and exits, and Y is reparented to the test (a child
 * subreaper), whose table is another. After C/R X and Y still share one table (kcmp), the test's is another
 * and Y is still the test's child: the restore has X clone Y with CLONE_PARENT | CLONE_FILES
 * (engine/files/restore-fdtable.c). Before, the dump refused it ("not through a parent that shares it"). */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/kcmp.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifdef FDT_OWN_SID
#define FDT_SID_WAIT 1
#else
#define FDT_SID_WAIT 0
#endif

static pid_t clone_files(void)
{
	return (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
}

static int x_main(int ready)
{
	int st;
	pid_t c = clone_files();
	if (c == 0) {
		pid_t y = clone_files();
		if (y == 0) {
			usr1_wait();
			_exit(0);
		}
		_exit(y < 0 || write(ready, &y, sizeof(y)) != sizeof(y)); /* (the pipe: X's table too) */
	}
	if (c < 0 || waitpid(c, &st, 0) != c || st)
		return 1;
#ifdef FDT_OWN_SID /* X in a session of its own, Y still in the test's: then X says so */
	if (setsid() < 0 || write(ready, "s", 1) != 1)
		return 1;
#endif
	usr1_wait();
	return 0;
}

int main(int argc, char **argv)
{
	int rp[2];
	pid_t y = -1;
	test_init(argc, argv);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) || pipe(rp)) {
		fail("setup");
		return 1;
	}
	usr1_block();
	pid_t x = fork();
	if (x == 0) {
		test_forked();
		close(rp[0]);
		_exit(x_main(rp[1]));
	}
	close(rp[1]);
	char sid;
	if (x < 0 || read(rp[0], &y, sizeof(y)) != sizeof(y) || (FDT_SID_WAIT && read(rp[0], &sid, 1) != 1)) {
		fail("fork or the children's setup");
		return 1;
	}
	close(rp[0]);
	test_daemon();
	test_waitsig();
	if (syscall(SYS_kcmp, x, y, KCMP_FILES, 0, 0) != 0)
		fail("X and Y do not share one fd table any more");
	if (syscall(SYS_kcmp, getpid(), y, KCMP_FILES, 0, 0) == 0)
		fail("Y shares the test's fd table");
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", y);
	FILE *f = fopen(path, "r");
	int ppid = -1;
	if (!f || !fgets(buf, sizeof(buf), f) || !strrchr(buf, ')') ||
	    sscanf(strrchr(buf, ')') + 2, "%*c %d", &ppid) != 1 || ppid != getpid())
		fail("Y's parent is %d, not the test", ppid);
	if (f)
		fclose(f);
	kill(x, SIGUSR1);
	kill(y, SIGUSR1);
	child_exit_ok(x, NULL);
	child_exit_ok(y, NULL);
	return test_pass();
}
