/* A parent waiting for its CLONE_VM | CLONE_VFORK child (which neither execs nor exits): the parent does not
 * stop for ptrace, the dump must fail with one line saying so, and the tree keeps running
 * (fd_unsupported.sh --test clone_vm_vfork). The child exits once SIGTERM is pending for the parent. */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "zdtmtst.h"

static char child_stack[64 << 10] __attribute__((aligned(16)));

/* SIGTERM in the parent's shared pending set (the parent cannot run until we are gone). */
static int term_pending(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	const char *p = strstr(buf, "ShdPnd:");
	return p && (strtoull(p + 7, NULL, 16) & (1ull << (SIGTERM - 1)));
}

static int child_main(void *arg)
{
	const char *path = arg;
	struct timespec ts = {0, 50 * 1000 * 1000};
	while (!term_pending(path))
		nanosleep(&ts, NULL);
	_exit(0);
}

int main(int argc, char **argv)
{
	static char path[64];
	test_init(argc, argv);
	snprintf(path, sizeof(path), "/proc/%d/status", getpid());
	test_daemon();
	/* returns once the child has exited */
	if (clone(child_main, child_stack + sizeof(child_stack), CLONE_VM | CLONE_VFORK | SIGCHLD, path) <
	    0) {
		fail("clone");
		return 1;
	}
	test_waitsig();
	pass();
	return 0;
}
