/* Files in flight on a dgram socketpair (fds 11 -> 12) whose receiver has SO_PASSCRED: "one" carrying an
 * eventfd (counter 3, held only in flight), "two" plain, "three" carrying a memfd and a regular file the
 * task also holds (fd 20, offset 4: the same open file description after restore). Received after restore:
 * the three messages in order with their boundaries, files and the sender's uid and gid. */
#include <stdint.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/kcmp.h>
#include "sk_unix.h"

enum { A = 11, B = 12, F = 20 };

static void expect(const char *want, int nwant, int *fds)
{
	char buf[64] = "";
	struct ucred cr = {.pid = 0, .uid = 12345, .gid = 12345};
	int n = -1;
	ssize_t got = sk_recv_fds(B, buf, sizeof(buf) - 1, fds, &n, &cr);
	if (got != (ssize_t)strlen(want) || memcmp(buf, want, strlen(want)) || n != nwant)
		fail("read '%.*s' with %d files, want '%s' with %d", (int)(got > 0 ? got : 0), buf, n, want,
		     nwant);
	if (cr.uid != getuid() || cr.gid != getgid())
		fail("'%s': credentials uid %u gid %u, want %u %u", want, cr.uid, cr.gid, getuid(), getgid());
}

int main(int argc, char **argv)
{
	int fds[8], one = 1;
	uint64_t v = 0;
	char c[8] = "";

	test_init(argc, argv);
	sk_pair(SOCK_DGRAM, A, B);
	if (setsockopt(B, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)))
		fail("SO_PASSCRED");
	int ev = eventfd(3, 0), m = memfd_create("scm-dgram", 0);
	int f = open("scm_dgram.txt", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (ev < 0 || m < 0 || f < 0 || write(m, "mem", 3) != 3 || write(f, "0123456789", 10) != 10 ||
	    lseek(f, 4, SEEK_SET) != 4)
		fail("files");
	sk_place(f, F, 0);
	fds[0] = m, fds[1] = F;
	if (sk_send_fds(A, "one", 3, &ev, 1) || sk_send(A, "two", 3) || sk_send_fds(A, "three", 5, fds, 2))
		fail("send");
	close(ev);
	close(m);
	test_daemon();
	test_waitsig();

	expect("one", 1, fds);
	if (read(fds[0], &v, sizeof(v)) != sizeof(v) || v != 3)
		fail("eventfd counter %llu, want 3", (unsigned long long)v);
	expect("two", 0, fds);
	expect("three", 2, fds);
	if (pread(fds[0], c, 3, 0) != 3 || memcmp(c, "mem", 3))
		fail("memfd contents '%.3s'", c);
	if (syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, fds[1], F) != 0)
		fail("regular file: not the open file description of fd %d", F);
	if (lseek(F, 0, SEEK_CUR) != 4)
		fail("regular file: offset %lld, want 4", (long long)lseek(F, 0, SEEK_CUR));
	if (!sk_empty(B))
		fail("more data queued");
	return test_pass();
}
