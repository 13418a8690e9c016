/* nsmnt_child_setns_sib with a unix socket the sibling binds on the child's tmpfs after its setns: crshim
 * makes the sockets bound in a nested mount namespace in it and hands them to the process that made it
 * (and its descendants), not to one that entered it, so the dump refuses it with one line (.desc
 * dump-expect) and the tree keeps running, the socket still bound there. */
#include <sys/socket.h>
#include <sys/un.h>

#include "nsmnt.h"

static int setup(void)
{
	return mount("nsmnt", "/nsmnt_sk", "tmpfs", 0, "size=1m") ? -1 : 0;
}

static int check(void)
{
	return 0;
}

int main(int argc, char **argv)
{
	int pfd[2];
	test_init(argc, argv);
	mkdirs("/nsmnt_sk");
	usr1_block();
	pid_t c = nsmnt_child(setup, check);
	if (pipe(pfd))
		fail("pipe");
	pid_t s = test_fork();
	if (s == 0) {
		char p[64];
		struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "/nsmnt_sk/s"};
		struct stat st;
		snprintf(p, sizeof(p), "/proc/%d/ns/mnt", c);
		int fd = open(p, O_RDONLY), sk = socket(AF_UNIX, SOCK_DGRAM, 0);
		if (fd < 0 || sk < 0 || setns(fd, CLONE_NEWNS) || chdir("/") ||
		    bind(sk, (struct sockaddr *)&a, sizeof(a)) || child_ready(pfd))
			_exit(9);
		usr1_wait();
		_exit(stat("/nsmnt_sk/s", &st) || !S_ISSOCK(st.st_mode));
	}
	if (s < 0 || child_started(pfd))
		fail("sibling not ready");
	test_daemon();
	test_waitsig();
	kill(c, SIGUSR1);
	kill(s, SIGUSR1);
	child_exit_ok(c, "the child failed");
	child_exit_ok(s, "1: the socket file is gone");
	return test_pass();
}
