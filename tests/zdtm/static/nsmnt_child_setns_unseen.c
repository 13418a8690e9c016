/* A child A of the test unshares its mount namespace and mounts a tmpfs (/nsmnt_su, file f); X and Y, PID 2
 * of two PID namespaces nested in the test's (their inits P1 and P2 children of the test, each with a mount
 * namespace of its own with its /proc), setns()ed into A's namespace (through /proc/A/ns/mnt, opened by the
 * test before it made P1 and P2). A sees X and Y, neither of them sees A, nor X Y: at restore no one of them
 * can make the namespace that the others enter through its /proc/PID/ns/mnt, so the dump refuses it with
 * one line (.desc dump-expect) and the tree keeps running, the three in A's namespace. */
#include "nsmnt.h"

static int setup(void)
{
	return mount("nsmnt", "/nsmnt_su", "tmpfs", 0, "size=1m") ? -1 : (write_file("/nsmnt_su/f", "u"), 0);
}

static int check(void)
{
	return file_is("/nsmnt_su/f", "u") ? 0 : 1;
}

/* P, init of a PID namespace with a mount namespace of its own with its /proc, its child X (PID 2) in A's
 * (nsfd). On SIGUSR1 both check and exit: 0, or 2 P sees f, 4 X lost f (9: not ready). */
static pid_t p_make(int nsfd)
{
	int pp[2];
	if (pipe(pp))
		fail("pipe");
	pid_t p = nsmnt_pidns_fork();
	if (p == 0) {
		pid_t x = fork();
		if (x == 0) {
			if (setns(nsfd, CLONE_NEWNS) || chdir("/") || close(nsfd) || child_ready(pp))
				_exit(9);
			usr1_wait();
			_exit(check() ? 4 : 0);
		}
		close(nsfd);
		if (x < 0)
			_exit(9);
		usr1_wait();
		_exit((access("/nsmnt_su/f", F_OK) ? 0 : 2) | usr1_reap(x));
	}
	CHECK(p > 0 && !child_started(pp), "P or its child not ready");
	return p;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	mkdirs("/nsmnt_su");
	usr1_block();
	pid_t a = nsmnt_child(setup, check);
	int nsfd = nsmnt_ns_fd(a);
	CHECK(nsfd >= 0, "A's mount namespace");
	pid_t p1 = p_make(nsfd), p2 = p_make(nsfd);
	close(nsfd);
	pid_t x = nsmnt_first_child(p1), y = nsmnt_first_child(p2);
	test_daemon();
	test_waitsig();
	CHECK(mntns_ino(a) && mntns_ino(x) == mntns_ino(a) && mntns_ino(y) == mntns_ino(a) &&
		  mntns_ino(a) != mntns_ino(getpid()),
	      "X or Y is not in A's namespace, or A in the test's");
	kill(a, SIGUSR1);
	kill(p1, SIGUSR1);
	kill(p2, SIGUSR1);
	child_exit_ok(a, "1: A lost f");
	child_exit_ok(p1, "2: P1 sees f, 4: X lost f");
	child_exit_ok(p2, "2: P2 sees f, 4: Y lost f");
	return test_pass();
}
