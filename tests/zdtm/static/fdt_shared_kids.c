/* A child C made with clone(CLONE_FILES) (its parent's fd table) has children of its own: D1 and D2 forked
 * (each a copy of the table, then fds of its own opened and others closed) and B made with clone(CLONE_FILES)
 * (the same table again). After restore P, C and B still share one table (kcmp) and each sees the fds the
 * others open after restore; D1 and D2 each have their own table with just their fds (offsets kept) and see
 * none of those. The table holds an fd above crshim's soft limit of open files (2000): each sharer puts what
 * it needs until its restorer is done above the table's fds. The dump refused such a C ("has children"). */
#include <fcntl.h>
#include <linux/kcmp.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

static int is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static int same_table(pid_t a, pid_t b)
{
	return syscall(SYS_kcmp, a, b, KCMP_FILES, 0, 0) == 0;
}

static int at(const char *path, int fd, off_t off)
{
	int f = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (f < 0 || write(f, "0123456789", 10) != 10 || lseek(f, off, SEEK_SET) != off ||
	    (f != fd && dup2(f, fd) != fd))
		return -1;
	if (f != fd)
		close(f);
	return 0;
}

static int off_is(int fd, off_t off)
{
	return lseek(fd, 0, SEEK_CUR) == off;
}

/* D1: fd 50 of its own (offset 5), fd 11 closed; D2: fd 60 of its own (offset 6), fd 10 closed */
static int kid(int which, int ready)
{
	int bad = 0;
	test_forked();
	if (which == 1 ? (close(11) || at("d1.data", 50, 5)) : (close(10) || at("d2.data", 60, 6)))
		return 64;
	if (write(ready, "k", 1) != 1)
		return 64;
	close(ready);
	usr1_wait();
	if (same_table(getpid(), getppid()))
		bad |= 1;
	if (which == 1 && (!off_is(10, 3) || !off_is(50, 5) || is_open(11) || is_open(60)))
		bad |= 2;
	if (which == 2 && (is_open(10) || !off_is(60, 6) || !is_open(11) || is_open(50)))
		bad |= 4;
	if (is_open(70) || is_open(71)) /* opened in the shared table after restore */
		bad |= 8;
	return bad;
}

/* B: shares C's (and so P's) table */
static int kid_b(pid_t p, int ready)
{
	if (write(ready, "k", 1) != 1) /* (its end is C's too: not closed) */
		return 64;
	usr1_wait();
	int bad = 0;
	if (!same_table(getpid(), p) || !same_table(getpid(), getppid()))
		bad |= 1;
	if (!is_open(70) || !is_open(71) || !off_is(10, 3) || !is_open(11))
		bad |= 2;
	if (at("b.data", 72, 2))
		bad |= 4;
	return bad;
}

static pid_t clone_files(void)
{
	return (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
}

static int child_c(pid_t p, int ready)
{
	int kp[2], st;
	pid_t k[3];
	char buf[3];
	if (at("c.data", 11, 4) || pipe(kp))
		return 64;
	for (int i = 0; i < 3; i++) {
		k[i] = i < 2 ? fork() : clone_files();
		if (k[i] == 0)
			_exit(i < 2 ? kid(i + 1, kp[1]) : kid_b(p, kp[1]));
		if (k[i] < 0)
			return 64;
	}
	if (read_exact(kp[0], buf, 3, 10000))
		return 64;
	close(kp[0]);
	close(kp[1]);
	if (write(ready, "r", 1) != 1)
		return 64;
	usr1_wait();
	int bad = 0;
	if (!same_table(getpid(), p) || !is_open(70)) /* P's, after restore */
		bad |= 1;
	if (at("c2.data", 71, 1))
		bad |= 1;
	for (int i = 0; i < 3; i++) {
		kill(k[i], SIGUSR1);
		if (waitpid(k[i], &st, 0) != k[i] || !WIFEXITED(st) || WEXITSTATUS(st))
			bad |= 2 << i;
	}
	if (!is_open(72)) /* B's */
		bad |= 16;
	return bad;
}

int main(int argc, char **argv)
{
	int rp[2];
	char c;
	struct rlimit nf;
	test_init(argc, argv);
	if (getrlimit(RLIMIT_NOFILE, &nf) || nf.rlim_max < 4096) /* (run as root, or after ulimit -Hn 4096) */
		test_skip("RLIMIT_NOFILE hard limit below 4096");
	nf.rlim_cur = nf.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &nf) || at("files.data", 10, 3) || dup2(10, 2000) != 2000 || pipe(rp)) {
		fail("setup");
		return 1;
	}
	usr1_block();
	pid_t p = getpid(), ch = clone_files();
	if (ch == 0) /* no test_forked(): the ready pipe is in the table P has too */
		_exit(child_c(p, rp[1]));
	if (ch < 0 || read(rp[0], &c, 1) != 1) {
		fail("clone(CLONE_FILES) or the children's setup");
		return 1;
	}
	close(rp[0]);
	close(rp[1]);
	test_daemon();
	test_waitsig();

	if (!same_table(p, ch))
		fail("the child does not share the parent's fd table any more");
	if (!off_is(10, 3) || !off_is(11, 4) || !off_is(2000, 3) || is_open(50) || is_open(60))
		fail("fds: 10 at %lld, 11 at %lld, 50 %d, 60 %d", (long long)lseek(10, 0, SEEK_CUR),
		     (long long)lseek(11, 0, SEEK_CUR), is_open(50), is_open(60));
	if (at("p.data", 70, 0))
		fail("open fd 70");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: C's table or fd 70, 2: D1, 4: D2, 8: B, 16: fd 72, 64: setup; D1/D2/B bits in "
			  "their own exit codes");
	if (!is_open(71) || !is_open(72))
		fail("fds the sharers opened after restore: 71 %d, 72 %d", is_open(71), is_open(72));
	return test_pass();
}
