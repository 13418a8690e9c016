/* Several messages with files in flight between plain data on a stream socketpair (fds 11 -> 12): "plain-1",
 * "with-1" carrying a regular file (offset 5, held only in flight), "plain-2", "with-2" carrying the read end
 * of a pipe (the task keeps the write end, fd 21; 3 bytes in it) and one end of a socketpair (the task keeps
 * the other end, fd 22; 4 bytes queued for the end in flight), "plain-3", "with-3" carrying both ends of
 * another socketpair (2 bytes queued between them), "with-4" carrying the pair itself (fd 11, the sender, and
 * fd 12, the socket that holds it). Received after restore as before the dump: each read
 * stops after the message that carried files, with its files, in order ("plain-1with-1" + 1 file,
 * "plain-2with-2" + 2 files, "plain-3with-3" + 2 files); the files are the same (offset, data, peers). */
#include <stdio.h>
#include <sys/syscall.h>
#include <linux/kcmp.h>
#include "sk_unix.h"

enum { A = 11, B = 12, PW = 21, SC = 22 };

static void expect(const char *want, int nwant, int *fds)
{
	char buf[64] = "";
	int n = -1;
	ssize_t got = sk_recv_fds(B, buf, sizeof(buf) - 1, fds, &n, NULL);
	if (got != (ssize_t)strlen(want) || memcmp(buf, want, strlen(want)) || n != nwant)
		fail("read '%.*s' with %d files, want '%s' with %d", (int)(got > 0 ? got : 0), buf, n, want,
		     nwant);
}

int main(int argc, char **argv)
{
	int fds[8] = {-1, -1, -1}, sp[2], xy[2];
	char c[8] = "";

	test_init(argc, argv);
	sk_pair(SOCK_STREAM, A, B);
	int f = sk_scm_file("scm_multi.txt", 5);
	int pr = sk_scm_pipe("abc", PW);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) || sk_send(sp[0], "to-D", 4))
		fail("socketpair");
	sk_place(sp[0], SC, 0);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, xy) || sk_send(xy[0], "xy", 2))
		fail("socketpair");
	fds[0] = pr, fds[1] = sp[1];
	if (sk_send(A, "plain-1", 7) || sk_send_fds(A, "with-1", 6, &f, 1) || sk_send(A, "plain-2", 7) ||
	    sk_send_fds(A, "with-2", 6, fds, 2) || sk_send(A, "plain-3", 7) ||
	    sk_send_fds(A, "with-3", 6, xy, 2))
		fail("send");
	fds[0] = A, fds[1] = B;
	if (sk_send_fds(A, "with-4", 6, fds, 2))
		fail("send the pair itself");
	close(f);
	close(pr);
	close(sp[1]);
	close(xy[0]);
	close(xy[1]);
	test_daemon();
	test_waitsig();

	expect("plain-1with-1", 1, fds);
	if (lseek(fds[0], 0, SEEK_CUR) != 5 || read(fds[0], c, 5) != 5 || memcmp(c, "56789", 5))
		fail("regular file: offset or data ('%.5s')", c);
	expect("plain-2with-2", 2, fds);
	if (read(fds[0], c, 3) != 3 || memcmp(c, "abc", 3) || write(PW, "d", 1) != 1 ||
	    read(fds[0], c, 1) != 1 || c[0] != 'd')
		fail("pipe: data or peer");
	if (sk_expect(fds[1], "to-D", 4) || sk_send(fds[1], "to-C", 4) || sk_expect(SC, "to-C", 4) ||
	    sk_send(SC, "more", 4) || sk_expect(fds[1], "more", 4))
		fail("socketpair end in flight: data or peer");
	expect("plain-3with-3", 2, fds);
	if (sk_expect(fds[1], "xy", 2) || sk_send(fds[1], "yx", 2) || sk_expect(fds[0], "yx", 2))
		fail("socketpair with both ends in flight: data or peer");
	expect("with-4", 2, fds);
	if (syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, fds[0], A) ||
	    syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, fds[1], B))
		fail("the pair itself in flight: not fds %d and %d", A, B);
	if (!sk_empty(B))
		fail("more data queued");
	return test_pass();
}
