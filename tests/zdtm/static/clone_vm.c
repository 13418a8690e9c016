/* A child made with clone(CLONE_VM | CLONE_SIGHAND | SIGCHLD) on its own stack: one address space and one
 * signal handler table, two processes. After restore kcmp says both are still shared; a write by one is
 * seen by the other, a sigaction() by one is seen by the other; each keeps its own pid, stack, registers
 * and signal mask; the child answers on pipes and exits, and waitpid() gets its status.
 * clone_vm_files.c (CLONE_FILES too: one fd table), clone_vm_fds.c (own fd tables that differ) and
 * clone_vm_pidns.c (the parent is the init of a PID namespace) include this file with CVM_FILES / CVM_FDS /
 * CVM_PIDNS. */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/kcmp.h>
#include "zdtmtst.h"

#ifndef CVM_FILES
#define CVM_FILES 0
#endif
#ifndef CVM_FDS
#define CVM_FDS 0
#endif
#ifndef CVM_PIDNS
#define CVM_PIDNS 0
#endif

#define CMD_R 100 /* parent -> child */
#define CMD_W 101
#define REP_R 102 /* child -> parent */
#define REP_W 103
#define BOTH_FD 110 /* kept by the child's close_range */

static volatile int shared_word = 1;
static char child_stack[256 << 10] __attribute__((aligned(16)));

static void h_usr1(int s)
{
	(void)s;
}
static void h_usr2(int s)
{
	(void)s;
}
static void h_hup(int s)
{
	(void)s;
}

static uint64_t handler_of(int sig)
{
	struct sigaction sa;
	if (sigaction(sig, NULL, &sa))
		return 0;
	return (uint64_t)(uintptr_t)sa.sa_handler;
}

static void reply(uint64_t v)
{
	if (write(REP_W, &v, sizeof(v)) != sizeof(v))
		_exit(8);
}

/* The child's own fds (clone_vm_fds): fd 50 another file than the parent's at another offset, fd 60 only
 * here. */
static void child_own_fds(void)
{
	close(50);
	int fd = open("child.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || dup2(fd, 50) != 50 || write(50, "CCCCCCC", 7) != 7 || lseek(50, 4, SEEK_SET) != 4 ||
	    dup2(fd, 60) != 60)
		_exit(7);
	close(fd);
}

static uint64_t child_fds(void)
{
	char buf[4] = "";
	uint64_t bad = 0;
	if (lseek(50, 0, SEEK_CUR) != 4)
		bad |= 1;
	if (pread(50, buf, 4, 0) != 4 || memcmp(buf, "CCCC", 4))
		bad |= 2;
	if (fcntl(60, F_GETFD) < 0)
		bad |= 4;
	return bad;
}

static int child_main(void *arg)
{
	uint64_t magic = 0x5a5a0000u ^ (uint64_t)(uintptr_t)arg; /* on its own stack */
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, SIGPROF);
	sigaddset(&m, SIGTERM);
	sigprocmask(SIG_BLOCK, &m, NULL); /* its own mask: the parent's has neither */
	if (!CVM_FILES) {		  /* its own table: without the starter's ready pipe */
		syscall(SYS_close_range, 3, 49, 0);
		syscall(SYS_close_range, 51, 69, 0);
		syscall(SYS_close_range, 72, 99, 0);
	}
	if (CVM_FDS)
		child_own_fds();
	reply('r');
	for (;;) {
		char c;
		int local;
		if (read(CMD_R, &c, 1) != 1)
			_exit(9);
		switch (c) {
		case 'r':
			reply((uint64_t)shared_word);
			break;
		case 'w':
			shared_word = 42;
			reply(0);
			break;
		case 'q':
			reply(handler_of(SIGUSR1));
			reply(handler_of(SIGUSR2));
			break;
		case 's': {
			struct sigaction sa = {.sa_handler = h_hup};
			reply((uint64_t)sigaction(SIGHUP, &sa, NULL));
			break;
		}
		case 'p':
			sigprocmask(SIG_BLOCK, NULL, &m);
			reply((uint64_t)getpid());
			reply((uint64_t)sigismember(&m, SIGPROF));
			reply(magic);
			reply((uintptr_t)&local > (uintptr_t)child_stack &&
			      (uintptr_t)&local < (uintptr_t)child_stack + sizeof(child_stack));
			break;
		case 'f':
			reply(child_fds());
			break;
		case 'o': {
			int fd = open("child.open", O_RDWR | O_CREAT, 0600);
			reply((uint64_t)(fd >= 0 && dup2(fd, 80) == 80));
			close(fd);
			break;
		}
		case 'x':
			_exit(5);
		}
	}
	return 0;
}

static uint64_t ask(char c)
{
	uint64_t v = ~0ull;
	if (write(CMD_W, &c, 1) != 1 || read(REP_R, &v, sizeof(v)) != sizeof(v))
		fail("command %c: no answer", c);
	return v;
}

static uint64_t more(void)
{
	uint64_t v = ~0ull;
	if (read(REP_R, &v, sizeof(v)) != sizeof(v))
		fail("no answer");
	return v;
}

static int setup_fds(void)
{
	int a[2], b[2], s[2];
	if (pipe(a) || pipe(b) || pipe(s) || dup2(a[0], CMD_R) != CMD_R || dup2(a[1], CMD_W) != CMD_W ||
	    dup2(b[0], REP_R) != REP_R || dup2(b[1], REP_W) != REP_W || dup2(s[0], 70) != 70 ||
	    dup2(s[1], 71) != 71)
		return -1;
	for (int i = 0; i < 2; i++) {
		close(a[i]);
		close(b[i]);
		close(s[i]);
	}
	int fd = open("parent.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || dup2(fd, 50) != 50 || write(50, "PPPPP", 5) != 5 || lseek(50, 2, SEEK_SET) != 2)
		return -1;
	close(fd);
	/* a file opened before the clone: one open file description in both (clone_vm_fds) */
	fd = open("both.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || dup2(fd, BOTH_FD) != BOTH_FD || write(BOTH_FD, "BB", 2) != 2)
		return -1;
	close(fd);
	return 0;
}

static void check_shared(pid_t ch)
{
	pid_t me = getpid();
	if (syscall(SYS_kcmp, me, ch, KCMP_VM, 0, 0) != 0)
		fail("the address space is not shared any more");
	if (syscall(SYS_kcmp, me, ch, KCMP_SIGHAND, 0, 0) != 0)
		fail("the signal handlers are not shared any more");
	if ((syscall(SYS_kcmp, me, ch, KCMP_FILES, 0, 0) == 0) != CVM_FILES)
		fail("fd table shared: %d, want %d", !CVM_FILES, CVM_FILES);
	shared_word = 7;
	uint64_t v = ask('r');
	if (v != 7)
		fail("the child reads %llu, want 7 (written by the parent)", (unsigned long long)v);
	ask('w');
	if (shared_word != 42)
		fail("the parent reads %d, want 42 (written by the child)", shared_word);
	struct sigaction sa = {.sa_handler = h_usr2};
	sigaction(SIGUSR2, &sa, NULL);
	uint64_t u1 = ask('q'), u2 = more();
	if (u1 != (uint64_t)(uintptr_t)h_usr1 || u2 != (uint64_t)(uintptr_t)h_usr2)
		fail("the child sees handlers %#llx %#llx, want %p %p", (unsigned long long)u1,
		     (unsigned long long)u2, (void *)h_usr1, (void *)h_usr2);
	if (ask('s') != 0 || handler_of(SIGHUP) != (uint64_t)(uintptr_t)h_hup)
		fail("the child's sigaction(SIGHUP) is not seen by the parent");
}

static void check_own(pid_t ch)
{
	sigset_t m;
	uint64_t pid = ask('p'), prof = more(), magic = more(), on_stack = more();
	if (pid != (uint64_t)ch)
		fail("the child says it is %llu, want %d", (unsigned long long)pid, ch);
	sigprocmask(SIG_BLOCK, NULL, &m);
	if (prof != 1 || sigismember(&m, SIGPROF))
		fail("signal masks: the child blocks SIGPROF %llu (want 1), the parent %d (want 0)",
		     (unsigned long long)prof, sigismember(&m, SIGPROF));
	if (magic != (0x5a5a0000u ^ 0x77u) || on_stack != 1)
		fail("the child's stack: magic %#llx, on its stack %llu", (unsigned long long)magic,
		     (unsigned long long)on_stack);
	if (CVM_FDS) {
		char buf[4] = "";
		uint64_t bad = ask('f');
		if (bad)
			fail("the child's own fds: %#llx (1 offset, 2 data, 4 fd 60)",
			     (unsigned long long)bad);
		if (lseek(50, 0, SEEK_CUR) != 2 || pread(50, buf, 4, 0) != 4 || memcmp(buf, "PPPP", 4) ||
		    fcntl(60, F_GETFD) >= 0)
			fail("the parent's fds 50/60 are not its own");
		if (syscall(SYS_kcmp, getpid(), ch, KCMP_FILE, 70, 70) != 0)
			fail("the pipe made before the clone is not one open file in both any more");
		if (syscall(SYS_kcmp, getpid(), ch, KCMP_FILE, BOTH_FD, BOTH_FD) != 0 ||
		    lseek(BOTH_FD, 0, SEEK_CUR) != 2)
			fail("the file opened before the clone is not one open file in both any more");
	}
	if (CVM_FILES && (ask('o') != 1 || fcntl(80, F_GETFD) < 0))
		fail("the fd the child opened is not in the shared table");
}

int main(int argc, char **argv)
{
	if (CVM_PIDNS)
		test_init_pidns(argc, argv);
	else
		test_init(argc, argv);
	struct sigaction sa = {.sa_handler = h_usr1};
	if (setup_fds() || sigaction(SIGUSR1, &sa, NULL)) {
		fail("setup");
		return 1;
	}
	int flags = CLONE_VM | CLONE_SIGHAND | SIGCHLD;
	if (CVM_FILES)
		flags |= CLONE_FILES;
	pid_t ch = clone(child_main, child_stack + sizeof(child_stack), flags, (void *)0x77);
	if (ch < 0 || more() != 'r') {
		fail("clone");
		return 1;
	}
	test_daemon();
	test_waitsig();

	check_shared(ch);
	check_own(ch);
	int st = 0;
	if (write(CMD_W, "x", 1) != 1 || waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st) != 5)
		fail("wait for the child: status %#x, want exit 5", st);
	return test_pass();
}
