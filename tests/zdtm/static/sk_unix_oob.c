/* Out-of-band bytes of unix stream sockets (send(MSG_OOB), Linux 5.15): six pairs, each checked after
 * restore with SIOCATMARK, recv(MSG_OOB) and reads, which stop at the mark:
 *  A->B "pre", OOB 'X', "post" (B is owned by the test, F_SETOWN: each OOB byte came with a SIGURG);
 *  C->D OOB 'Y' at the head, then "after";
 *  E->F "ab", OOB 'c', "de", 'c' read with recv(MSG_OOB): no OOB byte pending, reads still stop at its mark;
 *  G->H SO_OOBINLINE: "12", OOB '3', "45": the byte is data, reads stop before it, recv(MSG_OOB) fails;
 *  I->J "k", OOB '1', "m", OOB '2', "n": only the last one is out of band, '1' is data;
 *  K->L "gh", OOB 'i', "jk", "gh" and 'i' read: the mark at the head (SIOCATMARK), "jk" after it;
 *  M->N 300 KiB, OOB 'Z', 100 KiB (more than one peek of the dump before the mark);
 *  O->P "r", OOB 's', "t" with a pipe in flight (the file stays with "t");
 *  R->S SO_OOBINLINE, OOB '6' at the head, "78"; T->U "uv", OOB 'w', T closed; V->W SO_PASSCRED, "a", OOB
 * 'b', "c". One SIGURG (B's), none with the restore. Before: each OOB byte came back as data (recv(MSG_OOB):
 * EINVAL).
 */
#include <signal.h>
#include "sk_unix.h"

enum { A = 20, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W };
#define BIG1 (300 * 1024)
#define BIG2 (100 * 1024)

static char big1[BIG1], big2[BIG2], back[BIG1];

static volatile sig_atomic_t urgs;

static void on_urg(int sig)
{
	(void)sig;
	urgs++;
}

/* The OOB byte of fd: the byte, -1 when recv(MSG_OOB) fails with EINVAL, -2 on anything else. */
static int oob(int fd, int peek)
{
	char c;
	ssize_t n = recv(fd, &c, 1, MSG_OOB | MSG_DONTWAIT | (peek ? MSG_PEEK : 0));
	return n == 1 ? (unsigned char)c : n < 0 && errno == EINVAL ? -1 : -2;
}

/* Reads of fd (until the mark, SIOCATMARK, when to_mark) give exactly want (len bytes). */
static int rd_big(int fd, const char *want, size_t len, int to_mark)
{
	size_t got = 0;
	while ((!to_mark || sk_atmark(fd) == 0) && got < len) {
		ssize_t n = recv(fd, back + got, len - got, MSG_DONTWAIT);
		if (n <= 0)
			return 0;
		got += (size_t)n;
	}
	return got == len && (!to_mark || sk_atmark(fd) == 1) && !memcmp(back, want, len);
}

/* One read of fd (not waiting) gives exactly want ("": nothing there). */
static int rd(int fd, const char *want)
{
	char buf[64];
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (!*want)
		return n < 0 && errno == EAGAIN;
	return n == (ssize_t)strlen(want) && !memcmp(buf, want, (size_t)n);
}

static int pri(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLPRI};
	return poll(&p, 1, 0) == 1 && (p.revents & POLLPRI);
}

static void check(const char *when)
{
	int bad = 0;
#define want(cond, what)                                                                                     \
	do {                                                                                                 \
		if (!(cond)) {                                                                               \
			test_msg("%s: %s\n", when, what);                                                    \
			bad++;                                                                               \
		}                                                                                            \
	} while (0)
	want(sk_atmark(B) == 0 && pri(B) && oob(B, 1) == 'X', "B: not an OOB 'X' after data");
	want(rd(B, "pre"), "B: the read does not stop at the mark after \"pre\"");
	want(sk_atmark(B) == 1 && oob(B, 0) == 'X' && !pri(B), "B: no OOB 'X' at the mark");
	want(rd(B, "post") && rd(B, ""), "B: not \"post\" after the mark");

	want(sk_atmark(D) == 1 && oob(D, 0) == 'Y', "D: no OOB 'Y' at the head");
	want(rd(D, "after") && rd(D, ""), "D: not \"after\" after the mark");

	want(sk_atmark(F) == 0 && oob(F, 0) == -1 && !pri(F), "F: an OOB byte, but it was read");
	want(rd(F, "ab"), "F: the read does not stop at the mark of the read OOB byte");
	want(sk_atmark(F) == 1, "F: not at the mark after \"ab\"");
	want(rd(F, "de") && rd(F, ""), "F: not \"de\" after the mark");

	want(sk_atmark(H) == 0 && oob(H, 0) == -1 && pri(H), "H (SO_OOBINLINE): no mark ahead");
	want(rd(H, "12"), "H: the read does not stop at the mark");
	want(sk_atmark(H) == 1 && oob(H, 0) == -1, "H: not at the mark after \"12\"");
	want(rd(H, "345") && rd(H, ""), "H: not \"345\" inline");

	want(sk_atmark(J) == 0 && oob(J, 1) == '2', "J: not the last OOB byte '2'");
	want(rd(J, "k1m"), "J: not \"k1m\" before the mark");
	want(sk_atmark(J) == 1 && oob(J, 0) == '2', "J: no OOB '2' at the mark");
	want(rd(J, "n") && rd(J, ""), "J: not \"n\" after the mark");

	want(sk_atmark(L) == 1 && oob(L, 0) == -1 && !pri(L), "L: not at the mark of the read OOB byte");
	want(rd(L, "jk") && rd(L, ""), "L: not \"jk\" after the mark");
	want(sk_atmark(N) == 0 && rd_big(N, big1, BIG1, 1), "N: not 300 KiB before the mark");
	want(oob(N, 0) == 'Z' && rd_big(N, big2, BIG2, 0) && rd(N, ""), "N: no OOB 'Z', then 100 KiB");
	int fds[8] = {-1}, nfds = 0;
	char buf[8];
	want(rd(P, "r") && sk_atmark(P) == 1 && oob(P, 0) == 's', "P: not \"r\", then OOB 's'");
	want(sk_recv_fds(P, buf, sizeof(buf), fds, &nfds, NULL) == 1 && buf[0] == 't' && nfds == 1 &&
		 read(fds[0], buf, sizeof(buf)) == 4 && !memcmp(buf, "pipe", 4) && rd(P, ""),
	     "P: not \"t\" with the pipe after the mark");
	if (nfds > 0)
		close(fds[0]);
	want(sk_atmark(S) == 1 && pri(S) && rd(S, "678") && rd(S, ""),
	     "S (SO_OOBINLINE): not '6' at the mark, then \"78\"");
	want(rd(U, "uv") && sk_atmark(U) == 1 && oob(U, 0) == 'w' && recv(U, buf, 1, MSG_DONTWAIT) == 0,
	     "U (peer closed): not \"uv\", OOB 'w', end");
	want(rd(W, "a") && oob(W, 0) == 'b' && rd(W, "c") && rd(W, ""),
	     "W (SO_PASSCRED): not \"a\", OOB 'b', \"c\"");
	want(urgs == 1, "not one SIGURG");
	if (bad)
		fail("%s: %d wrong", when, bad);
}

static void setup(void)
{
	int one = 1;
	for (int fd = A; fd <= O; fd += 2)
		sk_pair(SOCK_STREAM, fd, fd + 1);
	for (int fd = R; fd <= V; fd += 2)
		sk_pair(SOCK_STREAM, fd, fd + 1);
	if (fcntl(B, F_SETOWN, getpid()) || setsockopt(H, SOL_SOCKET, SO_OOBINLINE, &one, sizeof(one)))
		fail("F_SETOWN, SO_OOBINLINE");
	sk_put(A, "pre", 0), sk_put(A, "X", MSG_OOB), sk_put(A, "post", 0);
	sk_put(C, "Y", MSG_OOB), sk_put(C, "after", 0);
	sk_put(E, "ab", 0), sk_put(E, "c", MSG_OOB), sk_put(E, "de", 0);
	if (oob(F, 0) != 'c')
		fail("F: no OOB byte");
	sk_put(G, "12", 0), sk_put(G, "3", MSG_OOB), sk_put(G, "45", 0);
	sk_put(I, "k", 0), sk_put(I, "1", MSG_OOB), sk_put(I, "m", 0), sk_put(I, "2", MSG_OOB),
	    sk_put(I, "n", 0);
	sk_put(K, "gh", 0), sk_put(K, "i", MSG_OOB), sk_put(K, "jk", 0);
	int sz = 1024 * 1024;
	if (setsockopt(M, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz)) || send(M, big1, BIG1, 0) != BIG1 ||
	    send(M, "Z", 1, MSG_OOB) != 1 || send(M, big2, BIG2, 0) != BIG2)
		fail("M: 300 KiB, OOB 'Z', 100 KiB");
	int fd = sk_scm_pipe("pipe", Q);
	sk_put(O, "r", 0), sk_put(O, "s", MSG_OOB);
	if (sk_send_fds(O, "t", 1, &fd, 1))
		fail("O: \"t\" with a pipe");
	close(fd), close(Q);
	if (setsockopt(S, SOL_SOCKET, SO_OOBINLINE, &one, sizeof(one)) ||
	    setsockopt(W, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)))
		fail("SO_OOBINLINE, SO_PASSCRED");
	sk_put(R, "6", MSG_OOB), sk_put(R, "78", 0);
	sk_put(T, "uv", 0), sk_put(T, "w", MSG_OOB);
	close(T);
	sk_put(V, "a", 0), sk_put(V, "b", MSG_OOB), sk_put(V, "c", 0);
	if (!rd(L, "gh") || oob(L, 0) != 'i')
		fail("L: not \"gh\" then OOB 'i'");
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	datagen(big1, BIG1, 1);
	datagen(big2, BIG2, 2);
	if (signal(SIGURG, on_urg) == SIG_ERR)
		fail("SIGURG");
	sk_need_oob();
	/* the checks, without C/R: they pass on the kernel as it is */
	setup();
	check("before C/R");
	for (int fd = A; fd <= W; fd++)
		close(fd);
	urgs = 0;
	setup();
	test_daemon();
	test_waitsig();
	check("after restore");
	return test_pass();
}
