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

static int bind_there(void)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "/nsmnt_sk/s"};
	int sk = socket(AF_UNIX, SOCK_DGRAM, 0);
	return sk < 0 || bind(sk, (struct sockaddr *)&a, sizeof(a));
}

static int sock_there(void)
{
	struct stat st;
	return stat("/nsmnt_sk/s", &st) || !S_ISSOCK(st.st_mode);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	mkdirs("/nsmnt_sk");
	usr1_block();
	pid_t c = nsmnt_child(setup, check);
	pid_t s = nsmnt_sibling(c, NULL, bind_there, sock_there);
	test_daemon();
	test_waitsig();
	kill(c, SIGUSR1);
	kill(s, SIGUSR1);
	child_exit_ok(c, "the child failed");
	child_exit_ok(s, "1: the socket file is gone");
	return test_pass();
}
