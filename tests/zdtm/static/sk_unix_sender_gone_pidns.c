/* As sk_unix_sender_gone_path (a message queued from a client bound to a path name and closed since, its file
 * removed), the test being PID 1 of a PID namespace of its own (test_init_pidns) that has made no other
 * process yet (its ns_last_pid is 1): no process but the tree's own is made in that namespace by the
 * restore. The test's next fork gets pid 2 without a checkpoint, and 2 again after a restore whether the
 * namespace's last pid is restored or starts afresh (the lowest free pid first), unless a process of
 * crshim's was made there and moved it on. Before: crshim's helper that binds the gone sender's path
 * (bind_aside) was forked in the tree's PID namespace (pid 2): the fork after the restore got pid 3. */
#include <limits.h>
#include <stdio.h>
#include <sys/wait.h>
#include "sk_unix.h"

enum { S = 60 };

static int last_pid(void)
{
	int v = -2;
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "re");
	if (!f || fscanf(f, "%d", &v) != 1)
		fail("read /proc/sys/kernel/ns_last_pid");
	if (f)
		fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	char dir[PATH_MAX], sn[64], an[128];
	struct sockaddr_un sa, a;

	test_init_pidns(argc, argv);
	if (!getcwd(dir, sizeof(dir)) || strlen(dir) > 60)
		fail("cwd %s too long for a socket path", dir);
	snprintf(sn, sizeof(sn), "@zdtm-sk-gone-pidns-%d", getpid());
	snprintf(an, sizeof(an), "%s/gone-p.%d", dir, getpid());
	unlink(an);
	socklen_t sal = sk_bound(S, SOCK_DGRAM, sn, 0, &sa);
	socklen_t al = sk_addr(an, &a);
	int c = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (c < 0 || bind(c, (struct sockaddr *)&a, al) ||
	    sendto(c, "one", 3, 0, (struct sockaddr *)&sa, sal) != 3)
		fail("client %s", an);
	close(c);
	if (unlink(an))
		fail("unlink %s", an);
	int l = last_pid();
	if (getpid() != 1 || l != 1)
		fail("pid %d, ns_last_pid %d: want PID 1 of a namespace that made no other process", getpid(),
		     l);
	test_daemon();
	test_waitsig();

	sk_expect_from(S, "one", an);
	l = last_pid();
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	if (p < 0 || waitpid(p, NULL, 0) != p)
		fail("fork or wait");
	if (p != 2)
		fail("a fork after the restore got pid %d, not 2: another process was made in this PID "
		     "namespace "
		     "(ns_last_pid before the fork: %d)",
		     p, l);
	pass();
	return 0;
}
