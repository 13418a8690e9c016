/* The last PID handed out in a PID namespace: read and set by a process forked into it (pidns-last.h). */
#define LOG_PREFIX "pidns-last: "
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "task/pidns-last.h"

/* What the process in the namespace says through the pipe: the PID it got there, and what failed (0: none).
 */
struct last_msg {
	int32_t next, err;
	int32_t step; /* 0 setns, 1 fork, 2 open, 3 write */
};

static void say(int fd, int32_t next, int32_t step, int err)
{
	struct last_msg m = {next, err, step};
	if (write(fd, &m, sizeof(m)) != (ssize_t)sizeof(m))
		_exit(1);
}

/* In the forked process there (async-signal-safe calls only: crshim may have threads): ns_last_pid written.
 */
static void write_last(int fd, int32_t set)
{
	int32_t next = (int32_t)getpid();
	long v = set < 0 ? next - 1L : set;
	char buf[24], *p = buf + sizeof(buf);
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	int f = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
	if (f < 0)
		say(fd, next, 2, errno);
	else if (write(f, p, (size_t)(buf + sizeof(buf) - p)) < 0)
		say(fd, next, 3, errno);
	else
		say(fd, next, 0, 0);
	_exit(0);
}

/* The child of ours: enters the namespace (nsfd) for its children, forks one there, waits for it. */
static void child(int nsfd, int fd, int32_t set)
{
	if (setns(nsfd, CLONE_NEWPID)) {
		say(fd, 0, 0, errno);
		_exit(0);
	}
	pid_t p = fork();
	if (p == 0)
		write_last(fd, set);
	if (p < 0)
		say(fd, 0, 1, errno);
	int st;
	while (p > 0 && waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
	_exit(0);
}

int pidns_last_pid(pid_t member, int32_t set, int32_t *next, struct cr_err *e)
{
	static const char *const step[] = {"setns", "fork", "open /proc/sys/kernel/ns_last_pid",
					   "write /proc/sys/kernel/ns_last_pid"};
	char path[64];
	int p[2];
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", member);
	__cleanup_close int nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		return cr_fail_sys(e, "%s", path);
	if (pipe2(p, O_CLOEXEC))
		return cr_fail_sys(e, "pipe");
	__cleanup_close int rd = p[0];
	pid_t c = fork();
	if (c == 0) {
		close(p[0]);
		child(nsfd, p[1], set);
	}
	close(p[1]);
	if (c < 0)
		return cr_fail_sys(e, "fork");
	struct last_msg m = {0, EIO, 0};
	ssize_t r;
	while ((r = read(rd, &m, sizeof(m))) < 0 && errno == EINTR)
		;
	int st;
	while (waitpid(c, &st, 0) < 0 && errno == EINTR)
		;
	if (r != (ssize_t)sizeof(m))
		return cr_fail_errno(e, EIO, "PID namespace of %d: the process forked there said nothing",
				     member);
	if (m.err)
		return cr_fail_errno(e, m.err, "PID namespace of %d: %s", member,
				     step[m.step >= 0 && m.step < 4 ? m.step : 0]);
	*next = m.next;
	pr_debug("PID namespace of %d: next PID %d, ns_last_pid set to %d\n", member, m.next,
		 set < 0 ? m.next - 1 : set);
	return 0;
}
