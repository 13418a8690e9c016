/* A child in a mount namespace of its own binds a unix socket on a tmpfs of its own (/nsmnt_cs/sk; CRIU's
 * sk-unix-mntns shape): crshim binds the tree's sockets in the root's mount namespace, so the dump refuses it
 * with one line (.desc dump-expect) and the tree keeps running; the test's checks pass on it. */
#include <sys/socket.h>
#include <sys/un.h>
#include "nsmnt.h"

static int sk = -1;

static int setup(void)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "/nsmnt_cs/sk");
	if (mount("nsmnt", "/nsmnt_cs", "tmpfs", 0, "size=1m"))
		return -1;
	sk = socket(AF_UNIX, SOCK_DGRAM, 0);
	return sk < 0 || bind(sk, (struct sockaddr *)&a, sizeof(a)) ? -1 : 0;
}

static int check(void)
{
	struct stat st;
	return stat("/nsmnt_cs/sk", &st) || !S_ISSOCK(st.st_mode) ? 1 : 0;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	mkdirs("/nsmnt_cs");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	test_daemon();
	test_waitsig();
	CHECK(access("/nsmnt_cs/sk", F_OK) < 0, "the child's socket is in the parent's namespace");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: its socket file is gone");
	return test_pass();
}
