/* Seccomp survives: a child in strict mode, and a child (with a thread) under two filters (getppid fails
 * with EPERM, ptrace kills) that then became uid 1000 without no_new_privs, so that only a tracer with the
 * filters suspended could restore it. After restore /proc says the same modes; in the second child and
 * its thread getppid still fails with EPERM and ptrace still kills it (SIGSYS); the strict child still
 * dies (SIGKILL) on any syscall other than read/write/exit (CRIU's zdtm seccomp_strict, seccomp_filter). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include "zdtmtst.h"

static int cmd[2][2], res[2][2]; /* per child: commands in, results out */

static int filter(int nr, unsigned int ret)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD + BPF_W + BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP + BPF_JEQ + BPF_K, (unsigned int)nr, 0, 1),
	    BPF_STMT(BPF_RET + BPF_K, ret),
	    BPF_STMT(BPF_RET + BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = {.len = ARRAY_SIZE(f), .filter = f};
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p);
}

static void *thread_fn(void *arg)
{
	char c;
	int r;
	(void)arg;
	if (read(cmd[1][0], &c, 1) != 1) /* the second command is for the thread */
		return NULL;
	r = (int)syscall(SYS_getppid) == -1 ? errno : 0;
	write(res[1][1], &r, sizeof(r));
	return NULL;
}

static int seccomp_mode(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	return (int)file_field(path, "Seccomp:", 10, -1);
}

int main(int argc, char **argv)
{
	pid_t pid[2];
	pthread_t th;
	int st, r, i;
	char c = 'x';

	test_init(argc, argv);
	for (i = 0; i < 2; i++)
		if (pipe(cmd[i]) || pipe(res[i]))
			fail("pipe");
	pid[0] = fork();
	if (pid[0] == 0) {
		test_forked();
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT))
			_exit(10);
		write(res[0][1], &c, 1);
		read(cmd[0][0], &c, 1);
		syscall(SYS_getpid); /* killed here */
		_exit(11);
	}
	pid[1] = fork();
	if (pid[1] == 0) {
		test_forked();
		if (filter(SYS_ptrace, SECCOMP_RET_KILL) || filter(SYS_getppid, SECCOMP_RET_ERRNO | EPERM))
			_exit(10);
		if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
			_exit(12);
		if (pthread_create(&th, NULL, thread_fn, NULL))
			_exit(13);
		write(res[1][1], &c, 1);
		read(cmd[1][0], &c, 1);
		r = (int)syscall(SYS_getppid) == -1 ? errno : 0;
		write(res[1][1], &r, sizeof(r));
		pthread_join(th, NULL);
		read(cmd[1][0], &c, 1);
		ptrace(PTRACE_TRACEME, 0, 0, 0); /* killed here */
		_exit(14);
	}
	for (i = 0; i < 2; i++)
		if (read(res[i][0], &c, 1) != 1)
			fail("child %d did not start", i);
	test_daemon();
	test_waitsig();

	if (seccomp_mode(pid[0]) != SECCOMP_MODE_STRICT || seccomp_mode(pid[1]) != SECCOMP_MODE_FILTER)
		fail("seccomp modes %d %d, want 1 2", seccomp_mode(pid[0]), seccomp_mode(pid[1]));
	write(cmd[0][1], &c, 1);
	if (waitpid(pid[0], &st, 0) != pid[0] || !WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
		fail("strict child: status %#x, want killed by SIGKILL", st);
	for (i = 0; i < 2; i++) { /* the leader, then its thread */
		write(cmd[1][1], &c, 1);
		if (read(res[1][0], &r, sizeof(r)) != sizeof(r) || r != EPERM)
			fail("%s of the filtered child: getppid gave errno %d, want EPERM",
			     i ? "thread" : "leader", r);
	}
	write(cmd[1][1], &c, 1);
	if (waitpid(pid[1], &st, 0) != pid[1] || !WIFSIGNALED(st) || WTERMSIG(st) != SIGSYS)
		fail("filtered child: status %#x, want killed by SIGSYS", st);
	pass();
	return 0;
}
