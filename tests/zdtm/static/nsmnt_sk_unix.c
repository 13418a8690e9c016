/* Unix sockets bound on a tmpfs of the tree's own mount tree: a stream listener with one accepted
 * connection, and a dgram server with a message queued from a client connected to it by name; a listener on
 * the tree's root directory (a failed restore removes its file again: mode fault); a file of the tmpfs in
 * flight (SCM_RIGHTS), with a file of the same name under the mount point. After restore the socket files are
 * on that tmpfs (not made where crshim sees the paths), the names are the same, a new client reaches the
 * listener through its file, the connection and the connected client still work. */
#include "nsmnt.h"
#include "sk_unix.h"

enum { L = 50, C = 51, A = 52, S = 53, CU = 54, R = 55, FA = 56, FB = 57 };

int main(int argc, char **argv)
{
	struct sockaddr_un la, da, ra;
	socklen_t ll, dl;
	struct stat mp, st;

	test_init(argc, argv);
	write_file_p("/nsmnt_su/inflight", "HIDDEN"); /* under the tmpfs */
	must_mount("nsmnt", "/nsmnt_su", "tmpfs", 0, NULL);
	write_file("/nsmnt_su/inflight", "in-flight");
	sk_pair(SOCK_STREAM, FA, FB);
	int f = open("/nsmnt_su/inflight", O_RDONLY);
	if (f < 0 || sk_send_fds(FA, "file", 4, &f, 1) || close(f))
		fail("a file in flight");
	ll = sk_bound(L, SOCK_STREAM, "/nsmnt_su/l.sock", 4, &la);
	sk_connect_to(C, SOCK_STREAM, &la, ll);
	sk_place(accept(L, NULL, NULL), A, 0);
	dl = sk_bound(S, SOCK_DGRAM, "/nsmnt_su/d.sock", 0, &da);
	sk_connect_to(CU, SOCK_DGRAM, &da, dl);
	if (send(CU, "queued", 6, 0) != 6)
		fail("send");
	sk_bound(R, SOCK_STREAM, "/nsmnt_su_root.sock", 1, &ra); /* on the tree's root directory */
	test_daemon();
	test_waitsig();

	CHECK(!stat("/nsmnt_su", &mp) && !stat("/nsmnt_su/l.sock", &st) && S_ISSOCK(st.st_mode) &&
		  st.st_dev == mp.st_dev,
	      "/nsmnt_su/l.sock is not a socket file on the tmpfs");
	CHECK(!stat("/nsmnt_su/d.sock", &st) && S_ISSOCK(st.st_mode) && st.st_dev == mp.st_dev,
	      "/nsmnt_su/d.sock is not a socket file on the tmpfs");
	CHECK(!stat("/nsmnt_su_root.sock", &st) && S_ISSOCK(st.st_mode) &&
		  sk_named(R, "/nsmnt_su_root.sock", 0),
	      "/nsmnt_su_root.sock");
	CHECK(sk_named(L, "/nsmnt_su/l.sock", 0) && sk_named(S, "/nsmnt_su/d.sock", 0) &&
		  sk_named(C, "/nsmnt_su/l.sock", 1) && sk_named(CU, "/nsmnt_su/d.sock", 1),
	      "names changed");
	CHECK(!sk_expect_msg(S, "queued", 6), "the queued message is lost");
	char buf[16] = "";
	CHECK(!sk_recv_want(FB, "file", 1, &f) && pread(f, buf, 9, 0) == 9 && !memcmp(buf, "in-flight", 9) &&
		  !fstat(f, &st) && st.st_dev == mp.st_dev,
	      "the file in flight is not /nsmnt_su/inflight of the tmpfs ('%.9s')", buf);
	CHECK(send(CU, "again", 5, 0) == 5 && !sk_expect_msg(S, "again", 5), "the connected client");
	CHECK(sk_send(C, "ping", 4) == 0 && !sk_expect(A, "ping", 4), "the accepted connection");
	int c = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(c >= 0 && !connect(c, (struct sockaddr *)&la, ll), "connect to the restored listener: %s",
	      strerror(errno));
	int a = accept4(L, NULL, NULL, SOCK_NONBLOCK);
	CHECK(a >= 0 && sk_send(c, "new", 3) == 0 && !sk_expect(a, "new", 3), "the new connection");
	return test_pass();
}
