/* Several unix sockets once bound at one path: two dgram sockets (each with a connected peer and a message
 * queued) and a listener (with an accepted and a pending connection), each unlinked in turn before the next
 * bind, and a live dgram socket bound there last. After restore every name is the same, the file at the
 * path is the live socket's, no other file was left in the directory, and each socket is still reached by
 * its own peers; the same for two dgram sockets at one path in a directory removed since, which is not
 * back after the restore. Before, the second deleted socket was given the same fallback name as the first
 * (PATH.crshim-PID) and the restore failed with EADDRINUSE (CRIU's sk-unix01). */
#include <dirent.h>
#include "sk_unix.h"

#define P "same.sock"
#define D "gone-dir"
#define DP D "/same.sock"
enum { A = 80, AP = 81, B = 82, BP = 83, L = 84, LC = 85, LA = 86, LQ = 87, E = 88, EP = 89 };
enum { DA = 90, DAP = 91, DB = 92, DBP = 93 };

/* Files named same.sock* in the cwd. */
static int count_entries(void)
{
	DIR *d = opendir(".");
	struct dirent *de;
	int n = 0;
	while (d && (de = readdir(d)))
		n += !strncmp(de->d_name, P, strlen(P));
	if (d)
		closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	struct sockaddr_un a;
	socklen_t al;

	test_init(argc, argv);
	al = sk_bound(A, SOCK_DGRAM, P, 0, &a);
	sk_connect_to(AP, SOCK_DGRAM, &a, al);
	if (sk_send(AP, "to-a", 4) || unlink(P))
		fail("first dgram socket");
	al = sk_bound(B, SOCK_DGRAM, P, 0, &a);
	sk_connect_to(BP, SOCK_DGRAM, &a, al);
	if (sk_send(BP, "to-b", 4) || unlink(P))
		fail("second dgram socket");
	al = sk_bound(L, SOCK_STREAM, P, 4, &a);
	sk_connect_to(LC, SOCK_STREAM, &a, al);
	sk_place(accept(L, NULL, NULL), LA, 0);
	sk_connect_to(LQ, SOCK_STREAM, &a, al);
	if (unlink(P))
		fail("listener");
	al = sk_bound(E, SOCK_DGRAM, P, 0, &a);
	sk_connect_to(EP, SOCK_DGRAM, &a, al);
	if (count_entries() != 1)
		fail("%d files named " P "* before the dump", count_entries());
	/* two more at one path in a directory removed since */
	struct sockaddr_un d;
	socklen_t dl;
	if (mkdir(D, 0700))
		fail("mkdir");
	dl = sk_bound(DA, SOCK_DGRAM, DP, 0, &d);
	sk_connect_to(DAP, SOCK_DGRAM, &d, dl);
	if (unlink(DP))
		fail("unlink");
	dl = sk_bound(DB, SOCK_DGRAM, DP, 0, &d);
	sk_connect_to(DBP, SOCK_DGRAM, &d, dl);
	if (unlink(DP) || rmdir(D))
		fail("unlink, rmdir");
	test_daemon();
	test_waitsig();

	int fds[] = {A, B, L, E};
	for (int i = 0; i < 4; i++)
		if (!sk_named(fds[i], P, 0))
			fail("the name of fd %d changed", fds[i]);
	if (sk_expect_msg(A, "to-a", 4) || sk_expect_msg(B, "to-b", 4))
		fail("the queued messages");
	if (sk_send(AP, "a2", 2) || sk_expect_msg(A, "a2", 2) || sk_send(BP, "b2", 2) ||
	    sk_expect_msg(B, "b2", 2))
		fail("a connected peer does not reach its deleted socket");
	if (sk_send(LC, "c", 1) || sk_expect(LA, "c", 1))
		fail("the accepted connection");
	fcntl(L, F_SETFL, O_NONBLOCK);
	int s = accept(L, NULL, NULL);
	if (s < 0 || sk_send(LQ, "q", 1) || sk_expect(s, "q", 1))
		fail("the pending connection");
	if (sk_send(EP, "e", 1) || sk_expect_msg(E, "e", 1))
		fail("the live socket's peer");
	int n = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (n < 0 || sendto(n, "p", 1, 0, (struct sockaddr *)&a, al) != 1 || sk_expect_msg(E, "p", 1))
		fail("the file at " P " is not the live socket's");
	if (count_entries() != 1)
		fail("%d files named " P "* after the restore, 1 before", count_entries());
	if (!sk_named(DA, DP, 0) || !sk_named(DB, DP, 0))
		fail("the names of the sockets in " D " changed");
	if (sk_send(DAP, "da", 2) || sk_expect_msg(DA, "da", 2) || sk_send(DBP, "db", 2) ||
	    sk_expect_msg(DB, "db", 2))
		fail("a peer does not reach its socket in " D);
	if (!access(D, F_OK))
		fail(D " is back after the restore");
	return test_pass();
}
