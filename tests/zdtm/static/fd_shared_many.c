/* Many open file descriptions of one inode: 48 children each open shared.data on their own (48 descriptions)
 * at offset 10*i, and each has a grandchild that inherits the child's description. The dump numbers the
 * tree's descriptions with kcmp in O(log n) steps (engine/files/dump-fdshare.c); after restore each child's
 * offset is still its own (10*i), and an lseek by the child is seen by its grandchild (one description) and
 * by no other. Before: the same result with a quadratic number of kcmp calls; this test guards the sorted
 * look-up (a wrong order would merge or split descriptions). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define KIDS 48

static int kid(int i, int go)
{
	int fd = open("shared.data", O_RDWR), gp[2];
	char b;
	pid_t g;
	if (fd < 0 || lseek(fd, 10 * i, SEEK_SET) != 10 * i || pipe(gp))
		return 1;
	g = test_fork();
	if (g == 0) {
		close(gp[1]);
		if (read(gp[0], &b, 1) != 1)
			_exit(2);
		_exit(lseek(fd, 0, SEEK_CUR) == 10 * i + 5 ? 0 : 3);
	}
	close(gp[0]);
	if (read(go, &b, 1) != 1)
		return 4;
	if (lseek(fd, 0, SEEK_CUR) != 10 * i)
		return 5;
	if (lseek(fd, 5, SEEK_CUR) != 10 * i + 5 || write(gp[1], "g", 1) != 1)
		return 6;
	int st;
	if (waitpid(g, &st, 0) != g || !WIFEXITED(st))
		return 7;
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	pid_t k[KIDS];
	int go[2], fd;
	test_init(argc, argv);
	fd = open("shared.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 4096) || pipe(go))
		fail("setup");
	close(fd);
	for (int i = 0; i < KIDS; i++) {
		k[i] = test_fork();
		if (k[i] == 0) {
			close(go[1]);
			_exit(kid(i, go[0]));
		}
	}
	close(go[0]);
	test_daemon();
	test_waitsig();
	for (int i = 0; i < KIDS; i++)
		if (write(go[1], "g", 1) != 1)
			fail("go");
	for (int i = 0; i < KIDS; i++) {
		int st;
		if (waitpid(k[i], &st, 0) != k[i] || !WIFEXITED(st) || WEXITSTATUS(st))
			fail("child %d (offset %d): status %#x (3: the grandchild's offset, 5: its own)", i,
			     10 * i, st);
	}
	return test_pass();
}
