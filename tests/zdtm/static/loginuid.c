/* The audit login uid (/proc/self/loginuid): unset, then set to 3 before the test starts (as a login does),
 * and a child that set its own to 5 (as root may; in a user namespace it may not and keeps 3). After restore
 * both read back the same (before: they were the restoring crshim's; CRIU's loginuid). In a user namespace
 * that does not map uid 3 it reads as 4294967295 (unset) either way. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

static long get_luid(void)
{
	char buf[16] = "";
	int fd = open("/proc/self/loginuid", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	return n > 0 ? (long)strtoul(buf, NULL, 10) : -2;
}

static int set_luid(unsigned v)
{
	char buf[16];
	int fd = open("/proc/self/loginuid", O_WRONLY);
	int n = snprintf(buf, sizeof(buf), "%u", v);
	int r = fd < 0 ? -1 : (write(fd, buf, (size_t)n) == n ? 0 : -1);
	if (fd >= 0)
		close(fd);
	return r;
}

int main(int argc, char **argv)
{
	int p[2], st;
	char c;
	/* before test_init: in the namespace modes it enters them, where CAP_AUDIT_CONTROL does not count */
	int unset = set_luid(4294967295u), set = unset ? -1 : set_luid(3);
	test_init(argc, argv);
	if (unset || set)
		test_skip("cannot set /proc/self/loginuid (errno %d): no CAP_AUDIT_CONTROL or no audit",
			  errno);
	if (pipe(p))
		fail("pipe");
	long before = get_luid(); /* 3, or in a user namespace that does not map uid 3: 4294967295 */
	pid_t kid = fork();
	if (kid == 0) {
		test_forked();
		close(p[1]);
		long want =
		    set_luid(5) ? before : 5; /* (not in a user namespace: no CAP_AUDIT_CONTROL there) */
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(get_luid() == want ? 0 : 1);
	}
	close(p[0]);
	test_daemon();
	test_waitsig();
	long v = get_luid();
	if (v != before)
		fail("loginuid %ld after the restore, %ld before", v, before);
	if (write(p[1], "x", 1) != 1 || waitpid(kid, &st, 0) != kid)
		fail("child");
	else if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: its loginuid changed (status 0x%x)", st);
	return test_pass();
}
